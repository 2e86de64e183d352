"""Whether a project's own config may run programs (hooks, MCP servers): one question.

Guarantees:
- A project is trusted only when the person said so outside the project: its resolved root
  is a line in ``trusted-projects`` in edgar's user directory. Nothing in the project can
  make itself trusted.
- ``project_trusted`` is the single question the MCP and hook loaders ask; when
  ``edgar.sandbox``'s trust store lands (issue 11, ``edgar trust``) this function asks it.
"""

from __future__ import annotations

from pathlib import Path


def trust_file() -> Path:
    from edgar.config import user_dir

    return user_dir() / "trusted-projects"


def project_trusted(root: Path) -> bool:
    """True when the person trusted the project at ``root``."""
    try:
        lines = trust_file().read_text(encoding="utf-8").splitlines()
    except OSError:
        return False
    want = str(root.resolve())
    return any(line.strip() == want for line in lines)


def trust(root: Path) -> None:
    """Record that the person trusts the project at ``root`` (idempotent)."""
    path = trust_file()
    if project_trusted(root):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as out:
        out.write(str(root.resolve()) + "\n")
