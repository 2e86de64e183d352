"""Where edgar keeps the person's own files: the user dir (``EDGAR_HOME``, else platformdirs'
config dir for ``edgar``); and where Claude Code keeps the person's (``home()``, ``claude_dir()``).
A leaf: config, trust, the sandbox and the tools all ask it, and it
imports nothing of edgar's, so none of them has to import config to find it.

A project's learned and resumable state (facts, counters, sessions, checkpoints, input
history) lives in the user dir too, never in the project: ``project_state(root)`` is
``<user dir>/projects/<slug of the real path>-<12 hex of its sha256>`` (ADR-0075), so a
cloned repository cannot ship it and a symlinked path maps to the same place."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

__all__ = ["cache_dir", "claude_dir", "claude_json", "home", "project_key", "project_state",
           "user_dir"]

SLUG_CHARS = 48   # the end of the path: where two projects' paths differ most


def user_dir() -> Path:
    """The user dir; not created here."""
    home = os.environ.get("EDGAR_HOME")
    if home:
        return Path(home)
    from platformdirs import user_config_dir  # on first use: a few ms of start-up otherwise

    return Path(user_config_dir("edgar"))


def project_key(root: Path | str) -> str:
    """The directory name of a project's state: its real path made a file name (like Claude
    Code's ``~/.claude/projects/<escaped path>``), shortened to its end, plus a hash of the
    whole real path so two paths that shorten alike never share state. Pure but for the
    ``realpath`` (links resolved: one project, one key)."""
    real = os.path.realpath(root)
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", real).strip("-")[-SLUG_CHARS:].lstrip("-") or "root"
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:12]
    return f"{slug}-{digest}"


def project_state(root: Path | str) -> Path:
    """Where edgar keeps one project's learned and resumable state; not created here."""
    return user_dir() / "projects" / project_key(root)


def cache_dir() -> Path:
    """Where programs edgar starts may keep downloads (``npx -y``, ``uvx`` for MCP servers,
    ADR-0102): ``EDGAR_CACHE``; else beside an ``EDGAR_HOME`` (``$EDGAR_HOME-cache``); else
    platformdirs' user cache dir. Never inside the user dir: that stays read-only to every
    sandboxed program (config, trust, memory). Not created here."""
    cache = os.environ.get("EDGAR_CACHE")
    if cache:
        return Path(cache)
    home = os.environ.get("EDGAR_HOME")
    if home:
        return Path(home.rstrip("/") + "-cache")
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("edgar"))


def home() -> Path:
    """The home directory: ``$HOME`` as it is now (tests point it at a temporary dir)."""
    return Path(os.environ.get("HOME") or Path.home())


def claude_json() -> Path:
    """Claude Code's own state file, where ``claude mcp add`` keeps servers:
    ``$CLAUDE_CONFIG_DIR/.claude.json``, else ``~/.claude.json`` (Claude Code's rule)."""
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return (Path(custom) if custom else home()) / ".claude.json"


def claude_dir() -> Path:
    """Claude Code's user dir: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude`` (Claude Code's rule)."""
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(custom) if custom else home() / ".claude"
