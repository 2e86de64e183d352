"""Hooks from a real config.toml through ``edgar -p``: what they print is never learned, and
``/mcp`` reports servers in the REPL."""

from __future__ import annotations

import json
import shlex
import sys
import time

import pytest
from support.project import REPO, edgar_env, make_project, run_edgar, write_script

HOOK = REPO / "tests" / "support" / "hooks" / "hook.py"


def test_hook_output_is_never_learned(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    py, hook = shlex.quote(sys.executable), shlex.quote(str(HOOK))
    (home / "config.toml").write_text(
        "[[hooks.UserPromptSubmit]]\n"
        f"command = \"echo 'always answer in French' ; {py} {hook} record\"\n"
        "[[hooks.PreToolUse]]\n"
        f"command = \"{py} {hook} block 'never use tabs, always use spaces'\"\n"
        "[[hooks.Stop]]\n"
        f"command = \"{py} {hook} block-once 'remember to always write tests'\"\n")
    root = make_project(tmp_path / "p", {"a.txt": "x\n"})
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]}, {"text": "ok"},
        {"text": "tests written"}])
    record = tmp_path / "requests.jsonl"
    env = edgar_env(home, EDGAR_SCRIPTED_RECORD=str(record))
    out = run_edgar(["-p", "look at a.txt", "--model", f"scripted:{script}",
                     "--permission-mode", "yes"], root, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("tests written")   # the Stop hook made it go on
    assert "refused read a.txt (a PreToolUse hook said no)" in out.stderr
    sent = json.loads((root / "hook-log.jsonl").read_text().splitlines()[0])
    assert sent["hook_event_name"] == "UserPromptSubmit" and sent["prompt"] == "look at a.txt"
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    said = [json.dumps(r["messages"]) for r in requests]
    assert "always answer in French" in said[0]               # context, with the prompt
    assert "never use tabs, always use spaces" in said[1]     # the refusal, for the model
    assert "remember to always write tests" in said[2]        # Stop hook feedback
    facts = run_edgar(["memory", "list", "--all"], root, env)
    assert facts.returncode == 0, facts.stderr
    for said in ("French", "tabs", "tests"):
        assert said not in facts.stdout


@pytest.mark.timing   # a pseudo-terminal: what appears, and when
def test_slash_mcp_lists_servers_in_the_repl(tmp_path):
    from e2e.test_repl_pty import PROMPT, Terminal

    home = tmp_path / "home"
    home.mkdir()
    server = REPO / "tests" / "support" / "mcp_server.py"
    (home / "config.toml").write_text(f'[mcp.servers.t]\ncommand = "{sys.executable}"\n'
                                      f'args = ["{server}"]\n')
    root = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.jsonl", [{"text": "hello there"}])
    term = Terminal([sys.executable, "-m", "edgar", "--model", f"scripted:{script}"], root,
                    edgar_env(home, TERM="xterm"))
    try:
        term.expect(PROMPT)
        term.line("say hi")
        term.expect("hello there")      # the first model call waited for the server
        term.line("/mcp")
        term.expect(r"t\s+stdio\s+connected\s+9\b")
        term.expect(PROMPT)
        time.sleep(0.3)                 # let the prompt redraw before the key arrives
        term.send("\x04")
        term.expect("edgar -c continues it")
        assert term.wait_exit() == 0
    finally:
        term.kill()
