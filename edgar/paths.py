"""Where edgar keeps the person's own files: the user dir (``EDGAR_HOME``, else platformdirs'
config dir for ``edgar``); and where Claude Code keeps the person's (``home()``, ``claude_dir()``). A leaf: config, trust, the sandbox and the tools all ask it, and it
imports nothing of edgar's, so none of them has to import config to find it."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["claude_dir", "home", "user_dir"]


def user_dir() -> Path:
    """The user dir; not created here."""
    home = os.environ.get("EDGAR_HOME")
    if home:
        return Path(home)
    from platformdirs import user_config_dir  # on first use: a few ms of start-up otherwise

    return Path(user_config_dir("edgar"))


def home() -> Path:
    """The home directory: ``$HOME`` as it is now (tests point it at a temporary dir)."""
    return Path(os.environ.get("HOME") or Path.home())


def claude_dir() -> Path:
    """Claude Code's user dir: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude`` (Claude Code's rule)."""
    custom = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(custom) if custom else home() / ".claude"
