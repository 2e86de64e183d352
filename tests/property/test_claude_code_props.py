"""Hypothesis: hostile transcript lines never break the Claude Code reader, and
nothing the client wrote ever comes out as typed text."""

from __future__ import annotations

import io
import itertools
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgar.transcripts.claude_code import Exchange, ScanResult, Typed, scan_stream

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_ids = itertools.count()

# ----- strategies ---------------------------------------------------------------------

json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
FIELDS = ["type", "uuid", "message", "content", "origin", "isMeta", "isSidechain", "toolUseResult",
          "sessionId", "timestamp", "operation", "attachment", "promptSource", "apiBlockIndex",
          "requestId"]
TYPES = ["user", "assistant", "system", "queue-operation", "attachment", "summary", "progress", "x"]


@st.composite
def odd_record(draw) -> dict:
    """A record with plausible keys and random value types."""
    keys = draw(st.lists(st.sampled_from(FIELDS), max_size=8, unique=True))
    rec = {k: draw(json_value) for k in keys}
    if draw(st.booleans()):
        rec["type"] = draw(st.sampled_from(TYPES))
    if draw(st.booleans()):
        rec["message"] = {
            "content": draw(st.one_of(json_value, st.lists(st.dictionaries(
                st.sampled_from(["type", "text", "name", "id", "thinking", "content"]),
                st.one_of(st.sampled_from(["text", "tool_result", "tool_use", "thinking", "image"]),
                          json_value),
                max_size=4), max_size=3))),
            "id": draw(json_value), "usage": draw(json_value), "model": draw(json_value),
        }
    return rec


@st.composite
def shaped_record(draw) -> dict:
    """A well-formed envelope (so every check passes) around hostile insides."""
    block = st.dictionaries(
        st.sampled_from(["type", "text", "name", "id", "thinking", "content", "source"]),
        json_value, max_size=4,
    ).map(lambda d: d if draw(st.booleans()) else {**d, "type": draw(st.sampled_from(
        ["text", "tool_result", "tool_use", "thinking", "image"]))})
    rec = {"type": draw(st.sampled_from(["user", "assistant", "attachment", "queue-operation",
                                         "system"])),
           "uuid": "x", "sessionId": draw(st.sampled_from(["s", "t"])),
           "message": {
               "content": draw(st.one_of(st.text(max_size=30),
                                         st.lists(st.one_of(block, json_value), max_size=4))),
               "id": draw(json_value), "model": draw(json_value), "usage": draw(json_value)},
           "attachment": {
               "type": "queued_command", "prompt": draw(json_value), "origin": draw(json_value),
               "commandMode": draw(json_value), "isMeta": draw(json_value)},
           "operation": draw(st.sampled_from(["enqueue", "dequeue", "remove", "popAll"])),
           "content": draw(st.one_of(st.none(), st.text(max_size=20), st.lists(block, max_size=3))),
           "subtype": draw(st.one_of(st.just("compact_boundary"), json_value))}
    for key in draw(st.lists(st.sampled_from(FIELDS[4:]), max_size=5, unique=True)):
        if key not in ("message", "content", "operation", "attachment", "sessionId"):
            rec[key] = draw(json_value)
    return rec


hostile_line = st.one_of(
    st.binary(max_size=200).map(lambda b: b.replace(b"\n", b" ")),
    json_value.map(lambda v: json.dumps(v).encode()),
    odd_record().map(lambda r: json.dumps(r).encode()),
    shaped_record().map(lambda r: json.dumps(r).encode()),
    st.binary(max_size=60).map(lambda b: b"\x00" * 3 + b.replace(b"\n", b"")),
)


def typed_record(i: int) -> dict:
    return {"type": "user", "uuid": f"v{i}", "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": f"valid message {i} zq"}}


def lines(parts: list[bytes]) -> bytes:
    return b"".join(p + b"\n" for p in parts)


def scan_all(data: bytes, name: str = "main.jsonl", **kw) -> list:
    items = list(scan_stream(io.BytesIO(data), name, **kw))
    assert isinstance(items[-1], ScanResult)
    return items


# ----- properties ----------------------------------------------------------------------

@SETTINGS
@given(st.lists(st.one_of(st.none(), hostile_line), min_size=1, max_size=30))
def test_hostile_lines_never_raise_and_valid_typed_messages_survive(slots):
    parts, expected = [], []
    for i, slot in enumerate(slots):
        if slot is None:
            parts.append(json.dumps(typed_record(i)).encode())
            expected.append(f"valid message {i} zq")
        else:
            parts.append(slot)
    parts.append(json.dumps(typed_record(999)).encode())
    expected.append("valid message 999 zq")
    items = scan_all(lines(parts))
    found = [t.text for t in items if isinstance(t, Typed)]
    assert [t for t in found if t in expected] == expected


@SETTINGS
@given(st.lists(shaped_record(), min_size=1, max_size=12), st.booleans())
def test_well_shaped_records_with_hostile_insides_never_raise(records, final):
    data = lines([json.dumps(r).encode() for r in records])
    for name in ("main.jsonl", "proj/agent-1.jsonl"):
        scan_all(data, name, final=final)


@SETTINGS
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise(data):
    scan_all(data)
    scan_all(data, final=False)


SECRET = "CLIENTSECRET"


@st.composite
def client_record(draw, i: int) -> dict:
    """A record the client marks as its own, carrying a tell-tale token."""
    body = draw(st.text(max_size=30)) + f" {SECRET}{i} " + draw(st.text(max_size=30))
    content = draw(st.sampled_from(["string", "blocks", "ide"]))
    msg_content = {"string": body, "blocks": [{"type": "text", "text": body}],
                   "ide": [{"type": "text", "text": "<ide_selection>x</ide_selection>"},
                           {"type": "text", "text": body}]}[content]
    rec = {"type": "user", "uuid": f"c{i}", "sessionId": "s", "timestamp": "2026-01-01T00:00:01Z",
           "message": {"role": "user", "content": msg_content}}
    how = draw(st.sampled_from(["meta", "origin", "sidechain", "tool_result", "toolUseResult",
                                "compact", "queued_command", "enqueue"]))
    truthy = draw(st.one_of(st.just(True), st.integers(min_value=1), st.text(min_size=1),
                            st.lists(st.none(), min_size=1)))
    other_kind = draw(st.one_of(
        st.sampled_from(["task-notification", "peer", "coordinator", "channel"]),
        st.text(max_size=10).filter(lambda k: k != "human")))
    if draw(st.booleans()):
        rec["origin"] = {"kind": "human"}  # a human origin never outweighs the client's own flags
        rec["promptSource"] = "typed"
    if how == "meta":
        rec["isMeta"] = truthy
    elif how == "origin":
        rec["origin"] = {"kind": other_kind}
    elif how == "sidechain":
        rec["isSidechain"] = truthy
    elif how == "tool_result":
        rec["message"]["content"] = [{"type": "tool_result", "tool_use_id": "t", "content": body},
                                     {"type": "text", "text": body}]
    elif how == "toolUseResult":
        rec["toolUseResult"] = draw(json_value)
    elif how == "compact":
        rec["isCompactSummary"] = truthy
    elif how == "queued_command":
        rec = {"type": "attachment", "uuid": f"c{i}", "sessionId": "s",
               "attachment": {"type": "queued_command", "prompt": msg_content,
                              "origin": {"kind": other_kind}}}
    else:
        rec = {"type": "queue-operation", "operation": "enqueue", "sessionId": "s",
               "content": msg_content, "origin": {"kind": other_kind}}
    return rec


@st.composite
def mixed_session(draw):
    out = []
    for i in range(draw(st.integers(min_value=1, max_value=25))):
        choice = draw(st.sampled_from(["client", "client", "typed", "hostile", "assistant"]))
        if choice == "client":
            out.append(json.dumps(draw(client_record(i))).encode())
        elif choice == "typed":
            out.append(json.dumps(typed_record(i)).encode())
        elif choice == "assistant":
            said = [{"type": "text", "text": f"{SECRET}{i} said by the model"}]
            out.append(json.dumps({"type": "assistant", "uuid": f"a{i}", "sessionId": "s",
                                   "message": {"id": f"m{i % 3}", "content": said}}).encode())
        else:
            out.append(draw(hostile_line))
    return lines(out)


@SETTINGS
@given(mixed_session(), st.booleans())
def test_client_marked_text_never_comes_out_as_typed(data, final):
    for name in ("main.jsonl", "proj/s/subagents/agent-a1.jsonl"):
        for item in scan_all(data, name, final=final):
            if isinstance(item, Typed):
                assert SECRET not in item.text, item
            if isinstance(item, Exchange):
                for t in item.typed:
                    assert SECRET not in t.text


@SETTINGS
@given(st.lists(hostile_line, max_size=10))
def test_sidechain_files_never_yield_typed_text(hostile):
    data = lines([json.dumps(typed_record(i)).encode() for i in range(3)] + hostile)
    items = scan_all(data, "proj/agent-3be551df.jsonl")
    assert not [i for i in items if isinstance(i, (Typed, Exchange))]


# ----- resumable scans ------------------------------------------------------------------

POOL = ["alpha", "beta", "/cmd x", "gamma"]


@st.composite
def session_events(draw) -> list[bytes]:
    """Plausible sessions with colliding queued/typed texts (to stress de-duplication)."""
    out = []
    for i in range(draw(st.integers(min_value=1, max_value=30))):
        kind = draw(st.sampled_from(["user", "queued_user", "enqueue", "dequeue", "remove", "qc",
                                     "assistant", "tool", "client", "session", "bad"]))
        words = draw(st.sampled_from(POOL))
        session = draw(st.sampled_from(["s1", "s1", "s1", "s2"])) if kind == "session" else "s1"
        base = {"uuid": f"u{i}", "sessionId": session, "timestamp": "2026-01-01T00:00:00Z"}
        if kind in ("user", "session"):
            content = words if not words.startswith("/") else \
                f"<command-name>{words.split()[0]}</command-name><command-args>{words.split()[1]}</command-args>"
            rec = {"type": "user", "message": {"content": content}, **base}
        elif kind == "queued_user":
            rec = {"type": "user", "message": {"content": words}, "origin": {"kind": "human"},
                   "promptSource": "queued", **base}
        elif kind in ("enqueue", "dequeue", "remove"):
            rec = {"type": "queue-operation", "operation": kind, "sessionId": "s1"}
            if kind == "enqueue":
                rec["content"] = words
        elif kind == "qc":
            rec = {"type": "attachment",
                   "attachment": {"type": "queued_command", "prompt": words}, **base}
        elif kind == "assistant":
            rec = {"type": "assistant",
                   "message": {"id": f"m{draw(st.integers(0, 3))}",
                               "content": [{"type": "text", "text": f"r{i}"}],
                               "usage": {"output_tokens": i}}, **base}
        elif kind == "tool":
            rec = {"type": "user", "toolUseResult": {},
                   "message": {"content": [{"type": "tool_result"}]}, **base}
        elif kind == "client":
            rec = {"type": "user", "isMeta": True, "message": {"content": words}, **base}
        else:
            out.append(b"{bad json")
            continue
        out.append(json.dumps(rec).encode())
    return out


def _typed(items):
    return [(t.line, t.source, t.text, t.session_id) for t in items if isinstance(t, Typed)]


def _exchanges(items):
    latest = {}
    for x in items:
        if isinstance(x, Exchange):
            latest[x.line] = x
    return latest


@SETTINGS
@given(session_events(), st.data())
def test_any_split_equals_one_scan(events, data):
    blob = lines(events)
    cut = data.draw(st.integers(min_value=0, max_value=len(blob)))
    final_last = data.draw(st.booleans())
    full = scan_all(blob, final=final_last)
    first = scan_all(blob[:cut], final=False)
    second = scan_all(blob, mark=first[-1].mark, final=final_last)
    assert _typed(first + second) == _typed(full)
    assert _exchanges(first + second) == _exchanges(full)
    assert first[-1].typed + second[-1].typed == full[-1].typed
    assert first[-1].exchanges + second[-1].exchanges == full[-1].exchanges


@SETTINGS
@given(session_events(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=3))
def test_final_scans_never_report_typed_text_twice(events, cuts):
    blob = lines(events)
    ends = sorted({min(c, len(blob)) for c in cuts} | {len(blob)})
    seen, mark = [], None
    for end in ends:
        items = scan_all(blob[:end], mark=mark, final=True)
        seen += [(t.text, t.session_id) for t in items if isinstance(t, Typed)]
        mark = items[-1].mark
    full = [(t.text, t.session_id) for t in scan_all(blob, final=True) if isinstance(t, Typed)]
    assert sorted(seen) == sorted(full)


def test_a_queued_repeat_after_a_final_scan_of_its_enqueue_keeps_later_copies_repeats():
    # Found by hypothesis: a final scan that ends right after an ``enqueue`` reports the
    # text; the next scan meets the repeat (promptSource "queued") and then more records
    # with the same words. One scan of the whole file drops those as the queued text
    # written again; the resumed scan must too.
    events = [b'{"type": "queue-operation", "operation": "enqueue", "sessionId": "s1", '
              b'"content": "alpha"}',
              b'{"type": "user", "message": {"content": "alpha"}, "origin": {"kind": "human"}, '
              b'"promptSource": "queued", "uuid": "u1", "sessionId": "s1", '
              b'"timestamp": "2026-01-01T00:00:00Z"}']
    events += [b'{"type": "user", "message": {"content": "alpha"}, "uuid": "u%d", '
               b'"sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z"}' % n
               for n in range(2, 6)]
    blob = lines(events)
    first = scan_all(blob[:90], final=True)
    second = scan_all(blob, mark=first[-1].mark, final=True)
    seen = [(t.text, t.session_id) for t in first + second if isinstance(t, Typed)]
    full = [(t.text, t.session_id) for t in scan_all(blob, final=True) if isinstance(t, Typed)]
    assert sorted(seen) == sorted(full) == [("alpha", "s1")]
