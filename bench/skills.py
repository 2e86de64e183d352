"""Skills matcher figures: latency for 200 skills on a 2 000-character burst, and precision /
recall on the labelled set for a single line vs the same intent as a 3-line burst.

    python bench/skills.py               # figures at the calibrated threshold
    python bench/skills.py --calibrate   # the threshold sweep the constant was chosen from

"Fragments" scans each line of the burst alone (the union of what fired): what a matcher
would do without seed 002's aggregation (a neighbouring project's ADR-161, not in adr/).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgar.skills.loader import Skill, discover  # noqa: E402
from edgar.skills.matcher import THRESHOLD, Matcher, build_index, score, select  # noqa: E402

DATA = ROOT / "tests" / "data"


def labelled() -> list[dict]:
    lines = (DATA / "skills_labelled.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_skills() -> list[Skill]:
    skills, warnings = discover([DATA / "skills"])
    assert not warnings, warnings
    return skills


def fired(index, surface: str, threshold: float) -> set[str]:
    return set(select(index.names, score(index, surface), threshold))


def prf(rows: list[dict], index, threshold: float, mode: str) -> tuple[float, float, float]:
    tp = fp = fn = 0
    for row in rows:
        if mode == "single":
            got = fired(index, row["prompt"], threshold)
        elif mode == "burst":
            got = fired(index, "\n".join(row["burst"]), threshold)
        else:  # each fragment alone
            got = set().union(*(fired(index, f, threshold) for f in row["burst"]))
        want = set(row["expected"])
        tp += len(got & want)
        fp += len(got - want)
        fn += len(want - got)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def synthetic(count: int, seed: int = 7) -> list[Skill]:
    """``count`` skills: the real 22 plus made-up ones over a shared technical vocabulary."""
    rng = random.Random(seed)
    real = test_skills()
    vocab = sorted({w for s in real for w in (s.description + " " + " ".join(s.keywords))
                    .lower().replace(",", " ").split() if len(w) > 3})
    out = list(real)
    while len(out) < count:
        words = rng.sample(vocab, 14)
        out.append(Skill(f"synthetic-{len(out)}", " ".join(words[:10]), tuple(words[10:]), "body"))
    return out


def burst_text(chars: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    rows = labelled()
    lines: list[str] = []
    while sum(len(x) + 1 for x in lines) < chars:
        lines.extend(rng.choice(rows)["burst"])
    return "\n".join(lines)[:chars]


def latency(skills: int = 200, chars: int = 2000, runs: int = 2000) -> dict[str, float]:
    """Median and p95 of one ``activate`` call, as wall time and as this thread's CPU time
    (on a shared machine the wall p95 mostly measures the scheduler, not the matcher)."""
    counter = iter(range(10**9))
    matcher = Matcher(synthetic(skills), refractory_turns=0, clock=lambda: next(counter))
    surface = burst_text(chars)
    for _ in range(50):
        matcher.activate(surface)
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.thread_time()
        matcher.activate(surface)
        cpu.append((time.thread_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
    out = {}
    for name, values in (("wall", sorted(wall)), ("cpu", sorted(cpu))):
        out[f"{name}_median"] = statistics.median(values)
        out[f"{name}_p95"] = values[int(len(values) * 0.95)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calibrate", action="store_true")
    args = ap.parse_args()
    rows = labelled()
    index = build_index(test_skills())
    if args.calibrate:
        # objective: the mean F1 of the two surfaces edgar scans (typed line, whole burst)
        print("threshold  single P/R/F1        burst P/R/F1         fragments P/R/F1")
        best: list[tuple[float, float]] = []
        for step in range(8, 81):
            t = step / 20
            cells = [prf(rows, index, t, m) for m in ("single", "burst", "fragments")]
            best.append((round((cells[0][2] + cells[1][2]) / 2, 3), t))
            print(f"{t:9.2f}  " + "   ".join("{:.2f}/{:.2f}/{:.2f}".format(*c) + " " * 4
                                            for c in cells))
        top = max(f for f, _ in best)
        plateau = [t for f, t in best if f == top]
        print(f"best mean F1 {top:.3f} on thresholds {plateau[0]}–{plateau[-1]}; "
              f"middle {plateau[(len(plateau) - 1) // 2]}")
        return 0
    positives = sum(bool(r["expected"]) for r in rows)
    print(f"labelled set: {len(rows)} intents ({positives} with skills, "
          f"{len(rows) - positives} negatives), 22 skills, threshold {THRESHOLD}")
    for mode in ("single", "burst", "fragments"):
        p, r, f = prf(rows, index, THRESHOLD, mode)
        print(f"  {mode:10} precision {p:.2f}  recall {r:.2f}  F1 {f:.2f}")
    rescued = 0
    for row in rows:
        want = set(row["expected"])
        alone = set().union(*(fired(index, f, THRESHOLD) for f in row["burst"]))
        rescued += bool((fired(index, "\n".join(row["burst"]), THRESHOLD) - alone) & want)
    print(f"  bursts where the whole burst fires an expected skill no fragment fires: {rescued}")
    t = latency()
    print(f"latency, 200 skills, 2 000-char burst (goal ≤ 5 ms): "
          f"wall median {t['wall_median']:.3f} ms, p95 {t['wall_p95']:.3f} ms; "
          f"CPU median {t['cpu_median']:.3f} ms, p95 {t['cpu_p95']:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
