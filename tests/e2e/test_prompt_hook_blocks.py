"""A prompt a UserPromptSubmit hook refuses is never learned or kept (issue 21 item 9,
ADR-0077), through the real binary: the hook is asked before ``PromptTyped`` is published,
and the blocked turn still opens and closes (TurnStarted, TurnFinished outcome "blocked")."""

from __future__ import annotations

import json
import shlex
import shutil
import sys

import pytest
from support.hostile import machine_fixture
from support.project import REPO, edgar_env, make_project, run_edgar, write_script

HOOK = REPO / "tests" / "support" / "hooks" / "hook.py"
LINE = "always use tabs for indentation in this project"


def _setup(tmp_path, mode="block", python=sys.executable, hook_path=HOOK):
    home = tmp_path / "home"
    home.mkdir()
    py, hook = shlex.quote(python), shlex.quote(str(hook_path))
    (home / "config.toml").write_text(
        "[[hooks.UserPromptSubmit]]\n"
        f"command = \"{py} {hook} {mode} 'prompts about tabs are not allowed here'\"\n")
    root = make_project(tmp_path / "p", {"a.txt": "x\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "never sent"}])
    record = tmp_path / "requests.jsonl"
    return root, script, edgar_env(home, EDGAR_SCRIPTED_RECORD=str(record)), home, record


machine = machine_fixture("edgar-prompt-block-")


def test_a_blocked_prompt_is_not_published_learned_logged_or_sent(machine):
    """As root and as the ordinary user, bubblewrap present and hidden: the hook is run by
    the spawner every program edgar starts goes through, which differs on each."""
    hook = machine.base / "hook.py"
    shutil.copy(HOOK, hook)
    for mode in ("block", "json-block"):
        base = machine.base / mode
        base.mkdir()
        root, script, env, home, record = _setup(base, mode, machine.python, hook)
        env.update({k: v for k, v in machine.env(home).items() if k in ("PATH", "PYTHONPATH")})
        out = machine.edgar(["-p", LINE, "--model", f"scripted:{script}", "--output-format",
                             "edgar-events"], cwd=root, env=env)
        assert out.returncode != 0
        events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
        kinds = [e.get("type") for e in events]
        assert "PromptTyped" not in kinds, kinds
        assert kinds.count("TurnStarted") == 1 and kinds.count("TurnFinished") == 1, kinds
        [finished] = [e for e in events if e.get("type") == "TurnFinished"]
        assert finished["outcome"] == "blocked"
        assert "tabs are not allowed" in out.stderr + out.stdout
        sent = json.loads((root / "hook-log.jsonl").read_text().splitlines()[0])
        assert sent["prompt"] == LINE          # the hook was asked, with the line
        assert not record.exists() or record.read_text() == ""     # no model call
        facts = machine.edgar(["memory", "list", "--all"], cwd=root, env=env)
        assert facts.returncode == 0, facts.stderr
        assert "tabs" not in facts.stdout
        # nowhere on disk: not in a session log, history, or any store (the config excepted)
        for place in (root, home):
            for path in place.rglob("*"):
                if path.is_file() and path.name not in ("config.toml", "hook-log.jsonl"):
                    assert b"use tabs" not in path.read_bytes(), path


def test_the_control_without_the_hook_the_same_line_is_published_and_learned(tmp_path):
    pytest.importorskip("edgar.learning")   # "learned" needs the learning package
    root, script, env, home, record = _setup(tmp_path)
    plain_home = tmp_path / "plain-home"
    plain_home.mkdir()
    plain = edgar_env(plain_home)
    out = run_edgar(["-p", LINE, "--model", f"scripted:{script}", "--output-format",
                     "edgar-events"], root, plain)
    assert out.returncode == 0, out.stderr
    kinds = [json.loads(line).get("type") for line in out.stdout.splitlines()
             if line.startswith("{")]
    assert "PromptTyped" in kinds and kinds.count("TurnFinished") == 1
    facts = run_edgar(["memory", "list"], root, plain)
    assert "tabs" in facts.stdout     # so the test above would see a leak
