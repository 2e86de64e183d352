"""Bad lines are skipped and counted with file and line; neighbours survive; nothing raises.
Resumable scans report every typed message exactly once."""

from __future__ import annotations

import gc
import json
import os
import tracemalloc

import pytest
from cc_fixtures import (
    anomalies,
    asst,
    exchanges,
    lines,
    malformed,
    queue,
    queued_command,
    result,
    run,
    run_bytes,
    text,
    texts,
    tool_result,
    typed,
    user,
)

from edgar.transcripts.claude_code import Exchange, ScanMark, Typed, scan

BEFORE = user("before the bad line")
AFTER = user("after the bad line")


def around(bad: bytes) -> bytes:
    return lines(BEFORE) + bad + b"\n" + lines(asst("m", text("reply")), AFTER)


BAD_LINES = {
    "invalid JSON": b'{"type": "user", "message": {"content": "unterminated',
    "not an object": b'"massive error"',
    "a number": b"42",
    "JSON null": b"null",
    "no type": b'{"silly": "this"}',
    "record without uuid":
        json.dumps({"type": "user", "message": {"content": "no uuid here"}}).encode(),
    "message as a string": json.dumps({"type": "user", "uuid": "x", "message": "error"}).encode(),
    "content is a number":
        json.dumps({"type": "user", "uuid": "x", "message": {"content": 7}}).encode(),
    "content is an object":
        json.dumps({"type": "user", "uuid": "x", "message": {"content": {"text": "hi"}}}).encode(),
    "content missing":
        json.dumps({"type": "assistant", "uuid": "x", "message": {"contenst": []}}).encode(),
    "NUL inside": b'{"type": "user",\x00 "uuid": "x"}',
    "only NULs": b"\x00\x00\x00\x00",
    "invalid UTF-8": b'{"type": "user", "uuid": "x", "message": {"content": "\xff\xfe"}}',
    "deep nesting": b"[" * 100000 + b"]" * 100000,
    "huge integer": b'{"type": "user", "n": ' + b"9" * 10000 + b"}",
    "queue op without operation": b'{"type": "queue-operation", "content": "x"}',
    "attachment not an object":
        b'{"type": "attachment", "uuid": "a", "attachment": "queued_command"}',
}


@pytest.mark.parametrize("label", sorted(BAD_LINES))
def test_a_bad_line_is_skipped_counted_and_its_neighbours_survive(label):
    items = run_bytes(around(BAD_LINES[label]), name="proj/s.jsonl")
    assert texts(items) == ["before the bad line", "after the bad line"]
    (bad,) = malformed(items)
    assert (bad.file, bad.line) == ("proj/s.jsonl", 2)
    assert bad.reason
    assert result(items).malformed == 1


def test_the_reply_after_a_bad_line_still_joins_its_exchange():
    items = run_bytes(lines(BEFORE) + b"{broken\n" + lines(asst("m", text("reply"))))
    assert [r.message_id for r in exchanges(items)[0].replies] == ["m"]


def test_nul_padding_around_a_record_is_stripped_and_noted():
    items = run_bytes(lines(BEFORE) + b"\x00\x00" + lines(user("padded")) + lines(AFTER))
    assert texts(items) == ["before the bad line", "padded", "after the bad line"]
    assert [(a.line, a.reason) for a in anomalies(items)] == [(2, "NUL bytes stripped")]


def test_missing_timestamp_keeps_the_record():
    record = user("no clock")
    del record["timestamp"]
    items = run(BEFORE, record, AFTER)
    assert texts(items) == ["before the bad line", "no clock", "after the bad line"]
    assert typed(items)[1].timestamp is None
    assert [(a.line, a.reason) for a in anomalies(items)] == [(2, "no timestamp")]


def test_unknown_record_and_block_types_are_tolerated_and_counted():
    items = run(
        BEFORE,
        {"type": "hologram", "payload": {"x": 1}},
        {"type": "ai-title", "aiTitle": "known sidecar"},
        user([{"type": "sticker", "id": 3}, text("with a sticker"), "a bare string", 5]),
        asst("m", {"type": "quantum_block"}, text("still read")),
        AFTER,
    )
    assert texts(items) == ["before the bad line", "with a sticker", "after the bad line"]
    assert result(items).unknown_types == {"hologram": 1}
    assert malformed(items) == []
    reasons = sorted(a.reason for a in anomalies(items))
    assert reasons == ["content block is not an object", "content block is not an object",
                       "unknown block type 'quantum_block'", "unknown block type 'sticker'"]
    assert exchanges(items)[1].replies[0].text == "still read"


@pytest.mark.parametrize("field,value", [
    ("isSidechain", "yes"), ("isMeta", 1), ("origin", ["human"]), ("sessionId", 5),
    ("promptSource", {"x": 1}), ("toolUseResult", None), ("timestamp", 12),
])
def test_odd_field_types_never_raise(field, value):
    items = run(BEFORE, user("odd", **{field: value}), AFTER)
    assert texts(items)[0] == "before the bad line" and texts(items)[-1] == "after the bad line"


def test_wrong_types_inside_assistant_messages_never_raise():
    odd = asst("m", text("x"),
               usage={"input_tokens": "9", "output_tokens": True, "cache_read_input_tokens": -5})
    odd["message"]["model"] = 42
    odd["message"]["id"] = ["not", "a", "string"]
    bad_blocks = asst("m", {"type": "text", "text": 5}, {"type": "tool_use", "name": None})
    items = run(BEFORE, odd, bad_blocks, AFTER)
    assert texts(items) == ["before the bad line", "after the bad line"]


def test_a_torn_last_line_is_counted_but_not_consumed(tmp_path):
    path = tmp_path / "s.jsonl"
    whole = lines(BEFORE)
    torn = json.dumps(user("finished later")).encode()
    path.write_bytes(whole + torn[:25])
    items = list(scan(path, final=False))
    assert [(m.line, m.reason.startswith("torn")) for m in malformed(items)] == [(2, True)]
    mark = result(items).mark
    assert (mark.offset, mark.line) == (len(whole), 1)
    with open(path, "ab") as f:  # the writer finishes the line
        f.write(torn[25:] + b"\n")
    again = list(scan(path, mark, final=False))
    assert [(t.line, t.text) for t in typed(again)] == [(2, "finished later")]
    assert malformed(again) == []


def test_a_last_line_without_newline_is_used_by_a_final_scan_but_not_consumed():
    whole = lines(BEFORE)
    data = whole + json.dumps(user("no newline")).encode()
    items = run_bytes(data)
    assert texts(items) == ["before the bad line", "no newline"]
    assert (result(items).mark.offset, result(items).mark.line) == (len(whole), 1)
    items = run_bytes(data, final=False)  # may still be written: wait for its newline
    assert texts(items) == ["before the bad line"] and malformed(items) == []
    later = run_bytes(data + b"\n" + lines(AFTER), mark=result(items).mark, final=False)
    assert [(t.line, t.text) for t in typed(later)] == [
        (2, "no newline"), (3, "after the bad line")]


def test_a_50_mb_line_is_read_and_its_neighbours_survive(tmp_path):
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as f:
        f.write(lines(BEFORE))
        big = tool_result("small")
        big["message"]["content"][0]["content"] = "A" * (50 * 1024 * 1024)  # one 50 MB field
        f.write(json.dumps(big).encode() + b"\n")
        # 50 MB of damage
        f.write(b'{"type": "user", "junk": "' + b"B" * (50 * 1024 * 1024) + b"\n")
        f.write(lines(AFTER))
    items = list(scan(path))
    assert texts(items) == ["before the bad line", "after the bad line"]
    assert [m.line for m in malformed(items)] == [3]
    assert result(items).client_messages == {"tool-result": 1}


def test_a_line_over_the_limit_is_skipped_without_being_held(tmp_path):
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as f:
        f.write(lines(BEFORE))
        f.write(json.dumps(user("X" * (50 * 1024 * 1024))).encode() + b"\n")
        f.write(lines(AFTER))
    tracemalloc.start()
    try:
        items = list(scan(path, max_line=1024 * 1024))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert texts(items) == ["before the bad line", "after the bad line"]
    assert [(m.line, m.reason) for m in malformed(items)] == [(2, "line longer than 1048576 bytes")]
    assert peak < 8 * 1024 * 1024  # the 50 MB line was never in memory


def test_the_original_file_is_not_modified(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(BEFORE, asst("m", text("r")), AFTER) + b"{torn")
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    list(scan(path))
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


# ----- resumable scans ------------------------------------------------------------------

SESSION = [
    user("first question"),
    asst("m1", text("a")),
    queue("enqueue", [text("<ide_opened_file>x</ide_opened_file>"), text("second question")]),
    queue("dequeue"),
    user([text("<ide_opened_file>x</ide_opened_file>"), text("second question")]),
    asst("m2", {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}),
    queue("enqueue", "steer left"),
    queue("remove"),
    tool_result(),
    asst("m2", text("b")),
    queue("enqueue", "steer right"),
    queue("enqueue", "/cmd arg"),
    queue("remove"),
    user("<command-name>/cmd</command-name><command-args>arg</command-args>"),
    "{not json",
    user("[Request interrupted by user]"),
    user("third question"),
    asst("m3", text("c")),
]


def _typed(items):
    return [(t.line, t.source, t.text) for t in items if isinstance(t, Typed)]


def test_scanning_in_two_halves_equals_one_scan(tmp_path):
    data = lines(*SESSION)
    full = _typed(run_bytes(data, final=False))
    assert full == [(1, "user", "first question"), (5, "user", "second question"),
                    (7, "enqueue", "steer left"), (11, "enqueue", "steer right"),
                    (14, "command", "/cmd arg"), (17, "user", "third question")]
    cuts = [i + 1 for i, b in enumerate(data) if b == 0x0A] + [7, 300, len(data) - 3]
    path = tmp_path / "s.jsonl"
    for cut in cuts:
        path.write_bytes(data[:cut])
        first = list(scan(path, final=False))
        mark = ScanMark.from_json(first[-1].mark.to_json())  # as the importer stores it
        with open(path, "ab") as f:
            f.write(data[cut:])
        second = list(scan(path, mark, final=False))
        assert _typed(first + second) == full, cut
        assert first[-1].typed + second[-1].typed == len(full)
        assert first[-1].malformed + second[-1].malformed - sum(
            m.reason.startswith("torn") for m in malformed(first)) == 1


def test_three_way_split_and_a_final_scan_report_nothing_twice(tmp_path):
    data = lines(*SESSION)
    full_final = [t[2] for t in _typed(run_bytes(data, final=True))]
    cuts = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    path = tmp_path / "s.jsonl"
    for a in cuts[::3]:
        for b in [c for c in cuts if c > a][::4]:
            seen, mark = [], None
            for end in (a, b, len(data)):
                path.write_bytes(data[:end])
                items = list(scan(path, mark))
                seen += [t.text for t in typed(items)]
                mark = result(items).mark
            # final scans may report queued text under its enqueue line first,
            # but never twice
            assert sorted(seen) == sorted(full_final), (a, b)


def test_an_unchanged_file_is_not_read_again(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(*SESSION))
    mark = result(list(scan(path))).mark
    again = list(scan(path, mark))
    assert len(again) == 1 and result(again).lines == 0 and result(again).mark == mark


def test_a_replaced_file_is_read_from_the_start(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines(*SESSION))
    mark = result(list(scan(path))).mark
    path.write_bytes(lines(user("a brand new session with a different start"), *SESSION))
    items = list(scan(path, mark))
    assert result(items).restarted
    assert texts(items)[0] == "a brand new session with a different start"
    path.write_bytes(lines(user("short")))
    assert result(list(scan(path, mark))).restarted


def _session_file(path, exchanges_count: int) -> None:
    with open(path, "wb") as f:
        for i in range(exchanges_count):
            f.write(lines(
                user(f"question {i}"),
                asst(f"m{i}", text("thinking about it " * 20)),
                asst(f"m{i}", {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {}}),
                tool_result("file contents " * 50),
                queue("enqueue", f"steer {i}"),
                queue("remove"),
                asst(f"n{i}", text("answer " * 30)),
            ))


def test_memory_does_not_grow_with_the_file(tmp_path):
    path = tmp_path / "long.jsonl"
    _session_file(path, 3000)
    samples = []
    tracemalloc.start()
    try:
        for item in scan(path):  # items are dropped as they come, as an importer would
            if isinstance(item, Exchange) and item.line % 3500 == 1:  # every 500 exchanges
                gc.collect()
                samples.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert len(samples) == 6
    # After the bounded caches fill (first 500 exchanges) what is held stays
    # flat, give or take parser buffers: 2500 more exchanges may not add 60
    # bytes each.
    assert max(samples[1:]) - samples[1] < 150_000, samples


def test_resume_sees_queued_text_still_pending_when_the_exchange_opened():
    # E and P queued; E's user record opens the exchange while P still waits;
    # Q is queued; then P and Q come back as queued_commands. Resuming at any
    # line must rebuild P's wait, or Q would be settled early and counted twice.
    records = [
        queue("enqueue", "E"), queue("enqueue", "P"), user("E"), asst("m", text("a")),
        queue("enqueue", "Q"), queued_command("P"), queued_command("Q"), asst("m2", text("b")),
    ]
    data = lines(*records)
    full = _typed(run_bytes(data, final=False))
    assert [(src, txt) for _, src, txt in full] == [
        ("user", "E"), ("queued_command", "P"), ("queued_command", "Q")]
    for cut in [i + 1 for i, b in enumerate(data) if b == 0x0A]:
        first = run_bytes(data[:cut], final=False)
        second = run_bytes(data, mark=result(first).mark, final=False)
        assert _typed(first + second) == full, cut


def test_a_stored_mark_from_another_version_still_loads():
    mark = ScanMark(size=10, offset=5, line=1, emitted=(1,))
    data = json.loads(mark.to_json())
    data["from_the_future"] = True
    del data["open_line"]
    assert ScanMark.from_json(json.dumps(data)) == mark
    with pytest.raises(ValueError):
        ScanMark.from_json("[1, 2]")
