"""Streaming overhead: ``edgar -p --output-format text`` vs a bare httpx2 reader, same stream.

The loopback server (tests/support/sse_server.py) sends 20 000 Anthropic ``text_delta``
events as fast as it can (64 KiB chunks). Both sides are whole processes started the same
way, so the ratio is what edgar adds on top of reading and decoding the stream: provider
decoding, the bus, the renderer, the session log. Goal: ratio <= 1.15.

    python bench/streaming.py [--deltas 20000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.sse_server import Reply, SSEServer, anthropic_event  # noqa: E402

BARE = r"""
import json, sys, httpx2
url = sys.argv[1]
body = {"model": "claude-sonnet-4-5", "max_tokens": 8192, "stream": True,
        "messages": [{"role": "user", "content": "go"}]}
out = sys.stdout
with httpx2.Client(timeout=60) as client:
    with client.sse(url + "/v1/messages", method="POST", json=body,
                    headers={"x-api-key": "k", "anthropic-version": "2023-06-01"}) as source:
        for sse in source:
            obj = json.loads(sse.data)
            if obj["type"] == "content_block_delta":
                out.write(obj["delta"]["text"])
                out.flush()
"""


def events(deltas: int) -> list[str]:
    start = anthropic_event("message_start", {"message": {
        "id": "msg_bench", "type": "message", "role": "assistant", "content": [],
        "model": "claude-sonnet-4-5-20250929", "usage": {"input_tokens": 10, "output_tokens": 1}}})
    out = [start, anthropic_event("content_block_start",
                                  {"index": 0, "content_block": {"type": "text", "text": ""}})]
    delta = anthropic_event("content_block_delta",
                            {"index": 0, "delta": {"type": "text_delta", "text": "word "}})
    out += [delta] * deltas
    out += [anthropic_event("content_block_stop", {"index": 0}),
            anthropic_event("message_delta", {"delta": {"stop_reason": "end_turn"},
                                              "usage": {"output_tokens": deltas}}),
            anthropic_event("message_stop", {})]
    return out


CPU: dict[str, list[float]] = {"bare": [], "edgar": []}


def timed(cmd: list[str], env: dict[str, str], cwd: str, label: str = "") -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    took = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if label:  # CPU seconds of the child: less at the mercy of other load than wall time
        CPU[label].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"{cmd[:3]} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    if len(done.stdout) < 5 * 1000:
        sys.exit(f"{cmd[:3]} printed only {len(done.stdout)} bytes")
    return took


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    stream = events(args.deltas)
    with SSEServer() as server, tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / ".git").mkdir()   # a project root of its own: sessions land here
        env = {**os.environ, "PYTHONPATH": str(ROOT), "EDGAR_HOME": str(Path(tmp) / "home"),
               "ANTHROPIC_API_KEY": "sk-ant-bench", "ANTHROPIC_BASE_URL": server.url,
               # an installed edgar has compiled bytecode: measure that, not recompilation
               "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "edgar-bench-pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        bare_cmd = [sys.executable, "-c", BARE, server.url]
        edgar_cmd = [sys.executable, "-m", "edgar", "-p", "go", "--model",
                     "anthropic:claude-sonnet-4-5", "--output-format", "text", "--no-history"]
        bare, edgar = [], []
        for _ in range(2):   # warm-up: bytecode caches and the OS page cache, not measured
            server.anthropic(Reply(events=stream, chunk_size=65536))
            timed(edgar_cmd, env, tmp)
            server.anthropic(Reply(events=stream, chunk_size=65536))
            timed(bare_cmd, env, tmp)
        for _ in range(args.runs):   # interleaved, so drift in machine load hits both alike
            server.anthropic(Reply(events=stream, chunk_size=65536))
            bare.append(timed(bare_cmd, env, tmp, "bare"))
            server.anthropic(Reply(events=stream, chunk_size=65536))
            edgar.append(timed(edgar_cmd, env, tmp, "edgar"))
    b, e = statistics.median(bare), statistics.median(edgar)
    # min/min too: on a shared machine the least-disturbed runs show the code, not the load
    print(json.dumps({"deltas": args.deltas, "runs": args.runs, "bare_median_s": round(b, 3),
                      "edgar_median_s": round(e, 3), "ratio": round(e / b, 3),
                      "ratio_of_minimums": round(min(edgar) / min(bare), 3),
                      "cpu_ratio": round(statistics.median(CPU["edgar"])
                                         / statistics.median(CPU["bare"]), 3),
                      "goal": 1.15}))
    print(f"streaming overhead: {e:.3f} s / {b:.3f} s = {e / b:.2f}x (goal <= 1.15x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
