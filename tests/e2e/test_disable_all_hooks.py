"""Claude Code's ``disableAllHooks`` through the real binary (ADR-0112): ``true`` turns off the
Claude Code hooks of its file and of every file of lower precedence (user < project < local),
said at start; a project's value counts only after ``edgar trust``; edgar's own ``[hooks]``
stay on. HOME is a temporary directory."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from support.project import edgar_env, make_project, run_edgar, write_script

RM = {"name": "shell", "input": {"command": "rm -rf build"}}


def guard(witness: Path, name: str) -> dict:
    """A Claude Code PreToolUse hook on Bash that notes it ran and blocks (exit 2)."""
    code = (f"import sys; open({str(witness)!r}, 'a').write({name!r} + '\\n'); "
            "print('blocked by guard', file=sys.stderr); sys.exit(2)")
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"
    return {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
                                                          "command": command}]}]}


@pytest.fixture
def setup(tmp_path):
    home = tmp_path / "u"
    (home / ".claude").mkdir(parents=True)
    project = make_project(tmp_path / "p", {"build/out.o": "x\n"})
    (project / ".claude").mkdir()
    env = edgar_env(tmp_path / "edgar-home", HOME=str(home))
    return home, project, env, tmp_path / "ran"


def write(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=2))


def go(tmp_path: Path, project: Path, env: dict):
    script = write_script(tmp_path / "s.jsonl", [{"tool_calls": [RM]}, {"text": "done"}])
    return run_edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes"],
                     project, env)


def ran(witness: Path) -> list[str]:
    return witness.read_text().split() if witness.exists() else []


def test_true_in_the_users_file_turns_its_hooks_off_and_says_so(tmp_path, setup):
    home, project, env, witness = setup
    write(home / ".claude" / "settings.json",
          {"disableAllHooks": True, "hooks": guard(witness, "user")})
    out = go(tmp_path, project, env)
    assert out.returncode == 0, out.stderr
    assert ran(witness) == [] and not (project / "build").exists()
    assert "disableAllHooks is true: the Claude Code hooks of ~/.claude/settings.json do not run" \
        in out.stderr
    assert "does not honour" not in out.stderr


def test_an_untrusted_project_cannot_turn_the_persons_hooks_off(tmp_path, setup):
    home, project, env, witness = setup
    write(home / ".claude" / "settings.json", {"hooks": guard(witness, "user")})
    write(project / ".claude" / "settings.json", {"disableAllHooks": True})
    out = go(tmp_path, project, env)
    assert ran(witness) == ["user"] and (project / "build").exists()   # the guard held
    assert "disableAllHooks waits for `edgar trust`" in out.stderr
    assert run_edgar(["trust"], project, env).returncode == 0
    out = go(tmp_path, project, env)                  # trusted: higher precedence, all off
    assert out.returncode == 0, out.stderr
    assert ran(witness) == ["user"] and not (project / "build").exists()


def test_a_higher_files_false_keeps_lower_hooks_on_and_true_leaves_higher_ones(tmp_path, setup):
    home, project, env, witness = setup
    write(home / ".claude" / "settings.json",
          {"disableAllHooks": True, "hooks": guard(witness, "user")})
    write(project / ".claude" / "settings.json",
          {"disableAllHooks": False, "hooks": guard(witness, "project")})
    assert run_edgar(["trust"], project, env).returncode == 0
    go(tmp_path, project, env)
    assert sorted(ran(witness)) == ["project", "user"]   # false above the user's: both run
    witness.unlink()
    write(project / ".claude" / "settings.json", {"hooks": guard(witness, "project")})
    assert run_edgar(["trust"], project, env).returncode == 0
    go(tmp_path, project, env)
    assert ran(witness) == ["project"]   # the user's true reaches its own file, not higher


def test_edgars_own_hooks_stay_on(tmp_path, setup):
    home, project, env, witness = setup
    write(home / ".claude" / "settings.json", {"disableAllHooks": True})
    code = f"open({str(witness)!r}, 'a').write('edgar\\n')"
    (tmp_path / "edgar-home").mkdir(exist_ok=True)
    (tmp_path / "edgar-home" / "config.toml").write_text(
        '[[hooks.PreToolUse]]\nmatcher = "shell"\n'
        f"command = {json.dumps(shlex.quote(sys.executable) + ' -c ' + shlex.quote(code))}\n")
    out = go(tmp_path, project, env)
    assert out.returncode == 0, out.stderr
    assert ran(witness) == ["edgar"]
