"""The permission modes, named once: settings validate against them, the gate enforces them,
``--permission-mode`` and ``/mode`` offer them (what each allows: tools/permissions.py; ADR-0059).

Guarantees: importing this module costs nothing beyond ``typing`` (``edgar --help`` reads it).
"""

from __future__ import annotations

from typing import Literal, get_args

PermissionMode = Literal["ask", "auto-edit", "yes", "read-only"]
MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
UNASKED: tuple[PermissionMode, ...] = ("auto-edit", "yes")
"""The modes that let some tool call run without asking (a project file needs trust for them)."""
