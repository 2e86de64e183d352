"""``edgar demo``: a bundled scripted session through the real loop, tools and learning.

Guarantees: runs offline in a fresh temporary project (never the current one): the
scripted provider reads a file, edits it, runs a command, runs one failing command, and
answers; then it shows what edgar learned (only from the line the person "typed").
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

PROMPT = "Always run the tests with -q. Fix the typo in greet.py's greeting."
GREET = ('def greet(name):\n    return f"Helo, {name}!"\n\n\n'
         'if __name__ == "__main__":\n    print(greet("world"))\n')


def run(argv: list[str]) -> int:
    from edgar.cli.suggest import described

    parser = argparse.ArgumentParser(prog="edgar demo", description=described(__doc__))
    parser.add_argument("--keep", action="store_true", help="keep the temporary project")
    parser.add_argument("--fast", action="store_true", help="no pauses between model steps")
    args = parser.parse_args(argv)
    project = Path(tempfile.mkdtemp(prefix="edgar-demo-"))
    try:
        return _demo(project, args.fast)
    finally:
        if args.keep:
            print(f"\nproject kept at {project}")
        else:
            shutil.rmtree(project, ignore_errors=True)


def _demo(project: Path, fast: bool) -> int:
    from edgar.cli.oneshot import run_prompt
    from edgar.cli.render import PlainRenderer
    from edgar.cli.setup import build
    from edgar.config import load

    (project / ".git").mkdir()
    (project / "greet.py").write_text(GREET, encoding="utf-8")
    script = project / ".edgar-demo-script.jsonl"
    text = resources.files("edgar").joinpath("data/demo.jsonl").read_text(encoding="utf-8")
    if fast:
        text = text.replace('"delay_s": 0.3', '"delay_s": 0.0')
    script.write_text(text, encoding="utf-8")
    old_home = os.environ.get("EDGAR_HOME")
    os.environ["EDGAR_HOME"] = str(project / ".edgar-home")  # never read the user's config
    cwd = os.getcwd()
    os.chdir(project)
    try:
        settings = load(project, overrides={"model": f"scripted:{script}",
                                            "permission_mode": "yes"})
        app = build(project, settings)
        app.observe(PlainRenderer(sys.stdout))
        print(f"edgar demo — a scripted session in {project}\n")
        print(f"you> {PROMPT}\n")
        try:
            code = asyncio.run(run_prompt(app, PROMPT, fmt="quiet"))
        finally:
            app.close()
        _show_learning(project)
        return code
    finally:
        os.chdir(cwd)
        if old_home is None:
            os.environ.pop("EDGAR_HOME", None)
        else:
            os.environ["EDGAR_HOME"] = old_home


def _show_learning(project: Path) -> None:
    print("\n— what edgar learned (only from the line you typed) —")
    env = dict(os.environ, EDGAR_HOME=str(project / ".edgar-home"))
    for command in (["memory", "list"], ["history", "show", "-n", "1"], ["stats"]):
        print(f"\n$ edgar {' '.join(command)}")
        sys.stdout.flush()
        subprocess.run([sys.executable, "-m", "edgar", *command], cwd=project, env=env)
