"""Real Claude Code transcripts: who typed what, checked by hand.

The files in tests/data/claude-code/ are copies of public MIT-licensed
transcripts (see SOURCES.md there for each file's origin and licence).

Every expectation below was written by reading the file line by line, not by
running the reader: for each file, the physical line numbers of the messages
a person typed, the first words of each, and how it was entered. Lines not
listed are the client's (tool results, isMeta expansions, caveats, command
output, interrupts, compaction summaries, sidechain prompts) or duplicates
(an ``enqueue`` repeated by the ``user`` record that follows it).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from edgar.transcripts.claude_code import (
    Exchange,
    Malformed,
    ScanResult,
    Typed,
    scan,
    scan_stream,
    summarize,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "claude-code"
CCL = "iansherr__claude-code-log__test__test_data__"
RP = CCL + "real_projects__"
RECORDER = RP + "-Users-dain-workspace-JSSoundRecorder__7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl"
LOG_SAMPLE = RP + "-Users-dain-workspace-claude-code-log-sample__"
TEAMMATE = (RP + "-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1"
            "__subagents__agent-a52886dc180afb356")
SUBAGENT = (RP + "-src-experiments-claude_p__29ccd257-68b1-427f-ae5f-6524b7cb6f20"
            "__subagents__agent-a2271d1.jsonl")

# file -> [(line, source, first words of the typed text)]
EXPECTED: dict[str, list[tuple[int, str, str]]] = {
    # Hand-written fixture (v1.0.x shape). 1, 3, 12: plain prompts; 7: a slash
    # command written as <command-name>test-command</command-name><command-args>…
    # (no leading slash in this old form). 5, 18: tool results. 6: the Caveat
    # sentence. 8: <local-command-stdout>. 10, 11, 13-16 are skipped (below).
    CCL + "edge_cases.jsonl": [
        (1, "user", "Here's a message with some **markdown** formatting"),
        (3, "user", "Let's test a very long message to see how it handles"),
        (7, "command", "/test-command --verbose --output /tmp/test.log"),
        (12, "user", "Testing special characters: café, naïve"),
    ],
    # v2.0.42 VS Code: every prompt is enqueue -> dequeue -> user (1-3, 45-47,
    # 57-59, 62-64, 97-99, 167-169); the user record is the one counted. 4 is the
    # isMeta /init expansion; 47 and 169 begin with an IDE context block
    # (<ide_opened_file>, <ide_selection>) that is not typed; 56 is an interrupt.
    RECORDER: [
        (3, "command", "/init"),
        (47, "user", "OK, so this was just so you know what there is now"),
        (59, "user", "I have both Node and Python, but I don't want"),
        (64, "user", "ok, fine, let's do vite"),
        (99, "user", "yes please, and let's make it cross-browser"),
        (169, "user", "Let's also Migrate to AudioWorklet"),
    ],
    # v1.0.29: four summary titles, one string prompt, then only tool results.
    LOG_SAMPLE + "07f2e15c-a38b-454b-9148-60edc06de401.jsonl": [
        (5, "user", "Can you please update the top level index.html"),
    ],
    # v1.0.56: 1 isMeta caveat, 2 /clear, 3 its empty stdout, 4 `!` bash mode,
    # 5 bash output, 6 the prompt; the rest are tool results.
    LOG_SAMPLE + "12a546d1-83a7-49a6-abba-5400db340b43.jsonl": [
        (2, "command", "/clear"),
        (4, "bash", "!uv run pytest -m browser -v"),
        (6, "user", "We've just done a big refactoring (Phase 2"),
    ],
    # Old-layout sidechain: "Warmup" written by the client.
    RP + "-Users-dain-workspace-claude-code-log-sample__agent-3be551df.jsonl": [],
    # v2.1.42: seven prompts (32 and 52 are the same words typed twice, on two
    # branches), then the isMeta caveat (59), /exit (60) and its stdout (61).
    RP + "-experiments-ideas__03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl": [
        (3, "user", "Ok, so there's isn't much to see here"),
        (18, "user", "I very much like this idea"),
        (25, "user", "OK, so, to be fair, maybe also list 5 weak points"),
        (32, "user", "Fair enough. Can you write a balanced opinion"),
        (38, "user", "I actually don't like much this idea"),
        (45, "user", "Ok, so, to be fair, maybe also list 5 strengths"),
        (52, "user", "Fair enough. Can you write a balanced opinion"),
        (60, "command", "/exit"),
    ],
    # v2.1.114: attachments, last-prompt (repeats 5 and 117: not new), /exit.
    RP + "-experiments-worktrees__ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl": [
        (5, "user", "OK, we're going to make a little experiment here"),
        (117, "user", "Well, the subagents seem to be either stuck or done"),
        (179, "command", "/exit"),
    ],
    # Teammate transcript: the prompt at 1 was written by the parent model.
    TEAMMATE + ".jsonl": [],
    # Not a transcript (agent metadata): one object without a record type.
    TEAMMATE + ".meta.json": [],
    RP + "-src-deep-manifest__agent-c8d9b115.jsonl": [],
    # v2.1.17: a lone dequeue, a hook progress record, the prompt, Task.
    RP + "-src-experiments-claude_p__29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl": [
        (3, "user", "Use the Explore task in sub-agents with Haiku model"),
    ],
    SUBAGENT: [],
    # v2.1.38: 13 is an interrupt; 14 (/model) is a system record, not a user one.
    "marot__spotter__test__fixtures__transcripts__short.jsonl": [
        (4, "user", "mix phx.server doesnt seem to start"),
    ],
    # v2.1.38: "/mcp" typed while busy: enqueue (9) + remove (10), then after an
    # interrupt the command itself (20 caveat, 21 command, 22 stdout): counted
    # once, at 21. 18 and 39 are interrupts.
    "marot__spotter__test__fixtures__transcripts__tool_heavy.jsonl": [
        (4, "user", "start phoenix in background"),
        (21, "command", "/mcp"),
        (26, "user", "scrolling back in xterm.js still does not work"),
    ],
    "oneryalcin__fasthooks__specs__data__sample_agent_sidechain.jsonl": [],
    # v2.0.76: five prompts, then /compact: boundary (59) + summary (60), the
    # caveat (61), the command (62) and its stdout (63).
    "oneryalcin__fasthooks__specs__data__sample_main_transcript.jsonl": [
        (2, "user", "can you run a command ls -la"),
        (10, "user", "ok can you create a hello_world.py file"),
        (19, "user", "can you read it back with Read tool?"),
        (27, "user", "can you run `cat nonexistent.txt`"),
        (35, "user", "do something requiring multiple tools in one turn"),
        (62, "command", "/compact"),
    ],
}

# Lines skipped as malformed, by file (hand-checked). Every other file: none.
MALFORMED = {
    CCL + "edge_cases.jsonl": {
        10: "content of the wrong type",  # "contenst": no content at all
        11: "message is not an object",  # "message": "error"
        13: "not a JSON object",  # "massive error"
        14: "no record type",  # {"silly": "this"}
        15: "not a JSON object",  # 42
        16: "not a JSON object",  # [1]
    },
    TEAMMATE + ".meta.json": {
        1: "no record type",
    },
}

# Lines consumed: the edge file has 19, but its last one has no newline, so it
# is read (the scan is final) without being consumed: a resumed scan would
# read it again once whole.
LINES = {CCL + "edge_cases.jsonl": 18}


def run(name: str) -> list:
    return list(scan(DATA / name))


def test_every_corpus_file_is_listed():
    on_disk = {p.name for p in DATA.iterdir() if p.name != "SOURCES.md"}
    assert on_disk == set(EXPECTED), "a corpus file has no hand-checked expectation"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_typed_messages_match_the_hand_check(name):
    items = run(name)
    assert isinstance(items[-1], ScanResult)
    typed = [i for i in items if isinstance(i, Typed)]
    got = [(t.line, t.source) for t in typed]
    assert got == [(line, source) for line, source, _ in EXPECTED[name]]
    for t, (_, _, words) in zip(typed, EXPECTED[name], strict=True):
        assert t.text.startswith(words), (t.line, t.text[:80])
        assert "<" not in t.text[:1], "client markup left at the start of typed text"
    assert items[-1].typed == len(EXPECTED[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_malformed_lines_match_the_hand_check(name):
    items = run(name)
    bad = {m.line: m.reason for m in items if isinstance(m, Malformed)}
    assert bad == MALFORMED.get(name, {})
    result = items[-1]
    assert result.malformed == len(bad)
    if name in LINES:
        assert result.lines == LINES[name]


def test_typed_text_has_the_client_parts_removed():
    name = RECORDER
    typed = {t.line: t.text for t in run(name) if isinstance(t, Typed)}
    assert typed[169] == "Let's also Migrate to AudioWorklet"  # <ide_selection> block dropped
    assert "ide_opened_file" not in typed[47]
    fasthooks = run("oneryalcin__fasthooks__specs__data__sample_main_transcript.jsonl")
    fh = {t.line: t.text for t in fasthooks if isinstance(t, Typed)}
    assert fh[2] == "can you run a command ls -la"  # trailing space of the record trimmed


def exchanges(name: str) -> dict[int, Exchange]:
    return {x.line: x for x in run(name) if isinstance(x, Exchange)}


def test_compaction_is_evidence_of_the_open_exchange_not_a_question():
    ex = exchanges("oneryalcin__fasthooks__specs__data__sample_main_transcript.jsonl")
    assert sorted(ex) == [2, 10, 19, 27, 35, 62]
    kinds = [(e.kind, e.line) for e in ex[35].evidence]
    assert kinds == [("compact-boundary", 59), ("compact-summary", 60), ("meta", 61)]
    assert ex[35].evidence[1].text.startswith("This session is being continued")
    # Four API messages answered line 35 (ids …19c8s, …WMh3, …V7rf, …2Xq9).
    assert len(ex[35].replies) == 4
    first = ex[35].replies[0]
    assert first.message_id == "msg_019c8sE19uDEeyHX9xxTLt8Y"
    assert first.tools == ("Write", "Write")
    assert first.usage.output == 993  # records at 36/37/38 say 3, 3, 993: max, not sum
    assert first.thinking and first.thinking not in first.text


def test_streamed_siblings_are_merged_across_tool_results():
    ex = exchanges("marot__spotter__test__fixtures__transcripts__tool_heavy.jsonl")
    assert sorted(ex) == [4, 21, 26]
    assert [(e.kind, e.line) for e in ex[4].evidence] == [("interrupt", 18), ("meta", 20)]
    assert [r.message_id for r in ex[4].replies] == [
        "msg_0167kgZUrgcT7dg7uZK7hVSg", "msg_01NUXWeNeduGBJVib8gyo9kz"]
    # msg_019BN3… has records at 34 (Read) and 37 (WebFetch), a tool result between.
    merged = [r for r in ex[26].replies if r.message_id == "msg_019BN3FRqb7NU4DgBN5jdsym"]
    assert len(merged) == 1
    assert merged[0].tools == ("Read", "WebFetch")
    assert merged[0].usage.output == 173 and merged[0].usage.input == 47


def test_exchange_evidence_in_an_ide_session():
    ex = exchanges(RECORDER)
    assert sorted(ex) == [3, 47, 59, 64, 99, 169]
    assert [(e.kind, e.line) for e in ex[3].evidence] == [("meta", 4)]
    assert ex[3].evidence[0].text.startswith("Please analyze this codebase")
    assert [(e.kind, e.line) for e in ex[47].evidence] == [("interrupt", 56)]
    assert ex[3].replies[0].tools == ("Bash", "Bash", "Glob")
    assert ex[169].open  # the file ends inside it


def test_sidechain_files_have_usage_but_no_typed_text():
    items = run(SUBAGENT)
    result = items[-1]
    assert result.typed == 0 and result.exchanges == 0
    assert result.client_messages == {"sidechain": 25}
    (stats,) = result.sessions
    assert stats.session_id == "29ccd257-68b1-427f-ae5f-6524b7cb6f20"  # the parent's id
    assert stats.usage.output > 0 and stats.messages > 0


def test_two_sessions_in_one_file():
    result = run(CCL + "edge_cases.jsonl")[-1]
    assert sorted(s.session_id for s in result.sessions) == ["edge_cases", "todowrite_session"]


def test_summary_over_the_corpus():
    results = [run(name)[-1] for name in sorted(EXPECTED)]
    summary = summarize(results)
    assert summary["files"] == len(EXPECTED)
    assert summary["typed_messages"] == sum(len(v) for v in EXPECTED.values()) == 36
    assert summary["malformed"] == 7
    assert summary["exchanges"] == 36  # each typed message here starts one
    assert summary["client_messages"]["tool-result"] > 0
    assert set(summary) == {"files", "lines", "malformed", "sessions", "exchanges",
                            "typed_messages", "client_messages"}


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if n.endswith(".jsonl")))
def test_split_scans_equal_one_scan(name):
    """Resuming at any line boundary yields the typed messages of one scan, once."""
    data = (DATA / name).read_bytes()
    full = [t for t in scan_stream(io.BytesIO(data), name, final=False) if isinstance(t, Typed)]
    cuts = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    for cut in cuts[:: max(1, len(cuts) // 40)]:
        first = list(scan_stream(io.BytesIO(data[:cut]), name, final=False))
        second = list(scan_stream(io.BytesIO(data), name, first[-1].mark, final=False))
        split = [t for t in first + second if isinstance(t, Typed)]
        assert split == full, cut
