"""The pure parts of the hook contract: matchers, what a hook's output means, and the tool
vocabulary at the boundary (round trip of a hook's updatedInput)."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from edgar.hooks.matcher import check, matches
from edgar.hooks.output import LIMIT, read
from edgar.tools.vocabulary import (
    CLAUDE_NAMES,
    claude_input,
    claude_name,
    edgar_input,
    edgar_name,
    names,
    permission_mode,
)

EVENTS = st.sampled_from(["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop",
                          "SubagentStop", "SessionStart", "PreCompact", "Notification"])
NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,20}", fullmatch=True)


@given(EVENTS, st.one_of(st.none(), st.integers(-5, 300)), st.text(max_size=300),
       st.text(max_size=300))
def test_read_never_raises_and_only_exit_2_or_json_blocks(event, code, stdout, stderr):
    out = read(event, code, stdout, stderr)
    if out.block:
        assert code == 2 or stdout.strip().startswith("{")
    if code is None:
        assert out == type(out)()
    assert len(out.reason) <= LIMIT + 40 and all(len(c) <= LIMIT + 40 for c in out.context)


@given(EVENTS, st.integers(-5, 300).filter(lambda c: c not in (0, 2)), st.text(max_size=200),
       st.text(max_size=200))
def test_another_exit_code_without_json_is_an_error_never_a_block(event, code, stdout, stderr):
    if stdout.strip().startswith("{"):
        stdout = "x" + stdout
    out = read(event, code, stdout, stderr)
    assert not out.block and out.error.startswith(f"exited {code}")


@given(st.dictionaries(st.sampled_from(["decision", "reason", "continue", "stopReason",
                                        "systemMessage", "hookSpecificOutput"]),
                       st.one_of(st.none(), st.booleans(), st.text(max_size=20),
                                 st.integers(), st.dictionaries(st.text(max_size=5),
                                                                st.text(max_size=5)))),
       EVENTS, st.integers(0, 3))
def test_any_json_object_is_read_without_raising_and_exit_2_still_blocks(data, event, code):
    out = read(event, code, json.dumps(data), "why")
    if code == 2:
        assert out.block and out.reason
    if data.get("continue") is False:
        assert out.stop


@given(st.text(max_size=40), st.lists(NAME, max_size=4))
def test_matchers_are_claude_codes(matcher, values):
    if matcher.strip() in ("", "*"):
        assert matches(matcher, values) is True
    elif re.fullmatch(r"[A-Za-z0-9_\- ,|]*", matcher):
        wanted = {p.strip() for p in re.split(r"[|,]", matcher) if p.strip()}
        assert matches(matcher, values) == any(v in wanted for v in values)
    elif check(matcher) is None:
        assert matches(matcher, values) == any(re.search(matcher, v) for v in values)
    else:
        assert matches(matcher, values) is False     # never everything


@given(NAME)
def test_an_exact_name_matches_only_itself_never_a_longer_name(name):
    assert matches(name, [name]) and not matches(name, [name + "x"])
    assert not matches(name, ["x" + name])


def test_every_edgar_tool_has_its_claude_code_name_and_back():
    for tool, claude in CLAUDE_NAMES.items():
        assert claude_name(tool) == claude and edgar_name(claude) == tool
        assert names(tool)[0] == claude and tool in names(tool)
    assert edgar_name("Task") == "task" and "Task" in names("task")
    assert claude_name("mcp__time__get") == "mcp__time__get" == names("mcp__time__get")[0]
    assert [permission_mode(m) for m in ("ask", "auto-edit", "yes", "read-only")] == [
        "default", "acceptEdits", "bypassPermissions", "plan"]


PATH = st.lists(st.from_regex(r"[a-z0-9_]{1,8}(\.[a-z]{1,3})?", fullmatch=True),
                min_size=1, max_size=4).map("/".join)
ARGS = {
    "read": st.fixed_dictionaries({"path": PATH}, optional={"offset": st.integers(1, 99),
                                                           "limit": st.integers(1, 99)}),
    "write": st.fixed_dictionaries({"path": PATH, "content": st.text(max_size=20)}),
    "edit": st.fixed_dictionaries({"path": PATH, "old_string": st.text(max_size=9),
                                   "new_string": st.text(max_size=9)},
                                  optional={"replace_all": st.booleans()}),
    "glob": st.fixed_dictionaries({"pattern": st.text(max_size=9)}),
    "grep": st.fixed_dictionaries({"pattern": st.text(max_size=9)},
                                  optional={"path": PATH, "glob": st.text(max_size=5)}),
    "shell": st.fixed_dictionaries({"command": st.text(max_size=20)}, optional={
        "timeout": st.integers(1, 10**6).map(lambda ms: ms / 1000)}),
    "task": st.fixed_dictionaries({"prompt": st.text(max_size=9)}),
}


@given(st.sampled_from(sorted(ARGS)).flatmap(lambda t: st.tuples(st.just(t), ARGS[t])))
def test_edgar_input_inverts_claude_input(pair):
    tool, args = pair
    root = "/work/proj"
    given_ = claude_input(tool, args, root)
    assert "path" not in given_ or tool in ("glob", "grep")
    if tool in ("read", "write", "edit"):
        assert given_["file_path"] == f"{root}/{args['path']}"
    if "timeout" in args:
        assert given_["timeout"] == round(args["timeout"] * 1000)
    assert edgar_input(tool, given_, root) == args


def test_a_path_outside_the_root_stays_absolute():
    assert edgar_input("read", {"file_path": "/etc/passwd"}, "/work/p") == {"path": "/etc/passwd"}
    assert edgar_input("read", {"file_path": "/work/project2/x"}, "/work/p") == {
        "path": "/work/project2/x"}
