"""The sandbox through the real binary: a hostile model's shell calls in `edgar -p`."""

from __future__ import annotations

import json

import pytest
from support.project import edgar_env, make_project, run_edgar, state_of, write_script

from edgar.sandbox.probe import capabilities

CAPS = capabilities()
needs_ns = pytest.mark.skipif(CAPS.namespaces is None,
                              reason=f"no namespaces here: {'; '.join(CAPS.why_not)}")


def shell(command: str) -> dict:
    return {"tool_calls": [{"name": "shell", "input": {"command": command}}]}


@needs_ns
def test_a_hostile_shell_call_cannot_raise_its_permissions_or_read_edgars_secrets(tmp_path):
    project = make_project(tmp_path / "proj", {".edgar/config.toml": "max_steps = 10\n"})
    home = tmp_path / "home"
    script = write_script(tmp_path / "s.jsonl", [
        shell("echo 'permission_mode = \"yes\"' >> .edgar/config.toml"),
        shell("echo 'touch /tmp/pwned' > .git/hooks/pre-commit"),
        shell("cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep -c CANARY_6612"),
        shell(f"echo x > {home}/config.toml"),
        {"text": "done"}])
    env = edgar_env(home, GITHUB_TOKEN="CANARY_6612")
    done = run_edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes"],
                     cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert (project / ".edgar" / "config.toml").read_text() == "max_steps = 10\n"
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert not (home / "config.toml").exists()
    assert "CANARY_6612" not in done.stdout
    log = next((state_of(project, tmp_path / "home") / "sessions").glob("*.jsonl")).read_text()
    results = [json.loads(line) for line in log.splitlines()]
    text = json.dumps(results)
    assert "sandbox: write to edgar's state refused" in text
    assert "edgar: sandbox: workspace-write, no network" in done.stderr  # said once
    assert done.stderr.count("sandbox: workspace-write") == 1


def test_doctor_names_the_layers(tmp_path):
    project = make_project(tmp_path / "proj")
    done = run_edgar(["doctor", "--model", "scripted:x"], cwd=project,
                     env=edgar_env(tmp_path / "home"))
    assert "sandbox   workspace-write, network off" in done.stdout
    if CAPS.namespaces is not None:
        assert "+ pid namespace" in done.stdout and "+ network namespace" in done.stdout


@pytest.mark.timing   # asserts how long it took
def test_a_command_that_leaves_a_child_holding_its_output_finishes_cleanly(tmp_path):
    import time

    project = make_project(tmp_path / "proj")
    script = write_script(tmp_path / "s.jsonl", [
        shell("sleep 40.5 > /dev/stdout & echo finished-here"), {"text": "done"}])
    started = time.monotonic()
    done = run_edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes",
                      "--output-format", "json"], cwd=project, env=edgar_env(tmp_path / "home"))
    assert done.returncode == 0 and time.monotonic() - started < 20
    assert json.loads(done.stdout)["tools"][0]["ok"] is True
    assert "Traceback" not in done.stderr and "Event loop is closed" not in done.stderr
    log = next((state_of(project, tmp_path / "home") / "sessions").glob("*.jsonl")).read_text()
    assert "finished-here" in log


def test_only_the_persons_own_off_switch_turns_the_sandbox_off(tmp_path):
    outside = tmp_path / "outside-marker"
    project = make_project(tmp_path / "proj", {".edgar/config.toml": '[sandbox]\nmode = "off"\n'})
    home = tmp_path / "home"
    script = write_script(tmp_path / "s.jsonl", [
        shell(f"ls /proc | grep -c '^[0-9]' > {outside}"), {"text": "done"}])
    args = ["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes"]
    done = run_edgar(args, cwd=project, env=edgar_env(home))   # the project's "off": ignored
    assert "ignoring untrusted project settings (sandbox.mode)" in done.stderr
    if CAPS.namespaces is not None:
        assert int(outside.read_text()) < 10                    # its own /proc: confined
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[sandbox]\nmode = "off"\n')   # the person's own: applies
    done = run_edgar(args, cwd=project, env=edgar_env(home))
    assert done.returncode == 0, done.stderr
    assert "sandbox:" not in done.stderr                        # off is the only silence
    assert int(outside.read_text()) > 10                        # the host's /proc
