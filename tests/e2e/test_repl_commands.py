"""Custom commands in the REPL on a real pseudo-terminal: a body's !`cmd` runs as a shell
call you see, only the typed line is typed, and an untrusted project's commands run nothing."""

from __future__ import annotations

import sys

import pytest
from support.project import edgar_env, recorded, run_edgar, write_script
from test_repl_daily import Screen
from test_repl_pty import PROMPT, Terminal, session_events

pytestmark = pytest.mark.timing   # a pseudo-terminal: what appears, and when

SHOW = """---
allowed-tools: Bash(echo:*)
---
Said: !`echo shown-to-you-$1`
Look at @notes.txt, then answer.
"""


def test_a_bang_command_runs_where_you_see_it_and_only_the_line_is_typed(spawn, project, tmp_path):
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "show.md").write_text(SHOW)
    assert run_edgar(["trust"], project, edgar_env(tmp_path / "home")).returncode == 0
    term = spawn([{"text": "Got it.\n"}])
    screen = Screen(term)
    term.line("/show now")
    term.expect(r"✓ shell \$ echo shown-to-you-now  [0-9.]+s · 1 line · Ctrl-O shows them")
    term.expect("Got it.")
    term.expect(PROMPT)
    shown = screen.wait(r"✓ · ")
    term.send("\x0f")                               # Ctrl-O: the command's output, above
    term.expect(r"── shell \$ echo shown-to-you-now ──")
    term.expect("shown-to-you-now")
    term.send("\x04")
    assert term.wait_exit() == 0
    lines = [line.strip() for line in shown.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("✓ shell $ echo"))
    assert lines[at + 1:at + 3] == ["", "Got it."]   # the command, then the step's text
    typed = [e["text"] for e in session_events(project) if e.get("type") == "PromptTyped"]
    assert typed == ["/show now"]
    content = recorded(spawn.record)[0]["messages"][-1]["content"]
    assert content[0]["text"] == "/show now"
    assert "Said: shown-to-you-now" in content[1]["text"]
    assert '<file path="notes.txt">' in content[2]["text"] and "alpha" in content[2]["text"]


def test_an_untrusted_projects_command_runs_nothing_in_the_repl(project, tmp_path):
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "show.md").write_text(SHOW)
    script = write_script(tmp_path / "s.jsonl", [{"text": "Understood.\n"}])
    record = tmp_path / "requests.jsonl"
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record), TERM="xterm")
    term = Terminal([sys.executable, "-m", "edgar", "--model", f"scripted:{script}"], project, env)
    try:
        term.expect(r"\.claude/commands/show\.md: /show = \[\"echo shown-to-you-\$1\"\]")
        term.expect(r"Trust it\? \[y/N\]")
        term.send("n\r")
        term.expect(PROMPT)
        term.line("/show now")
        term.expect(r"/show: allowed-tools ignored")
        term.expect(r"! /show: !`echo shown-to-you-now` not run: this project is not trusted")
        term.expect("Understood.")
        term.expect(PROMPT)
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.kill()
    assert "✓ shell" not in term.text
    assert not any(e.get("type") == "ToolProposed" for e in session_events(project))
    body = recorded(record)[0]["messages"][-1]["content"][1]["text"]
    assert "[!`echo shown-to-you-now` was not run: this project is not trusted" in body
