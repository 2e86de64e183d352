"""Keystroke-to-echo latency of the REPL prompt while the model streams 2 000 deltas/s.

The REPL runs on a pseudo-terminal (tests/e2e/test_repl_pty.py's ``Terminal``). The child is
edgar itself with one change: the scripted provider is paced to ``--rate`` deltas per
second in 5 ms ticks (the way a network stream arrives: a few events per read), instead of
one ``sleep`` per delta, which the event loop's 1 ms timer resolution caps near 1 000/s.
Every ``--interval`` ms a key is typed (Ctrl-U, then a capital letter that appears nowhere
else on screen); its latency is the time until that letter comes back from the terminal.
Prints p50 / p95 / max while streaming and at an idle prompt (goal: p95 ≤ 50 ms), and the
delta rate actually achieved. Usage: ``python bench/repl_latency.py [--keys 200]``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LETTERS = "QUVWYZ"   # never a CSI final byte prompt_toolkit or rich writes, never in the stream
CSI = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07]*\x07")


def child(argv: list[str], rate: float) -> int:
    """Run edgar with the scripted provider paced to ``rate`` deltas per second."""
    import asyncio

    from edgar.cli.main import main as edgar_main
    from edgar.conversation import Usage
    from edgar.providers import scripted
    from edgar.providers.base import Finished, TextChunk

    async def paced(self, request):
        line = self.lines[self.cursor]
        self.cursor += 1
        pieces = scripted._chunks(line.text)
        start, sent = time.perf_counter(), 0
        while sent < len(pieces):
            await asyncio.sleep(0.005)
            due = min(len(pieces), int((time.perf_counter() - start) * rate))
            while sent < due:
                yield TextChunk(pieces[sent])
                sent += 1
        took = time.perf_counter() - start
        if os.environ.get("BENCH_RATE_FILE"):
            Path(os.environ["BENCH_RATE_FILE"]).write_text(f"{sent} {took}")
        yield Finished("end_turn", Usage(len(pieces), len(pieces)), "scripted")

    scripted.ScriptedProvider.stream = paced
    return edgar_main(argv)


class Recorder:
    """Every chunk the REPL writes, with the time it was read (a Terminal listener)."""

    def __init__(self, term) -> None:
        self.chunks: list[tuple[float, bytes]] = []
        self.lock = threading.Lock()
        term.listeners.append(self.add)

    def add(self, at: float, data: bytes) -> None:
        with self.lock:
            self.chunks.append((at, data))

    def seen_after(self, index: int, letter: bytes) -> float | None:
        with self.lock:
            chunks = self.chunks[index:]
        for at, data in chunks:
            if letter in CSI.sub(b"", data):
                return at
        return None

    def mark(self) -> int:
        with self.lock:
            return len(self.chunks)

    def text_since(self, index: int) -> bytes:
        with self.lock:
            return b"".join(d for _, d in self.chunks[index:])


def measure(term, rec: Recorder, keys: int, interval: float, until=None) -> list[float]:
    latencies = []
    for i in range(keys):
        if until is not None and until():
            break
        time.sleep(interval * random.uniform(0.6, 1.4))
        letter = LETTERS[i % len(LETTERS)]
        mark = rec.mark()
        sent = time.perf_counter()
        os.write(term.proc.fd, b"\x15" + letter.encode())
        deadline = sent + 2.0
        while time.perf_counter() < deadline:
            at = rec.seen_after(mark, letter.encode())
            if at is not None:
                latencies.append(at - sent)
                break
            time.sleep(0.0005)
        else:
            latencies.append(2.0)
    os.write(term.proc.fd, b"\x15")
    return latencies


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(name: str, values: list[float]) -> None:
    ms = [v * 1000 for v in values]
    print(f"{name}: {len(ms)} keys, p50 {statistics.median(ms):.1f} ms, p95 {pct(ms, 0.95):.1f} ms, "
          f"max {max(ms):.1f} ms")


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        return child(sys.argv[3:], float(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--rate", type=float, default=2000.0, help="deltas per second")
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between keys")
    args = parser.parse_args()
    sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "e2e")]
    from support.project import edgar_env, make_project, write_script
    from test_repl_pty import Terminal

    tmp = Path(tempfile.mkdtemp(prefix="edgar-bench-latency-"))
    project = make_project(tmp / "proj")
    seconds = args.keys * args.interval * 1.3 + 4
    words = int(seconds * args.rate)
    lines = []
    for i in range(0, words, 12):
        body = " ".join(f"w{j % 97}" for j in range(i, min(words, i + 12)))
        lines.append(f"- a **bold** {body}" if i % 48 == 0 else body)
    script = write_script(tmp / "script.jsonl", [{"text": "\n".join(lines) + "\n"}])
    env = edgar_env(tmp / "home", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["BENCH_RATE_FILE"] = str(tmp / "rate.txt")
    term = Terminal([sys.executable, str(Path(__file__).resolve()), "--child", str(args.rate),
                     "--model", f"scripted:{script}", "--permission-mode", "yes"],
                    project, env, rows=40, cols=120)
    term.expect("› ", timeout=30)
    time.sleep(0.3)
    rec = Recorder(term)
    idle = measure(term, rec, min(60, args.keys), args.interval)
    start_mark = rec.mark()
    for ch in "stream please\r":
        os.write(term.proc.fd, ch.encode())
    started = time.perf_counter()
    while b"w1 " not in rec.text_since(start_mark):
        time.sleep(0.001)
    done = lambda: b"tokens" in rec.text_since(start_mark)  # noqa: E731
    busy = measure(term, rec, args.keys, args.interval, until=done)
    while not done() and time.perf_counter() - started < seconds * 4:
        time.sleep(0.05)
    os.write(term.proc.fd, b"\x04")
    term.wait_exit()
    report("idle prompt", idle)
    report(f"while streaming (target {args.rate:.0f} deltas/s)", busy)
    rate = tmp / "rate.txt"
    if rate.exists():
        sent, took = rate.read_text().split()
        print(f"achieved: {sent} deltas in {float(took):.1f} s of streaming = "
              f"{int(sent) / float(took):.0f} deltas/s")
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
