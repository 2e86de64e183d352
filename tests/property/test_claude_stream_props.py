"""The pure pieces of Claude Code's print-mode interface (cli/claude_stream.py)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from edgar.cli.claude_stream import StreamInputError, tool_list, user_text

NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
INSIDE = st.text(st.characters(blacklist_characters="()", blacklist_categories=("Cs",)),
                 max_size=20)
RULE = st.one_of(NAME, st.builds(lambda n, p: f"{n}({p})", NAME, INSIDE))


@given(st.lists(RULE, min_size=1, max_size=6), st.sampled_from([",", " ", ", ", "\t", " ,  "]))
def test_rules_joined_by_commas_or_spaces_come_back_as_given(rules, sep):
    assert tool_list([sep.join(rules)]) == rules
    assert tool_list(rules) == rules   # one value per rule: each is kept whole


@given(st.text(max_size=200))
def test_a_user_line_gives_back_its_text(text):
    line = json.dumps({"type": "user", "message": {"role": "user", "content": text}})
    assert user_text(line) == text
    blocks = json.dumps({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": text}]}})
    assert user_text(blocks) == text


@given(st.one_of(st.text(max_size=200), st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["type", "message", "role", "content", "text"]), inner, max_size=4),
    max_leaves=12).map(json.dumps)))
def test_any_other_line_is_read_or_refused_with_a_reason_never_a_crash(line):
    try:
        assert isinstance(user_text(line), str)
    except StreamInputError as exc:
        assert str(exc)
