"""Where edgar keeps the person's own files: the user dir (``EDGAR_HOME``, else platformdirs'
config dir for ``edgar``). A leaf: config, trust, the sandbox and the tools all ask it, and it
imports nothing of edgar's, so none of them has to import config to find it."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir", "user_dir"]


def user_dir() -> Path:
    """The user dir; not created here."""
    home = os.environ.get("EDGAR_HOME")
    if home:
        return Path(home)
    from platformdirs import user_config_dir  # on first use: a few ms of start-up otherwise

    return Path(user_config_dir("edgar"))


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
