"""Redaction throughput (issue 12): `redact()` over mixed prose, Python code and log lines with
an occasional planted token, best of 3 — the current `edgar.redact` beside the implementation
it replaced (`edgar/memory/redact*.py` at commit OLD, extracted from git into a temporary
directory, never kept in the tree), in one run. Also the cost of one short line, the way history
and telemetry call it, and how many planted secrets each leaves.

Run: python bench/redact.py [MB] (default 2). Prints figures; asserts nothing.
"""

from __future__ import annotations

import importlib
import os
import random
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OLD = "4342902d480613278c8b836180ac42a6ab682ec5"  # the last commit with edgar/memory/redact.py
OLD_FILES = ("redact.py", "redact_tokens.py", "redact_assign.py", "secret_rules.py")

from edgar.redact import Redactor, redact  # noqa: E402

WORDS = (
    "the a of to and in is it that for on with as this be are was by you not or from at we can"
    " have will an your if but all they more one which when there about what so up out into use"
    " file function test error value change config model session prompt token tokens key history"
    " redact memory learning provider request response agent terminal command output input line"
).split()
IDENTS = (
    "value result config session self data items path name count index total request response"
    " max_tokens api_key token_count password_hash cache_key user_id model_name timeout retries"
).split()
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _token(rng: random.Random) -> tuple[str, str]:
    """A planted line and the secret in it."""
    kind = rng.randrange(6)
    if kind == 0:
        s = "ghp_" + _r(rng, ALNUM, 36)
        return s, s
    if kind == 1:
        s = "AKIA" + _r(rng, string.ascii_uppercase + "234567", 16)
        return s, s
    if kind == 2:
        s = "sk-proj-" + _r(rng, ALNUM + "_-", 74) + "T3BlbkFJ" + _r(rng, ALNUM + "_-", 74)
        return s, s
    if kind == 3:
        digits = string.digits
        s = f"xoxb-{_r(rng, digits, 12)}-{_r(rng, digits, 12)}-{_r(rng, ALNUM, 24)}"
        return s, s
    if kind == 4:
        s = _r(rng, ALNUM, 16)
        return f"postgres://app:{s}@db.internal:5432/app", s
    s = _r(rng, ALNUM, 14)
    return f'password = "{s}"', s


def _prose(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 24))]
    return " ".join(words).capitalize() + rng.choice([".", ".", "?", ":"])


def _code(rng: random.Random) -> str:
    a, b, c = rng.choice(IDENTS), rng.choice(IDENTS), rng.choice(IDENTS)
    forms = [
        f"    {a} = {b}.get({c!r}, {rng.randint(0, 999)})",
        f"    if {a} is None or len({b}) > {rng.randint(1, 99)}:",
        f"        return self._{a}({b}, {c}=True)",
        f"def {a}_{b}(self, {c}: str, *, limit: int = {rng.randint(1, 9)}) -> dict[str, int]:",
        f'    logger.info("{a} %s took %.3fs", {b}, time.monotonic() - {c})',
        f'    api_key = os.environ["OPENAI_API_KEY"]  # never a literal',
        f"    for key, value in {a}.items():",
        f'    {a}["{b}"] = "{_r(rng, HEX, 40)}"  # git sha',
        f"    assert {a} == {b}, f\"{{{a}!r}} != {{{b}!r}}\"",
    ]
    return rng.choice(forms)


def _log(rng: random.Random) -> str:
    uuid = f"{_r(rng, HEX, 8)}-{_r(rng, HEX, 4)}-4{_r(rng, HEX, 3)}-a{_r(rng, HEX, 3)}-{_r(rng, HEX, 12)}"
    day, minute, second = rng.randint(10, 28), rng.randint(10, 59), rng.randint(10, 59)
    forms = [
        f"2025-03-{day}T12:{minute}:{second}.{rng.randint(100, 999)}Z"
        f" INFO  http GET /api/v1/{rng.choice(IDENTS)}?page={rng.randint(1, 99)} 200 {rng.random():.3f}s"
        f" request_id={uuid}",
        f"2025-03-{day} 12:{minute}:{second} WARN  retry {rng.randint(1, 5)}/5 after 429 from"
        f" https://api.example.com/v1/messages (tokens={rng.randint(100, 9999)})",
        f'{{"ts": {rng.randint(10**9, 2 * 10**9)}, "level": "debug", "event": "{rng.choice(IDENTS)}",'
        f' "duration_ms": {rng.randint(1, 5000)}, "sha": "{_r(rng, HEX, 64)}"}}',
    ]
    return rng.choice(forms)


def corpus(megabytes: float, seed: int = 7, with_planted: bool = False):
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    lines: list[str] = []
    planted: list[str] = []
    size = 0
    while size < target:
        k = rng.random()
        if k < 0.004:
            planted_line, secret = _token(rng)
            planted.append(secret)
            line = f"export SECRET={planted_line}" if rng.random() < 0.5 else f"here it is: {planted_line}"
        elif k < 0.40:
            line = _prose(rng)
        elif k < 0.70:
            line = _code(rng)
        else:
            line = _log(rng)
        lines.append(line)
        size += len(line) + 1
    text = "\n".join(lines)
    return (text, planted) if with_planted else text


def best_of(n: int, fn, clock=time.perf_counter) -> float:
    best = float("inf")
    for _ in range(n):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best


def old_redact():
    """The replaced implementation, from git, as a package of its own in a temporary directory."""
    tmp = Path(tempfile.mkdtemp(prefix="edgar-old-redact-"))
    pkg = tmp / "old_redact"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for name in OLD_FILES:
        src = subprocess.run(["git", "-C", str(ROOT), "show", f"{OLD}:edgar/memory/{name}"],
                             capture_output=True, text=True, check=True).stdout
        (pkg / name).write_text(src.replace("edgar.memory.", "old_redact."))
    sys.path.insert(0, str(tmp))
    return importlib.import_module("old_redact.redact").redact


def main() -> None:
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    text, planted = corpus(mb, with_planted=True)
    size = len(text) / 1e6
    old = old_redact()
    # Wall time counts other processes on a shared machine; CPU time is redact's own cost.
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{size:.1f} MB of mixed text, {len(planted)} planted secrets;"
          f" load average {load:.1f} on {os.cpu_count()} cores")
    lines = text.splitlines()[:20000]
    rates: dict[tuple[str, str], float] = {}
    for name, fn in (("old", old), ("new", redact)):
        out = fn(text)
        left = sum(1 for p in planted if p in out)
        wall = size / best_of(3, lambda: fn(text))
        cpu = size / best_of(3, lambda: fn(text), time.process_time)
        per_line = best_of(3, lambda: [fn(line) for line in lines], time.process_time) / len(lines) * 1e6
        rates[name, "wall"], rates[name, "cpu"], rates[name, "line"] = wall, cpu, per_line
        print(f"{name}: {cpu:.1f} MB/s CPU ({wall:.1f} MB/s wall), {per_line:.1f} us CPU per line,"
              f" {out.count('[REDACTED:')} redactions, {left}/{len(planted)} planted secrets left")
    print(f"new / old: {rates['new', 'cpu'] / rates['old', 'cpu']:.2f} (CPU), "
          f"{rates['new', 'wall'] / rates['old', 'wall']:.2f} (wall); goal: new >= 20 MB/s")
    env = Redactor([_r(random.Random(i), ALNUM, 40) for i in range(20)])
    print(f"new with 20 exact secrets: {size / best_of(3, lambda: env(text), time.process_time):.1f} MB/s CPU")


if __name__ == "__main__":
    main()
