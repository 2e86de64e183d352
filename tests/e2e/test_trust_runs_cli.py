"""Trust covers what it runs (ADR-0073), through the real binary: `edgar trust` lists the
script a trusted hook runs; a person's edit to it outside edgar lapses trust, the hook no
longer runs, and edgar says which file changed and what to do."""

from __future__ import annotations

import sys

from support.project import edgar_env, make_project, run_edgar, write_script

GUARD = ".claude/hooks/guard.py"


def guarded(tmp_path):
    marker = tmp_path / "hook-ran"
    project = make_project(tmp_path / "proj", {
        ".edgar/config.toml": (f'[[hooks.UserPromptSubmit]]\ncommand = "{sys.executable} '
                               f'{GUARD} {marker}"\n'),
        GUARD: "import pathlib, sys\npathlib.Path(sys.argv[1]).write_text('ran')\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "done"}] * 3)
    return project, marker, ["-p", "go", "--model", f"scripted:{script}"]


def test_a_persons_edit_to_a_trusted_hook_script_lapses_trust(tmp_path):
    project, marker, args = guarded(tmp_path)
    env = edgar_env(tmp_path / "home")
    shown = run_edgar(["trust"], cwd=project, env=env)
    assert shown.returncode == 0, shown.stderr
    assert f"{GUARD}: run by UserPromptSubmit hook" in shown.stdout
    assert GUARD in shown.stdout.split("trusted:")[1]          # its digest is recorded
    done = run_edgar(args, cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "ran" and "lapsed" not in done.stderr
    marker.unlink()

    with open(project / GUARD, "a") as handle:            # the person, outside edgar
        handle.write("print('changed')\n")
    done = run_edgar(args, cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()                            # the hook no longer runs
    said = [line for line in done.stderr.splitlines() if "lapsed" in line]
    assert said and all(GUARD in line and "`edgar trust`" in line for line in said), done.stderr
    assert f"edgar: trust lapsed: {GUARD} changed since you trusted this project" in said[0]
    show = run_edgar(["trust", "--show"], cwd=project, env=env)
    assert f"trust lapsed: {GUARD} changed" in show.stdout

    run_edgar(["trust"], cwd=project, env=env)
    done = run_edgar(args, cwd=project, env=env)
    assert marker.exists() and "lapsed" not in done.stderr
