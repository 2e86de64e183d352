"""Whether a project's own config may run programs (hooks, MCP servers): one question.

Guarantees:
- It is ``edgar.sandbox.trust``'s answer (``edgar trust``, ADR-0026): the person recorded
  this project's ``.edgar/config.toml`` and ``.mcp.json`` exactly as they are now; any change
  to them needs trust again. Nothing in the project can make itself trusted.
- ``project_trusted`` is the single question the MCP and hook loaders ask.
"""

from __future__ import annotations

from pathlib import Path


def project_trusted(root: Path) -> bool:
    """True when the person trusted the project's config files as they are now."""
    from edgar.sandbox.trust import trusted

    return trusted(root)


def trust(root: Path) -> None:
    """Record that the person trusts the project's config files as they are now."""
    from edgar.sandbox.trust import trust as record

    record(root)
