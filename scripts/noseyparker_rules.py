"""Nosey Parker's default rules as a table edgar runs (`edgar/redact/noseyparker_rules.json`).

Dev tool only, called by `scripts/update_secret_rules.py --noseyparker DIR --np-commit SHA`, where
DIR holds `NOTICE` and `crates/noseyparker/data/default/builtin/` of
https://github.com/praetorian-inc/noseyparker (Apache-2.0) at that commit. Needs PyYAML (a test dependency; edgar never reads YAML rules).

What it guarantees:

* **Pinned.** The table records the commit and the sha256 over every file read (sorted paths,
  each path, a NUL, its bytes), and Nosey Parker's NOTICE text.
* **The default ruleset only**, as `rulesets/default.yml` lists it.
* **Translated or refused, and every refusal listed** with its reason: a pattern that does not
  translate or compile; one that no longer matches each of its own examples, or matches one of
  its negative examples (the translation changed its meaning); one with no keyword of 3
  characters that every match holds (`secret_literals.required`: it would run on most text);
  one that backtracks — more than `SLOW_S` on a hostile window of `WINDOW` characters, run in a
  child process with a timeout so a catastrophic pattern can never hang the script or a test.
* **No duplicates of gitleaks.** A rule whose every example's secret a gitleaks rule edgar runs
  already finds (not those in `upstream.REPLACED`) is listed under `duplicates` and not taken.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from secret_literals import anchored, every_required, follow, required, trigger

from edgar.redact.upstream import REPLACED

FLAGS = re.ASCII
WINDOW = 1280  # the most text edgar runs one rule over for one keyword hit
SLOW_S = 0.05  # the most one rule may take over its hostile windows
_TIMEOUT_S = 20.0  # the whole backtracking check; a rule past it is refused
MIN_KEYWORD = 3


BUILTIN = "crates/noseyparker/data/default/builtin"


def read(repo: Path) -> tuple[list[dict[str, Any]], list[str], str, str]:
    """(every rule, the default ruleset's ids, sha256 over the files, NOTICE text)."""
    import yaml  # a test/script dependency only

    root = repo / BUILTIN
    files = sorted(p for p in root.rglob("*.yml") if p.is_file())
    digest = hashlib.sha256()
    rules: list[dict[str, Any]] = []
    default: list[str] = []
    for path in files:
        data = path.read_bytes()
        rel = path.relative_to(root).as_posix()
        digest.update(rel.encode() + b"\0" + data)
        doc = yaml.safe_load(data) or {}
        rules += doc.get("rules") or []
        for ruleset in doc.get("rulesets") or []:
            if ruleset.get("id") == "default":
                default = list(ruleset.get("include_rule_ids") or [])
    notice = repo / "NOTICE"
    text = notice.read_text("utf-8") if notice.is_file() else ""
    return rules, default, digest.hexdigest(), text


def unverbose(pattern: str) -> str:
    """A leading `(?x…)` pattern without its whitespace and comments (outside classes, as
    Hyperscan reads them), so the translator never sees a bracket inside a comment."""
    m = re.match(r"\(\?([a-zA-Z]*)x([a-zA-Z]*)\)", pattern)
    if not m:
        return pattern
    flags = m.group(1) + m.group(2)
    out = [f"(?{flags})" if flags else ""]
    i, n = m.end(), len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
        elif c == "[":
            j = i + 1
            if pattern.startswith("^", j):
                j += 1
            if pattern.startswith("]", j):
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            out.append(pattern[i : j + 1])
            i = j + 1
        elif pattern.startswith("(?#", i):
            i = pattern.index(")", i) + 1
        elif c == "#":
            end = pattern.find("\n", i)
            i = n if end < 0 else end + 1
        elif c in " \t\r\n\f\v":
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


REFERENCE = Path(__file__).resolve().parent.parent / "tests" / "data" / "redact_labelled.jsonl"


def reference_frequency(path: Path = REFERENCE):
    """How often words occur in typical text: the clean rows of the labelled set (code, docs,
    logs and configs of real repositories), lower-cased, as `secret_literals.trigger` asks."""
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    text = "\n".join(r["text"] for r in rows if r["secret"] is None).lower()
    return lambda words: sum(text.count(w) for w in words)


def derive(py: str, frequency) -> dict[str, Any]:
    """What edgar's prefilter needs of a translated pattern, all derived from it: the keywords
    looked for (`required`'s set when every match starts with one, else the rarest set of
    literals every match holds), how far before and after a keyword hit a match can reach (None when
    further than edgar's window, which then bounds it), whether every match starts with one
    (`anchored`), the characters that may follow it then (`follow`), and the other literal sets
    a window must hold (`also`)."""
    lead = anchored(py, FLAGS)  # one attempt at each hit beats any rarer keyword
    keywords, before, after = trigger(py, (lambda words: 0) if lead else frequency, FLAGS)
    sets = [required(py, FLAGS), *every_required(py, FLAGS)]
    also = [a for k, a in enumerate(sets) if a and a != keywords and a not in sets[:k]]
    return {"keywords": keywords, "before": before if before < WINDOW else None,
            "after": after if after < WINDOW else None, "anchored": lead,
            "follow": follow(py, keywords, FLAGS) if lead else None, "also": also}


def rekey(table: dict[str, Any], frequency) -> dict[str, Any]:
    """The table with every rule's derived fields derived again (`derive`) from its pattern:
    what a refresh would write, without the upstream tree (`--rekey`)."""
    rules = [{**{k: v for k, v in r.items() if k not in ("keywords", "before", "after", "anchored",
                                                          "follow", "also")},
              **derive(r["regex"], frequency)} for r in table["rules"]]
    return {**table, "rules": rules}


_GROUP_OPEN = re.compile(r"(?<!\\)\((?!\?)|\(\?P?<(?![=!])")
_SECRET_WORD = re.compile(r"(?i)pass|secret|key|token|cred")


def secret_group(pattern: str) -> int:
    """The group that holds the secret, by upstream's own comments on a verbose pattern's lines
    (`(?# password)` after mongo's user group, before its `(?# hostname)` group): the last group
    whose line's comment names a secret; 0 (the last non-empty group) when none does."""
    if not re.match(r"\(\?[a-zA-Z]*x", pattern):
        return 0
    chosen, seen = 0, 0
    for line in pattern.splitlines():
        code = re.sub(r"\[\^?\]?(?:\\.|[^\]\\])*\]", "", re.sub(r"\(\?#[^)]*\)", "", line))  # no classes
        opened = len(_GROUP_OPEN.findall(code))
        comment = " ".join(re.findall(r"\(\?#([^)]*)\)", line))
        if opened and _SECRET_WORD.search(comment) and not re.search(r"(?i)user|host", comment):
            chosen = seen + opened
        seen += opened
    return chosen


def slug(name: str) -> str:
    """`Mapbox Secret Access Token` → `mapbox-secret-access-token` (a marker's family)."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def secret_spans(rx: re.Pattern[str], text: str, group: int = 0) -> list[tuple[int, int]]:
    """Where the secrets of `rx` are in `text`, as `edgar.redact.noseyparker` takes them: each
    match's secret group (`secret_group`) if it matched, else its last non-empty group, else
    the whole match."""
    out = []
    for m in rx.finditer(text):
        g = next((g for g in (group, *range(rx.groups or 0, 0, -1)) if 0 < g <= rx.groups and m.group(g)), 0)
        out.append(m.span(g))
    return out


def _gitleaks_spans(table: dict[str, Any], text: str, compiled: dict[str, re.Pattern[str]]) -> list[tuple[int, int]]:
    spans = []
    for r in table["rules"]:
        if r["id"] in REPLACED:
            continue  # edgar does not run it: a rule it would cover is no duplicate
        rx = compiled.get(r["id"])
        if rx is None:
            rx = compiled[r["id"]] = re.compile(r["regex"], FLAGS)
        for m in rx.finditer(text):
            g = r["secret_group"]
            if g and g <= rx.groups:
                spans.append(m.span(g))
                continue
            spans.append(next((m.span(k) for k in range(1, rx.groups + 1) if m.group(k)), m.span()))
    return spans


def _covered(spans: list[tuple[int, int]], by: list[tuple[int, int]]) -> bool:
    return all(any(bs <= s and e <= be for bs, be in by) for s, e in spans)


def _hostile(keywords: list[str], examples: list[str], literals: list[list[str]] | None = None) -> list[str]:
    """Windows that make a backtracking pattern slow: its keyword, then long runs of the
    characters secrets and their surroundings are made of; and every literal a match holds, in
    the pattern's order (as written and in capitals), with such runs between them and a `!`
    before the last — a PEM rule's BEGIN line, a long body of spaces, then a broken END line."""
    out = []
    for k in keywords[:4]:
        for fill in ("a", "A1", "a-", " ", "=", "/", "a.", "0"):
            out.append((k + fill * WINDOW)[:WINDOW])
            out.append((k + " " + k + fill * WINDOW)[:WINDOW])
    for ex in examples[:3]:
        out.append((ex.replace("\n", " ") * (WINDOW // max(1, len(ex)) + 1))[:WINDOW])
    words = [ws[0] for ws in literals or [] if ws]
    if len(words) > 1:
        gap = WINDOW - sum(map(len, words)) - 1
        for at in range(len(words) - 1):  # the long run in one gap, the others closed up
            for fill in (" ", "a", "A1", "\n", " \t"):
                for case in (str, str.upper):
                    parts = [case(w) for w in words]
                    head = "".join(parts[: at + 1]) + fill * gap + "".join(parts[at + 1 : -1])
                    out.append((head + "!" + parts[-1])[:WINDOW])
    return out


_CHILD = """
import json, re, sys, time
jobs = json.loads(sys.stdin.read())
out = {}
for rid, pattern, windows in jobs:
    rx = re.compile(pattern, re.ASCII)
    t = time.perf_counter()
    for w in windows:
        for m in rx.finditer(w):
            pass
    out[rid] = time.perf_counter() - t
    print(json.dumps([rid, out[rid]]), flush=True)
"""


def timings(jobs: list[tuple[str, str, list[str]]], timeout: float = _TIMEOUT_S) -> dict[str, float]:
    """Seconds each pattern takes over its windows, measured in child processes; a pattern
    still running when the time runs out gets `inf` (and the check goes on without it)."""
    done: dict[str, float] = {}
    todo = list(jobs)
    while todo:
        proc = subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
        try:
            out, _ = proc.communicate(json.dumps(todo), timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        for line in out.splitlines():
            rid, seconds = json.loads(line)
            done[rid] = seconds
        rest = [j for j in todo if j[0] not in done]
        if rest:
            done[rest[0][0]] = float("inf")  # the one that was running when time ran out
            rest = rest[1:]
        todo = rest
    return done


def build(root: Path, commit: str, gitleaks: dict[str, Any], translate) -> dict[str, Any]:
    """The table; `translate` is the Go/Rust-regex translator of `update_secret_rules`."""
    rules, default, sha256, notice = read(root)
    by_id = {r["id"]: r for r in rules}
    taken: list[dict[str, Any]] = []
    refused: list[dict[str, str]] = []
    duplicates: list[dict[str, str]] = []
    compiled: dict[str, re.Pattern[str]] = {}
    candidates = []
    for rid in default:
        r = by_id.get(rid)
        if r is None:
            refused.append({"np_id": rid, "reason": "listed in the default ruleset, not defined"})
            continue
        examples = list(r.get("examples") or [])
        negatives = list(r.get("negative_examples") or []) + list(r.get("non_examples") or [])
        try:
            py = translate(unverbose(r["pattern"]))
            rx = re.compile(py, FLAGS)
        except (ValueError, re.error) as e:
            refused.append({"np_id": rid, "reason": f"does not translate: {e}"})
            continue
        missed = [ex for ex in examples if not rx.search(ex)]
        if missed:
            refused.append({"np_id": rid, "reason": f"translated, misses its example {missed[0][:60]!r}"})
            continue
        hit = [ex for ex in negatives if rx.search(ex)]
        if hit:
            refused.append({"np_id": rid, "reason": f"translated, matches its negative example {hit[0][:60]!r}"})
            continue
        keywords = required(py, FLAGS)
        if not keywords or min(map(len, keywords)) < MIN_KEYWORD:
            refused.append({"np_id": rid, "reason": f"no keyword of {MIN_KEYWORD}+ characters every match holds"
                                                    f" (found {keywords})"})
            continue
        if examples and all(_covered(secret_spans(rx, ex, secret_group(r["pattern"])), _gitleaks_spans(gitleaks, ex, compiled))
                            for ex in examples):
            duplicates.append({"np_id": rid, "name": r["name"]})
            continue
        candidates.append((rid, r, py, keywords, examples))
    seconds = timings([(rid, py, _hostile(kw, ex, every_required(py, FLAGS))) for rid, _, py, kw, ex in candidates])
    frequency = reference_frequency()
    for rid, r, py, _, _ in candidates:
        if seconds[rid] > SLOW_S:
            refused.append({"np_id": rid, "reason": f"backtracks: {seconds[rid]:.2f} s over hostile"
                                                    f" {WINDOW}-character windows (limit {SLOW_S} s)"})
            continue
        taken.append({"id": slug(r["name"]), "np_id": rid, "regex": py,
                      "group": secret_group(r["pattern"]) if secret_group(r["pattern"]) <= re.compile(py, FLAGS).groups else 0,
                      **derive(py, frequency)})
    return {
        "source": "https://github.com/praetorian-inc/noseyparker crates/noseyparker/data/default/builtin"
                  " (Apache License 2.0)",
        "commit": commit,
        "sha256": sha256,
        "generated_by": "scripts/update_secret_rules.py --noseyparker",
        "flags": "re.ASCII",
        "notice": notice,
        "rules": taken,
        "duplicates": duplicates,
        "refused": refused,
    }


def dump(table: dict[str, Any]) -> str:
    """One rule per line, as the gitleaks table."""
    head = {k: v for k, v in table.items() if k not in ("rules", "duplicates", "refused")}
    lines = [json.dumps(head)[:-1] + ', "rules": [']
    for key in ("rules", "duplicates", "refused"):
        if key != "rules":
            lines.append(f'], "{key}": [')
        rows = [json.dumps(r) + "," for r in table[key]]
        if rows:
            rows[-1] = rows[-1].rstrip(",")
        lines += rows
    return "\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    """`--rekey`: derive the prefilter fields of the committed table again, in place."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--rekey", action="store_true", required=True)
    parser.add_argument("--table", type=Path, default=Path(__file__).resolve().parent.parent / "edgar" / "redact"
                        / "noseyparker_rules.json")
    args = parser.parse_args(argv)
    table = json.loads(args.table.read_text("utf-8"))
    args.table.write_text(dump(rekey(table, reference_frequency())), encoding="utf-8")
    print(f"rekeyed {len(table['rules'])} rules in {args.table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
