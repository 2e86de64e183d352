"""Peak memory of grep over a tree holding a 1 GB file (issue 11; goal ≤ 60 MB).

Each case runs the real ``grep`` tool in a fresh interpreter and reports its peak RSS
(``ru_maxrss``) beside the interpreter's own baseline (the tools imported, nothing searched):
1. the default walk over a tree with a 1 GB sparse file and 2 000 small files (the big file
   is over the size cap: skipped and reported);
2. the 1 GB file grepped by path (8 KB of text, then one 1 GB line: streamed in 64 KB pieces);
3. read of that file's first lines.

Run: python bench/grep_memory.py. Prints figures; asserts nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GB = 1024 ** 3

CHILD = textwrap.dedent("""
    import asyncio, json, resource, sys, time
    sys.path.insert(0, sys.argv[1])
    from edgar.core.harness import run_tool
    from edgar.providers.base import ToolCall
    from edgar.tools.base import ToolContext
    from edgar.tools.registry import default_tools
    from pathlib import Path
    tool, args = sys.argv[3], json.loads(sys.argv[4])
    ctx = ToolContext(root=Path(sys.argv[2]))
    start = time.perf_counter()
    block = None
    if tool != "none":
        block, _ = asyncio.run(run_tool(ToolCall("c", tool, args), default_tools(), ctx,
                                        lambda e: None, {}))
    took = time.perf_counter() - start
    print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "seconds": took, "tail": block.content[-160:] if block else ""}))
""")


def measure(root: Path, tool: str, args: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(REPO), str(root), tool,
                           json.dumps(args)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        for n in range(2000):
            folder = root / f"pkg{n % 40}"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"m{n}.py").write_text(f"def f{n}():\n    return {n}  # needle\n" * 20)
        big = root / "data" / "huge.bin"
        big.parent.mkdir()
        with open(big, "wb") as handle:
            handle.write(b"needle in the first line\n" + b"text line\n" * 900)
            handle.truncate(GB)
        base = measure(root, "none", {})
        cases = [("grep the tree (1 GB file skipped by the cap)", "grep", {"pattern": "needle"}),
                 ("grep the 1 GB file by path (streamed)", "grep",
                  {"pattern": "needle", "path": "data/huge.bin"}),
                 ("read the 1 GB file's first lines", "read",
                  {"path": "data/huge.bin", "limit": 5})]
        print(f"interpreter + tools imported: {base['rss_mb']:.1f} MB peak RSS")
        for label, tool, args in cases:
            started = time.perf_counter()
            got = measure(root, tool, args)
            print(f"{label:<48} {got['rss_mb']:6.1f} MB peak RSS "
                  f"(+{got['rss_mb'] - base['rss_mb']:.1f}), {got['seconds']:.2f} s in the tool, "
                  f"{time.perf_counter() - started:.2f} s wall")
            print(f"    … {got['tail'].splitlines()[-1][:120] if got['tail'] else ''}")


if __name__ == "__main__":
    main()
