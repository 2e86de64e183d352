"""Build `tests/data/redact_detect_secrets.jsonl`: a labelled set of real-format secrets nobody
here wrote — Yelp's detect-secrets (Apache-2.0), its plugin tests' own examples — for
`bench/redact_quality.py`'s outside column (issue 24 item 3).

Each row is one example as detect-secrets' tests give it: the `payload`/`line` of a plugin
test's `pytest.mark.parametrize` with its `should_flag` (a positive when true, a negative
when false), the keyword plugin's `(line, expected_secret)` cases and the high-entropy
plugin's `(non_secret, secret)` pairs. The secret of a positive is what detect-secrets itself
finds in it: the longest group of the plugin's own denylist match that holds no quote, space,
`=` or `:` (the whole token of `ghp_…`, the key of `aws_secret = "…"`), else its
`secret_value`; the keyword plugin's is its expected secret. Rows record their source file,
test and the commit; the licence is in `tests/data/redact_detect_secrets.NOTICE`.

Run (an interpreter with pytest, requests and responses: detect-secrets' test imports):
    git -C detect-secrets archive <commit> detect_secrets tests/plugins testing LICENSE | tar -x -C /tmp/ds
    python scripts/build_redact_outside_set.py /tmp/ds --commit <commit>
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "redact_detect_secrets.jsonl"
# a plugin test file → the family it is of (`bench/redact_quality.py`'s MAIN names the main ones)
FAMILY = {
    "aws_key": "aws", "github_token": "github", "slack": "slack", "openai": "openai", "stripe_key": "stripe",
    "jwt": "jwt", "private_key": "private-key", "gitlab_token": "gitlab", "npm": "npm", "pypi_token": "pypi",
    "sendgrid": "sendgrid", "twilio": "twilio", "telegram_token": "telegram", "discord": "discord",
    "mailchimp_key": "mailchimp", "azure_storage_key": "azure-storage", "artifactory": "artifactory",
    "basic_auth": "basic-auth", "cloudant": "cloudant", "ibm_cloud_iam": "ibm-cloud-iam",
    "ibm_cos_hmac": "ibm-cos-hmac", "softlayer": "softlayer", "square_oauth": "square", "keyword": "keyword",
    "high_entropy_strings": "high-entropy", "ip_public": "ip-public",
}
_BAD = set("'\" \t=:")


def secret_of(plugin, line: str) -> str | None:
    """What detect-secrets finds in `line`, as the text a redactor must remove."""
    for rx in getattr(plugin, "denylist", ()):
        m = rx.search(line)
        if m:
            groups = [g for g in (m.group(0), *m.groups()) if g and len(g) >= 6 and _BAD.isdisjoint(g)]
            if groups:
                return max(groups, key=len)
    found = list(plugin.analyze_line(filename="mock_filename", line=line))
    return found[0].secret_value.strip("'\" \t=:") or None if found else None


def cases(module) -> list[tuple[str, tuple, list]]:
    """(test name, argument names, argument rows) of every parametrize mark in a test module."""
    out = []
    for name in dir(module):
        holder = getattr(module, name)
        tests = [holder] if callable(holder) and name.startswith("test") else [
            getattr(holder, t) for t in dir(holder) if t.startswith("test")] if isinstance(holder, type) else []
        for test in tests:
            for mark in getattr(test, "pytestmark", ()):
                if mark.name == "parametrize":
                    names, rows = mark.args[0], list(mark.args[1])
                    if isinstance(names, str):
                        names = tuple(n.strip() for n in names.split(","))
                    out.append((f"{name}.{test.__name__}" if isinstance(holder, type) else name, names, rows))
    return out


def plugin_of(module):
    for name in dir(module):
        obj = getattr(module, name)
        if isinstance(obj, type) and name.endswith("Detector") and obj.__module__.startswith("detect_secrets.plugins"):
            return obj()
    return None


def rows_of(stem: str, module, commit: str) -> list[dict]:
    family = FAMILY.get(stem, stem)
    plugin = plugin_of(module)
    source = f"detect-secrets@{commit[:12]}:tests/plugins/{stem}_test.py"
    out: list[dict] = []

    def add(text: object, secret: str | None, test: str) -> None:
        if isinstance(text, str) and text.strip():
            out.append({"text": text, "secret": secret, "family": family if secret else "clean",
                        "source": f"{source}::{test}"})

    for test, names, rows in cases(module):
        for row in rows:
            values = row.values if hasattr(row, "values") else (row if isinstance(row, tuple) else (row,))
            args = dict(zip(names, values, strict=False))
            if "expected_secret" in args:  # the keyword plugin's (line, expected secret)
                add(args["line"], args["expected_secret"] or None, test)
            elif "non_secret" in args and "secret" in args:  # high entropy: both sides of a pair
                add(args["secret"], args["secret"], test)
                add(args["non_secret"], None, test)
            else:
                text = next((args[k] for k in ("payload", "line", "file_content") if k in args), None)
                flag = args.get("should_flag", True)
                if not isinstance(text, str) or not isinstance(flag, bool) or plugin is None:
                    continue
                secret = secret_of(plugin, text) if flag else None
                if flag and secret is None:
                    continue  # detect-secrets' own test would fail here: not a labelled example
                add(text, secret, test)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="detect-secrets at --commit: detect_secrets, tests/plugins, testing")
    parser.add_argument("--commit", required=True)
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree))
    rows: list[dict] = []
    for path in sorted((args.tree / "tests" / "plugins").glob("*_test.py")):
        stem = path.name.removesuffix("_test.py")
        if stem == "base":
            continue
        module = importlib.import_module(f"tests.plugins.{path.stem}")
        rows += rows_of(stem, module, args.commit)
    seen: set[tuple[str, str | None]] = set()
    unique = [r for r in rows if (r["text"], r["secret"]) not in seen and not seen.add((r["text"], r["secret"]))]
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in unique), encoding="utf-8")
    positives = sum(r["secret"] is not None for r in unique)
    print(f"{OUT.relative_to(ROOT)}: {len(unique)} rows, {positives} secrets, {len(unique) - positives} negatives")


if __name__ == "__main__":
    main()
