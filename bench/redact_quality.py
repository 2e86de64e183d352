"""Redaction quality on the labelled set (issue 12): recall — positives whose secret is gone
from `redact(text)` — and false-positive rate — clean texts `redact` changed — overall, per
family and per source. `tests/data/redact_labelled.jsonl` is built by
`scripts/build_redact_testset.py`; `tests/unit/test_redact_quality.py` holds the goals.
Nosey Parker's own examples (`tests/data/redact_noseyparker.jsonl`,
`scripts/build_redact_np_testset.py`) are scored apart, after them; then the lines of real
lockfiles and `git log` output that changed (`tests/data/redact_clean_real.jsonl`,
`scripts/build_redact_clean_set.py`). Last, the outside column: detect-secrets' own plugin
test examples (`tests/data/redact_detect_secrets.jsonl`, `scripts/build_redact_outside_set.py`,
Apache-2.0, see its NOTICE) — real formats nobody here wrote or tuned a rule on — overall, the
main families, without the placeholders edgar spares by design, per family, and how many of
its negative examples changed.

Run: python bench/redact_quality.py [--misses N]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from edgar.redact import redact  # noqa: E402

DATA = ROOT / "tests" / "data" / "redact_labelled.jsonl"
NP_DATA = ROOT / "tests" / "data" / "redact_noseyparker.jsonl"
CLEAN_DATA = ROOT / "tests" / "data" / "redact_clean_real.jsonl"
OUTSIDE_DATA = ROOT / "tests" / "data" / "redact_detect_secrets.jsonl"
MAIN = ("aws", "github", "slack", "openai", "anthropic", "google", "stripe", "private-key", "jwt")


def load(path: Path = DATA) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def score(rows: list[dict]) -> dict:
    """{"recall": {group: (found, total)}, "fp": {group: (changed, total)}, "misses": [...], "fps": [...]}"""
    recall: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fp: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses, fps = [], []
    for row in rows:
        out = redact(row["text"])
        source = row["source"].split("@")[0]
        if row["secret"] is not None:
            found = row["secret"] not in out
            groups = ["all", f"family:{row['family']}", f"source:{source}"]
            groups += ["main"] if row["family"] in MAIN else []
            for g in groups:
                recall[g][0] += found
                recall[g][1] += 1
            if not found:
                misses.append(row)
        else:
            changed = out != row["text"]
            for g in ("all", f"source:{source}"):
                fp[g][0] += changed
                fp[g][1] += 1
            if changed:
                fps.append((row, out))
    return {"recall": dict(recall), "fp": dict(fp), "misses": misses, "fps": fps}


def changed_lines(rows: list[dict]) -> dict:
    """{file kind: (lines changed, lines)}, "all" too, and the changed lines themselves: each
    text is redacted whole, as a tool's output is; a text whose line count changed counts all
    its lines."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    changed: list[tuple[str, str, str]] = []
    for row in rows:
        before = row["text"].split("\n")
        after = redact(row["text"]).split("\n")
        same = len(before) == len(after)
        pairs = list(zip(before, after, strict=True)) if same else [(b, "") for b in before]
        n = sum(b != a for b, a in pairs)
        changed += [(row["source"], b, a) for b, a in pairs if b != a]
        for g in ("all", row["file"]):
            counts[g][0] += n
            counts[g][1] += len(before)
    return {"counts": dict(counts), "changed": changed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", type=int, default=0, help="print this many misses and false positives")
    args = parser.parse_args()
    s = score(load())
    report(s, args.misses)
    n = score(load(NP_DATA))
    found, total = n["recall"]["all"]
    print(f"Nosey Parker's examples ({NP_DATA.name}): recall {found / total:.2%} ({found}/{total})")
    for row in n["misses"][: args.misses]:
        print("MISS", row["family"], repr(row["text"][:160]))
    c = changed_lines(load(CLEAN_DATA))
    print(f"real lockfiles and git log ({CLEAN_DATA.name}), lines changed:")
    for g, (k, total) in sorted(c["counts"].items()):
        print(f"  {g:28} {k / total:7.3%}  ({k}/{total})")
    for source, b, a in c["changed"][: args.misses]:
        print("CHANGED", source, repr(b[:120]), "->", repr(a[:120]))
    outside(args.misses)


def outside(misses: int) -> None:
    from edgar.redact.text import placeholder

    rows = load(OUTSIDE_DATA)
    o = score(rows)
    spared = score([r for r in rows if r["secret"] is None or not placeholder(r["secret"])])
    print(f"outside: detect-secrets' examples ({OUTSIDE_DATA.name}):")
    for label, s in (("all", o), ("without placeholders", spared)):
        for g in ("all", "main"):
            found, total = s["recall"].get(g, (0, 0))
            if total:
                print(f"  recall {label:21} {g:5} {found / total:7.2%}  ({found}/{total})")
    for g, (found, total) in sorted(o["recall"].items()):
        if g.startswith("family:"):
            print(f"  {g:28} {found / total:7.2%}  ({found}/{total})")
    changed, total = o["fp"]["all"]
    print(f"  negative examples changed    {changed / total:7.2%}  ({changed}/{total})")
    for row in o["misses"][:misses]:
        print("MISS", row["family"], repr(row["text"][:160]))


def report(s: dict, misses: int) -> None:
    print("recall (secret removed):")
    for g, (found, total) in sorted(s["recall"].items()):
        if not g.startswith("family:np."):
            print(f"  {g:28} {found / total:7.2%}  ({found}/{total})")
    print("false positives (clean text changed):")
    for g, (changed, total) in sorted(s["fp"].items()):
        print(f"  {g:28} {changed / total:7.2%}  ({changed}/{total})")
    for row in s["misses"][:misses]:
        print("MISS", row.get("rule") or row["family"], repr(row["text"][:160]))
    for row, out in s["fps"][:misses]:
        print("FP  ", row["source"], repr(row["text"][:120]), "->", repr(out[:120]))


if __name__ == "__main__":
    main()
