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
    (root / ".edgar" / "config.toml").write_text("max_turns = 5\n")
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
    assert (ctx.root / ".edgar" / "config.toml").read_text() == "max_turns = 5\n"
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
