"""The two decoders of the Claude Code reader give the same items, line for line: msgspec's
(which skips the keys the reader never reads, ADR 0052) and the standard library's (the
pure-Python path, used when msgspec is not installed)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_claude_code_props import (
    SETTINGS,
    hostile_line,
    json_value,
    lines,
    mixed_session,
    session_events,
    shaped_record,
)

from edgar.transcripts.claude_code import decode as cc_decode
from edgar.transcripts.claude_code import scan, scan_stream

pytest.importorskip("msgspec")
CORPUS = Path(__file__).resolve().parents[1] / "data" / "claude-code"

# Every key the reader looks at, on a record, a message, a block, usage, an attachment.
RECORD_KEYS = ["type", "uuid", "sessionId", "timestamp", "isSidechain", "agentId",
               "toolUseResult", "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly",
               "turnCompanion", "verifiedSlackHumanTurn", "promptSource", "origin", "message",
               "requestId", "apiBlockIndex", "isApiErrorMessage", "operation", "content",
               "attachment", "subtype", "cwd", "parentUuid"]
BLOCK_KEYS = ["type", "text", "thinking", "name", "id", "content", "input", "tool_use_id"]
USAGE_KEYS = ["input_tokens", "output_tokens", "cache_creation_input_tokens",
              "cache_read_input_tokens", "service_tier"]
ATTACHMENT_KEYS = ["type", "prompt", "origin", "isMeta", "commandMode", "timestamp", "x"]


def both(data: bytes, name: str = "main.jsonl", **kw) -> tuple[list, list]:
    fast = list(scan_stream(io.BytesIO(data), name, decoder="msgspec", **kw))
    slow = list(scan_stream(io.BytesIO(data), name, decoder="stdlib", **kw))
    return fast, slow


def test_msgspec_is_the_default_when_installed_and_stdlib_can_be_chosen(monkeypatch):
    assert cc_decode.available() == ("msgspec", "stdlib")
    assert cc_decode.decoder()[0] == "msgspec"
    assert cc_decode.decoder("stdlib") == ("stdlib", None)
    assert cc_decode.decoder("nonsense") == ("stdlib", None)
    monkeypatch.setenv("EDGAR_CC_DECODER", "stdlib")      # (the environment, not edgar's code)
    assert cc_decode.decoder()[0] == "stdlib"


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.jsonl")), ids=lambda p: p.name[-40:])
def test_the_corpus_reads_the_same_with_either_decoder(path):
    fast = list(scan(path, decoder="msgspec"))
    slow = list(scan(path, decoder="stdlib"))
    assert fast == slow


block = st.dictionaries(st.sampled_from(BLOCK_KEYS), st.one_of(
    st.sampled_from(["text", "tool_result", "tool_use", "thinking", "image", "x"]), json_value),
    max_size=5)


@st.composite
def every_key_record(draw) -> dict:
    """Records using every key the reader reads, with plausible and hostile values."""
    rec = {k: draw(json_value) for k in draw(st.lists(st.sampled_from(RECORD_KEYS), max_size=10,
                                                        unique=True))}
    rec["type"] = draw(st.one_of(st.sampled_from(["user", "assistant", "attachment", "system",
                                                  "queue-operation", "progress"]), json_value))
    if draw(st.booleans()):
        rec["uuid"] = "u"
    if draw(st.booleans()):
        rec["message"] = {
            "content": draw(st.one_of(st.text(max_size=30), st.lists(st.one_of(block, json_value),
                                                                     max_size=4), json_value)),
            "id": draw(json_value), "model": draw(json_value),
            "usage": draw(st.one_of(json_value, st.dictionaries(
                st.sampled_from(USAGE_KEYS), st.one_of(st.integers(), json_value), max_size=5))),
        }
    if draw(st.booleans()):
        rec["attachment"] = draw(st.dictionaries(st.sampled_from(ATTACHMENT_KEYS), st.one_of(
            st.sampled_from(["queued_command", "bash", "prompt"]), json_value), max_size=6))
    return rec


@SETTINGS
@given(st.lists(st.one_of(hostile_line, every_key_record().map(lambda r: json.dumps(r).encode()),
                          shaped_record().map(lambda r: json.dumps(r).encode())),
                min_size=1, max_size=25), st.booleans(), st.booleans())
def test_either_decoder_gives_the_same_items(parts, final, side):
    fast, slow = both(lines(parts), final=final, sidechain=side)
    assert fast == slow


@SETTINGS
@given(session_events())
def test_sessions_read_the_same_with_either_decoder(events):
    fast, slow = both(lines(events))
    assert fast == slow


@SETTINGS
@given(mixed_session())
def test_mixed_sessions_read_the_same_with_either_decoder(data):
    fast, slow = both(data)
    assert fast == slow
