"""A scripted 30-session run for the error learner (issue 10), shared by the test and the
bench: refusals, grep no-matches and other answers, and one really broken command.

Each session is a fresh ``edgar -p``-like App (``cli/setup.build`` + ``run_prompt``) with
the scripted model on a real git project. Every third session runs in ``ask`` mode, where
``-p`` refuses every write, edit and shell call (``denied``); the others run in ``yes`` mode
and search, diff and test (exit 1: answers), and in three of them ``make build`` fails for
real (exit 2).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from support.project import state_of

BROKEN_IN = (4, 13, 22)          # the sessions where `make build` runs (and fails)

ANSWERS = [{"name": "shell", "input": {"command": "grep -n TODO a.txt"}},
           {"name": "shell", "input": {"command": "diff a.txt b.txt"}},
           {"name": "shell", "input": {"command": "test -f missing.txt"}},
           {"name": "shell", "input": {"command": "git grep -n FIXME"}},
           {"name": "shell", "input": {"command": "git diff --exit-code"}}]
REFUSED = [{"name": "write", "input": {"path": "new.txt", "content": "x"}},
           {"name": "edit", "input": {"path": "a.txt", "old_string": "alpha",
                                      "new_string": "beta"}},
           {"name": "shell", "input": {"command": "rm -rf build"}}]
BROKEN = {"name": "shell", "input": {"command": "make build"}}


@dataclass
class Run:
    sessions: int
    kinds: Counter               # ErrorRecord kinds seen on the bus, over all sessions
    facts: list[str]             # error-template facts in memory at the end


def make_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "a.txt").write_text("alpha\n")
    (root / "b.txt").write_text("beta\n")
    (root / "Makefile").write_text("build:\n\t@echo 'cc: error: no input files' >&2; exit 2\n")
    subprocess.run(["git", "-C", str(root), "add", "a.txt", "b.txt", "Makefile"], check=True)
    (root / "a.txt").write_text("alpha changed\n")      # so `git diff --exit-code` says 1
    return root


def script_for(i: int) -> tuple[str, list[dict]]:
    if i % 3 == 0:
        calls = REFUSED
        mode = "ask"
    else:
        calls = ANSWERS + ([BROKEN] if i in BROKEN_IN else [])
        mode = "yes"
    lines = [{"text": f"step {n}", "tool_calls": [call]} for n, call in enumerate(calls)]
    return mode, lines + [{"text": "done"}]


def run(root: Path, sessions: int = 30) -> Run:
    from edgar.cli.oneshot import run_prompt
    from edgar.cli.setup import build
    from edgar.config import Settings
    from edgar.events import ToolFinished

    if shutil.which("git") is None or shutil.which("make") is None:
        raise RuntimeError("the 30-session run needs git and make")
    kinds: Counter = Counter()
    for i in range(sessions):
        mode, lines = script_for(i)
        script = root.parent / f"session-{i}.jsonl"
        script.write_text("".join(json.dumps(line) + "\n" for line in lines))
        app = build(root, Settings(model=f"scripted:{script}", permission_mode=mode),
                    no_history=True, no_verify=True)
        app.bus.subscribe(ToolFinished, lambda e: e.error and kinds.update([e.error.kind]))
        try:
            asyncio.run(run_prompt(app, f"session {i}: look around", fmt="quiet"))
        finally:
            app.close()
    from edgar.memory.store import MemoryStore

    with MemoryStore(state_of(root) / "memory.db", redact=lambda s: s) as memory:
        facts = [f.text for f in memory.list(None) if f.provenance == "error-template"]
    return Run(sessions, kinds, facts)
