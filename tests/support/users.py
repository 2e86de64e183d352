"""An ordinary (non-root) user for tests that must see what a user's machine sees.

CI and developers run as root; edgar's users do not. ``ordinary_user()`` creates a system
user with ``useradd`` once (root only) and finds a Python it can run; a test skips, saying
why, only where that is impossible (not root, no useradd, no Python readable by the user).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass

import pytest

NAME = "edgar-sbx-test"


@dataclass(frozen=True)
class User:
    uid: int
    gid: int
    python: str


def ordinary_user() -> User:
    if os.geteuid() != 0:
        me = pwd.getpwuid(os.getuid())
        return User(me.pw_uid, me.pw_gid, sys.executable)
    try:
        entry = pwd.getpwnam(NAME)
    except KeyError:
        if shutil.which("useradd") is None:
            pytest.skip("running as root without useradd: cannot create an ordinary user")
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/bin/sh", NAME],
                       check=True, capture_output=True)
        entry = pwd.getpwnam(NAME)
    for python in (sys.executable, "/usr/bin/python3", shutil.which("python3") or ""):
        if not python:
            continue
        try:
            done = subprocess.run([python, "-c", "import sys; assert sys.version_info >= (3, 11)"],
                                  user=entry.pw_uid, group=entry.pw_gid, extra_groups=[],
                                  capture_output=True)
        except OSError:
            continue  # not executable by that user (a Python under /root, say)
        if done.returncode == 0:
            return User(entry.pw_uid, entry.pw_gid, python)
    pytest.skip(f"no Python >= 3.11 that the user {NAME} can run")


def as_user(user: User) -> dict:
    """Keyword arguments for subprocess.run/Popen that run the child as ``user``."""
    if os.geteuid() != 0:
        return {}
    return {"user": user.uid, "group": user.gid, "extra_groups": []}
