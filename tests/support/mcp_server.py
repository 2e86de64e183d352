"""A real MCP server built with the SDK's own server class (``MCPServer``), for tests.

``python mcp_server.py`` serves stdio; ``python mcp_server.py http PORT`` serves streamable
HTTP on 127.0.0.1:PORT, ``sse PORT`` the older HTTP+SSE transport. ``--connect PORT`` first
connects to 127.0.0.1:PORT and exits 1 saying ``ECONNREFUSED`` when it cannot (a server that
downloads itself at start, as ``npx -y`` does, in a sandbox without network). ``--die-after N``
exits with code 3 after N tool calls (a server that dies mid-session). It prints what it
received in ``env_report`` so tests can check the environment edgar gave it. Its prompts
(``review``, ``standup``, ``broken``) and resources (``config://app``, ``blob://logo``) are for
the MCP prompt and resource tests."""

from __future__ import annotations

import base64
import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp.types import ImageContent, TextContent, ToolAnnotations

server = MCPServer("edgar-test")
if "--connect" in sys.argv:
    import socket

    port = int(sys.argv[sys.argv.index("--connect") + 1])
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError as exc:
        print(f"npm ERR! connect ECONNREFUSED 127.0.0.1:{port} ({exc})", file=sys.stderr,
              flush=True)
        sys.exit(1)
calls = 0
die_after = int(sys.argv[sys.argv.index("--die-after") + 1]) if "--die-after" in sys.argv else 0


def _count() -> None:
    global calls
    calls += 1
    if die_after and calls > die_after:
        print("test server: giving up", file=sys.stderr, flush=True)
        os._exit(3)


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str, times: int = 1) -> str:
    """Echo the text back, repeated."""
    _count()
    return text * times


@server.tool()
def fail(why: str) -> list[TextContent]:
    """Always fails (isError)."""
    _count()
    raise ValueError(f"failed on purpose: {why}")


@server.tool()
def picture() -> list[ImageContent | TextContent]:
    """Returns a real PNG, bytes that only start like one, and a caption."""
    _count()
    from pathlib import Path

    real = Path(__file__).resolve().parent.parent / "data" / "images" / "screenshot.png"
    png = base64.b64encode(real.read_bytes()).decode()
    fake = base64.b64encode(b"\x89PNG" + b"\0" * 96).decode()
    return [ImageContent(type="image", data=png, mime_type="image/png"),
            ImageContent(type="image", data=fake, mime_type="image/png"),
            TextContent(type="text", text="a tiny picture")]


@server.tool()
def env_report(name: str) -> str:
    """The value of one environment variable in the server process, or <unset>."""
    _count()
    return os.environ.get(name, "<unset>")


@server.tool()
def slow(seconds: float) -> str:
    """Sleeps, then answers."""
    _count()
    time.sleep(seconds)
    return "woke up"


@server.tool()
def heartbeat(path: str) -> str:
    """Starts a child that appends to ``path`` ten times a second (it must end with the
    session); returns the server's pid as it sees it."""
    _count()
    import subprocess

    code = ("import sys, time\n"
            "while True:\n"
            "    open(sys.argv[1], 'a').write('.')\n"
            "    time.sleep(0.1)\n")
    subprocess.Popen([sys.executable, "-c", code, path], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    return str(os.getpid())


@server.tool()
def big(chars: int) -> str:
    """Returns that many characters."""
    _count()
    return "x" * chars


@server.tool()
async def steps(n: int, ctx: Context) -> str:
    """Reports progress n times (total n), then answers."""
    _count()
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"{n} steps"


@server.tool()
def write_file(path: str, text: str) -> str:
    """Writes ``text`` to ``path`` (``$VARS`` expanded, missing parents made), a place its
    sandbox may or may not let it write."""
    _count()
    try:
        os.makedirs(os.path.dirname(os.path.expandvars(path)), exist_ok=True)
        with open(os.path.expandvars(path), "w") as f:
            f.write(text)
    except OSError as exc:
        return f"refused: {exc.strerror}"
    return f"wrote {os.path.expandvars(path)}"


@server.prompt(description="Review a file with a focus")
def review(path: str, focus: str = "everything") -> list[UserMessage | AssistantMessage]:
    """Two messages, one of them the assistant's, and an image that cannot be sent as text."""
    return [UserMessage(f"Review {path}, focusing on {focus}. Always use tabs for indentation."),
            AssistantMessage("I will read it first."),
            UserMessage(ImageContent(type="image", data=base64.b64encode(b"\x89PNG").decode(),
                                     mime_type="image/png"))]


@server.prompt()
def standup() -> str:
    """No arguments."""
    return "Summarise yesterday's commits."


@server.prompt()
def broken(why: str) -> str:
    """Fails on purpose."""
    raise ValueError(f"prompt failed on purpose: {why}")


@server.resource("config://app", mime_type="text/plain")
def app_config() -> str:
    """A static text resource."""
    return "port = 8080\nAlways use tabs for indentation."


@server.resource("blob://logo", mime_type="image/png")
def logo() -> bytes:
    """A binary resource."""
    return b"\x89PNG\r\n\x1a\n" + b"\0" * 16


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    elif len(sys.argv) > 2 and sys.argv[1] == "sse":
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
