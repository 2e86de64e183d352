"""Prompt caching over one session: the share of input tokens billed as cache reads and writes.

A 10-turn session (one fact learned at turn 3, one skill fired at turn 6) runs in a child
process against the loopback server (tests/support/sse_server.py), with the real Anthropic
provider; the server records every request body. The bodies are then billed by Anthropic's
documented caching rules: a ``cache_control`` block is a breakpoint; a request reads from the
cache the longest prefix that an earlier request wrote at one of its breakpoints (looking back
up to 20 blocks from each breakpoint); it writes from there to its last breakpoint; prefixes
under 1,024 tokens are never cached; the rest is plain input. Tokens are estimated at 4
characters of JSON per token (the shares, not the absolute counts, are the figure).

    python bench/cache.py                 # this tree ("after") against the issue's base ("before")
    python bench/cache.py --before REV    # another base commit

Cost relative to sending everything uncached: read 0.1x, write 1.25x, plain 1x.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.sse_server import SSEServer, stream  # noqa: E402

BASE = "4342902"          # main before issue 14's work
MIN_CACHEABLE = 1024      # tokens (Sonnet-class models)
LOOKBACK = 20             # blocks the API looks back from a breakpoint for an earlier write
PROMPTS = [
    "look at the project layout",
    "what does a.txt say?",
    "always keep answers under ten lines",                   # turn 3: a fact is learned
    "now look at the readme",
    "rename the helper in a.txt",
    "draw a mermaid flowchart of the request flow",          # turn 6: a skill fires
    "make the diagram smaller",
    "add a legend to it",
    "shorten the labels",
    "thanks, that is all",
]
INSTRUCTIONS = "\n".join(f"- Rule {n}: keep module {n} small, typed and tested; explain why in "
                         f"comments, briefly." for n in range(150))   # ~12 KB of AGENTS.md

CHILD = """
import asyncio, json, sys
from pathlib import Path
from edgar.cli.oneshot import run_prompt
from edgar.cli.setup import build
from edgar.config import Settings
root, prompts = Path(sys.argv[1]), json.loads(sys.argv[2])
app = build(root, Settings(model="anthropic:claude-sonnet-4-6", permission_mode="yes"))
async def go():
    for prompt in prompts:
        await run_prompt(app, prompt, fmt="quiet")
    await app.session.provider.aclose()
asyncio.run(go())
app.close()
"""


def run_session(tree: Path) -> list[dict[str, Any]]:
    """The request bodies of the 10-turn session, run with the edgar in ``tree``."""
    with SSEServer() as server, tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        (project / "a.txt").write_text("hello\n")
        (project / "AGENTS.md").write_text(INSTRUCTIONS + "\n")
        shutil.copytree(ROOT / "tests" / "data" / "skills", project / ".edgar" / "skills")
        server.anthropic(*[stream("anthropic_text") for _ in PROMPTS])
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "EDGAR_"))}
        env.update(PYTHONPATH=str(tree), EDGAR_HOME=str(Path(tmp) / "home"),
                   ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=server.url)
        done = subprocess.run([sys.executable, "-c", CHILD, str(project), json.dumps(PROMPTS)],
                              cwd=project, env=env, capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise SystemExit(f"the session failed in {tree}:\n{done.stderr[-2000:]}")
        return server.bodies()


def blocks_of(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The prompt as (block JSON without its mark, is a breakpoint), in the API's order."""
    out: list[tuple[str, bool]] = []

    def add(block: Any) -> None:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        mark = "cache_control" in block
        plain = {k: v for k, v in block.items() if k != "cache_control"}
        out.append((json.dumps(plain, sort_keys=True), mark))

    for tool in body.get("tools", []):
        add(tool)
    system = body.get("system", [])
    for block in [system] if isinstance(system, str) else system:
        add(block)
    for message in body["messages"]:
        content = message["content"]
        for block in [content] if isinstance(content, str) else content:
            add({"role": message["role"], **block} if isinstance(block, dict) else block)
    return out


def bill(bodies: list[dict[str, Any]]) -> dict[str, int]:
    cache: set[str] = set()
    total = {"read": 0, "write": 0, "plain": 0}
    for body in bodies:
        blocks = blocks_of(body)
        sizes = [max(1, len(text) // 4) for text, _ in blocks]
        hashes, h = [""], hashlib.sha256()
        for text, _ in blocks:
            h.update(text.encode())
            hashes.append(h.copy().hexdigest())     # hashes[i]: the prefix of i blocks
        points = [i + 1 for i, (_, mark) in enumerate(blocks) if mark]
        read = 0
        for point in points:
            for j in range(point, max(0, point - LOOKBACK) - 1, -1):
                if hashes[j] in cache:
                    read = max(read, j)
                    break
        last = points[-1] if points else 0
        written = 0
        for point in points:
            if sum(sizes[:point]) >= MIN_CACHEABLE:
                cache.add(hashes[point])
                written = point
        total["read"] += sum(sizes[:read])
        total["write"] += sum(sizes[read:max(read, min(written, last))])
        total["plain"] += sum(sizes[max(read, min(written, last)):])
    return total


def report(label: str, bodies: list[dict[str, Any]]) -> float:
    t = bill(bodies)
    whole = sum(t.values())
    relative = (0.1 * t["read"] + 1.25 * t["write"] + t["plain"]) / whole
    systems = len({json.dumps(b.get("system")) for b in bodies})
    print(f"{label:<7} {len(bodies)} requests, {whole:,} input tokens: "
          f"cache reads {t['read'] / whole:.1%}, cache writes {t['write'] / whole:.1%}, "
          f"uncached {t['plain'] / whole:.1%}; input cost {relative:.2f}x of no caching; "
          f"{systems} distinct system prompt(s)")
    return relative


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BASE, help="the base commit to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before_tree = Path(tmp) / "before"
        before_tree.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "edgar"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before_tree)], input=archive, check=True)
        before = report("before", run_session(before_tree))
    after = report("after", run_session(ROOT))
    print(f"input cost after / before: {after / before:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
