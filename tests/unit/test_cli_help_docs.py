"""docs/cli.md shows exactly what ``edgar --help`` and each command's ``--help`` print
(cog-style: ``scripts/update_cli_help.py`` rewrites the blocks; this fails when they drift)."""

from __future__ import annotations

import argparse
import difflib
import importlib.util
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("update_cli_help",
                                               ROOT / "scripts" / "update_cli_help.py")
assert _spec is not None and _spec.loader is not None
sync = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sync)

DOC = sync.DOC.read_text(encoding="utf-8")


def test_the_doc_says_which_python_wrote_it():
    assert sync.VERSION.search(DOC), "docs/cli.md does not say which Python wrote its help blocks"


def test_every_help_block_is_what_the_parser_prints():
    wrong = sync.stale(DOC)
    if wrong:
        command, have, want = wrong[0]
        diff = "\n".join(difflib.unified_diff(have.splitlines(), want.splitlines(),
                                              "docs/cli.md", command, lineterm=""))
        pytest.fail(f"docs/cli.md is stale for {', '.join(c for c, _, _ in wrong)}; run "
                    f"`python scripts/update_cli_help.py`. First difference:\n{diff}")


def test_every_command_and_subcommand_has_a_block():
    names = sync.commands()
    assert {"edgar", "edgar memory", "edgar memory review", "edgar mcp trust"} <= set(names)
    assert sync.missing(DOC) == [], "run `python scripts/update_cli_help.py`"


def test_a_planted_stale_block_is_found_and_rewritten():
    good = sync.render("edgar demo", sync.help_text("edgar demo"))
    planted = "intro\n\n" + good.replace("--fast", "--quick") + "\n\noutro\n"
    assert [c for c, _, _ in sync.stale(planted)] == ["edgar demo"]
    fixed = sync.regenerate(planted)
    assert good in fixed and fixed.startswith("intro\n\n") and "\n\noutro\n" in fixed
    assert sync.stale(fixed) == []


def test_on_another_python_a_changed_word_is_found_and_a_new_layout_is_not():
    good = sync.render("edgar demo", sync.help_text("edgar demo"))
    relaid = good.replace("\n  ", "\n    ").replace(", --", " ,  --")   # spacing argparse may pick
    assert relaid != good
    assert sync.stale(relaid, exact=False) == [] and sync.stale(relaid, exact=True) != []
    planted = good.replace("--fast", "--quick")
    assert [c for c, _, _ in sync.stale(planted, exact=False)] == ["edgar demo"]


def test_the_help_does_not_depend_on_the_terminal_or_the_environment(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("EDGAR_MODEL", "openai:gpt-4.1")
    sync.help_text.cache_clear()
    narrow = sync.help_text("edgar")
    assert max(len(line) for line in narrow.splitlines()) > 60      # laid out at 100 columns
    assert narrow.startswith("usage: edgar ")


def _help_of(parser: argparse.ArgumentParser) -> str:
    out = io.StringIO()
    parser.print_help(out)
    return out.getvalue()


def test_subcommands_are_read_from_argparse_help():
    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("path", help="a plain positional is not a subcommand")
    subs = parser.add_subparsers(dest="cmd", metavar="SOURCE")
    subs.add_parser("claude-code", help="a long name: its help goes on the next line")
    subs.add_parser("hidden")       # no help: argparse does not list it, nor do the docs
    assert sync.subcommands(_help_of(parser)) == ["claude-code"]
    default = argparse.ArgumentParser(prog="y")
    more = default.add_subparsers(dest="cmd")
    for name in ("list", "add"):
        more.add_parser(name, help=f"{name} things")
    assert sync.subcommands(_help_of(default)) == ["list", "add"]
    assert sync.subcommands(_help_of(argparse.ArgumentParser(prog="z"))) == []
