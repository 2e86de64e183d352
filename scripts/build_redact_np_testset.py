"""Build tests/data/redact_noseyparker.jsonl: Nosey Parker's own rule examples, kept apart from
tests/data/redact_labelled.jsonl so recall on them is reported on its own (issue 24).

Dev tool only:

    git -C noseyparker archive <commit> NOTICE crates/noseyparker/data/default/builtin | tar -x -C /tmp/np
    python scripts/build_redact_np_testset.py /tmp/np --commit <commit>

One JSON object a line, as the labelled set: ``{"text", "secret" (null for a negative example),
"family" (the Nosey Parker rule id), "source"}``. Every rule of the default ruleset is used —
those edgar took, those it left as duplicates of gitleaks and those it refused — with each
example as Nosey Parker wrote it (Apache License 2.0, © Praetorian Security, Inc.). The secret of
an example is what `noseyparker_rules.secret_spans` takes from the rule's own match; examples
the translated pattern does not match are left out and counted.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "redact_noseyparker.jsonl"
sys.path.insert(0, str(Path(__file__).resolve().parent))

import noseyparker_rules as npr  # noqa: E402
from update_secret_rules import translate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rules, default, _, _ = npr.read(args.dir)
    by_id = {r["id"]: r for r in rules}
    source = f"noseyparker@{args.commit[:12]} (Apache-2.0)"
    rows, skipped = [], 0
    for rid in default:
        r = by_id[rid]
        try:
            rx = re.compile(translate(npr.unverbose(r["pattern"])), npr.FLAGS)
        except (ValueError, re.error):
            skipped += len(r.get("examples") or [])
            continue
        group = npr.secret_group(r["pattern"])
        for ex in r.get("examples") or []:
            spans = npr.secret_spans(rx, ex, group)
            if not spans:
                skipped += 1
                continue
            s, e = spans[0]
            rows.append({"text": ex, "secret": ex[s:e], "family": rid, "source": source})
        for ex in list(r.get("negative_examples") or []) + list(r.get("non_examples") or []):
            rows.append({"text": ex, "secret": None, "family": rid, "source": source})
    args.out.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    print(f"wrote {len(rows)} rows ({sum(r['secret'] is not None for r in rows)} positives) to {args.out};"
          f" {skipped} examples left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
