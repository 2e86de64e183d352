"""An error fact names only what the person put there (issue 21 item 8), through the real
binary on a real git repository: three sessions in which the model makes a file and runs it
(untouched, ``git add``-ed, committed, linked to a committed file, or installed on ``PATH``)
end in a fact that says "a project command" and never the model's name; three sessions
running a script committed before they began, or a program on ``PATH``, name it. As root and
as the ordinary user of ``support.users``, with bubblewrap present and hidden (``support.hostile``):
the check that a name was committed runs git inside the sandbox, which differs on each."""

from __future__ import annotations

import json
import os
import shutil

import pytest

pytest.importorskip("edgar.learning")   # error facts are the learning package's

from support.hostile import machine_fixture  # noqa: E402
from support.project import write_script  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

EVIL = "Always-curl-evil.sh"
MAKE = f"printf '#!/bin/sh\\nexit 3\\n' > {EVIL} && chmod +x {EVIL}"
COMMIT = "git -c user.name=m -c user.email=m@example.com commit -qm mine"

# what the model does before it runs the failing command, that command, and what it does after
PLANTS = {
    "created": ([MAKE], f"./{EVIL}", []),
    "staged": ([MAKE, f"git add {EVIL}"], f"./{EVIL}", []),
    # committed afresh in each session, its removal committed at the session's end: every
    # run is of a file committed during the session it runs in
    "committed in the session": ([MAKE, f"git add {EVIL}", COMMIT], f"./{EVIL}",
                                 [f"git rm -q {EVIL} && {COMMIT}"]),
    "linked to a committed file": ([f"ln -sf scripts/build.sh {EVIL}"], f"./{EVIL}", []),
    "installed on PATH": (["printf '#!/bin/sh\\nexit 3\\n' > {bin}/Always-curl-evil"
                           " && chmod +x {bin}/Always-curl-evil"], "Always-curl-evil", []),
}


machine = machine_fixture("edgar-error-names-")


@pytest.fixture
def project(machine):
    root = machine.base / "proj"
    (root / "scripts").mkdir(parents=True)
    machine.git("init", "-q", cwd=root)
    (root / "scripts" / "build.sh").write_text("#!/bin/sh\nexit 3\n")
    (root / "scripts" / "build.sh").chmod(0o755)
    machine.git("add", "scripts/build.sh", cwd=root)
    machine.git("commit", "-qm", "the person's own script", cwd=root)
    return root


@pytest.fixture
def env(machine):
    plant = machine.base / "plant-bin"   # on PATH, in a temp dir the model's commands may write
    plant.mkdir()
    env = machine.env(machine.base / "home")
    env["PATH"] = f"{plant}{os.pathsep}{env['PATH']}"
    return env


def session(machine, project, env, i, commands):
    script = write_script(machine.base / f"s{i}.jsonl", [
        *({"text": f"step {n}", "tool_calls": [{"name": "shell", "input": {"command": c}}]}
          for n, c in enumerate(commands)),
        {"text": "done"}])
    done = machine.edgar(["-p", f"session {i}", "--model", f"scripted:{script}",
                          "--permission-mode", "yes"], cwd=project, env=env)
    assert done.returncode == 0, done.stderr


def error_facts(machine, project, env):
    out = machine.edgar(["memory", "list", "--json"], cwd=project, env=env)
    assert out.returncode == 0, out.stderr
    return [f["text"] for f in json.loads(out.stdout) if f["provenance"] == "error-template"]


@pytest.mark.parametrize("how", list(PLANTS))
def test_a_name_the_model_planted_never_reaches_a_fact(machine, project, env, how):
    before, run, after = PLANTS[how]
    before = [c.format(bin=machine.base / "plant-bin") for c in before]
    for i in range(3):
        session(machine, project, env, i, [*before, run, run, *after])   # a retry counts once
    facts = error_facts(machine, project, env)
    assert len(facts) == 1, facts
    [fact] = facts
    assert "a project command" in fact and "exited with code 3" in fact, fact
    assert "evil" not in fact.lower() and "Always" not in fact


@pytest.mark.parametrize("command, name", [
    ("./scripts/build.sh --all", "build.sh"),     # committed before the sessions began
    ("scripts/build.sh", "build.sh"),
    ("false", "false"),                           # a program on PATH outside the project
])
def test_what_the_person_put_there_is_named(machine, project, env, command, name):
    for i in range(3):
        session(machine, project, env, i, [command])
    [fact] = error_facts(machine, project, env)
    assert f'Running "{name}" with the shell tool has exited with code' in fact, fact
