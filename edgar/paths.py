"""Where edgar keeps the person's own files: the user dir (``EDGAR_HOME``, else platformdirs'
config dir for ``edgar``). A leaf: config, trust, the sandbox and the tools all ask it, and it
imports nothing of edgar's, so none of them has to import config to find it."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["user_dir"]


def user_dir() -> Path:
    """The user dir; not created here."""
    home = os.environ.get("EDGAR_HOME")
    if home:
        return Path(home)
    from platformdirs import user_config_dir  # on first use: a few ms of start-up otherwise

    return Path(user_config_dir("edgar"))
