"""Permission rules over generated commands and paths: chaining never rides on an allow rule,
a read-only verdict never covers a writing command, and path globs behave like globs."""

from __future__ import annotations

import fnmatch
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from edgar.tools.rules import first_match, parse_rule, path_matches, read_only_command, suggest

EXAMPLES = int(os.environ.get("EDGAR_PROPERTY_EXAMPLES", 200))
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-./_=", min_size=1, max_size=8)
OPERATORS = st.sampled_from([";", "&&", "||", "|", ">", ">>", "<", "&", "`", "$(", "\n"])
SEPARATORS = st.sampled_from([";", "&&", "||", "|", "&", "`", "$(", "\n"])  # start a command
SEGMENT = st.text(alphabet="abcdefghijklmnopqrstuvwxyz._-", min_size=1, max_size=10).filter(
    lambda s: s not in (".", ".."))  # the gate hands over resolved, root-relative paths


@settings(max_examples=EXAMPLES)
@given(st.lists(WORD, min_size=1, max_size=4), OPERATORS, st.lists(WORD, min_size=1, max_size=4))
def test_no_allow_rule_covers_a_chained_command(first, op, second):
    command = " ".join(first) + f" {op} " + " ".join(second)
    rule = parse_rule(f"shell({first[0]}*)")
    assert first_match([rule], "shell", command) is None
    assert not read_only_command(command)


@settings(max_examples=EXAMPLES)
@given(st.lists(WORD, min_size=1, max_size=4), SEPARATORS, st.lists(WORD, min_size=1, max_size=4))
def test_a_deny_rule_for_a_program_catches_it_anywhere_in_a_chain(first, op, second):
    command = " ".join(first) + f" {op} rm " + " ".join(second)
    assert first_match([parse_rule("shell(rm *)")], "shell", command, deny=True) is not None


@settings(max_examples=EXAMPLES)
@given(st.lists(WORD, min_size=1, max_size=5))
def test_a_suggested_rule_allows_the_command_it_came_from(words):
    command = " ".join(words)
    offer = suggest("shell", command)
    if offer is not None:
        assert first_match([parse_rule(offer)], "shell", command) is not None


@settings(max_examples=EXAMPLES)
@given(st.lists(SEGMENT, min_size=1, max_size=4), st.lists(SEGMENT, min_size=1, max_size=3))
def test_double_star_covers_everything_below_and_nothing_beside(prefix, rest):
    base = "/".join(prefix)
    assert path_matches(f"{base}/**", f"{base}/{'/'.join(rest)}")
    assert not path_matches(f"{base}/**", f"{base}x/{'/'.join(rest)}")


@settings(max_examples=EXAMPLES)
@given(st.lists(SEGMENT, min_size=2, max_size=4), st.sampled_from(["*", "?", "*.py", "a*"]))
def test_a_single_star_stays_in_its_directory(parts, glob):
    path = "/".join(parts)
    pattern = "/".join(parts[:-1]) + "/" + glob
    assert path_matches(pattern, path) == fnmatch.fnmatchcase(parts[-1], glob)
    deeper = "/".join(parts[:-1]) + "/sub/" + parts[-1]
    assert not path_matches(pattern, deeper)
