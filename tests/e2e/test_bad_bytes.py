"""Bytes that are not UTF-8, and NULs, wherever a person or a repository can put them: a
located error or a U+FFFD, never a traceback (issue 11)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from support.project import edgar_env, make_project, state_of, write_script


def run_bytes(args: list[bytes], cwd, env) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([os.fsencode(sys.executable), b"-m", b"edgar", *args], cwd=cwd,
                          env=env, capture_output=True, timeout=60)


def test_a_prompt_with_invalid_utf8_runs_and_is_logged(tmp_path):
    project = make_project(tmp_path / "proj")
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "shell", "input": {"command": "printf 'out \\377 put'"}}]},
        {"text": "done"}])
    done = run_bytes([b"-p", b"always say \xff please", b"--model",
                      os.fsencode(f"scripted:{script}"), b"--permission-mode", b"yes",
                      b"--output-format", b"json"], project, edgar_env(tmp_path / "home"))
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in done.stderr
    log = next((state_of(project, tmp_path / "home") / "sessions").glob("*.jsonl")).read_text(
        encoding="utf-8")
    assert "always say \ufffd please" in log and "out \ufffd put" in log
    assert json.loads(done.stdout)["result"] == "done"


def test_invalid_utf8_in_config_is_a_located_error(tmp_path):
    project = make_project(tmp_path / "proj")
    (project / ".edgar").mkdir()
    (project / ".edgar" / "config.toml").write_bytes(b'max_steps = 5\nmodel = "caf\xe9"\n')
    done = run_bytes([b"-p", b"hi", b"--model", b"scripted:x"], project,
                     edgar_env(tmp_path / "home"))
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    assert done.stderr.decode().strip() == (
        f"edgar: {project / '.edgar' / 'config.toml'}:2: not valid UTF-8 (byte 0xe9); save the "
        "file as UTF-8")
