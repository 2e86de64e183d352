"""Helpers for tests that drive edgar the way a person does: a real project directory, a
scripted model, and the ``edgar`` command as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def make_project(path: Path, files: dict[str, str] | None = None) -> Path:
    """A project root: a ``.git`` marker plus the given files."""
    path.mkdir(parents=True, exist_ok=True)
    (path / ".git").mkdir(exist_ok=True)
    for name, text in (files or {}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return path


def state_of(project: Path, home: Path | str | None = None) -> Path:
    """Where edgar keeps ``project``'s learned state (ADR-0075): in the user dir ``home``
    (default: this process's ``EDGAR_HOME``), keyed by the project's real path. Computed
    here as the ADR states it, not asked of edgar, so a change to the layout fails tests."""
    import hashlib
    import re

    real = os.path.realpath(project)
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", real).strip("-")[-48:].lstrip("-") or "root"
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:12]
    base = Path(home) if home is not None else Path(os.environ["EDGAR_HOME"])
    return base / "projects" / f"{slug}-{digest}"


def write_script(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def edgar_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("EDGAR_", "ANTHROPIC_", "OPENAI_"))}
    env["EDGAR_HOME"] = str(home)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    # as in an activated venv: `python3` in a doc's example (an MCP server's command) is the
    # interpreter that has the test dependencies, whether or not the runner activated it
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.setdefault("NO_COLOR", "1")
    if "HOME" in extra:
        env.pop("CLAUDE_CONFIG_DIR", None)  # the chosen home's .claude, not the suite's empty one
    env.update(extra)
    return env


def with_home(env: dict[str, str], home: Path | str) -> dict[str, str]:
    """``env`` with ``HOME`` set and Claude Code's files read from that home (the suite points
    ``CLAUDE_CONFIG_DIR`` at an empty dir so a developer's own setup never runs)."""
    out = {k: v for k, v in env.items() if k != "CLAUDE_CONFIG_DIR"}
    out["HOME"] = str(home)
    return out


def run_edgar(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None,
              timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "edgar", *args], cwd=cwd, env=env,
                          input=stdin if stdin is not None else "", capture_output=True,
                          text=True, timeout=timeout)


def recorded(path: Path) -> list[dict[str, Any]]:
    """Requests the scripted provider received (EDGAR_SCRIPTED_RECORD)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def beyond_temp() -> Path:
    """A parent outside the temp dirs (which every sandbox may write), for a test whose refusal
    must be the sandbox's: the repository's ignored build/ dir; where the checkout itself sits
    in a temp dir (.ci/run's learning-deleted copy), /var/lib/edgar-tests as root — the ordinary
    user of support.users must reach it, and root's home is 0700 — else the user's cache dir."""
    from edgar.sandbox.policy import temp_dirs

    temps = [Path(t) for t in temp_dirs()]
    root = os.geteuid() == 0
    candidates = [REPO / "build", *([Path("/var/lib/edgar-tests")] if root else []),
                  Path.home() / ".cache" / "edgar-tests"]
    for base in candidates:
        real = base.resolve()
        if any(real == t or t in real.parents for t in temps):
            continue
        if root and not _traversable(real):
            continue
        return base
    raise AssertionError(f"no directory outside the temp dirs {temps} that the ordinary user "
                         f"can reach, to test a refusal in (tried {candidates})")


def _traversable(path: Path) -> bool:
    """Whether every existing directory above `path` lets others pass (o+x)."""
    return all(p.stat().st_mode & 0o001 for p in path.parents if p.exists())
