"""Start -> first request byte at the server, for ``edgar -p``. Goal: median <= 0.35 s.

The clock starts just before the ``edgar`` process is spawned and stops when the loopback
server (tests/support/sse_server.py) has the request in hand; it covers interpreter start,
imports, config, session setup, the system prompt and the connection.

    python bench/first_byte.py [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.sse_server import SSEServer, stream  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    samples: list[float] = []
    with SSEServer() as server, tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".git").mkdir()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "EDGAR_HOME": str(Path(tmp) / "home"),
               "ANTHROPIC_API_KEY": "sk-ant-bench", "ANTHROPIC_BASE_URL": server.url,
               # an installed edgar has compiled bytecode: measure that, not recompilation
               "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "edgar-bench-pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cmd = [sys.executable, "-m", "edgar", "-p", "hi", "--model", "anthropic:claude-sonnet-4-5",
               "--output-format", "text", "--no-history"]
        for n in range(args.runs + 2):   # the first two warm caches and are not counted
            server.anthropic(stream("anthropic_text"))
            seen = len(server.requests)
            started = time.time()
            done = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True)
            if done.returncode != 0 or len(server.requests) != seen + 1:
                sys.exit(f"edgar failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
            if n >= 2:
                samples.append(server.requests[-1].at - started)
    median = statistics.median(samples)
    print(json.dumps({"runs": args.runs, "median_s": round(median, 3),
                      "min_s": round(min(samples), 3), "max_s": round(max(samples), 3),
                      "goal_s": 0.35}))
    print(f"start -> first request byte: median {median:.3f} s (goal <= 0.35 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
