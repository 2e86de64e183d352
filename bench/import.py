"""``edgar import claude-code --dry-run`` over a ~100 MB projects tree (and with ``--gb``, 1 GB).

Goals (issue, part 5): ≥ 10× claude-code-log's throughput, ≥ 0.5× a bare ``json.loads``
per line loop, peak RSS the same at 100 MB and 1 GB.

The tree is built under a temporary directory from copies of the Claude Code corpus
(``tests/data/claude-code``): ``projects/-bench-pNNN/`` folders of about 10 MB each, every
file in the layout Claude Code uses (``<session>.jsonl``, ``<session>/subagents/agent-*.jsonl``,
old-layout ``agent-*.jsonl``). Each copy gets its own uuids, message and request ids, so no
tool can de-duplicate one copy against another. Three commands then read the same tree, each
in its own process (start-up included; wall time and that process's peak RSS via ``wait4``):

- ``python -m edgar import claude-code --dry-run TREE`` in a throw-away project;
- a bare loop: ``json.loads`` of every line of every ``.jsonl`` file, nothing else;
- claude-code-log, installed with pip into a scratch venv (``--ccl-python`` reuses one): its
  ``converter.load_directory_transcripts`` per project folder, which parses and validates
  every entry, builds the session DAG and de-duplicates, but renders nothing (no cache);
  with ``--ccl-cli`` also its command ``claude-code-log --all-projects --no-cache --format
  json``, which renders as well (first tree only; it writes its output into the tree).

MB/s is always the tree's ``.jsonl`` bytes over the wall time, so all three are measured
against the same input (claude-code-log reads ``agent-*`` files only through the sessions that
reference them). Run: python bench/import.py [--mb 100] [--gb] [--ccl-python PY] [--ccl-cli]
[--keep DIR]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "tests" / "data" / "claude-code"
PROJECT_BYTES = 10 * 1024 * 1024
IDS = re.compile(rb"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                 rb"|(?:msg|req)_[A-Za-z0-9]{16,})")

BARE = """
import json, os, sys
for top, dirs, files in os.walk(sys.argv[1]):
    for name in files:
        if name.endswith('.jsonl'):
            with open(os.path.join(top, name), 'rb') as f:
                for line in f:
                    try:
                        json.loads(line)
                    except ValueError:
                        pass
"""

CCL = """
import contextlib, io, os, sys
from pathlib import Path
from claude_code_log.converter import load_directory_transcripts
n = 0
for project in sorted(Path(sys.argv[1]).iterdir()):
    with contextlib.redirect_stdout(io.StringIO()):   # it reports bad lines on stdout
        messages, tree = load_directory_transcripts(project, cache_manager=None, silent=True)
    n += len(messages)
    del messages, tree
print(n, "entries")
"""


def _renamed(ident: bytes, copy: int) -> bytes:
    if ident.startswith((b"msg_", b"req_")):
        return ident + b"x%d" % copy
    return ident[:-12] + b"%012x" % (int(ident[-12:], 16) ^ (copy + 1))


def _layout(name: str) -> str:
    """Where a corpus file sits inside its project folder (names encode the original path)."""
    rest = name.split("real_projects__", 1)[1].split("__", 1)[1] if "real_projects__" in name \
        else name.rsplit("__", 1)[1]
    return rest.replace("__", "/")


def build(tree: Path, target: int) -> int:
    """Copy the corpus into ``tree/projects`` until it holds ``target`` bytes; returns bytes."""
    sources = [(p, _layout(p.name), IDS.split(p.read_bytes()))
               for p in sorted(CORPUS.iterdir()) if p.name != "SOURCES.md"]
    projects, total, copy = tree / "projects", 0, 0
    while total < target:
        folder = projects / f"-bench-p{total // PROJECT_BYTES:03d}"
        for _src, rel, parts in sources:
            data = b"".join(_renamed(p, copy) if i % 2 else p for i, p in enumerate(parts))
            new = IDS.sub(lambda m: _renamed(m[0], copy), rel.encode()).decode()
            if new == rel:   # no id in the name: number the copy
                stem, dot, ext = rel.partition(".")
                new = f"{stem}-{copy}{dot}{ext}"
            path = folder / new
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            total += len(data) if new.endswith(".jsonl") else 0
        copy += 1
    return total


def measure(cmd: list[str], cwd: Path | None = None,
            env: dict | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB of that process, stdout) of one command."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode:
            raise SystemExit(f"{cmd[:4]} failed ({proc.returncode}): {err.read()[-2000:]!r}")
        return wall, usage.ru_maxrss / 1024, out.read().decode(errors="replace")


def ccl_python(scratch: Path) -> str:
    venv = scratch / "ccl-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "claude-code-log"], check=True)
    return py


def run_once(tree: Path, size: int, args, scratch: Path,
             cli: bool) -> dict[str, tuple[float, float]]:
    project = scratch / "proj"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("EDGAR_")}
    env.update(EDGAR_HOME=str(scratch / "home"), PYTHONPATH=str(REPO), NO_COLOR="1")
    projects = tree / "projects"
    figures: dict[str, tuple[float, float]] = {}
    wall, rss, out = measure([sys.executable, "-m", "edgar", "import", "claude-code", "--dry-run",
                              "--json", str(projects)], cwd=project, env=env)
    assert not (project / ".edgar").exists(), "--dry-run created .edgar/"
    figures["edgar import --dry-run"] = (wall, rss)
    print(f"  edgar summary: {out.strip()[:300]}")
    figures["bare json.loads loop"] = measure([sys.executable, "-c", BARE, str(projects)])[:2]
    if args.ccl_python:
        wall, rss, out = measure([args.ccl_python, "-c", CCL, str(projects)])
        figures["claude-code-log load (no render)"] = (wall, rss)
        print(f"  claude-code-log: {out.strip()[-80:]}")
        if cli:
            exe = str(Path(args.ccl_python).with_name("claude-code-log"))
            figures["claude-code-log CLI --format json"] = measure(
                [exe, "--all-projects", "--projects-dir", str(projects), "--no-cache",
                 "--format", "json"], env=env | {"HOME": str(scratch / "home")})[:2]
    mb = size / 1e6
    print(f"  {'':36} {'s':>7} {'MB/s':>8} {'peak RSS MB':>12}")
    for name, (wall, rss) in figures.items():
        print(f"  {name:36} {wall:7.2f} {mb / wall:8.1f} {rss:12.1f}")
    edgar = figures["edgar import --dry-run"][0]
    print(f"  edgar ÷ bare loop throughput: {figures['bare json.loads loop'][0] / edgar:.2f}× "
          "(goal ≥ 0.5×)")
    for name in [n for n in figures if n.startswith("claude-code-log")]:
        print(f"  edgar ÷ {name}: {figures[name][0] / edgar:.1f}× (goal ≥ 10×)")
    return figures


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, default=100, help="size of the first tree (default 100)")
    p.add_argument("--gb", action="store_true", help="also a 1 GB tree (RSS must not grow)")
    p.add_argument("--ccl-python", help="python of a venv with claude-code-log (else one is made)")
    p.add_argument("--no-ccl", action="store_true", help="skip claude-code-log")
    p.add_argument("--ccl-cli", action="store_true",
                   help="also time claude-code-log's command (first tree only: it is slow)")
    p.add_argument("--keep", type=Path, help="build trees here and keep them")
    args = p.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="edgar-bench-import-"))
    try:
        if not args.no_ccl and not args.ccl_python:
            args.ccl_python = ccl_python(scratch)
        elif args.no_ccl:
            args.ccl_python = None
        base = args.keep or scratch
        results = {}
        for mb in [args.mb] + ([1000] if args.gb else []):
            tree = base / f"tree-{mb}mb"
            if not (tree / "projects").is_dir():
                start = time.perf_counter()
                size = build(tree, mb * 1_000_000)
                print(f"built {tree} ({size / 1e6:.0f} MB) in {time.perf_counter() - start:.1f} s")
            size = sum(f.stat().st_size for f in (tree / "projects").rglob("*.jsonl"))
            print(f"{size / 1e6:.0f} MB of .jsonl in {tree / 'projects'}:")
            results[mb] = run_once(tree, size, args, scratch, args.ccl_cli and mb == args.mb)
        if len(results) > 1:
            rss = [r["edgar import --dry-run"][1] for r in results.values()]
            print(f"edgar peak RSS: {' → '.join(f'{x:.1f} MB' for x in rss)} "
                  f"({rss[-1] / rss[0]:.2f}×; goal: the same)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
