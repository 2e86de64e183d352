"""Bus and harness figures (issue 2): the cost of one publish with 0 and 3 subscribers, and a
20-tool-call scripted turn's harness overhead (wall time of the turn minus the time spent
inside tools, per tool call).

Run: python bench/bus.py. Prints figures; asserts nothing.
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

from edgar.bus import Bus  # noqa: E402
from edgar.events import TextDelta, ToolFinished  # noqa: E402


def per_publish(subscribers: int, n: int = 200_000) -> float:
    bus = Bus()
    for _ in range(subscribers):
        bus.subscribe(TextDelta, lambda e: None)
    event = TextDelta(text="x")
    start = time.perf_counter()
    for _ in range(n):
        bus.publish(event)
    return (time.perf_counter() - start) / n


def turn_overhead(runs: int = 15) -> tuple[float, float]:
    from edgar.cli.setup import build
    from edgar.config import Settings
    from edgar.core.loop import run_turn
    from edgar.providers.scripted import ScriptedProvider

    project = Path(tempfile.mkdtemp(prefix="edgar-bus-"))
    (project / ".git").mkdir()
    (project / "a.txt").write_text("hello\n")
    os.environ["EDGAR_HOME"] = str(project / "home")
    lines = [{"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]}] * 20 + [{"text": "done"}]
    walls, tool_time = [], []
    for i in range(runs):
        script = project / f"s{i}.jsonl"
        script.write_text("".join(json.dumps(x) + "\n" for x in lines))
        app = build(project, Settings(model=f"scripted:{script}", permission_mode="yes"),
                    learning=False, no_history=True)
        spent = []
        app.bus.subscribe(ToolFinished, lambda e: spent.append(e.duration))
        start = time.perf_counter()
        asyncio.run(run_turn(app.session, "go"))
        walls.append(time.perf_counter() - start)
        tool_time.append(sum(spent))
        app.close()
        ScriptedProvider._shared.clear()
    wall = statistics.median(walls)
    return wall, (wall - statistics.median(tool_time)) / 20


def main() -> None:
    print(f"publish, 0 subscribers: {per_publish(0) * 1e9:8.0f} ns")
    print(f"publish, 3 subscribers: {per_publish(3) * 1e9:8.0f} ns")
    wall, per_call = turn_overhead()
    print(f"20-tool scripted turn:  {wall * 1000:8.1f} ms wall (learning detached)")
    print(f"harness overhead:       {per_call * 1000:8.2f} ms per tool call (wall minus tool time)")


if __name__ == "__main__":
    main()
