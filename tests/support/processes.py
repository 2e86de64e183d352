"""Looking for processes from the host side, whatever PID namespace they ran in."""

from __future__ import annotations

import os
import time
from pathlib import Path


def sleeper(seconds: int) -> str:
    """``sleep S.PID``: a command line no other test run on this machine has at the same time
    (a fixed marker matched another checkout's suite running the same test, and failed it)."""
    return f"sleep {seconds}.{os.getpid():07d}"   # fixed width: no marker is a prefix of another


def alive(marker: str) -> list[int]:
    """Host pids (not zombies) whose command line contains ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker.encode() in cmdline and state != "Z":
            found.append(int(entry))
    return found


def gone(marker: str, within: float = 5.0) -> bool:
    """True once no live process carries ``marker`` (killed ones may take a moment)."""
    deadline = time.monotonic() + within
    while alive(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
