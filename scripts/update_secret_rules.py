"""Regenerate edgar/redact/gitleaks_rules.json from a pinned copy of gitleaks' default rules.

Dev tool only. Take ``config/gitleaks.toml`` from the gitleaks repository (MIT) at a known
commit, e.g. ``git -C gitleaks show <commit>:config/gitleaks.toml > /tmp/gitleaks.toml``, then

    python scripts/update_secret_rules.py /tmp/gitleaks.toml --commit <commit>

edgar never downloads rules at run time; it reads the table this script writes, which records
the commit and the sha256 of the file it was made from (ADR 0030).

What the script guarantees:

* **Translated or refused.** Every Go RE2 pattern (rule regexes and allowlist regexes) is
  rewritten to Python ``re`` syntax — flags in the middle of a pattern (``ab(?i)cd``) become
  scoped groups, ``\\z`` becomes ``\\Z``, ``$`` (end of text in RE2) becomes ``\\Z``,
  ``\\x{…}`` becomes ``\\x``/``\\u``/``\\U``, ``[[:alnum:]]`` becomes its ASCII class,
  ``(?<name>`` becomes ``(?P<name>``, and ``[``, ``&``, ``~``, ``|`` inside a class are escaped
  — then compiled with ``re.ASCII`` (RE2's ``\\w``, ``\\d``, ``\\s``, ``\\b`` are ASCII). A
  pattern that uses RE2 syntax with no Python equivalent (``\\p{…}``, ``\\C``, ungreedy ``U``)
  or does not compile is listed, and the script exits 1 without writing anything.
* **Prefix families glued on the left.** For a rule whose match starts with a literal prefix
  behind ``\\b`` (``\\b(AKIA…``, ``\\b(sk-ant-…``), the ``\\b`` is dropped: ``creds_AKIA…``,
  ``token_ghp_…`` and ``%20ghp_…`` are matched. Upstream's terminator (a quote, a space, ``;``)
  also admits closing punctuation, ``.``, ``:`` and ``/`` — ``(AIza…)``, ``sk_live_….json``,
  ``curl -u sk_live_…:`` — but not ``(`` or a letter (``GLC_CreateLightmap(``).
  Recorded per rule (``glued``).
* **Anchors hold the whole alternation.** An allowlist pattern spelt ``^a|b|c$`` anchors only its
  first and last branches: upstream's global ``(?i)^true|false|null$`` allows every secret with
  ``false`` anywhere in it (a JWT followed by ``/FALSE``). Such a pattern becomes
  ``^(?:a|b|c)$``, the reading its author meant; recorded in the table (``anchored``).
* **Fixed-prefix, fixed-length tokens are marked** (``prefix``: the length of the literal their
  secret starts with, ``secret_literals.fixed_prefix``; 0 for any other rule): edgar runs no
  entropy gate on them, only a placeholder check (ADR 0089). ``--rekey`` derives it again in
  the committed table, without the upstream file.
* **Rules that need a file path are kept out.** edgar redacts text, not files: rules scoped
  to a path, and allowlists that only apply to paths, are listed under ``skipped``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from secret_literals import fixed_prefix

OUT = Path(__file__).resolve().parent.parent / "edgar" / "redact" / "gitleaks_rules.json"
NP_OUT = OUT.with_name("noseyparker_rules.json")
FLAGS = re.ASCII

POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z", "print": " -~",
    "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z", "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}


class Untranslatable(ValueError):
    pass


def _hex_escape(code: str) -> str:
    n = int(code, 16)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def translate(go: str) -> str:
    """A Go RE2 pattern as a Python ``re`` pattern with the same meaning (under re.ASCII)."""
    out: list[str] = []
    # One entry per open group: how many scoped flag groups we opened inside it, and their flags.
    stack: list[list[str]] = [[]]
    i, n = 0, len(go)
    multiline = False
    while i < n:
        c = go[i]
        if c == "\\":
            if i + 1 >= n:
                raise Untranslatable("trailing backslash")
            d = go[i + 1]
            if d == "z":
                out.append("\\Z")
            elif d == "x" and go.startswith("{", i + 2):
                end = go.index("}", i + 3)
                out.append(_hex_escape(go[i + 3 : end]))
                i = end + 1
                continue
            elif d in "pPC":
                raise Untranslatable(f"\\{d} (Unicode classes) has no Python equivalent")
            elif d == "Q":
                end = go.find("\\E", i + 2)
                end = n if end < 0 else end
                out.append(re.escape(go[i + 2 : end]))
                i = end + 2
                continue
            else:
                out.append(go[i : i + 2])
            i += 2
            continue
        if c == "[":
            j, cls = _class(go, i)
            out.append(cls)
            i = j
            continue
        if c == "(":
            if go.startswith("(?P<", i) or go.startswith("(?<", i):
                name_at = go.index("<", i) + 1
                out.append("(?P<")
                stack.append([])
                i = name_at
                continue
            m = re.match(r"\(\?([a-zA-Z-]*)(\)|:)", go[i:])
            if m and m.group(1):
                flags = m.group(1)
                if "U" in flags:
                    raise Untranslatable("ungreedy flag U")
                if "m" in flags.split("-")[0]:
                    multiline = True
                if m.group(2) == ")":  # flags to the end of the enclosing group
                    if i == 0:
                        out.append(m.group())
                    else:
                        out.append(f"(?{flags}:")
                        stack[-1].append(flags)
                    i += len(m.group())
                    continue
                out.append(m.group())
                stack.append([])
                i += len(m.group())
                continue
            out.append(go[i : i + 3] if go.startswith("(?:", i) else "(")
            stack.append([])
            i += 3 if go.startswith("(?:", i) else 1
            continue
        if c == ")":
            out.append(")" * len(stack[-1]))
            stack.pop()
            if not stack:
                raise Untranslatable("unbalanced ')'")
            out.append(")")
            i += 1
            continue
        if c == "|" and stack[-1]:  # close the scoped flags, reopen them after the bar
            out.append(")" * len(stack[-1]) + "|" + "".join(f"(?{f}:" for f in stack[-1]))
            i += 1
            continue
        if c == "$" and not multiline:
            out.append("\\Z")
            i += 1
            continue
        out.append(c)
        i += 1
    if len(stack) != 1:
        raise Untranslatable("unbalanced '('")
    out.append(")" * len(stack[0]))
    return "".join(out)


def _class(go: str, i: int) -> tuple[int, str]:
    """The character class starting at go[i] == '[': (index after it, Python spelling)."""
    out = ["["]
    j = i + 1
    if go.startswith("^", j):
        out.append("^")
        j += 1
    if go.startswith("]", j):  # a leading ']' is literal in both
        out.append("\\]")
        j += 1
    prev = ""
    while j < len(go):
        c = go[j]
        if c == "]":
            out.append("]")
            return j + 1, "".join(out)
        if c == "\\":
            d = go[j + 1]
            if d == "x" and go.startswith("{", j + 2):
                end = go.index("}", j + 3)
                out.append(_hex_escape(go[j + 3 : end]))
                j = end + 1
            elif d in "pPC":
                raise Untranslatable(f"\\{d} (Unicode classes) has no Python equivalent")
            else:
                out.append(go[j : j + 2])
                j += 2
            prev = "\\"
            continue
        if go.startswith("[:", j):
            end = go.index(":]", j + 2)
            name = go[j + 2 : end]
            negate = name.startswith("^")
            name = name.lstrip("^")
            if name not in POSIX:
                raise Untranslatable(f"unknown POSIX class [:{name}:]")
            if negate:
                raise Untranslatable("negated POSIX class inside a class")
            out.append(POSIX[name])
            j = end + 2
            prev = ""
            continue
        if c in "[&~|" or (c == "-" and prev == "-"):
            out.append("\\" + c)  # Python warns on (and may one day change) these in a set
        else:
            out.append(c)
        prev = c
        j += 1
    raise Untranslatable("unterminated character class")


_GLUE_HEAD = re.compile(r"^(\(\?i\))?\\b\((\\b)?(?=[A-Za-z0-9]|\(\?:[A-Za-z0-9]|\(\(?[A-Za-z0-9])")


# Upstream's terminator after a unique token (cmd/generate/config/utils/generate.go), and the
# one edgar uses: also closing brackets, commas, '.', ':', '/', '&', '|', '<' (`(AIza…)`,
# `ghp_….txt`, `curl -u sk_live_…:`).
SUFFIX = "(?:[\\x60'\"\\s;]|\\\\[nr]|$)"
WIDER_SUFFIX = "(?:[\\x60'\"\\s;,.:/)\\]}>&|<]|\\\\[nr]|$)"


def glue(go: str) -> tuple[str, bool]:
    """Drop the leading \\b of a rule whose match starts with a literal prefix, so a token
    glued to a word on its left (`creds_AKIA…`, `%20ghp_…`) is still found. The end of the
    match keeps upstream's terminator, widened to punctuation that ends a token in a path, a
    sentence or a command line — not '(' (`GLC_CreateLightmap(` is a call)."""
    m = _GLUE_HEAD.match(go)
    if not m:
        return go, False
    body = (m.group(1) or "") + "(" + go[m.end() :]
    if body.endswith(SUFFIX):  # ...and closing punctuation ends a token too: `(AIza…)`, `AIza….`
        body = body[: -len(SUFFIX)] + WIDER_SUFFIX
    return body, True


def _top_level_bars(py: str) -> list[int]:
    """Offsets of the '|' that split `py` at its top level (outside groups and classes)."""
    bars, depth, i = [], 0, 0
    while i < len(py):
        c = py[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 1
            if py.startswith("^", i):
                i += 1
            if py.startswith("]", i):
                i += 1
            while i < len(py) and py[i] != "]":
                i += 2 if py[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            bars.append(i)
        i += 1
    return bars


_LEAD_FLAGS = re.compile(r"\(\?[a-zA-Z]+\)")


def anchor_alternation(py: str) -> str:
    """``^a|b|c\\Z`` (after an optional leading flag group) as ``^(?:a|b|c)\\Z``; others unchanged."""
    head = m.group() if (m := _LEAD_FLAGS.match(py)) else ""
    body = py[len(head) :]
    if not (body.startswith("^") and body.endswith("\\Z") and not body.endswith("\\\\Z")):
        return py
    inner = body[1:-2]
    if not _top_level_bars(inner):
        return py
    return f"{head}^(?:{inner})\\Z"


def compile_checked(pattern: str, where: str, problems: list[str]) -> str | None:
    try:
        re.compile(pattern, FLAGS)
    except (re.error, OverflowError) as e:
        problems.append(f"{where}: does not compile in Python: {e}")
        return None
    return pattern


def _tr(go: str, where: str, problems: list[str]) -> str | None:
    try:
        return compile_checked(translate(go), where, problems)
    except (Untranslatable, ValueError) as e:
        problems.append(f"{where}: {e}")
        return None


def allowlists(raw: list[dict[str, Any]], where: str, problems: list[str]) -> tuple[list[dict[str, Any]], int]:
    kept, dropped = [], 0
    for k, a in enumerate(raw):
        condition = a.get("condition", "OR").upper()
        has_text = bool(a.get("regexes") or a.get("stopwords"))
        if (condition == "AND" and (a.get("paths") or a.get("commits"))) or not has_text:
            dropped += 1  # only satisfiable with a file path or a commit: never in edgar
            continue
        regexes = [_tr(r, f"{where} allowlist {k} regex {r!r}", problems) for r in a.get("regexes", [])]
        fixed = [anchor_alternation(r) for r in regexes if r is not None]
        kept.append({
            "target": a.get("regexTarget", "secret"),
            "regexes": fixed,
            **({"anchored": [r for r in fixed if r not in regexes]} if set(fixed) - set(regexes) else {}),
            "stopwords": sorted({s.lower() for s in a.get("stopwords", [])}),
        })
    return kept, dropped


def build(config: dict[str, Any], commit: str, sha256: str) -> tuple[dict[str, Any], list[str]]:
    problems: list[str] = []
    rules, skipped = [], []
    for r in config["rules"]:
        rid = r["id"]
        if "regex" not in r:
            skipped.append({"id": rid, "reason": "matches file paths only"})
            continue
        if "path" in r:
            skipped.append({"id": rid, "reason": "scoped to a file path"})
            continue
        if r.get("requiredRules") or r.get("required"):
            skipped.append({"id": rid, "reason": "composite rule"})
            continue
        go, glued = glue(r["regex"])
        try:
            py = translate(go)
        except Untranslatable as e:
            problems.append(f"rule {rid}: {e}")
            continue
        if compile_checked(py, f"rule {rid}", problems) is None:
            continue
        lists, dropped = allowlists(r.get("allowlists", []), f"rule {rid}", problems)
        rules.append({
            "id": rid,
            "regex": py,
            "keywords": sorted({k.lower() for k in r.get("keywords", [])}),
            "entropy": r.get("entropy", 0),
            "secret_group": r.get("secretGroup", 0),
            "glued": glued,
            "prefix": fixed_prefix(py, r.get("secretGroup", 0), FLAGS),
            "allowlists": lists,
            **({"path_allowlists_dropped": dropped} if dropped else {}),
        })
    glob = config.get("allowlist", {})
    global_lists, _ = allowlists([{k: v for k, v in glob.items() if k != "paths"}], "global", problems)
    table = {
        "source": "https://github.com/gitleaks/gitleaks config/gitleaks.toml (MIT License)",
        "commit": commit,
        "sha256": sha256,
        "generated_by": "scripts/update_secret_rules.py",
        "flags": "re.ASCII",
        "global_allowlists": global_lists,
        "rules": rules,
        "skipped": skipped,
    }
    return table, problems


def dump(table: dict[str, Any]) -> str:
    """One rule per line: an upstream change shows as a one-line diff."""
    head = {k: v for k, v in table.items() if k not in ("rules", "skipped")}
    lines = [json.dumps(head)[:-1] + ', "rules": [']
    lines += [json.dumps(r) + "," for r in table["rules"]]
    lines[-1] = lines[-1].rstrip(",")
    lines.append('], "skipped": [')
    lines += [json.dumps(s) + "," for s in table["skipped"]]
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines) + "\n]}\n"


def rekey(table: dict[str, Any]) -> dict[str, Any]:
    """The table with every rule's derived field (`prefix`) derived again from its pattern: what
    a refresh at the same commit would write, without the upstream file."""
    keep = ("id", "regex", "keywords", "entropy", "secret_group", "glued")
    rules = []
    for r in table["rules"]:
        head = {k: r[k] for k in keep}
        rules.append({**head, "prefix": fixed_prefix(r["regex"], r["secret_group"], FLAGS),
                      **{k: v for k, v in r.items() if k not in (*keep, "prefix")}})
    return {**table, "rules": rules}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("toml", type=Path, nargs="?", help="gitleaks' config/gitleaks.toml at a known commit")
    parser.add_argument("--commit", help="the upstream commit the file was taken from")
    parser.add_argument("--rekey", action="store_true",
                        help="derive the derived fields (prefix) of the table at --out again, in place")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--noseyparker", type=Path, metavar="DIR",
                        help="a Nosey Parker tree (NOTICE, crates/noseyparker/data/default/builtin/)")
    parser.add_argument("--np-commit", help="the Nosey Parker commit DIR was taken from")
    parser.add_argument("--np-out", type=Path, default=NP_OUT)
    args = parser.parse_args(argv)
    if args.rekey:
        table = json.loads(args.out.read_text("utf-8"))
        args.out.write_text(dump(rekey(table)), encoding="utf-8")
        print(f"rekeyed {len(table['rules'])} rules in {args.out}"
              f" ({sum(bool(r['prefix']) for r in rekey(table)['rules'])} with a fixed prefix and length)")
        return 0
    if args.toml is None or args.commit is None:
        parser.error("a gitleaks.toml and --commit are needed (or --rekey)")
    if args.noseyparker and not re.fullmatch(r"[0-9a-f]{40}", args.np_commit or ""):
        print(f"--np-commit: expected 40 hex digits, got {args.np_commit!r}", file=sys.stderr)
        return 2
    if not re.fullmatch(r"[0-9a-f]{40}", args.commit):
        print(f"--commit: expected 40 hex digits, got {args.commit!r}", file=sys.stderr)
        return 2
    data = args.toml.read_bytes()
    try:
        config = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        print(f"{args.toml}: not a TOML file: {e}", file=sys.stderr)
        return 2
    table, problems = build(config, args.commit, hashlib.sha256(data).hexdigest())
    if problems:
        print(f"{args.toml}: {len(problems)} pattern(s) could not be translated; nothing written:",
              file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    np_table = None
    if args.noseyparker:
        import noseyparker_rules

        if not (args.noseyparker / noseyparker_rules.BUILTIN).is_dir():
            print(f"{args.noseyparker}: no {noseyparker_rules.BUILTIN}/ in it", file=sys.stderr)
            return 2
        np_table = noseyparker_rules.build(args.noseyparker, args.np_commit, table, translate)
    args.out.write_text(dump(table), encoding="utf-8")
    print(f"wrote {len(table['rules'])} rules ({sum(r['glued'] for r in table['rules'])} glued),"
          f" {len(table['skipped'])} skipped, from {args.commit[:12]} to {args.out}")
    if np_table is not None:
        args.np_out.write_text(noseyparker_rules.dump(np_table), encoding="utf-8")
        print(f"wrote {len(np_table['rules'])} Nosey Parker rules, {len(np_table['duplicates'])} duplicates"
              f" of gitleaks, {len(np_table['refused'])} refused, from {args.np_commit[:12]} to {args.np_out}")
        for r in np_table["refused"]:
            print(f"  refused {r['np_id']}: {r['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
