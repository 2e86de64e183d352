"""The pure parts of auto-commit: what a turn's commit may hold, the status parser and the
message (ADR-0108)."""

from __future__ import annotations

import os

from hypothesis import given
from hypothesis import strategies as st

from edgar.core import commit_message as msg
from edgar.core.autocommit import letter, parse_status, plan

CODES = st.sampled_from([" M", "M ", "MM", "A ", "AM", " D", "D ", "??", " T", "R "])
NAMES = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)),
                min_size=1, max_size=12)
STATUS = st.dictionaries(NAMES, CODES, max_size=12)


@given(STATUS, STATUS, st.sets(NAMES, max_size=8))
def test_a_commit_never_holds_what_was_dirty_before(before, after, written):
    commit, left = plan(before, after, written)
    assert not set(commit) & set(before)            # the person's uncommitted work stays out
    assert set(commit) <= set(after)
    # an untracked path only when the model's tools wrote it
    assert all(p in written for p, code in commit.items() if code == "??")
    # every changed path that is not committed and was not the person's is an untracked
    # file nobody's tool wrote (a command's output)
    for path, code in after.items():
        if path not in commit and path not in before:
            assert code == "??" and path not in written
    assert set(left) <= set(before) and left == sorted(set(left))


@given(STATUS)
def test_parse_status_reads_back_what_git_writes(entries):
    out = b"".join(code.encode() + b" " + os.fsencode(path) + b"\0"
                   for path, code in entries.items())
    assert parse_status(out) == entries


@given(CODES)
def test_letter_is_one_of_three(code):
    assert letter(code) in {"A", "M", "D"}


@given(st.text(max_size=300), st.dictionaries(NAMES, st.sampled_from("AMD"), max_size=5))
def test_the_subject_is_one_clean_line_of_bounded_length(prompt, changes):
    line = msg.subject(prompt, changes)
    assert line and "\n" not in line and len(line) <= msg.SUBJECT_MAX
    assert not any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f for c in line)


@given(st.text(max_size=200), st.dictionaries(NAMES, st.sampled_from("AMD"), max_size=30),
       st.text(max_size=20), st.text(max_size=20), st.text(max_size=200))
def test_a_composed_message_always_parses_back_to_its_session_and_turn(
        title, changes, session, turn, body):
    text = msg.compose(title, changes, session=session, turn=turn, body=body)
    found = msg.trailers(text)
    assert found[msg.SESSION_KEY] == msg.clean_id(session)
    assert found[msg.TURN_KEY] == msg.clean_id(turn)
    first = text.split("\n", 1)[0]
    assert first and len(first) <= msg.SUBJECT_MAX


def test_the_summary_is_the_prompt_or_what_happened():
    assert msg.subject("  fix the  parser\nthen more", {"a": "M"}) == "fix the parser"
    assert msg.subject("/commit", {"a": "M", "b": "A"}) == "edgar: add and change 2 files"
    assert msg.subject("", {"a": "D"}) == "edgar: delete 1 file"
    assert msg.subject("x" * 100, {}).endswith("…")
