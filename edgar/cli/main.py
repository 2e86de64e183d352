"""``edgar``: argument parsing and dispatch.

Guarantees:
- A user mistake (bad flag, config typo, unknown model, missing ``@path``, malformed
  script) prints one ``edgar: …`` line and exits 2; no traceback.
- ``edgar stats``, ``edgar history`` and ``edgar import`` are dispatched into the learning
  package by name; without it they say "learning is not installed" and exit 2.
- Heavy modules are imported only by the command that needs them (start-up time).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from edgar import __version__
from edgar.storage.broken import BrokenState

if TYPE_CHECKING:
    from edgar.config import Settings
    from edgar.core.project import Project

LEARNING_COMMANDS = ("stats", "history", "import")
CORE_COMMANDS = ("demo", "init", "memory", "doctor", "trust", "undo", "diff", "mcp")


def _parser() -> argparse.ArgumentParser:
    from edgar.cli.suggest import SuggestingParser

    p = SuggestingParser(
        prog="edgar", description="A terminal coding agent that learns only from what you type.",
        epilog="In a prompt, @PATH attaches a file (text up to 256 KB, the rest left to read; "
               "PNG, JPEG, GIF and WebP as images; other binary files refused). In the REPL, "
               "!CMD runs CMD in the sandbox with no model call, # TEXT remembers TEXT, /plan "
               "plans first, /commit commits, /help lists the rest. The model reads web pages "
               "with web_fetch ([web] allow_hosts for private addresses) and keeps a checklist "
               "with todo_write. "
               "commands: demo, init, memory, undo, diff, mcp, stats, history, import, doctor, "
               "trust, help (edgar help COMMAND)")
    p.add_argument("--version", action="version", version=f"edgar {__version__}")
    p.add_argument("first", nargs="?", metavar="PROMPT",
                   help="start the REPL with PROMPT as the first line typed (with -p, or "
                   "when stdin is not a terminal: run it once)")
    p.add_argument("-p", "--print", dest="prompt", metavar="PROMPT", nargs="?", const="",
                   help="run one prompt non-interactively and print the result; without "
                   "PROMPT, piped stdin is the attachment and nothing is typed")
    p.add_argument("--model", help="PROVIDER:MODEL, an alias (sonnet, opus, haiku) or a bare "
                   "id, e.g. anthropic:claude-sonnet-5-5, "
                   "openai:gpt-4.1, scripted:PATH")
    from edgar.tools.modes import MODES

    p.add_argument("--permission-mode", choices=MODES,
                   help="ask (the default) before edits and commands; auto-edit: edits without "
                   "asking; yes: everything; read-only: read and search only; plan: read-only "
                   "tools until the model's plan is approved (in -p the plan is the result, "
                   "nothing is written or run)")
    p.add_argument("--output-format", choices=("text", "json", "stream-json", "edgar-events"),
                   default="text", help="-p output: text; json (one result object); "
                   "stream-json (Claude Code's stream: system, assistant, user, result lines); "
                   "edgar-events (every edgar event as a JSON line)")
    p.add_argument("--input-format", choices=("text", "stream-json"), default="text",
                   help="stream-json: read Claude Code's user-message lines from stdin, one "
                   "turn each (with --output-format stream-json)")
    p.add_argument("--allowedTools", "--allowed-tools", dest="allowed_tools", action="append",
                   nargs="+", metavar="RULE", help="permission rules that run without asking, "
                   "e.g. \"Bash(git log:*)\" Read (space- or comma-separated)")
    p.add_argument("--disallowedTools", "--disallowed-tools", dest="disallowed_tools",
                   action="append", nargs="+", metavar="RULE",
                   help="permission rules that are always refused, e.g. \"Bash(rm:*)\" Write")
    p.add_argument("--append-system-prompt", metavar="TEXT",
                   help="add TEXT at the end of the system prompt")
    p.add_argument("--system-prompt", metavar="TEXT",
                   help="TEXT in place of edgar's opening words of the system prompt (the "
                   "project root, instructions, facts and skills stay; tools are sent apart)")
    p.add_argument("--add-dir", dest="add_dir", action="append", nargs="+", metavar="DIR",
                   help="let the tools and the sandboxed shell read and write DIR too, confined "
                   "like the project root (repeatable; tools.add_dirs in config)")
    p.add_argument("--mcp-config", dest="mcp_config", action="append", nargs="+",
                   metavar="FILE|JSON", help="start the MCP servers of these files or JSON "
                   "strings ({\"mcpServers\": {…}}, as .mcp.json), beside the configured ones; "
                   "theirs win for one name (repeatable)")
    p.add_argument("--strict-mcp-config", action="store_true",
                   help="start only the MCP servers of --mcp-config, none configured elsewhere")
    p.add_argument("--verbose", action="store_true",
                   help="-p: show each tool call on stderr, with or without a terminal")
    p.add_argument("--max-steps", type=int, metavar="N",
                   help="most model calls (steps) one turn may make (max_steps in config)")
    p.add_argument("--max-turns", type=int, metavar="N",
                   help="Claude Code's name of --max-steps (deprecated here)")
    p.add_argument("--no-history", action="store_true", help="do not append to history.md")
    p.add_argument("--no-verify", action="store_true", help="skip the verify command")
    p.add_argument("--auto-commit", action=argparse.BooleanOptionalAction, default=None,
                   help="commit the files each turn changed, as edgar's ([git] auto_commit "
                   "in config; off by default; [git] commit_message = \"model\" has the model "
                   "write the message, one more call per commit)")
    p.add_argument("-c", "--continue", dest="cont", action="store_true",
                   help="continue the most recent session")
    p.add_argument("--session-id", metavar="UUID",
                   help="start a new session with this id (a UUID no session here has)")
    p.add_argument("-r", "--resume", nargs="?", const="", metavar="ID",
                   help="resume session ID (without ID: list sessions)")
    return p


# pydantic's plugin loader scans every installed distribution's entry points the first time a
# model is built (~40 ms of CPU per start, more in a crowded venv); edgar uses no pydantic
# plugin. Its documented switch; a person who wants plugins sets the variable to "".
PYDANTIC_PLUGINS = ("PYDANTIC_DISABLE_PLUGINS", "__all__")


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault(*PYDANTIC_PLUGINS)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "help":
            return _help(argv[1:])
        if argv and argv[0] in LEARNING_COMMANDS:
            return _learning_command(argv)
        if argv and argv[0] in CORE_COMMANDS:
            module = importlib.import_module(f"edgar.cli.{argv[0]}_cmd" if argv[0] != "doctor"
                                             else "edgar.cli.doctor")
            return module.run(argv[1:])
        from edgar.cli.suggest import mistyped_command

        mistyped = mistyped_command(argv, (*CORE_COMMANDS, *LEARNING_COMMANDS, "help"))
        if mistyped:
            print(f"edgar: {mistyped}", file=sys.stderr)
            return 2
        args = _parser().parse_args(argv)
        from edgar.cli.run import run

        return run(args)
    except KeyboardInterrupt:
        print("edgar: cancelled", file=sys.stderr)
        return 130
    except BrokenState as exc:   # a state file that is not what edgar wrote: said, kept
        print(f"edgar: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


def _help(argv: list[str]) -> int:
    """``edgar help``: the main help; ``edgar help COMMAND``: that command's."""
    if not argv:
        _parser().print_help()
        return 0
    if argv[0] in (*CORE_COMMANDS, *LEARNING_COMMANDS):
        return main([argv[0], "--help"])
    from edgar.cli.suggest import closest

    guess = closest(argv[0], (*CORE_COMMANDS, *LEARNING_COMMANDS))
    hint = f" — did you mean `edgar help {guess}`?" if guess else ""
    print(f"edgar: no command {argv[0]!r}{hint}", file=sys.stderr)
    return 2


def _learning_command(argv: list[str]) -> int:
    try:
        module = importlib.import_module("edgar.learning.cli")
    except ModuleNotFoundError as exc:
        if exc.name in ("edgar", "edgar.learning", "edgar.learning.cli"):
            print(f"edgar: learning is not installed; `edgar {argv[0]}` needs the "
                  "edgar.learning package", file=sys.stderr)
            return 2
        raise
    return module.main(argv, _open_project)


def _open_project(root: Path, settings: Settings) -> Project:
    """The composition root's ``open_project``, imported only when a command opens one (a
    re-import that finds nothing new never needs the settings model)."""
    from edgar.cli.setup import open_project

    return open_project(root, settings)


if __name__ == "__main__":
    raise SystemExit(main())
