"""edgar's own git calls: how many a turn makes, and what each costs inside the sandbox.

    python bench/edgar_git.py [--baseline REV] [--files N] [--runs N]

1. Calls per turn: a scripted ``edgar -p`` turn with three shell calls (one failing) in a
   real repository, once with the tree of ``--baseline`` (default: the commit before issue
   21 item 1) and once with this checkout; a logging ``git`` first on PATH counts the calls.
2. Cost per call: ``git status --porcelain -z --untracked-files=all`` in a repository of
   ``--files`` files, median of ``--runs``: the baseline's way (a plain subprocess with
   edgar's whole environment) against ``edgar.sandbox.git.git`` (the session's sandbox,
   neutralised), and the same runner with the sandbox off (what neutralising alone costs).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = "cc34c40"   # main before issue 21 item 1
LOGGING_GIT = """#!/bin/sh
echo "$*" >> {log}
exec {git} "$@"
"""


def make_repo(where: Path, files: int) -> Path:
    where.mkdir(parents=True)
    (where / "src").mkdir()
    for n in range(files):
        (where / "src" / f"m{n}.py").write_text(f"x = {n}\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bench"]):
        subprocess.run(["git", *args], cwd=where, env=env, check=True)
    return where


def calls_per_turn(tree: Path, work: Path) -> int:
    project = make_repo(work / "proj", 20)
    log = work / "git.log"
    bindir = work / "bin"
    bindir.mkdir()
    wrapper = bindir / "git"
    wrapper.write_text(LOGGING_GIT.format(log=log, git=shutil.which("git")))
    wrapper.chmod(0o755)
    script = work / "s.jsonl"
    steps = [{"tool_calls": [{"name": "shell", "input": {"command": c}}]}
             for c in ("echo a > src/a.txt", "echo b >> src/m1.py", "ls missing-file")]
    script.write_text("".join(json.dumps(s) + "\n" for s in [*steps, {"text": "done"}]))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EDGAR_", "PYTHON"))}
    env.update(EDGAR_HOME=str(work / "home"), PYTHONPATH=str(tree),
               PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "edgar", "-p", "go", "--model",
                           f"scripted:{script}", "--permission-mode", "yes"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"edgar failed in {tree}: {done.stderr}")
    return len(log.read_text().splitlines()) if log.exists() else 0


def baseline_tree(rev: str, work: Path) -> Path:
    tree = work / "baseline"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "edgar"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def median_ms(fn, runs: int) -> float:
    fn()   # warm: the probe, the page cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    sys.path.insert(0, str(REPO))
    from edgar.sandbox import Policy, Sandbox
    from edgar.sandbox.git import git

    with tempfile.TemporaryDirectory(prefix="edgar-bench-git-") as tmp:
        work = Path(tmp)
        (work / "a").mkdir()
        (work / "b").mkdir()
        before = calls_per_turn(baseline_tree(args.baseline, work), work / "a")
        after = calls_per_turn(REPO, work / "b")
        print(f"git calls in a turn of 3 shell calls (1 failing): {before} before "
              f"({args.baseline}), {after} now")

        repo = make_repo(work / "big", args.files)
        (repo / "src" / "m1.py").write_text("changed\n")
        (repo / "new.txt").write_text("new\n")
        status = ["status", "--porcelain", "-z", "--untracked-files=all"]

        async def old_way() -> None:   # the baseline's Checkpoints._git
            proc = await asyncio.create_subprocess_exec(
                "git", *status, cwd=str(repo), stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
            await proc.communicate()

        boxed = Sandbox(Policy.for_project(repo))
        open_box = Sandbox(Policy.for_project(repo, mode="off"))
        old = median_ms(lambda: asyncio.run(old_way()), args.runs)
        new = median_ms(lambda: asyncio.run(git(status, root=repo, sandbox=boxed)), args.runs)
        neutral = median_ms(lambda: asyncio.run(git(status, root=repo, sandbox=open_box)),
                            args.runs)
        layers = ", ".join(layer.name for layer in boxed.layers() if layer.active)
        print(f"git status, {args.files} files, median of {args.runs}:")
        print(f"  before (plain subprocess, edgar's environment): {old:.1f} ms")
        print(f"  now (sandboxed: {layers}; neutralised):  {new:.1f} ms  "
              f"(before ÷ now = {old / new:.2f}, +{new - old:.1f} ms)")
        print(f"  neutralised, sandbox off:                       {neutral:.1f} ms")
        per_turn_before, per_turn_now = before * old, after * new
        print(f"per turn: {per_turn_before:.0f} ms before, {per_turn_now:.0f} ms now "
              f"(before ÷ now = {per_turn_before / per_turn_now:.2f})")


if __name__ == "__main__":
    main()
