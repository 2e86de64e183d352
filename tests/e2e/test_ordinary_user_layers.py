"""The ordinary user gets what root gets (issue 21 item 7), through the real binary: the
namespaces hold for a non-root edgar that has hardened itself, ``edgar doctor`` lists exactly
the layers the session's first command announces, and one command cannot start 1,500
processes. As root and as the ordinary user of ``support.users``, bubblewrap present and hidden.
"""

from __future__ import annotations

import re

import pytest
from support.hostile import machine_fixture
from support.project import state_of, write_script

from edgar.sandbox.probe import capabilities

FORKER = """import os, time
n = 0
try:
    while n < 1500:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except OSError:
    pass
print("started", n, flush=True)
os._exit(0)
"""


machine = machine_fixture("edgar-user-layers-")


@pytest.mark.skipif(capabilities().namespaces is None, reason="no namespaces on this kernel")
def test_doctor_reports_the_layers_the_command_gets_and_processes_are_capped(machine):
    project = machine.base / "proj"
    (project / ".git").mkdir(parents=True)
    (machine.base / "forker.py").write_text(FORKER)
    script = write_script(machine.base / "s.jsonl", [
        {"tool_calls": [{"name": "shell", "input": {"command": "ls /proc | grep -c '^[0-9]'"}}]},
        {"tool_calls": [{"name": "shell", "input": {
            "command": f"python3 {machine.base / 'forker.py'}"}}]},
        {"text": "done"}])
    env = machine.env(machine.base / "home")
    done = machine.edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes"],
                         cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    announced = re.search(r"sandbox: workspace-write, no network \(([^)]*)\)", done.stderr)
    assert announced, done.stderr                       # every layer: no "partial" warning
    doctor = machine.edgar(["doctor", "--model", "scripted:x"], cwd=project, env=env)
    listed = [m.group(1) for m in re.finditer(r"^\s+\+ ([a-z ]+):", doctor.stdout, re.M)]
    assert [n.removesuffix(" namespace") for n in listed] == announced.group(1).split(", ")
    for layer in ("user", "pid", "mount", "network", "process limit"):
        assert layer in announced.group(1).split(", "), (layer, announced.group(1))
    log = next((state_of(project, machine.base / "home") / "sessions").glob("*.jsonl")).read_text()
    pids = re.search(r'"(\d+)\\n', log)
    assert pids and int(pids.group(1)) < 10, log[-2000:]   # a fresh /proc: edgar is not there
    started = re.search(r"started (\d+)", log)
    assert started and int(started.group(1)) < 1100, log[-2000:]
