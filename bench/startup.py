"""Start-up figures (issue 2): median wall time of `edgar --version` and of a one-tool scripted
`edgar -p` to exit, beside `python -c pass` and `llm --version` (installed in a scratch venv).

Run: python bench/startup.py [--runs N]. Prints figures; asserts nothing.
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


def timed(cmd: list[str], cwd: Path, env: dict[str, str], runs: int) -> float:
    subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)  # warm the page cache
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
        samples.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"{cmd} failed: {done.stderr.decode()[-400:]}")
    return statistics.median(samples)


def llm_python(scratch: Path) -> Path | None:
    venv = scratch / "llm-venv"
    if not (venv / "bin" / "llm").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        done = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "llm"], capture_output=True)
        if done.returncode != 0:
            return None
    return venv / "bin" / "llm"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "edgar-bench"))
    args = parser.parse_args()
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    project = Path(tempfile.mkdtemp(prefix="edgar-startup-"))
    (project / ".git").mkdir()
    script = project / "script.jsonl"
    script.write_text(json.dumps({"tool_calls": [{"name": "read", "input": {"path": "script.jsonl"}}]})
                      + "\n" + json.dumps({"text": "done"}) + "\n")
    env = dict(os.environ, EDGAR_HOME=str(project / "home"), PYTHONPATH=str(REPO))
    edgar = [sys.executable, "-m", "edgar"]
    exe = shutil.which("edgar")
    if exe:
        edgar = [exe]
    base = timed([sys.executable, "-c", "pass"], project, env, args.runs)
    version = timed(edgar + ["--version"], project, env, args.runs)
    oneshot = timed(edgar + ["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes",
                             "--no-history"], project, env, args.runs)
    print(f"python -c pass:            {base * 1000:7.1f} ms")
    print(f"edgar --version:           {version * 1000:7.1f} ms")
    print(f"edgar -p (1 tool, scripted): {oneshot * 1000:5.1f} ms   (goal <= 350 ms)")
    llm = llm_python(scratch)
    if llm is None:
        print("llm --version:             unavailable (pip install llm failed)")
    else:
        llm_time = timed([str(llm), "--version"], project, env, args.runs)
        print(f"llm --version:             {llm_time * 1000:7.1f} ms")
        print(f"edgar --version / llm --version = {version / llm_time:.2f}x   (goal <= 0.5x)")
    shutil.rmtree(project, ignore_errors=True)


if __name__ == "__main__":
    main()
