"""MCP servers as tools. Importing this package imports nothing of the ``mcp`` SDK: only
``edgar.mcp.sdk`` does, and only when at least one server is configured (start-up time)."""
