"""``edgar import claude-code``: a dry run against a bare ``json.loads`` loop, and a re-import.

Goals (issue 17): a dry run at least as fast as a bare ``json.loads``-per-line loop over the
same files (edgar ÷ bare ≤ 1.0×, wall time, median of 5, in one run); peak RSS flat (≤ 60 MB
at 1 GB); the re-import of an unchanged 10 000-file tree in ≤ 0.3 s.

Trees are built in a temporary directory (removed at the end) from copies of the Claude
Code corpus (``tests/data/claude-code``, byte for byte the project's shared corpus;
``--corpus`` reads another): ``projects/-bench-pNNN/`` folders of about 10 MB, every file in
the layout Claude Code uses (``<session>.jsonl``, ``<session>/subagents/agent-*.jsonl``,
old-layout ``agent-*.jsonl``), each copy with its own uuids, message and request ids. The
10 000-file tree is copies of the corpus files cut to their first 20 lines, 100 to a folder.

Each command runs as its own process, start-up included (wall time, and that process's peak
RSS via ``wait4``); the five rounds alternate the commands so that load from other jobs on
the machine falls on all of them alike, after one untimed warm-up run of each (it fills the
bytecode cache, kept in the scratch directory, and the page cache):

- ``python -m edgar import claude-code --dry-run --json TREE`` in a throw-away project, with
  the decoder it picks (msgspec when installed, ADR 0052) and with ``EDGAR_CC_DECODER=stdlib``
  (the pure-Python path);
- the bare loop: ``json.loads`` of every line of every ``.jsonl`` file, nothing else.

The re-import is a real ``edgar import claude-code TREE`` of the 10 000-file tree after one
import of it (not timed), five times. The load average is printed before and after.
Run: python bench/import.py [--mb 100] [--gb] [--files 10000] [--rounds 5] [--corpus DIR]
[--keep DIR]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
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


def _renamed(ident: bytes, copy: int) -> bytes:
    if ident.startswith((b"msg_", b"req_")):
        return ident + b"x%d" % copy
    return ident[:-12] + b"%012x" % (int(ident[-12:], 16) ^ (copy + 1))


def _layout(name: str) -> str:
    """Where a corpus file sits inside its project folder (names encode the original path)."""
    rest = name.split("real_projects__", 1)[1].split("__", 1)[1] if "real_projects__" in name \
        else name.rsplit("__", 1)[1]
    return rest.replace("__", "/")


def _sources(corpus: Path, head: int | None = None) -> list[tuple[str, list[bytes]]]:
    out = []
    for p in sorted(corpus.iterdir()):
        if p.name == "SOURCES.md" or not p.is_file():
            continue
        data = p.read_bytes()
        if head is not None:
            data = b"".join(data.splitlines(keepends=True)[:head])
        out.append((_layout(p.name), IDS.split(data)))
    return out


def _copy(folder: Path, rel: str, parts: list[bytes], copy: int) -> tuple[Path, int]:
    data = b"".join(_renamed(p, copy) if i % 2 else p for i, p in enumerate(parts))
    new = IDS.sub(lambda m: _renamed(m[0], copy), rel.encode()).decode()
    if new == rel:   # no id in the name: number the copy
        stem, dot, ext = rel.partition(".")
        new = f"{stem}-{copy}{dot}{ext}"
    path = folder / new
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path, len(data)


def build(tree: Path, target: int, corpus: Path) -> int:
    """Copy the corpus into ``tree/projects`` until it holds ``target`` bytes; returns bytes."""
    sources = _sources(corpus)
    projects, total, copy = tree / "projects", 0, 0
    while total < target:
        folder = projects / f"-bench-p{total // PROJECT_BYTES:03d}"
        for rel, parts in sources:
            path, size = _copy(folder, rel, parts, copy)
            total += size if path.name.endswith(".jsonl") else 0
        copy += 1
    return total


def build_files(tree: Path, count: int, corpus: Path) -> int:
    """``count`` transcripts (the corpus files' first 20 lines), 100 to a project folder."""
    sources = [(rel, parts) for rel, parts in _sources(corpus, head=20) if rel.endswith(".jsonl")]
    projects, made, copy = tree / "projects", 0, 0
    while made < count:
        for rel, parts in sources:
            if made == count:
                break
            _copy(projects / f"-bench-f{made // 100:04d}", rel, parts, copy)
            made += 1
        copy += 1
    return made


CPU: dict[str, list[float]] = {}   # command name -> CPU seconds (user + system) per run


def measure(cmd: list[str], cwd: Path | None = None, env: dict | None = None,
            name: str = "") -> tuple[float, float, str]:
    """(wall seconds, peak RSS in MB of that process, stdout) of one command; its CPU time
    (user + system) goes to ``CPU[name]``: on a loaded machine it moves less than the wall."""
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
        CPU.setdefault(name, []).append(usage.ru_utime + usage.ru_stime)
        return wall, usage.ru_maxrss / 1024, out.read().decode(errors="replace")


def _env(scratch: Path, **extra: str) -> dict:
    # Bytecode is cached (in the scratch directory, not the repo) as an installed edgar's
    # is: with PYTHONDONTWRITEBYTECODE every run would compile edgar's modules again,
    # while the bare loop's stdlib modules come compiled.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("EDGAR_") and k != "PYTHONDONTWRITEBYTECODE"}
    env.update(EDGAR_HOME=str(scratch / "home"), PYTHONPATH=str(REPO), NO_COLOR="1",
               PYTHONPYCACHEPREFIX=str(scratch / "pycache"), **extra)
    return env


def _project(scratch: Path, name: str) -> Path:
    project = scratch / name
    (project / ".git").mkdir(parents=True, exist_ok=True)
    return project


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + \
        f" on {os.cpu_count()} CPUs"


def dry_runs(projects: Path, size: int, rounds: int, scratch: Path) -> None:
    project = _project(scratch, "proj")
    edgar = [sys.executable, "-m", "edgar", "import", "claude-code", "--dry-run", "--json",
             str(projects)]
    commands = {
        "edgar import --dry-run": (edgar, _env(scratch)),
        "edgar, pure Python (stdlib json)": (edgar, _env(scratch, EDGAR_CC_DECODER="stdlib")),
        "bare json.loads loop": ([sys.executable, "-c", BARE, str(projects)], _env(scratch)),
    }
    for cmd, env in commands.values():   # warm-up, untimed: bytecode cache and page cache
        measure(cmd, cwd=project, env=env)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    summary = ""
    for _ in range(rounds):
        for name, (cmd, env) in commands.items():
            wall, rss, out = measure(cmd, cwd=project, env=env, name=f"{size}:{name}")
            runs[name].append((wall, rss))
            summary = summary or out
    assert not (project / ".edgar").exists(), "--dry-run created .edgar/"
    print(f"  edgar summary: {summary.strip()[:160]}…")
    mb = size / 1e6
    print(f"  {'median of ' + str(rounds):36} {'wall s':>7} {'MB/s':>8} {'CPU s':>7} "
          f"{'peak RSS MB':>12}")
    medians, cpus = {}, {}
    for name, values in runs.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(CPU[f"{size}:{name}"])
        rss = max(r for _, r in values)
        medians[name], cpus[name] = wall, cpu
        print(f"  {name:36} {wall:7.2f} {mb / wall:8.1f} {cpu:7.2f} {rss:12.1f}")
    bare, bare_cpu = medians["bare json.loads loop"], cpus["bare json.loads loop"]
    for name in [n for n in medians if n.startswith("edgar")]:
        print(f"  {name} ÷ bare loop: {medians[name] / bare:.2f}× wall (goal ≤ 1.0×), "
              f"{cpus[name] / bare_cpu:.2f}× CPU")


def reimport(count: int, rounds: int, base: Path, scratch: Path, corpus: Path) -> None:
    tree = base / f"tree-{count}-files"
    if not (tree / "projects").is_dir():
        made = build_files(tree, count, corpus)
        print(f"built {tree} ({made} files)")
    project = _project(scratch, "reimport")
    cmd = [sys.executable, "-m", "edgar", "import", "claude-code", "--json", str(tree / "projects")]
    first, _, out = measure(cmd, cwd=project, env=_env(scratch))
    print(f"  first import of {count} files: {first:.2f} s ({out.strip()[:120]}…)")
    walls = [measure(cmd, cwd=project, env=_env(scratch), name="reimport")[0]
             for _ in range(rounds)]
    start = measure([sys.executable, "-c", "pass"])[0]
    print(f"  re-import of the unchanged tree, median of {rounds}: "
          f"{statistics.median(walls):.3f} s wall (goal ≤ 0.3 s), "
          f"{statistics.median(CPU['reimport']):.3f} s CPU; runs "
          f"{', '.join(f'{w:.3f}' for w in walls)}; a bare `python -c pass` takes {start:.3f} s")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, default=100,
                   help="size of the first tree (default 100; 0: none)")
    p.add_argument("--gb", action="store_true", help="also a 1 GB tree (RSS must stay flat)")
    p.add_argument("--files", type=int, default=10_000, help="files in the re-import tree")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--corpus", type=Path, default=CORPUS)
    p.add_argument("--keep", type=Path, help="build trees here and keep them")
    args = p.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="edgar-bench-import-"))
    print(load())
    try:
        base = args.keep or scratch
        for mb in ([args.mb] if args.mb else []) + ([1000] if args.gb else []):
            tree = base / f"tree-{mb}mb"
            if not (tree / "projects").is_dir():
                start = time.perf_counter()
                size = build(tree, mb * 1_000_000, args.corpus)
                print(f"built {tree} ({size / 1e6:.0f} MB) in {time.perf_counter() - start:.1f} s")
            files = list((tree / "projects").rglob("*.jsonl"))
            size = sum(f.stat().st_size for f in files)
            print(f"{size / 1e6:.0f} MB of .jsonl in {len(files)} files:")
            dry_runs(tree / "projects", size, args.rounds, scratch)
        if args.files:
            reimport(args.files, args.rounds, base, scratch, args.corpus)
        print(load())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
