"""The permission modes, named once: settings validate against them, the gate enforces them,
``--permission-mode`` and ``/mode`` offer them (what each allows: tools/permissions.py; ADR-0059).

Guarantees: importing this module costs nothing beyond ``typing`` (``edgar --help`` reads it).
"""

from __future__ import annotations

from typing import Literal, get_args

PermissionMode = Literal["ask", "auto-edit", "yes", "read-only", "plan"]
MODES: tuple[PermissionMode, ...] = get_args(PermissionMode)
READING: tuple[PermissionMode, ...] = ("read-only", "plan")
"""The modes in which nothing is written or run (but the read-only commands)."""
PLAN: PermissionMode = "plan"
"""Read-only tools only; the model ends with a plan for the person (``exit_plan_mode``)."""
AFTER_PLAN: PermissionMode = "ask"
"""The mode an approved plan goes on in when edgar started in plan mode."""
UNASKED: tuple[PermissionMode, ...] = ("auto-edit", "yes")
"""The modes that let some tool call run without asking (a project file needs trust for them)."""
