"""MCP figures (issue 15).

1. Start-up with no MCP server configured, before ÷ after: median wall time of
   ``edgar --version`` and of a scripted ``edgar -p`` at the baseline (``main`` without this
   work, exported with ``git archive``) and at this tree, runs alternated. Goal: ≤ 1.02×.
2. Session start → first model request with two stdio servers (the SDK's own test server
   and mcp-server-time), in a fresh process, against the same with none.
3. Per-call overhead of an MCP tool ÷ a built-in ``read`` of similar size (2 000 characters),
   both through the real harness (``run_tool``) in one session.

Run: python bench/mcp_figures.py [--runs N]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()


def baseline_rev() -> str:
    """edgar without MCP and hooks, everything else equal: ``main`` while this work is not
    merged; once it is, the first-parent commit of main just before the merge."""
    if not git("ls-tree", "main", "edgar/mcp/__init__.py"):
        return git("rev-parse", "main")
    merges = git("log", "main", "--first-parent", "--format=%H", "--",
                 "edgar/mcp/__init__.py").split()
    return git("rev-parse", f"{merges[-1]}^1")


def baseline_tree(work: Path, rev: str) -> Path:
    tree = work / "baseline"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    return time.perf_counter() - start


def startup(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        rev = baseline_rev()
        base = baseline_tree(work, rev)
        print(f"baseline: {rev[:10]} (edgar without MCP and hooks)")
        project = work / "proj"
        (project / ".git").mkdir(parents=True)
        script = work / "s.jsonl"
        script.write_text('{"text": "hello"}\n')
        commands = {"--version": ["--version"],
                    "-p (scripted)": ["-p", "hi", "--model", f"scripted:{script}",
                                      "--permission-mode", "yes", "--no-history"]}
        for label, args in commands.items():
            samples: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(runs):  # alternate, so drift on a shared machine hits both
                for name, tree in (("before", base), ("after", REPO)):
                    env = {"PATH": os.environ["PATH"], "HOME": str(work),
                           "EDGAR_HOME": str(work / "home"), "PYTHONPATH": str(tree)}
                    samples[name].append(timed([sys.executable, "-m", "edgar", *args],
                                               project, env))
            before = statistics.median(samples["before"])
            after = statistics.median(samples["after"])
            print(f"start-up, no MCP server, edgar {label}: before {before * 1000:.1f} ms, "
                  f"after {after * 1000:.1f} ms, after/before = {after / before:.3f}x "
                  f"(goal <= 1.02x; {runs} runs each)")


FIRST_REQUEST = r"""
import asyncio, json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from edgar.cli.setup import build
from edgar.config import McpServerSettings, McpSettings, Settings
from edgar.core.loop import run_turn
from edgar.events import ModelResponded
servers = json.loads(sys.argv[2])
settings = Settings(model="scripted:" + sys.argv[1], permission_mode="yes",
                    mcp=McpSettings(servers={k: McpServerSettings(**v) for k, v in servers.items()}))
app = build(Path.cwd(), settings, learning=False)
seen = []
app.bus.subscribe(ModelResponded, lambda e: seen.append(time.perf_counter()))
asyncio.run(app.running(run_turn(app.session, "hi")))
print(json.dumps({"first_request": seen[0] - t0,
                  "tools": sorted(n for n in (app.mcp.rows() if app.mcp else []))}))
"""


def first_request(runs: int) -> None:
    server = str(REPO / "tests" / "support" / "mcp_server.py")
    two = {"test": {"command": sys.executable, "args": [server]},
           "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / ".git").mkdir()
        script = work / "s.jsonl"
        results: dict[str, list[float]] = {"none": [], "two": []}
        for _ in range(runs):
            for label, servers in (("none", {}), ("two", two)):
                script.write_text('{"text": "hello"}\n')
                env = {"PATH": os.environ["PATH"], "HOME": str(work),
                       "EDGAR_HOME": str(work / "home"), "PYTHONPATH": str(REPO)}
                out = subprocess.run([sys.executable, "-c", FIRST_REQUEST, str(script),
                                      json.dumps(servers)], cwd=work, env=env,
                                     capture_output=True, text=True, check=True)
                results[label].append(json.loads(out.stdout.splitlines()[-1])["first_request"])
        none, with_two = statistics.median(results["none"]), statistics.median(results["two"])
        print(f"session start -> first model request: no server {none * 1000:.0f} ms, two stdio "
              f"servers {with_two * 1000:.0f} ms (+{(with_two - none) * 1000:.0f} ms; "
              f"{runs} runs each, fresh process, SDK import included)")


async def _per_call(n: int) -> tuple[float, float]:
    from edgar.cli.setup import build
    from edgar.config import McpServerSettings, McpSettings, Settings
    from edgar.core.harness import run_tool
    from edgar.core.loop import _tool_context  # bench only: the loop's own tool context
    from edgar.providers.base import ToolCall

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / ".git").mkdir()
        (root / "f.txt").write_text("\n".join("x" * 39 for _ in range(50)))  # ~2000 chars
        script = root / "s.jsonl"
        script.write_text('{"text": "x"}\n')
        os.environ["EDGAR_HOME"] = str(root / "home")
        server = str(REPO / "tests" / "support" / "mcp_server.py")
        settings = Settings(model=f"scripted:{script}", permission_mode="yes", mcp=McpSettings(
            servers={"t": McpServerSettings(command=sys.executable, args=[server])}))
        app = build(root, settings, learning=False)

        async def work() -> tuple[float, float]:
            await app.session.ready()
            from edgar.core.turn import Turn

            ctx = _tool_context(app.session, Turn(id="bench", depth=0))
            where = {"session_id": app.session.id, "turn_id": "bench", "depth": 0}
            calls = {"read": ToolCall("c", "read", {"path": "f.txt"}),
                     "mcp": ToolCall("c", "mcp__t__big", {"chars": 2000})}
            times: dict[str, list[float]] = {"read": [], "mcp": []}
            for _ in range(n):
                for label, call in calls.items():
                    start = time.perf_counter()
                    block, _ = await run_tool(call, app.session.tools, ctx, app.bus.publish,
                                              where)
                    times[label].append(time.perf_counter() - start)
                    assert not block.is_error, block.content
            return statistics.median(times["read"]), statistics.median(times["mcp"])

        return await app.running(work())


def per_call(n: int) -> None:
    read, mcp = asyncio.run(_per_call(n))
    print(f"per call through the harness: built-in read {read * 1e6:.0f} us, MCP tool (stdio, "
          f"2000 chars) {mcp * 1e6:.0f} us, MCP / read = {mcp / read:.1f}x ({n} calls each)")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--calls", type=int, default=200)
    args = p.parse_args()
    startup(args.runs)
    first_request(max(3, args.runs // 2))
    per_call(args.calls)


if __name__ == "__main__":
    main()
