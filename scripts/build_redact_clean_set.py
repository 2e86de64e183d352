"""Build tests/data/redact_clean_real.jsonl: real lockfiles and real `git log` output of public
repositories, text that must come back from `redact` byte for byte (issue 24 item 3).

Dev tool only. Each source is a git directory holding the repository's history (a clone, or
the snapshot edgar's tooling brings); the script reads it with `git show` / `git log`, never a
work tree:

    python scripts/build_redact_clean_set.py \\
        lockfile:BurntSushi/ripgrep=/path/to/ripgrep.git:Cargo.lock \\
        git-log:cli/cli=/path/to/cli.git

One JSON object a line: ``{"text", "secret": null, "kind" ("lockfile" or "git-log"), "file"
(``package-lock.json``, ``git log --stat``…), "source" ("owner/name@commit path")}``. A text is
a run of at most `CHUNK` whole lines, as a tool's output would show them; a lockfile is taken
from its start, up to `MOST_LINES` lines (`package-lock.json`'s `integrity` sha512s, yarn's
`resolved … #sha1`, poetry's `{file = …, hash = "sha256:…"}`, `go.sum`'s `h1:` hashes, Cargo's
`checksum`, pnpm's `resolution: {integrity: …}`). `git log` is `--stat` over the newest
`LOG_COMMITS` commits, and `-p` (patches: code) over the newest `PATCH_COMMITS`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "redact_clean_real.jsonl"
CHUNK = 100
MOST_LINES = 4000
LOG_COMMITS = 300
PATCH_COMMITS = 25
PATCH_MAX_LINES = 6000


def _git(gitdir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True,
                          text=True, encoding="utf-8", errors="replace").stdout


def _chunks(text: str, limit: int) -> list[str]:
    lines = text.splitlines()[:limit]
    return ["\n".join(lines[i : i + CHUNK]) for i in range(0, len(lines), CHUNK)]


def rows_for(spec: str) -> list[dict]:
    """`lockfile:owner/name=GITDIR:PATH` or `git-log:owner/name=GITDIR`."""
    kind, _, rest = spec.partition(":")
    repo, _, where = rest.partition("=")
    if kind == "lockfile":
        gitdir, _, path = where.rpartition(":")
        commit = _git(gitdir, "rev-parse", "HEAD").strip()
        texts = [(Path(path).name, t) for t in _chunks(_git(gitdir, "show", f"HEAD:{path}"), MOST_LINES)]
        source = f"{repo}@{commit[:12]} {path}"
    elif kind == "git-log":
        gitdir = where
        commit = _git(gitdir, "rev-parse", "HEAD").strip()
        stat = _git(gitdir, "log", "--stat", f"-n{LOG_COMMITS}", "HEAD")
        patch = _git(gitdir, "log", "-p", f"-n{PATCH_COMMITS}", "HEAD")
        texts = [("git log --stat", t) for t in _chunks(stat, 10**9)]
        texts += [("git log -p", t) for t in _chunks(patch, PATCH_MAX_LINES)]
        source = f"{repo}@{commit[:12]} git log"
    else:
        raise SystemExit(f"{spec}: expected lockfile:… or git-log:…")
    return [{"text": t, "secret": None, "kind": kind, "file": name, "source": source} for name, t in texts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", help="lockfile:owner/name=GITDIR:PATH or git-log:owner/name=GITDIR")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rows = [r for spec in args.sources for r in rows_for(spec)]
    with args.out.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    lines = sum(r["text"].count("\n") + 1 for r in rows)
    print(f"wrote {len(rows)} texts, {lines} lines, to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
