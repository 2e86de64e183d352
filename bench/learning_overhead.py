"""Learning's cost on a turn (issue: learning package): a 20-tool scripted turn with the
learning package attached ÷ the same turn detached. Goal: ≤ 1.05×.

Apps are built with ``edgar.cli.setup.build(..., learning=True/False)``; each turn publishes
the typed prompt and runs ``edgar.core.loop.run_turn`` in-process. Attached and detached
turns alternate so drift in the machine's load hits both alike. What is timed is the turn
alone, from ``PromptTyped`` to ``TurnFinished`` (the learner's fact, the Recorder's row, the
error counter and the history entry are all written inside it). Figures: turns in one long
session (the REPL; every prompt a new fact, the worst case), and one fresh App per turn
(``-p``: databases just opened, so each first commit pays the WAL's one-off sync) with a
plain prompt and with a directive.

Run: python bench/learning_overhead.py [SAMPLES]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from edgar.cli.setup import build  # noqa: E402
from edgar.config import Settings  # noqa: E402
from edgar.core.loop import run_turn  # noqa: E402
from edgar.events import PromptTyped  # noqa: E402
from edgar.providers.scripted import ScriptedProvider  # noqa: E402

# 20 tool calls of the kinds a real turn makes, one failing (so ErrorFacts counts it too)
CALLS = ([{"name": "read", "input": {"path": f"src/m{i}.py"}} for i in range(8)]
         + [{"name": "grep", "input": {"pattern": "def ", "path": "src"}}] * 4
         + [{"name": "glob", "input": {"pattern": "src/*.py"}}] * 3
         + [{"name": "edit", "input": {"path": "src/m0.py", "old_string": "def f0",
                                       "new_string": "def f0"}}] * 2
         + [{"name": "shell", "input": {"command": "true"}}] * 2
         + [{"name": "shell", "input": {"command": "false"}}])


def script_lines() -> list[dict]:
    steps = [{"text": f"Step {i}.", "tool_calls": [call],
              "usage": {"input_tokens": 900, "output_tokens": 40}} for i, call in enumerate(CALLS)]
    return steps + [{"text": "Done: everything is in order. " * 8,
                     "usage": {"input_tokens": 1200, "output_tokens": 80}}]


def _app(project: Path, script: Path, learning: bool, turns: int):
    script.write_text("".join(json.dumps(x) + "\n" for x in script_lines() * turns))
    ScriptedProvider._shared.pop(script.resolve(), None)
    return build(project, Settings(model=f"scripted:{script}", permission_mode="yes"),
                 learning=learning)


def timed_turn(app, i: int, directive: bool = True) -> float:
    # a directive is a new fact each turn, so the learner writes; a plain prompt is the usual
    prompt = f"always keep sample {i} tidy" if directive else f"tidy up sample {i}"
    app.session.messages.clear()                   # every turn the same size, however many ran
    start = time.perf_counter()
    app.bus.publish(PromptTyped(text=prompt, session_id=app.session.id))
    asyncio.run(run_turn(app.session, prompt))
    return time.perf_counter() - start


def in_one_session(project: Path, samples: int) -> dict[bool, list[float]]:
    """A REPL session: one App per mode, many turns (the steady state)."""
    apps = {mode: _app(project, project / f"session-{mode}.jsonl", mode, samples + 1)
            for mode in (True, False)}
    times: dict[bool, list[float]] = {True: [], False: []}
    try:
        for mode in (True, False):
            timed_turn(apps[mode], -1)             # warm-up turn
        for i in range(samples):
            for mode in ((True, False) if i % 2 else (False, True)):
                times[mode].append(timed_turn(apps[mode], i))
    finally:
        for app in apps.values():
            app.close()
    return times


def fresh_each_turn(project: Path, samples: int, directive: bool) -> dict[bool, list[float]]:
    """``edgar -p``: a new App (new session, databases just opened) for every turn."""
    times: dict[bool, list[float]] = {True: [], False: []}
    for i in range(samples):
        for mode in ((True, False) if i % 2 else (False, True)):
            app = _app(project, project / f"fresh-{mode}.jsonl", mode, 1)
            try:
                times[mode].append(timed_turn(app, 10_000 + i, directive))
            finally:
                app.close()
    return times


def report(label: str, times: dict[bool, list[float]]) -> None:
    on, off = statistics.median(times[True]), statistics.median(times[False])
    print(f"{label} ({len(times[True])} turns each, median):")
    print(f"  learning detached   {off * 1000:8.1f} ms")
    print(f"  learning attached   {on * 1000:8.1f} ms")
    print(f"  ratio               {on / off:8.3f}x   (goal <= 1.05x)")
    print(f"  per turn            {(on - off) * 1000:+8.2f} ms")


def main(samples: int = 60) -> None:
    project = Path(tempfile.mkdtemp(prefix="edgar-learning-bench-"))
    (project / ".git").mkdir()
    (project / "src").mkdir()
    for i in range(8):
        (project / "src" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n" * 20)
    os.environ["EDGAR_HOME"] = str(project / "home")
    report("20-tool scripted turn, REPL session", in_one_session(project, samples))
    report("20-tool scripted turn, fresh App per turn (like -p), plain prompt",
           fresh_each_turn(project, max(10, samples // 2), directive=False))
    report("20-tool scripted turn, fresh App per turn (like -p), every prompt a new fact",
           fresh_each_turn(project, max(10, samples // 2), directive=True))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
