from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from edgar.core.harness import run_tool
from edgar.providers.base import ToolCall
from edgar.tools.base import ToolContext, strip_env
from edgar.tools.committed import Baseline
from edgar.tools.permissions import PermissionGate
from edgar.tools.registry import default_tools
from edgar.tools.shell import program_of

TOOLS = default_tools()


def call(ctx: ToolContext, name: str, args, events=None):
    events = [] if events is None else events
    block, finished = asyncio.run(run_tool(ToolCall("c1", name, args), TOOLS, ctx, events.append,
                                           {}))
    return block, finished


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    # as a session builds it: with what the session began on, so a program can be named
    return ToolContext(root=tmp_path, permission=PermissionGate("yes"),
                       baseline=Baseline.take(tmp_path))


def test_read_with_line_range(ctx):
    block, finished = call(ctx, "read", {"path": "a.txt", "offset": 2, "limit": 1})
    assert finished.ok and "2\ttwo" in block.content and "one" not in block.content
    assert "more lines" in block.content


def test_read_missing_file_is_not_found(ctx):
    block, finished = call(ctx, "read", {"path": "nope.txt"})
    assert not finished.ok and finished.error.kind == "not_found" and block.is_error


def test_write_creates_parents_and_reports_files(ctx):
    block, finished = call(ctx, "write", {"path": "src/new.py", "content": "x = 1\n"})
    assert finished.ok and finished.files == ("src/new.py",)
    assert (ctx.root / "src/new.py").read_text() == "x = 1\n"
    assert not [p for p in (ctx.root / "src").iterdir() if p.name.endswith(".tmp")]


def test_edit_exact_replace(ctx):
    _, finished = call(ctx, "edit", {"path": "a.txt", "old_string": "two", "new_string": "2"})
    assert finished.ok and (ctx.root / "a.txt").read_text() == "one\n2\nthree\n"


def test_edit_no_match_and_not_unique_change_nothing(ctx):
    (ctx.root / "b.txt").write_text("x x\n")
    block, finished = call(ctx, "edit", {"path": "b.txt", "old_string": "y", "new_string": "z"})
    assert finished.error.kind == "edit_no_match" and "not found" in block.content
    block, finished = call(ctx, "edit", {"path": "b.txt", "old_string": "x", "new_string": "z"})
    assert finished.error.kind == "edit_not_unique" and "2 times" in block.content
    assert (ctx.root / "b.txt").read_text() == "x x\n"
    _, finished = call(ctx, "edit", {"path": "b.txt", "old_string": "x", "new_string": "z",
                                     "replace_all": True})
    assert finished.ok and (ctx.root / "b.txt").read_text() == "z z\n"


def test_wrong_argument_types_are_validation_errors(ctx):
    block, finished = call(ctx, "read", {"path": ["a.txt"]})
    assert finished.error.kind == "validation" and "path" in block.content
    block, finished = call(ctx, "shell", {"command": "ls", "bogus": 1})
    assert finished.error.kind == "validation"
    block, finished = call(ctx, "no_such_tool", {})
    assert finished.error.kind == "validation" and "available" in block.content
    block, finished = call(ctx, "read", None)  # arguments that did not parse as JSON
    assert finished.error.kind == "validation"


def test_paths_outside_the_root_are_refused(ctx, tmp_path):
    block, finished = call(ctx, "read", {"path": "../outside.txt"})
    assert finished.error.kind == "denied" and "outside the project root" in block.content
    block, finished = call(ctx, "write", {"path": "/etc/edgar-test", "content": "x"})
    assert finished.error.kind == "denied"


def test_glob_and_grep(ctx):
    (ctx.root / "pkg").mkdir()
    (ctx.root / "pkg" / "m.py").write_text("def f():\n    return 42\n")
    (ctx.root / ".git").mkdir()
    (ctx.root / ".git" / "x.py").write_text("return 42")
    block, _ = call(ctx, "glob", {"pattern": "**/*.py"})
    assert block.content.split() == ["pkg/m.py"]
    block, _ = call(ctx, "grep", {"pattern": r"return \d+"})
    assert block.content == "pkg/m.py:2:    return 42"
    block, finished = call(ctx, "grep", {"pattern": "("})
    assert finished.error.kind == "validation"


def test_shell_exit_code_program_and_output_only_in_the_block(ctx):
    events = []
    block, finished = call(ctx, "shell", {"command": "printf '%s-%s' SECRET OUTPUT; exit 3"},
                           events)
    assert finished.error.kind == "exit_nonzero" and finished.error.exit_code == 3
    assert finished.error.program == "printf"
    assert "SECRET-OUTPUT" in block.content
    assert all("SECRET-OUTPUT" not in repr(e) for e in events)
    _, finished = call(ctx, "shell", {"command": "definitely-not-a-command-xyz"})
    assert finished.error.kind == "not_found" and finished.error.program is None  # unvouched
    ctx.baseline = None   # a context no session built: nothing is named
    _, finished = call(ctx, "shell", {"command": "printf x; exit 3"})
    assert finished.error.exit_code == 3 and finished.error.program is None


@pytest.mark.timing   # asserts how long it took
def test_shell_timeout_kills_the_whole_process_group(ctx):
    marker = ctx.root / "child-alive"
    command = f"(sleep 3; touch {marker}) & sleep 30"
    start = time.monotonic()
    _, finished = call(ctx, "shell", {"command": command, "timeout": 0.5})
    assert finished.error.kind == "timeout"
    assert time.monotonic() - start < 10
    time.sleep(3.5)
    assert not marker.exists(), "a grandchild outlived the timeout"


def test_shell_environment_has_no_secrets(ctx, monkeypatch):
    monkeypatch.setenv("MY_API_KEY", "k1")
    monkeypatch.setenv("GH_TOKEN", "k2")
    monkeypatch.setenv("GH_PAT", "k3")                  # secret, though no KEY/TOKEN in it
    monkeypatch.setenv("DATABASE_URL", "postgres://app:pw@db/x")   # a password in a URL
    monkeypatch.setenv("HARMLESS", "ok")               # not a build variable: not passed
    monkeypatch.setenv("LANG", "C.UTF-8")
    ctx.env = strip_env(os.environ)
    block, _ = call(ctx, "shell", {"command": "env"})
    assert "LANG=C.UTF-8" in block.content
    for name in ("MY_API_KEY", "GH_TOKEN", "GH_PAT", "DATABASE_URL", "HARMLESS"):
        assert name not in block.content


def test_program_of():
    assert program_of("FOO=1 /usr/bin/make -j2") == "make"
    assert program_of("pytest -q") == "pytest"
    assert program_of("'unterminated") == "'unterminated"


def test_permission_modes(ctx):
    for mode, tool, allowed in [("read-only", "write", False), ("read-only", "read", True),
                                ("ask", "shell", False), ("auto-edit", "write", True),
                                ("auto-edit", "shell", False), ("yes", "shell", True)]:
        ctx.permission = PermissionGate(mode)  # no confirm callback: as in -p
        args = {"path": "w.txt", "content": "x"} if tool == "write" else (
            {"path": "a.txt"} if tool == "read" else {"command": "true"})
        block, finished = call(ctx, tool, args)
        assert finished.ok is allowed, (mode, tool, block.content)
        if not allowed:
            assert finished.error.kind == "denied"


def test_ask_mode_confirm_always_sticks(ctx):
    answers = iter(["always"])
    asked = []

    async def confirm(tool, summary, offer):
        asked.append(summary)
        return next(answers)

    ctx.permission = PermissionGate("ask", confirm)
    assert call(ctx, "shell", {"command": "true"})[1].ok
    assert call(ctx, "shell", {"command": "true"})[1].ok
    assert asked == ["$ true"]
