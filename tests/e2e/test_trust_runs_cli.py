"""Trust covers what it runs (ADR-0073), through the real binary: `edgar trust` lists the
script a trusted hook runs; a person's edit to it outside edgar lapses trust, the hook no
longer runs, and edgar says which file changed and what to do."""

from __future__ import annotations

import json
import sys

import pytest
from support.project import REPO, edgar_env, make_project, run_edgar, write_script

GUARD = ".claude/hooks/guard.py"


def guarded(tmp_path, where):
    marker = tmp_path / "hook-ran"
    command = f"{sys.executable} {GUARD} {marker}"
    config = ({".edgar/config.toml": f"[[hooks.UserPromptSubmit]]\ncommand = {command!r}\n"}
              if where == "edgar" else {".claude/settings.json": json.dumps({"hooks": {
                  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}]}})})
    project = make_project(tmp_path / "proj", {
        **config, GUARD: "import pathlib, sys\npathlib.Path(sys.argv[1]).write_text('ran')\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "done"}] * 3)
    return project, marker, ["-p", "go", "--model", f"scripted:{script}"]


@pytest.mark.parametrize("where", ["edgar", "claude"])
def test_a_persons_edit_to_a_trusted_hook_script_lapses_trust(tmp_path, where):
    project, marker, args = guarded(tmp_path, where)
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


def test_a_changed_mcp_server_source_is_not_started(tmp_path):
    server = REPO / "tests" / "support" / "mcp_server.py"
    project = make_project(tmp_path / "proj", {
        ".mcp.json": json.dumps({"mcpServers": {"t": {"command": sys.executable,
                                                      "args": ["tools/server.py"]}}}),
        "tools/server.py": server.read_text()})
    env = edgar_env(tmp_path / "home")
    shown = run_edgar(["trust"], cwd=project, env=env)
    assert "tools/server.py: run by MCP server t" in shown.stdout, shown.stdout
    script = write_script(tmp_path / "s.jsonl", [{"text": "done"}] * 2)
    args = ["-p", "go", "--model", f"scripted:{script}"]
    done = run_edgar(args, cwd=project, env=env)
    assert done.returncode == 0 and "not started" not in done.stderr, done.stderr
    with open(project / "tools" / "server.py", "a") as handle:   # a pull, outside edgar
        handle.write("\n# changed\n")
    done = run_edgar(args, cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert ('mcp: project server "t"' in done.stderr
            and "not started: trust lapsed: tools/server.py changed" in done.stderr), done.stderr
