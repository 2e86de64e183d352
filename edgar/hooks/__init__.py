"""User hooks on lifecycle events, with Claude Code's contract (``docs/mcp-hooks.md``)."""
