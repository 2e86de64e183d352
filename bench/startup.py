"""Start-up figures: `edgar --version`, a one-tool scripted `edgar -p` to exit, start → first
request byte at a loopback Anthropic server, and REPL start → first prompt on a pseudo-terminal;
medians over ``--runs``, beside `python -c pass` (and `llm --version` with ``--llm``).

``--baseline REV`` measures the tree at git revision REV too (extracted with ``git archive``),
alternating the two trees run by run, so both columns see the same machine load.

Goals (issue 13, 2-core machine): `-p` ≤ 0.35 s, first byte ≤ 0.35 s, REPL ≤ 0.5 s, and
`edgar --version` imports no pydantic.

Run: python bench/startup.py [--runs N] [--baseline REV] [--llm]. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
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
sys.path[:0] = [str(REPO / "tests"), str(REPO / "tests" / "e2e")]

from support.sse_server import SSEServer, stream  # noqa: E402
from test_repl_pty import Terminal  # noqa: E402

FIGURES = [("python -c pass", None), ("edgar --version", None),
           ("edgar -p (1 tool, scripted)", 0.35), ("start -> first request byte", 0.35),
           ("REPL start -> first prompt", 0.5)]


class Tree:
    """One source tree to measure: run as ``python -m edgar`` with it first on PYTHONPATH."""

    def __init__(self, label: str, src: Path, project: Path, home: Path, server: SSEServer):
        self.label, self.src, self.project = label, src, project
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("EDGAR_", "ANTHROPIC_", "OPENAI_"))}
        # an installed edgar has compiled bytecode: measure that, not recompilation
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(PYTHONPATH=str(src), EDGAR_HOME=str(home), NO_COLOR="1", TERM="xterm",
                   ANTHROPIC_API_KEY="sk-ant-bench", ANTHROPIC_BASE_URL=server.url,
                   PYTHONPYCACHEPREFIX=str(home / "pycache"))
        self.env = env
        self.server = server
        self.samples: dict[str, list[float]] = {name: [] for name, _ in FIGURES}

    def edgar(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "edgar", *args]

    def wall(self, cmd: list[str]) -> float:
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=self.project, env=self.env, capture_output=True)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise SystemExit(f"{self.label}: {cmd} failed: {done.stderr.decode()[-600:]}")
        return elapsed

    def first_byte(self) -> float:
        self.server.anthropic(stream("anthropic_text"))
        seen = len(self.server.requests)
        started = time.time()
        self.wall(self.edgar("-p", "hi", "--model", "anthropic:claude-sonnet-4-5", "--no-history"))
        if len(self.server.requests) != seen + 1:
            raise SystemExit(f"{self.label}: the server saw no request")
        return self.server.requests[-1].at - started

    def repl(self, script: Path) -> float:
        start = time.perf_counter()
        term = Terminal(self.edgar("--model", f"scripted:{script}"), self.project, self.env)
        term.expect("› ", timeout=30)
        elapsed = time.perf_counter() - start
        term.send("\x04")
        term.wait_exit()
        return elapsed

    def once(self, script: Path, record: bool = True) -> None:
        figures = [self.wall([sys.executable, "-c", "pass"]),
                   self.wall(self.edgar("--version")),
                   self.wall(self.edgar("-p", "go", "--model", f"scripted:{script}",
                                        "--permission-mode", "yes", "--no-history")),
                   self.first_byte(),
                   self.repl(script)]
        if record:
            for (name, _), value in zip(FIGURES, figures):
                self.samples[name].append(value)

    def imports_pydantic_on_version(self) -> bool:
        code = ("import sys\nfrom edgar.cli.main import main\ntry:\n    main(['--version'])\n"
                "except SystemExit:\n    pass\nprint('pydantic' in sys.modules)")
        out = subprocess.run([sys.executable, "-c", code], cwd=self.project, env=self.env,
                             capture_output=True, text=True)
        return out.stdout.strip().endswith("True")


def extract(rev: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "edgar"],
                             capture_output=True, check=True).stdout
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def llm_version(scratch: Path, cwd: Path, runs: int) -> float | None:
    venv = scratch / "llm-venv"
    if not (venv / "bin" / "llm").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "llm"],
                              capture_output=True)
        if done.returncode != 0:
            return None
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([str(venv / "bin" / "llm"), "--version"], cwd=cwd, capture_output=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--baseline", metavar="REV", help="also measure this git revision")
    parser.add_argument("--llm", action="store_true", help="also time `llm --version`")
    parser.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "edgar-bench"))
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="edgar-startup-"))
    project = tmp / "project"
    (project / ".git").mkdir(parents=True)
    script = project / "script.jsonl"
    script.write_text(json.dumps({"tool_calls": [{"name": "read", "input": {"path": "script.jsonl"}}]})
                      + "\n" + json.dumps({"text": "done"}) + "\n")
    with SSEServer() as server:
        trees = [Tree("this tree", REPO, project, tmp / "home-new", server)]
        if args.baseline:
            src = extract(args.baseline, tmp / "baseline")
            trees.insert(0, Tree(args.baseline, src, project, tmp / "home-base", server))
        for tree in trees:
            tree.once(script, record=False)  # warm caches and compile bytecode
        for _ in range(args.runs):
            for tree in trees:
                tree.once(script)
    print(f"median wall time over {args.runs} runs each, trees alternating; "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(f"{'':32}" + "".join(f"{t.label[:14]:>16}" for t in trees)
          + ("       ratio" if len(trees) == 2 else "") + "    goal")
    for name, goal in FIGURES:
        medians = [statistics.median(t.samples[name]) for t in trees]
        row = f"{name:32}" + "".join(f"{m * 1000:13.1f} ms" for m in medians)
        if len(trees) == 2:
            row += f"{medians[1] / medians[0]:11.2f}x"
        print(row + (f"  <= {goal * 1000:.0f} ms" if goal else ""))
    for tree in trees:
        print(f"{tree.label}: `edgar --version` imports pydantic: "
              f"{'yes' if tree.imports_pydantic_on_version() else 'no'}")
    if args.llm:
        llm = llm_version(Path(args.scratch), project, args.runs)
        print("llm --version: " + ("unavailable (pip install llm failed)" if llm is None
                                   else f"{llm * 1000:.1f} ms"))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
