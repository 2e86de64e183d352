"""Claude Code's settings files through the real binary and the scripted provider:
``~/.claude/settings.json`` (``$CLAUDE_CONFIG_DIR`` honoured), ``.claude/settings.json`` and
``.claude/settings.local.json`` configure hooks that guard, after ``edgar trust`` for the
project's; an untrusted project's run nothing and say so; keys edgar cannot honour are named
(ADR-0079). HOME is a temporary directory: the person's own files are never read."""

from __future__ import annotations

import json
import shlex
import shutil
import sys

import pytest
from support.project import REPO, edgar_env, make_project, recorded, run_edgar, write_script

KARAN = REPO / "tests" / "data" / "claude-code-hooks" / "karanb192"
DISLER = REPO / "tests" / "data" / "claude-code-settings" / "disler-style.json"
MASTERY = REPO / "tests" / "support" / "hooks" / "mastery.py"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "u"
    (home / ".claude").mkdir(parents=True)
    return home


@pytest.fixture
def env(tmp_path, home):
    return edgar_env(tmp_path / "edgar-home", HOME=str(home),
                     EDGAR_SCRIPTED_RECORD=str(tmp_path / "sent.jsonl"))


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "p", {"a.txt": "hello\n", ".env": "API=sk-live-123\n",
                                         "build/out.o": "x\n"})


def karan(script: str) -> str:
    return f"node {shlex.quote(str(KARAN / script))}"


def guards(rm: str) -> dict:
    """Claude Code's JSON: ``rm`` guards Bash, karanb192's protect-secrets guards .env."""
    return {"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": rm, "timeout": 30}]},
        {"matcher": "Read|Edit|Write|Bash",
         "hooks": [{"type": "command", "command": karan("protect-secrets.js")}]}]}}


def mastery_rm() -> str:
    return f"python3 {shlex.quote(str(MASTERY))} PreToolUse"


def go(tmp_path, project, env, calls, *extra):
    script = write_script(tmp_path / "s.jsonl", [{"tool_calls": [c]} for c in calls]
                          + [{"text": "done"}])
    return run_edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes",
                      *extra], project, env)


RM = {"name": "shell", "input": {"command": "rm -rf build"}}
READ_ENV = {"name": "read", "input": {"path": ".env"}}


def sent_results(tmp_path) -> str:
    return json.dumps(recorded(tmp_path / "sent.jsonl")[-1]["messages"])


@needs_node
def test_user_settings_hooks_block_rm_rf_and_a_dotenv_read(tmp_path, home, env, project):
    (home / ".claude" / "settings.json").write_text(json.dumps(guards(mastery_rm())))
    out = go(tmp_path, project, env, [RM, READ_ENV])
    assert out.returncode == 0, out.stderr
    assert (project / "build" / "out.o").exists()
    assert "sk-live-123" not in sent_results(tmp_path)
    assert "Dangerous rm command" in sent_results(tmp_path)


@needs_node
def test_claude_config_dir_is_where_the_user_settings_are(tmp_path, home, env, project):
    elsewhere = tmp_path / "cfg"
    elsewhere.mkdir()
    (elsewhere / "settings.json").write_text(json.dumps(guards(mastery_rm())))
    out = go(tmp_path, project, {**env, "CLAUDE_CONFIG_DIR": str(elsewhere)}, [RM, READ_ENV])
    assert out.returncode == 0, out.stderr
    assert (project / "build" / "out.o").exists()
    assert "sk-live-123" not in sent_results(tmp_path)


@needs_node
def test_project_settings_guard_only_once_trusted(tmp_path, env, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(guards(mastery_rm())))
    trusted = run_edgar(["trust"], project, env)
    assert trusted.returncode == 0, trusted.stderr
    assert "hooks.PreToolUse" in trusted.stdout and "protect-secrets.js" in trusted.stdout
    out = go(tmp_path, project, env, [RM, READ_ENV])
    assert out.returncode == 0, out.stderr
    assert (project / "build" / "out.o").exists()
    assert "sk-live-123" not in sent_results(tmp_path)


def test_an_untrusted_projects_settings_run_nothing_and_say_so(tmp_path, env, project):
    marker = project / "hook-ran"
    hook = {"type": "command", "command": f"touch {shlex.quote(str(marker))}"}
    settings = {"hooks": {e: [{"matcher": "", "hooks": [hook]}] for e in (
        "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    (project / ".claude" / "settings.local.json").write_text(json.dumps(
        {"permissions": {"allow": ["Bash"]}, "env": {"FROM_LOCAL": "1"}}))
    out = go(tmp_path, project, env, [{"name": "read", "input": {"path": "a.txt"}}])
    assert out.returncode == 0, out.stderr
    assert not marker.exists()
    assert "ignoring untrusted project settings" in out.stderr
    assert "project hook(s) not run: the project is not trusted" in out.stderr


def test_a_trusted_file_that_changes_needs_trust_again(tmp_path, env, project):
    marker = project / "hook-ran"
    (project / ".claude").mkdir()
    settings = project / ".claude" / "settings.local.json"
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "true"}]}]}}))
    assert run_edgar(["trust"], project, env).returncode == 0
    settings.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": f"touch {shlex.quote(str(marker))}"}]}]}}))
    out = go(tmp_path, project, env, [])
    assert out.returncode == 0, out.stderr
    assert not marker.exists()
    shown = run_edgar(["trust", "--show"], project, env)
    assert "trust lapsed" in shown.stdout and ".claude/settings.local.json" in shown.stdout


def test_the_disler_style_file_blocks_and_names_what_edgar_does_not_honour(tmp_path, env,
                                                                          project):
    (project / ".claude" / "hooks").mkdir(parents=True)
    shutil.copy(MASTERY, project / ".claude" / "hooks" / "mastery.py")
    shutil.copy(DISLER, project / ".claude" / "settings.json")
    assert run_edgar(["trust"], project, env).returncode == 0
    out = go(tmp_path, project, env, [RM, READ_ENV, {"name": "read", "input": {"path": "a.txt"}}])
    assert out.returncode == 0, out.stderr
    assert (project / "build" / "out.o").exists()
    said = sent_results(tmp_path)
    assert "sk-live-123" not in said and "hello" in said
    assert "Dangerous rm command" in said and "Access to .env files" in said
    logged = json.loads((project / "logs" / "PreToolUse.json").read_text())
    assert [c["tool_name"] for c in logged] == ["Read"]
    assert (project / "logs" / "UserPromptSubmit.json").exists()
    assert "statusLine, outputStyle" in out.stderr and "edgar does not honour" in out.stderr


def test_every_key_edgar_cannot_honour_is_named_once(tmp_path, home, env, project):
    (home / ".claude" / "settings.json").write_text(json.dumps({
        "model": "opus", "statusLine": {"type": "command", "command": "echo"},
        "outputStyle": "Explanatory", "apiKeyHelper": "/bin/echo key",
        "permissions": {"allow": ["Bash(ls:*)"], "defaultMode": "acceptEdits"},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"},
            {"type": "command", "command": "true", "asyncRewake": True, "once": True}]}],
            "PermissionRequest": [{"hooks": [{"type": "command", "command": "true"}]}]}}))
    out = go(tmp_path, project, env, [])
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if "settings.json" in line]
    first = next(line for line in lines if "does not honour" in line)
    for key in ("model", "statusLine", "outputStyle", "apiKeyHelper", "permissions.defaultMode"):
        assert key in first
    assert any("type 'prompt'" in line for line in lines)
    assert any("'asyncRewake', 'once'" in line for line in lines)
    assert any("PermissionRequest" in line and "does not fire" in line for line in lines)
    assert len(lines) == len(set(lines)) == 4


def test_a_broken_settings_file_is_one_located_line_and_the_session_goes_on(tmp_path, home,
                                                                           env, project):
    path = home / ".claude" / "settings.json"
    path.write_text('{\n  "hooks": {,\n}\n')
    out = go(tmp_path, project, env, [])
    assert out.returncode == 0, out.stderr
    assert f"{path}:2:13: not valid JSON" in out.stderr
    assert "Traceback" not in out.stderr


def results(tmp_path) -> list[dict]:
    """The tool results the model was sent, in order."""
    messages = recorded(tmp_path / "sent.jsonl")[-1]["messages"]
    return [b for m in messages if m["role"] == "user" and isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "tool_result"]


def shell_call(command: str) -> dict:
    return {"name": "shell", "input": {"command": command}}


def text_of(block: dict) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else json.dumps(content)


def test_user_rules_deny_ask_and_allow_as_claude_code_writes_them(tmp_path, home, env, project):
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {
        "allow": ["Bash(echo:*)"], "deny": ["Bash(rm:*)", "Read(./.env)"],
        "ask": ["Bash(git push:*)"]}}))
    script = write_script(tmp_path / "s.jsonl", [{"tool_calls": [c]} for c in (
        shell_call("rm -rf build"), READ_ENV, shell_call("git push origin main"),
        shell_call("echo allowed-by-rule"), shell_call("touch not-allowed"))] + [{"text": "ok"}])
    out = run_edgar(["-p", "go", "--model", f"scripted:{script}"], project, env)   # ask mode
    assert out.returncode == 0, out.stderr
    rm, dotenv, push, echo, touch = results(tmp_path)
    assert rm.get("is_error") and "deny rule `Bash(rm:*)`" in text_of(rm)
    assert dotenv.get("is_error") and "sk-live-123" not in text_of(dotenv)
    assert push.get("is_error") and "ask rule `Bash(git push:*)`" in text_of(push)
    assert not echo.get("is_error") and "allowed-by-rule" in text_of(echo)
    assert touch.get("is_error") and not (project / "not-allowed").exists()
    assert (project / "build" / "out.o").exists()


def test_a_projects_allow_rules_wait_for_trust_and_its_deny_rules_do_not(tmp_path, env, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {
        "allow": ["Bash(echo:*)"], "deny": ["Read(./.env)"]}}))
    calls = [shell_call("echo from-project-rule"), READ_ENV]
    script = write_script(tmp_path / "s.jsonl", [{"tool_calls": [c]} for c in calls]
                          + [{"text": "ok"}])
    before = run_edgar(["-p", "go", "--model", f"scripted:{script}"], project, env)
    assert before.returncode == 0, before.stderr
    echo, dotenv = results(tmp_path)
    assert echo.get("is_error") and "from-project-rule" not in text_of(echo)
    assert dotenv.get("is_error") and "sk-live-123" not in text_of(dotenv)
    assert ".claude/settings.json permissions.allow" in before.stderr
    assert run_edgar(["trust"], project, env).returncode == 0
    after = run_edgar(["-p", "go", "--model", f"scripted:{script}"], project, env)
    assert after.returncode == 0, after.stderr
    echo, dotenv = results(tmp_path)
    assert not echo.get("is_error") and "from-project-rule" in text_of(echo)
    assert dotenv.get("is_error")


def test_rules_that_can_match_nothing_here_are_named(tmp_path, home, env, project):
    (home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {
        "allow": ["WebSearch", "mcp__github", "Bash(npm run test:*)"],
        "deny": ["Read(~/.ssh/**)", "Bash(rm -rf *"]}}))
    out = go(tmp_path, project, env, [])
    assert out.returncode == 0, out.stderr
    named = [line for line in out.stderr.splitlines() if "permissions." in line]
    assert any("'WebSearch': edgar has no such tool" in line for line in named)
    assert any("'Read(~/.ssh/**)'" in line and "inside the project" in line for line in named)
    assert any("is not a rule" in line for line in named)
    assert not any("mcp__github" in line or "npm run" in line for line in named)
    assert all(":" in line.split(" ")[1] for line in named)   # each with its file:line


def test_env_is_set_for_commands_and_hooks_and_claude_codes_own_are_named(tmp_path, home, env,
                                                                          project):
    seen = project / "hook-saw"
    (home / ".claude" / "settings.json").write_text(json.dumps({
        "env": {"MY_SETTING": "from-settings", "PATH_LIKE": "/x:/y", "ANTHROPIC_MODEL": "opus",
                "RETRIES": 3},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command":
                  f"printf %s \"$MY_SETTING\" > {shlex.quote(str(seen))}"}]}]}}))
    out = go(tmp_path, project, env, [shell_call("echo \"[$MY_SETTING][$RETRIES]\"")])
    assert out.returncode == 0, out.stderr
    [echo] = results(tmp_path)
    assert "[from-settings][3]" in text_of(echo)
    assert seen.read_text() == "from-settings"
    assert "env: ANTHROPIC_MODEL configure Claude Code itself" in out.stderr


def test_a_projects_env_waits_for_trust(tmp_path, env, project):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(json.dumps(
        {"env": {"FROM_PROJECT": "yes-set"}}))
    call = [shell_call("echo \"[${FROM_PROJECT:-unset}]\"")]
    before = go(tmp_path, project, env, call)
    assert before.returncode == 0, before.stderr
    assert "[unset]" in text_of(results(tmp_path)[0])
    assert ".claude/settings.local.json env" in before.stderr
    assert run_edgar(["trust"], project, env).returncode == 0
    after = go(tmp_path, project, env, call)
    assert after.returncode == 0, after.stderr
    assert "[yes-set]" in text_of(results(tmp_path)[0])


def test_a_secret_set_in_env_is_redacted_from_what_edgar_keeps(tmp_path, home, env, project):
    token = "plain-words-" + "kettle-7391"   # no scanner rule knows this shape
    (home / ".claude" / "settings.json").write_text(json.dumps({"env": {"DEPLOY_TOKEN": token}}))
    out = go(tmp_path, project, env,
             [shell_call("echo \"deploying with $DEPLOY_TOKEN\" | tee t.txt")])
    assert out.returncode == 0, out.stderr
    assert (project / "t.txt").read_text().strip() == f"deploying with {token}"   # it had it
    logs = list((tmp_path / "edgar-home").rglob("*.jsonl"))
    assert logs and not any(token in p.read_text(errors="replace") for p in logs)
    assert any("deploying with" in p.read_text() for p in logs)


def claude_json(home, root, user: dict, local: dict) -> None:
    """``~/.claude.json`` as ``claude mcp add`` leaves it: much other state, an empty
    ``mcpServers`` in other projects' entries, user servers and this project's local ones."""
    (home / ".claude.json").write_text(json.dumps({
        "numStartups": 41, "tipsHistory": {"memory-command": 40},
        "projects": {"/elsewhere": {"mcpServers": {}, "allowedTools": []},
                     str(root): {"mcpServers": local, "history": [{"display": "hi"}]}},
        "mcpServers": user, "userID": "x"}, indent=2))


def time_server(**extra) -> dict:
    return {"type": "stdio", "command": sys.executable, "args": ["-m", "mcp_server_time"],
            "env": {}, **extra}


def test_claude_mcp_add_servers_start_untrusted_user_and_local_alike(tmp_path, home, env,
                                                                      project):
    claude_json(home, project, user={"clock": time_server()},
                local={"tz": time_server(timeout=30000)})
    out = run_edgar(["mcp", "list"], project, env)
    assert out.returncode == 0, out.stderr
    rows = [line.split()[:3] for line in out.stdout.splitlines()[1:] if not line.startswith(" ")]
    assert rows == [["clock", "stdio", "connected"], ["tz", "stdio", "connected"]]
    assert f"{home / '.claude.json'}:" in out.stderr and "'timeout': ignored" in out.stderr
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "mcp__clock__convert_time", "input": {
            "source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}}]},
        {"text": "21:00"}])
    said = run_edgar(["-p", "noon UTC in Tokyo?", "--model", f"scripted:{script}",
                      "--permission-mode", "yes"], project, env)
    assert said.returncode == 0, said.stderr
    assert "21:00" in text_of(results(tmp_path)[0])


def test_a_local_server_wins_over_a_user_one_of_the_same_name(tmp_path, home, env, project):
    claude_json(home, project, user={"t": {"command": "/no/such/server"}},
                local={"t": time_server()})
    out = run_edgar(["mcp", "list"], project, env)
    assert out.stdout.splitlines()[1].split()[:3] == ["t", "stdio", "connected"]

