"""write and edit leave edgar's state and git's internals alone, however the path is spelt;
read, grep and glob read carefully (symlinks out of the root, FIFOs, devices, huge files)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from edgar.core.harness import run_tool
from edgar.providers.base import ToolCall
from edgar.tools.base import ToolContext
from edgar.tools.permissions import PermissionGate
from edgar.tools.registry import default_tools

TOOLS = default_tools()


def call(ctx: ToolContext, name: str, args):
    return asyncio.run(run_tool(ToolCall("c1", name, args), TOOLS, ctx, lambda e: None, {}))


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch) -> ToolContext:
    root = tmp_path / "proj"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n")
    (root / ".edgar").mkdir()
    (root / ".edgar" / "config.toml").write_text("max_steps = 5\n")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("EDGAR_HOME", str(home))
    return ToolContext(root=root, permission=PermissionGate("yes"), allow_outside_root=False)


TARGETS = [".edgar/config.toml", ".edgar/new.toml", "./.edgar/../.edgar/config.toml",
           ".git/hooks/pre-commit", ".git/config", "link-to-state/config.toml"]


@pytest.mark.parametrize("path", TARGETS)
def test_write_refuses_edgar_state_and_git_internals(ctx, path):
    (ctx.root / "link-to-state").symlink_to(ctx.root / ".edgar")
    block, finished = call(ctx, "write", {"path": path, "content": 'permission_mode = "yes"\n'})
    assert finished.error.kind == "denied", block.content
    assert "ask the person" in block.content
    assert ("edgar's own state" in block.content) or ("git's internals" in block.content)
    assert (ctx.root / ".edgar" / "config.toml").read_text() == "max_steps = 5\n"
    assert not (ctx.root / ".edgar" / "new.toml").exists()
    assert not (ctx.root / ".git" / "hooks" / "pre-commit").exists()


def test_edit_refuses_them_too_and_the_user_dir_even_when_outside_paths_are_allowed(ctx):
    block, finished = call(ctx, "edit", {"path": ".git/config", "old_string": "[core]",
                                         "new_string": "[core]\nhooksPath = /tmp"})
    assert finished.error.kind == "denied" and "git's internals" in block.content
    ctx.allow_outside_root = True
    home = Path(os.environ["EDGAR_HOME"])
    block, finished = call(ctx, "write", {"path": str(home / "config.toml"), "content": "x"})
    assert finished.error.kind == "denied" and "user dir" in block.content
    assert not (home / "config.toml").exists()
    block, finished = call(ctx, "write", {"path": "src/ok.py", "content": "x = 1\n"})
    assert finished.error is None and (ctx.root / "src" / "ok.py").exists()


def test_a_nul_in_a_path_is_a_validation_error(ctx):
    for name, args in (("read", {"path": "a\0b"}), ("write", {"path": "a\0b", "content": ""}),
                       ("grep", {"pattern": "x", "path": "a\0"}), ("shell", {"command": "ls\0"})):
        block, finished = call(ctx, name, args)
        assert finished.error.kind == "validation", (name, block.content)


def bounded(ctx: ToolContext, name: str, args, seconds: float = 20):
    """A tool call that fails the test instead of hanging it."""
    async def go():
        return await asyncio.wait_for(
            run_tool(ToolCall("c1", name, args), TOOLS, ctx, lambda e: None, {}), seconds)
    return asyncio.run(go())


def test_symlinks_leaving_the_root_are_neither_listed_nor_followed(ctx, tmp_path):
    secret = tmp_path / "outside" / "secrets.txt"
    secret.parent.mkdir()
    secret.write_text("password = hunter2\n")
    (ctx.root / "src").mkdir()
    (ctx.root / "src" / "app.py").write_text("password = from_env()\n")
    (ctx.root / "leak.txt").symlink_to(secret)
    (ctx.root / "leakdir").symlink_to(secret.parent)
    (ctx.root / "zero.txt").symlink_to("/dev/zero")
    (ctx.root / "inner.py").symlink_to(ctx.root / "src" / "app.py")
    block, finished = bounded(ctx, "grep", {"pattern": "password"})
    assert finished.error is None
    assert "hunter2" not in block.content
    assert sorted(block.content.splitlines()) == ["inner.py:1:password = from_env()",
                                                  "src/app.py:1:password = from_env()"]
    block, _ = bounded(ctx, "glob", {"pattern": "*"})
    assert sorted(block.content.split()) == ["inner.py", "src/app.py"]


def test_fifos_sockets_and_devices_never_block_a_read_or_a_search(ctx):
    import socket

    os.mkfifo(ctx.root / "pipe.txt")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(ctx.root / "sock.txt"))
    (ctx.root / "a.txt").write_text("findme\n")
    try:
        block, finished = bounded(ctx, "grep", {"pattern": "findme"})
        assert finished.error is None and block.content == "a.txt:1:findme"
        block, finished = bounded(ctx, "grep", {"pattern": "x", "path": "pipe.txt"})
        assert finished.error.kind == "validation" and "not a regular file" in block.content
        block, finished = bounded(ctx, "read", {"path": "pipe.txt"})
        assert finished.error.kind == "validation" and "a FIFO" in block.content
        block, finished = bounded(ctx, "read", {"path": "sock.txt"})
        assert finished.error.kind == "validation" and "a socket" in block.content
        ctx.allow_outside_root = True
        block, finished = bounded(ctx, "read", {"path": "/dev/zero"})
        assert finished.error.kind == "validation" and "character device" in block.content
        block, _ = bounded(ctx, "glob", {"pattern": "*.txt"})
        assert block.content == "a.txt"
    finally:
        sock.close()


def test_read_returns_the_window_of_a_big_file_and_says_what_follows(ctx):
    with open(ctx.root / "big.log", "w") as handle:
        handle.writelines(f"line {n}\n" for n in range(1, 200_001))
    block, finished = bounded(ctx, "read", {"path": "big.log", "offset": 100, "limit": 2})
    assert finished.error is None
    assert block.content.splitlines()[:2] == ["   100\tline 100", "   101\tline 101"]
    assert block.content.endswith("… 199899 more lines; read with offset=102")
    block, _ = bounded(ctx, "read", {"path": "big.log"})    # no limit: a bounded window
    assert len(block.content) < 150_000 and "read with offset=" in block.content
    with open(ctx.root / "one-line.txt", "wb") as handle:   # one 8 MB line: cut, not loaded
        handle.write(b"x" * (8 * 2**20) + b"\nsecond\n")
    block, _ = bounded(ctx, "read", {"path": "one-line.txt"})
    assert "\t" + "x" * 1000 in block.content and "second" in block.content
    assert len(block.content) < 100_000


def test_grep_skips_files_over_the_cap_and_says_so(ctx):
    from edgar.tools.search import GREP_MAX_BYTES

    with open(ctx.root / "huge.txt", "wb") as handle:
        handle.write(b"needle\n")
        handle.truncate(GREP_MAX_BYTES + 1)                  # sparse: cheap to make
    (ctx.root / "small.txt").write_text("needle\n")
    block, finished = bounded(ctx, "grep", {"pattern": "needle"})
    assert finished.error is None
    assert block.content.splitlines()[0] == "small.txt:1:needle"
    assert "skipped 1 file(s) over 20 MB: huge.txt" in block.content


def test_file_names_that_are_not_utf8_are_shown_not_fatal(ctx):
    bad = os.fsencode(str(ctx.root)) + b"/bad\xff.txt"
    with open(bad, "wb") as handle:
        handle.write(b"needle\n")
    block, finished = bounded(ctx, "glob", {"pattern": "*.txt"})
    assert finished.error is None and block.content == "bad\ufffd.txt"
    block, finished = bounded(ctx, "grep", {"pattern": "needle"})
    assert block.content == "bad\ufffd.txt:1:needle"
    block.content.encode("utf-8")   # reaches the session log and the provider as valid UTF-8


def test_a_cancelled_search_returns_at_once(ctx):
    with open(ctx.root / "many.txt", "w") as handle:
        # each line backtracks for milliseconds (2^16 ways to split the b's), so the whole
        # search would take minutes; it must stop between lines when cancelled. A single line
        # that backtracks forever cannot be interrupted in CPython (``re`` holds the GIL
        # inside one match): a documented limit, docs/sandbox.md.
        handle.write("a" * 70 + "\n" * 1 + ("b" * 16 + "\n") * 250_000)

    async def go():
        task = asyncio.ensure_future(run_tool(ToolCall("c1", "grep", {"pattern": "(b+)+c"}),
                                              TOOLS, ctx, lambda e: None, {}))
        await asyncio.sleep(0.2)
        started = asyncio.get_running_loop().time()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return asyncio.get_running_loop().time() - started

    assert asyncio.run(go()) < 1.0
