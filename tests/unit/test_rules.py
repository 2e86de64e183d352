"""Permission rules and the gate: deny wins, allow rules skip the question, read-only allows a
short built-in list, and paths outside the project are refused before anyone is asked."""

from __future__ import annotations

import asyncio

import pytest

from edgar.tools.permissions import PermissionGate
from edgar.tools.rules import RuleError, first_match, parse_rule, parse_rules, read_only_command


@pytest.mark.parametrize("command,ok", [
    ("git status", True), ("git status -s", True), ("git log --oneline -5", True),
    ("git diff HEAD~1", True), ("ls -la src", True), ("cat README.md", True), ("rg TODO", True),
    ("git push", False), ("git diff --output=x.patch", False), ("git -c x=y status", False),
    ("find . -name '*.pyc' -delete", False), ("find . -exec rm {} ;", False),
    ("rg --pre ./run.sh x", False), ("ls; rm -rf x", False), ("cat a > b", False),
    ("cat a && rm b", False), ("ls | sh", False), ("echo $(rm x)", False), ("echo `rm x`", False),
    ("ls $HOME", False), ("rm -rf x", False), ("python -c 'print(1)'", False), ("", False),
])
def test_read_only_commands(command, ok):
    assert read_only_command(command) is ok


def test_claude_code_rules_read_the_same():
    rules = parse_rules(["Bash(npm run test:*)", "Edit(src/**)", "Read", "mcp__time__*"])
    assert first_match(rules, "shell", "npm run test") is not None
    assert first_match(rules, "shell", "npm run test -- -u") is not None
    assert first_match(rules, "shell", "npm run testing") is None
    assert first_match(rules, "write", "src/a/b.py") is not None   # Edit covers every writer
    assert first_match(rules, "edit", "docs/x.md") is None
    assert first_match(rules, "read", "anything") is not None
    assert first_match(rules, "mcp__time__now", None) is not None
    assert first_match(rules, "mcp__fs__write", None) is None


@pytest.mark.parametrize("text", ["", "shell(", "(x)", "two words", 5])
def test_a_bad_rule_says_what_a_rule_looks_like(text):
    with pytest.raises(RuleError, match="TOOL or TOOL"):
        parse_rule(text)


def check(gate, tool, access, args):
    return asyncio.run(gate.check(tool, access, "summary", args))


def test_deny_wins_even_in_yes_mode(tmp_path):
    gate = PermissionGate("yes", root=tmp_path, allow=parse_rules(["shell(rm *)"]),
                          deny=parse_rules(["shell(rm *)", "edit(secrets/**)"]))
    assert "deny rule `shell(rm *)`" in check(gate, "shell", "shell", {"command": "ls && rm -r x"})
    assert "deny rule" in check(gate, "write", "write", {"path": "secrets/a"})
    assert check(gate, "write", "write", {"path": "src/a"}) is None


def test_allow_rules_skip_the_question_without_a_terminal(tmp_path):
    gate = PermissionGate("ask", root=tmp_path, allow=parse_rules(["shell(pytest *)",
                                                                    "edit(src/**)"]))
    assert check(gate, "shell", "shell", {"command": "pytest -q"}) is None
    assert check(gate, "edit", "write", {"path": "./src/x/../y.py"}) is None
    assert "needs confirmation" in check(gate, "edit", "write", {"path": "src/../lib.py"})
    assert "needs confirmation" in check(gate, "shell", "shell", {"command": "pytest; sh"})


def test_read_only_mode_allows_the_builtin_list_and_says_which(tmp_path):
    gate = PermissionGate("read-only", root=tmp_path, allow=parse_rules(["shell(make *)"]))
    assert check(gate, "shell", "shell", {"command": "git status"}) is None
    refusal = check(gate, "shell", "shell", {"command": "make install"})
    assert "read-only mode" in refusal and "git status" in refusal and "rg" in refusal
    assert "read-only" in check(gate, "write", "write", {"path": "a"})


def test_always_for_a_shell_command_saves_its_rule_not_all_shell(tmp_path):
    saved, offers = [], []

    async def confirm(tool, summary, offer):
        offers.append(offer)
        return "always" if len(offers) == 1 else "no"

    gate = PermissionGate("ask", confirm, root=tmp_path, save=saved.append)
    assert check(gate, "shell", "shell", {"command": "git status -s"}) is None
    assert check(gate, "shell", "shell", {"command": "git status"}) is None     # not asked
    assert check(gate, "shell", "shell", {"command": "rm x"}) == "the user declined this shell call"
    assert saved == ["shell(git status*)"] and offers == ["shell(git status*)", "shell(rm *)"]


def test_claude_codes_names_for_the_other_tools_and_whole_servers():
    assert parse_rule("Agent").tool == parse_rule("Task").tool == "task"
    assert parse_rule("WebFetch").tool == "web_fetch"
    assert parse_rule("TodoWrite").tool == "todo_write"
    server = [parse_rule("mcp__time")]          # Claude Code: every tool of the server
    assert first_match(server, "mcp__time__get_current_time", None) is not None
    assert first_match(server, "mcp__timer__x", None) is None
    assert first_match(server, "mcp__time", None) is None
    assert first_match([parse_rule("mcp__time__convert_time")], "mcp__time__get", None) is None


def test_an_ask_rule_asks_in_yes_mode_and_is_refused_without_a_terminal(tmp_path):
    asked = []

    async def confirm(tool, summary, offer):
        asked.append(offer)
        return "always"
    ask = parse_rules(["Bash(git push *)"])
    silent = PermissionGate("yes", None, ask=ask, root=tmp_path)
    refused = asyncio.run(silent.check("shell", "shell", "git push", {"command": "git push o"}))
    assert refused and "ask rule `Bash(git push *)`" in refused and "nobody can confirm" in refused
    gate = PermissionGate("yes", confirm, ask=ask, root=tmp_path)
    for _ in range(2):   # "always" never turns an ask rule off
        verdict = asyncio.run(gate.check("shell", "shell", "git push", {"command": "git push o"}))
        assert verdict is None
    assert asked == [None, None]
    assert asyncio.run(gate.check("shell", "shell", "ls", {"command": "ls"})) is None
