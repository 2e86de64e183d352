"""Redaction speed side by side with an earlier commit, in one run (issue 24 item 4): `redact()`
of this tree and of `edgar/redact/` at COMMIT (extracted from git into a temporary package,
never kept), interleaved, best of 5 in CPU time, on 2 MB of mixed code, config and logs with
long lines (minified JSON and one-line bundles of 20–60 KB) and planted secrets. Also the
keyword scan alone, with `ahocorasick-rs` and with the pure-re fallback.

Run: python bench/redact_speed.py [COMMIT] (default cc34c40, main before issue 24). Prints
figures; asserts nothing.
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from redact import corpus  # noqa: E402  (bench/redact.py's mixed text)

from edgar.redact import noseyparker, redact  # noqa: E402

BEFORE = "cc34c40"


def long_lines(rng: random.Random, n: int) -> list[str]:
    """Minified JSON and bundles: the long lines a backtracking rule chokes on."""
    out = []
    for _ in range(n):
        items = [f'"k{rng.randint(0, 999)}":"{rng.choice(["value", "token", "api", "key", "user"])}'
                 f'{rng.randint(0, 10**9)}"' for _ in range(rng.randint(800, 2400))]
        out.append("{" + ",".join(items) + "}")
        out.append(";".join(f"var a{i}=function(b){{return b.key+'{rng.randint(0, 99)}'}}"
                            for i in range(rng.randint(400, 1200))))
    return out


def text_of(mb: float = 2.0) -> str:
    rng = random.Random(11)
    mixed = corpus(mb * 0.7).splitlines()
    extra = long_lines(rng, 8)
    for line in extra:
        mixed.insert(rng.randrange(len(mixed)), line)
    return "\n".join(mixed)


def old_redact(commit: str):
    tmp = Path(tempfile.mkdtemp(prefix="edgar-redact-before-"))
    pkg = tmp / "before_redact"
    pkg.mkdir()
    files = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", commit, "edgar/redact/"],
                           capture_output=True, text=True, check=True).stdout.split()
    for path in files:
        data = subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"],
                              capture_output=True, check=True).stdout
        name = Path(path).name
        if name.endswith(".py"):
            data = data.replace(b"edgar.redact", b"before_redact")
        (pkg / name).write_bytes(data)
    sys.path.insert(0, str(tmp))
    return importlib.import_module("before_redact").redact


def main() -> None:
    commit = sys.argv[1] if len(sys.argv) > 1 else BEFORE
    text = text_of()
    mb = len(text) / 1e6
    old = old_redact(commit)
    load = os.getloadavg()[0]
    print(f"{mb:.1f} MB, longest line {max(map(len, text.splitlines()))} characters;"
          f" load average {load:.1f} on {os.cpu_count()} cores")
    old(text), redact(text)  # compile what each needs
    best = {"before": float("inf"), "now": float("inf")}
    for _ in range(5):
        for name, fn in (("before", old), ("now", redact)):
            start = time.process_time()
            fn(text)
            best[name] = min(best[name], time.process_time() - start)
    for name in best:
        print(f"{name:6}: {mb / best[name]:.1f} MB/s CPU")
    print(f"now / before ({commit[:8]}): {best['before'] / best['now']:.2f}; goal: now >= 20 MB/s")
    low = text.encode("ascii", "replace").lower()
    words = noseyparker.load().keywords
    for scanner in (noseyparker.scanner(), noseyparker.TrieScanner(words)):
        start = time.process_time()
        hits = list(scanner.hits(low))
        print(f"keyword scan, {type(scanner).__name__}: {time.process_time() - start:.3f} s CPU, {len(hits)} hits")


if __name__ == "__main__":
    main()
