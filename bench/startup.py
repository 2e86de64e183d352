"""Start-up figures for any git revisions side by side, in one run (issue 26's table).

For each revision: the tree at that commit (``git archive``, the whole tree as a clone has it,
under ``--scratch``) and a venv of its own, installed exactly as that tree's README says
(``python3 -m venv .venv && pip install -e .``: no extras); ``.`` is this checkout as it is,
uncommitted changes included, in a venv of its own too. Venvs are kept in the scratch
directory and reused while the tree's ``pyproject.toml`` is the same.

Every command is that venv's ``edgar`` console script, run as a person runs it:
``PYTHONDONTWRITEBYTECODE`` unset (an installed edgar has compiled bytecode: measure that, not
recompilation), a fresh ``EDGAR_HOME`` per revision, a throw-away project. One untimed round
warms the caches and writes the bytecode; then ``--runs`` rounds, each running every figure
for every revision in turn (interleaved, so the machine's load falls on all of them alike).
Medians are printed, with the load average before and after: on a shared machine read the
ratios, not the milliseconds.

Figures:

- ``python -c pass`` and ``edgar --version``: the floor;
- ``edgar -p`` with one ``shell true`` call (scripted provider, ``--permission-mode yes``) to
  exit: wall time, peak RSS and CPU time (user + system, the process and its children, from
  ``wait4``);
- start -> first request byte: ``edgar -p hi`` against a loopback Anthropic server
  (tests/support/sse_server.py); the clock stops when the server has the request in hand;
- REPL start -> first prompt: ``edgar`` on a pseudo-terminal until ``›`` shows;
- ``edgar stats`` over a store of ``--stats-runs`` runs (filled once by bench/stats.py's
  ``fill`` with this checkout's code, copied per revision; a revision that cannot read it
  shows ``—``).

Ratios are against the first revision. Issue 26's goals (against ``4342902``): ``-p``, first
byte and REPL <= 1.0x, ``edgar stats`` <= 0.25 s.

Run: python bench/startup.py [REV ...] [--runs N] [--stats-runs N] [--scratch DIR]
(default revisions: ``4342902 .``). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "e2e")]

from support.sse_server import SSEServer, stream  # noqa: E402
from test_repl_pty import Terminal  # noqa: E402

FIGURES = ["python -c pass", "edgar --version", "edgar -p (1 shell call)", "  its CPU",
           "  its peak RSS (MiB)", "start -> first request byte", "REPL start -> first prompt",
           "edgar stats (1M runs)"]
GOALS = {"edgar -p (1 shell call)": "<= 1.0x", "start -> first request byte": "<= 1.0x",
         "REPL start -> first prompt": "<= 1.0x", "edgar stats (1M runs)": "<= 250 ms"}
UNITLESS = {"  its peak RSS (MiB)"}


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mib: float
    code: int
    stderr: bytes


# Spawns the command from a small interpreter and reports its children's usage: a child
# forked from this (larger) process would start with this process's resident set as its peak.
SPAWN = """import os, resource, sys, time
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status = os.waitpid(pid, 0)
wall = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_CHILDREN)
os.write(int(sys.argv[1]), f"{wall} {use.ru_utime + use.ru_stime} {use.ru_maxrss} {os.waitstatus_to_exitcode(status)}".encode())
"""


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> Run:
    """Run to exit; wall time, and CPU and peak RSS of it and its descendants."""
    read, write = os.pipe()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(["python3", "-S", "-c", SPAWN, str(write), *cmd], cwd=cwd,
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, pass_fds=(write,))
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            report = pipe.read().split()
        proc.wait()
        err.seek(0)
        if len(report) != 4:
            return Run(0.0, 0.0, 0.0, proc.returncode or 1, err.read())
        return Run(float(report[0]), float(report[1]), int(report[2]) / 1024, int(report[3]),
                   err.read())


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def export(rev: str, scratch: Path) -> tuple[str, Path]:
    """(label, tree) for a revision: ``.`` is this checkout; else the commit's whole tree."""
    if rev == ".":
        return ".", REPO
    sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    tree = scratch / "trees" / sha[:12]
    if not (tree / "pyproject.toml").exists():
        archive = subprocess.run(["git", "-C", str(REPO), "archive", sha],
                                 capture_output=True, check=True).stdout
        tree.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="tar")
    return (rev if rev == sha[:len(rev)] and len(rev) <= 12 else f"{rev} ({sha[:7]})"), tree


def venv_for(label: str, tree: Path, scratch: Path) -> Path:
    """A venv with the tree installed as its README says: ``pip install -e .``, no extras."""
    key = hashlib.sha256(f"{tree}\0{_digest(tree / 'pyproject.toml')}".encode()).hexdigest()[:12]
    venv = scratch / "venvs" / key
    if not (venv / "bin" / "edgar").exists():
        print(f"installing {label} into {venv} (pip install -e {tree}) …", flush=True)
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-e", str(tree)],
                       check=True, cwd=tree)
    return venv


@dataclass
class Rev:
    label: str
    tree: Path
    venv: Path
    work: Path
    server: SSEServer
    script: Path
    stats_project: Path | None
    samples: dict[str, list[float]] = field(default_factory=dict)

    def env(self, home: str = "home") -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("EDGAR_", "ANTHROPIC_", "OPENAI_", "PYTHON", "VIRTUAL_ENV"))}
        env.update(EDGAR_HOME=str(self.work / home), NO_COLOR="1", TERM="xterm",
                   ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=self.server.url,
                   PATH=f"{self.venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
        return env

    @property
    def project(self) -> Path:
        return self.work / "project"

    def edgar(self, *args: str) -> list[str]:
        return [str(self.venv / "bin" / "edgar"), *args]

    def ok(self, what: str, done: Run) -> Run:
        if done.code != 0:
            raise SystemExit(f"{self.label}: {what} failed ({done.code}): "
                             f"{done.stderr.decode(errors='replace')[-1500:]}")
        return done

    def first_byte(self) -> float:
        self.server.anthropic(stream("anthropic_text"))
        seen = len(self.server.requests)
        started = time.time()   # spawned from here: the wrapper's start-up is not counted
        done = subprocess.run(self.edgar("-p", "hi", "--model", "anthropic:claude-sonnet-4-5",
                                         "--no-history"), cwd=self.project, env=self.env(),
                              capture_output=True)
        self.ok("first byte", Run(0.0, 0.0, 0.0, done.returncode, done.stderr))
        if len(self.server.requests) != seen + 1:
            raise SystemExit(f"{self.label}: the server saw no request")
        return self.server.requests[-1].at - started

    def repl(self) -> float:
        start = time.perf_counter()
        term = Terminal(self.edgar("--model", f"scripted:{self.script}"), self.project,
                        self.env())
        term.expect("› ", timeout=60)
        elapsed = time.perf_counter() - start
        term.send("\x04")
        term.wait_exit()
        return elapsed

    def stats(self) -> float | None:
        if self.stats_project is None:
            return None
        done = run(self.edgar("stats"), self.stats_project,
                   {**self.env(), "EDGAR_HOME": str(self.stats_project / "home")})
        return done.wall if done.code == 0 else None

    def once(self, record: bool = True) -> None:
        python = str(self.venv / "bin" / "python")
        one_shot = self.ok("edgar -p", run(self.edgar(
            "-p", "go", "--model", f"scripted:{self.script}", "--permission-mode", "yes",
            "--no-history"), self.project, self.env()))
        values = {
            "python -c pass": self.ok("python", run([python, "-c", "pass"], self.project,
                                                    self.env())).wall,
            "edgar --version": self.ok("--version", run(self.edgar("--version"), self.project,
                                                        self.env())).wall,
            "edgar -p (1 shell call)": one_shot.wall, "  its CPU": one_shot.cpu,
            "  its peak RSS (MiB)": one_shot.rss_mib,
            "start -> first request byte": self.first_byte(),
            "REPL start -> first prompt": self.repl(),
            "edgar stats (1M runs)": self.stats(),
        }
        if record:
            for name, value in values.items():
                if value is not None:
                    self.samples.setdefault(name, []).append(value)


def stats_store(scratch: Path, n: int) -> Path:
    """A project whose experience store holds ``n`` runs, filled once with this checkout."""
    project = scratch / f"stats-{n}"
    if not (project / ".edgar" / "experience.db").exists():
        print(f"filling a store of {n:,} runs in {project} …", flush=True)
        code = ("import sys; sys.path.insert(0, sys.argv[1]); import stats; "
                "from pathlib import Path; p = Path(sys.argv[2]); "
                "(p / '.git').mkdir(parents=True, exist_ok=True); "
                "(p / '.edgar').mkdir(mode=0o700, exist_ok=True); "
                "stats.fill(p / '.edgar' / 'experience.db', int(sys.argv[3]))")
        subprocess.run([sys.executable, "-c", code, str(REPO / "bench"), str(project), str(n)],
                       check=True)
    return project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revs", nargs="*", default=["4342902", "."],
                        help="git revisions; '.' is this checkout as it is (default: 4342902 .)")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--stats-runs", type=int, default=1_000_000,
                        help="runs in the store `edgar stats` reads (0: skip that figure)")
    parser.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "edgar-bench"),
                        help="trees, venvs and the stats store, kept between runs")
    args = parser.parse_args()
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="edgar-startup-"))
    store = stats_store(scratch, args.stats_runs) if args.stats_runs else None
    with SSEServer() as server:
        revs = []
        for n, rev in enumerate(args.revs):
            label, tree = export(rev, scratch)
            work = tmp / f"rev{n}"
            (work / "project" / ".git").mkdir(parents=True)
            script = work / "project" / "script.jsonl"
            script.write_text(
                json.dumps({"tool_calls": [{"name": "shell", "input": {"command": "true"}}]})
                + "\n" + json.dumps({"text": "done"}) + "\n")
            copy = None
            if store is not None:
                copy = work / "stats"
                shutil.copytree(store, copy)
            revs.append(Rev(label, tree, venv_for(label, tree, scratch), work, server, script,
                            copy))
        load_before = os.getloadavg()
        for rev in revs:
            rev.once(record=False)    # bytecode written, caches warm
        for _ in range(args.runs):
            for rev in revs:
                rev.once()
        load_after = os.getloadavg()
    print(f"\nmedians of {args.runs} interleaved runs; {os.cpu_count()} cores; load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after "
          f"(1/5/15 min after: {' '.join(f'{x:.2f}' for x in load_after)})")
    width = max(16, *(len(r.label) + 2 for r in revs))
    head = f"{'':30}" + "".join(f"{r.label:>{width}}" for r in revs)
    head += "".join(f"{'ratio ' + str(i + 1):>10}" for i in range(1, len(revs))) + "   goal"
    print(head)
    for name in FIGURES:
        medians = [statistics.median(r.samples[name]) if r.samples.get(name) else None
                   for r in revs]
        cells = []
        for m in medians:
            if m is None:
                cells.append(f"{'—':>{width}}")
            elif name in UNITLESS:
                cells.append(f"{m:>{width - 4}.1f}    ")
            else:
                cells.append(f"{m * 1000:>{width - 3}.0f} ms")
        ratios = [f"{m / medians[0]:9.2f}x" if m is not None and medians[0] else f"{'—':>10}"
                  for m in medians[1:]]
        print(f"{name:30}" + "".join(cells) + "".join(ratios) + f"   {GOALS.get(name, '')}")
    print("ratio k: revision k ÷ the first revision; " + "; ".join(
        f"{i + 1} = {r.label} ({r.tree})" for i, r in enumerate(revs)))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
