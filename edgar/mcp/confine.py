"""What a stdio MCP server's sandbox adds for it (ADR-0102): a cache it may write, and the
hint when it fails at start for want of the network.

Guarantees (pure; no SDK, nothing started):
- ``cache_env(cache)`` points npm (``npx -y``), uv (``uvx``), pip and XDG-following tools at
  directories beneath ``cache``, the one place a server's sandbox may write besides the
  project, the temp dirs and the entry's ``writable``; the entry's own ``env`` wins.
- ``network_hint`` is a sentence naming the sandbox and the switch (``"network": true`` in
  the entry, or ``[mcp] network``) when a server with the network off failed or stalled at
  start and it looks like a download (``npx``/``uvx``/… or a resolver error in its stderr);
  otherwise "". It never claims the network was the cause, only that it was off.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# programs that fetch the server before running it
FETCHERS = ("npx", "uvx", "bunx", "pnpx", "pipx", "dlx", "docker", "podman", "deno")
# what resolvers and package managers print when there is no network
NO_NETWORK = re.compile(r"ENOTFOUND|EAI_AGAIN|ENETUNREACH|ECONNREFUSED|getaddrinfo|"
                        r"Temporary failure in name resolution|Network is unreachable|"
                        r"Name or service not known|Failed to fetch|dns error|"
                        r"error sending request|network request failed", re.IGNORECASE)


def cache_env(cache: Path) -> dict[str, str]:
    """The variables that send package managers' downloads beneath ``cache``."""
    c = str(cache)
    return {"npm_config_cache": os.path.join(c, "npm"),
            "npm_config_update_notifier": "false",
            "UV_CACHE_DIR": os.path.join(c, "uv"),
            "UV_TOOL_DIR": os.path.join(c, "uv-tools"),
            "UV_PYTHON_INSTALL_DIR": os.path.join(c, "uv-python"),
            "PIP_CACHE_DIR": os.path.join(c, "pip"),
            "XDG_CACHE_HOME": os.path.join(c, "xdg")}


def network_hint(command: str, args: tuple[str, ...], stderr: str, *, network: bool,
                 confined: bool, name: str) -> str:
    """One sentence for a server that failed at start, or ""."""
    if network or not confined:
        return ""
    program = os.path.basename(command)
    runs = program in FETCHERS or (program in ("npm", "pnpm", "yarn", "bun", "uv")
                                   and any(a in ("exec", "dlx", "x", "run", "tool") for a in args))
    if not runs and not NO_NETWORK.search(stderr):
        return ""
    return (f"it ran in edgar's sandbox with the network off; if it downloads itself "
            f"({program} does), allow it with \"network\": true in the \"{name}\" entry "
            "(or [mcp] network = true for every server)")
