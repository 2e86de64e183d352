"""Claude Code's settings files as edgar reads them (edgar/config/claude_settings.py and the
hooks they give, edgar/hooks/config.py): any JSON at all is hooks or located problems, never
a traceback; the JSON shape gives the same specs as edgar's own tables."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from edgar.config.claude_settings import ClaudeFile, read_all, read_file, unhonoured
from edgar.config.lines import json_line as line_of
from edgar.hooks.config import claude_hooks


def file_of(data: dict, scope="user", path=Path("/h/.claude/settings.json")) -> ClaudeFile:
    return ClaudeFile(path, scope, json.dumps(data, indent=2), data)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=12)
events = st.sampled_from(["PreToolUse", "Stop", "PermissionRequest", "Nope", ""])
handlers = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["command", "http", "prompt"]) | json_values,
    "command": st.text(max_size=10) | json_values, "timeout": json_values,
    "if": st.sampled_from(["Bash(rm *)", "((("]) | json_values, "async": json_values,
    "args": json_values, "network": json_values, "writable": json_values})
matchers = st.sampled_from(["Bash", "", "("]) | json_values
groups = st.fixed_dictionaries({"hooks": st.lists(handlers | json_values, max_size=3)},
                               optional={"matcher": matchers})
hook_tables = st.dictionaries(events, st.lists(groups | json_values, max_size=3) | json_values,
                              max_size=3)


@given(hook_tables)
def test_any_hooks_table_gives_specs_or_located_problems(table):
    problems: list[str] = []
    specs = claude_hooks([file_of({"hooks": table})], problems)
    assert all(p.startswith("/h/.claude/settings.json") for p in problems)
    for spec in specs:
        assert spec.command.strip() and spec.origin == "user"
        assert spec.event in ("PreToolUse", "Stop")


@given(json_values)
def test_any_json_file_reads_or_is_one_located_problem(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("s") / "settings.json"
    path.write_text(json.dumps(value))
    problems: list[str] = []
    found = read_file("project", path, problems)
    if not isinstance(value, dict):
        assert found is None and len(problems) == 1 and problems[0].startswith(f"{path}:1:")
    else:
        assert found is not None and found.data == value and problems == []


def test_the_json_shape_gives_what_the_toml_table_gives():
    problems: list[str] = []
    [spec] = claude_hooks([file_of({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "guard.sh", "timeout": 30, "if": "Bash(rm *)"}]}]}},
        scope="project", path=Path("/p/.claude/settings.json"))], problems)
    assert problems == []
    assert (spec.event, spec.command, spec.matcher, spec.timeout, spec.condition,
            spec.origin) == ("PreToolUse", "guard.sh", "Bash", 30.0, "Bash(rm *)", "project")
    assert spec.where == "/p/.claude/settings.json:3"


def test_a_missing_matcher_matches_everything_and_type_defaults_to_command():
    [spec] = claude_hooks([file_of({"hooks": {"Stop": [{"hooks": [{"command": "x"}]}]}})], [])
    assert spec.matcher == "*" and spec.seconds() == 600.0


def test_what_edgar_cannot_run_or_read_is_named_with_its_line():
    data = {"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "prompt", "prompt": "x"}, {"type": "command", "command": "a", "once": True},
        {"type": "command", "command": "b", "shell": "powershell"},
        {"type": "command", "command": "c", "timeout": "30"}]}]}}
    problems: list[str] = []
    specs = claude_hooks([file_of(data)], problems)
    assert [s.command for s in specs] == ["a"]
    assert len(problems) == 4 and all(p.startswith("/h/.claude/settings.json:4:") for p in problems)
    assert "type 'prompt'" in problems[0] and "'once'" in problems[1]
    assert "powershell" in problems[2] and "wrong type for timeout" in problems[3]
    [said] = unhonoured([file_of(data)])
    assert said.startswith("/h/.claude/settings.json:2: edgar does not honour model")


def test_an_http_handler_is_a_spec_with_its_url_headers_and_entry_fields():
    problems: list[str] = []
    [http, command] = claude_hooks([file_of({"hooks": {"PreToolUse": [{"matcher": "Bash",
                                                                        "hooks": [
        {"type": "http", "url": "https://policy.example/check", "timeout": 5,
         "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"],
         "statusMessage": "Asking policy"},
        {"type": "command", "command": "log.sh", "async": True, "statusMessage": "Logging"}]}]}})],
        problems)
    assert problems == []
    assert (http.url, http.command, http.headers, http.allowed_env, http.status,
            http.timeout, http.background) == (
        "https://policy.example/check", "https://policy.example/check",
        (("Authorization", "Bearer $TOKEN"),), ("TOKEN",), "Asking policy", 5.0, False)
    assert (command.url, command.status, command.background) == (None, "Logging", True)


def test_the_files_are_read_lowest_precedence_first(tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "p" / ".claude").mkdir(parents=True)
    (tmp_path / "home" / "settings.json").write_text("{}")
    (tmp_path / "p" / ".claude" / "settings.local.json").write_text('{"env": {}}')
    (tmp_path / "p" / ".claude" / "settings.json").write_text("")   # empty: sets nothing
    problems: list[str] = []
    found = read_all(tmp_path / "p", tmp_path / "home", problems)
    assert [f.scope for f in found] == ["user", "local"] and problems == []
    assert [f.name for f in found] == ["~/.claude/settings.json", ".claude/settings.local.json"]


@given(st.lists(st.sampled_from(["a", "b", '"k"', '"k": 1', "x"]), max_size=8),
       st.lists(st.sampled_from(["k", "a", "zz"]), min_size=1, max_size=3))
def test_line_of_is_a_line_of_the_text(lines, needles):
    number = line_of("\n".join(lines), tuple(needles))
    assert 1 <= number <= max(1, len(lines))


def test_claude_rules_narrow_from_every_file_and_widen_from_a_project_only_when_trusted():
    from edgar.tools.permission_config import claude_rules

    user = file_of({"permissions": {"allow": ["Bash(ls:*)"], "ask": ["Bash(git push:*)"]}})
    project = file_of({"permissions": {"allow": ["Bash(echo:*)"], "deny": ["Read(./.env)"],
                                       "ask": "Bash"}},
                      scope="project", path=Path("/p/.claude/settings.json"))
    problems: list[str] = []
    rules = claude_rules([user, project], lambda: False, problems)
    assert [r.text for r in rules.allow] == ["Bash(ls:*)"]
    assert [r.text for r in rules.deny] == ["Read(./.env)"]
    assert [r.text for r in rules.ask] == ["Bash(git push:*)"]
    assert rules.ignored == ["Bash(echo:*)"]
    assert problems == ["/p/.claude/settings.json:9: permissions.ask must be a list of rules; "
                        "ignored"]
    trusted = claude_rules([user, project], lambda: True, [])
    assert [r.text for r in trusted.allow] == ["Bash(ls:*)", "Bash(echo:*)"]


def test_claude_json_is_where_claude_code_keeps_it(monkeypatch, tmp_path):
    from edgar.paths import claude_json

    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert claude_json() == tmp_path / "h" / ".claude.json"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert claude_json() == tmp_path / "cfg" / ".claude.json"


def test_claude_json_with_only_empty_server_tables_is_nothing_to_start(tmp_path):
    from edgar.mcp.config import any_configured, read_claude_json

    path = tmp_path / ".claude.json"
    path.write_text(json.dumps({"mcpServers": {}, "projects": {str(tmp_path): {
        "mcpServers": {}}, "/x": {"mcpServers": {}}}}, indent=2))
    assert not any_configured(tmp_path, {}, path)
    assert read_claude_json(path, tmp_path, {}, []) == ([], [])
    path.write_text(json.dumps({"projects": {"/x": {"mcpServers": {"a": {"command": "a"}}},
                                             str(tmp_path): {"mcpServers": {
                                                 "b": {"command": "b", "args": ["${NOPE}"]}}}}},
                               indent=2))
    assert any_configured(tmp_path, {}, path)
    problems: list[str] = []
    assert read_claude_json(path, tmp_path, {}, problems) == ([], [])
    assert problems == [f"{path}:12: mcp server 'b': environment variable NOPE is not set and "
                        "has no default (write ${NAME:-default} for one)"]


def test_a_broken_claude_json_is_one_located_problem(tmp_path):
    from edgar.mcp.config import read_claude_json

    path = tmp_path / ".claude.json"
    path.write_text('{"mcpServers": {"a": {"command": "x"}},\n')
    problems: list[str] = []
    assert read_claude_json(path, tmp_path, {}, problems) == ([], [])
    assert len(problems) == 1 and problems[0].startswith(f"{path}:2:1: not valid JSON")


def test_claude_codes_rule_forms_apply_without_a_word():
    from edgar.tools.permission_config import claude_rules

    texts = ["Bash(npm run test:*)", "Read(./.env)", "mcp__server", "mcp__github__get_issue",
             "WebFetch(domain:docs.python.org)", "Edit(src/**)", "TodoWrite", "Task",
             "ExitPlanMode", "Glob", "Grep(/src/**)"]
    problems: list[str] = []
    rules = claude_rules([file_of({"permissions": {"allow": texts}})], lambda: False, problems)
    assert problems == [] and [r.text for r in rules.allow] == texts
    assert rules.allow[2].tool == "mcp__server__*" and rules.allow[8].tool == "exit_plan_mode"
