"""The default command: the REPL, or one ``-p`` prompt, with config and sessions resolved.

Guarantees:
- Every user mistake found here (config, model, flags, ``@path`` outside the project, session
  id) becomes one ``edgar: …`` line on stderr and exit code 2.
- Typed means typed at a terminal (docs/learning.md): the REPL runs only with a terminal on
  stdin. Otherwise ``edgar`` and ``edgar -p`` run one turn with stdin ``Attached``; the only
  typed text is a command-line prompt (``-p PROMPT`` or the positional ``PROMPT``).
- Project settings that run code wait for trust (``edgar trust``): the REPL asks once,
  ``-p`` ignores them and says so on one stderr line (``cli/trust_cmd.at_start``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from edgar.cli.attach import AttachRefused, read_stdin, typed
from edgar.cli.attach import attached as attachments
from edgar.cli.oneshot import EXIT_USAGE, UsageError, run_prompt

if TYPE_CHECKING:
    from edgar.conversation import Attachment
    from edgar.core.loop import Expand
    from edgar.mcp.config import FlagServers, ServerSpec


def fail(message: str) -> int:
    print(f"edgar: {message}", file=sys.stderr)
    return EXIT_USAGE


def settings_for(args: argparse.Namespace, root: Path):
    from edgar.config import load

    return load(root, overrides={"model": args.model, "permission_mode": args.permission_mode,
                                 "max_steps": args.max_steps,
                                 "git.auto_commit": args.auto_commit,
                                 "max_turns": args.max_turns,    # deprecated (ADR-0058)
                                 "append_system_prompt": args.append_system_prompt,
                                 "system_prompt": getattr(args, "system_prompt", None),
                                 "tools.add_dirs": added_dirs(args)})


def added_dirs(args: argparse.Namespace) -> list[str] | None:
    """``--add-dir`` as real paths, each checked to be a directory (ADR-0113); None without."""
    given = [d for group in getattr(args, "add_dir", None) or [] for d in group]
    if not given:
        return None
    return [checked_dir(d, "--add-dir") for d in given]


def checked_dir(given: str, where: str) -> str:
    """``given`` as a real path; ``UsageError`` naming ``where`` unless it is a directory."""
    import os

    path = os.path.realpath(os.path.expanduser(given))
    if not os.path.exists(path):
        raise UsageError(f"{where} {given}: no such directory")
    if not os.path.isdir(path):
        raise UsageError(f"{where} {given}: not a directory (give the directory that holds it)")
    return path


def flag_rules(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """``--allowedTools`` and ``--disallowedTools`` as rule texts, each checked."""
    from edgar.cli.claude_stream import tool_list
    from edgar.tools.rules import RuleError, parse_rule

    found: tuple[list[str], list[str]] = ([], [])
    for flag, given, into in (("--allowedTools", args.allowed_tools, found[0]),
                              ("--disallowedTools", args.disallowed_tools, found[1])):
        for text in tool_list(v for group in given or [] for v in group):
            try:
                parse_rule(text)
            except RuleError as exc:
                raise UsageError(f"{flag}: {exc}") from None
            into.append(text)
    return found


def flag_servers(args: argparse.Namespace) -> FlagServers | None:
    """``--mcp-config`` and ``--strict-mcp-config`` read and checked (ADR-0114), or None when
    neither was given; a value edgar cannot use is a ``UsageError`` naming file and server."""
    values = [v for group in getattr(args, "mcp_config", None) or [] for v in group]
    strict = bool(getattr(args, "strict_mcp_config", False))
    if not values and not strict:
        return None
    import os

    from edgar.mcp.config import FlagConfigError, FlagServers, read_flag_config

    specs: dict[str, ServerSpec] = {}
    warnings: list[str] = []
    for index, value in enumerate(values, 1):
        try:
            for spec in read_flag_config(value, index, os.environ, warnings):
                specs[spec.name] = spec   # a later value wins for one name
        except FlagConfigError as exc:
            raise UsageError(f"{exc}; no server was started") from None
    return FlagServers(tuple(specs.values()), strict, tuple(warnings))


def run(args: argparse.Namespace) -> int:
    from edgar.config import ConfigError
    from edgar.core.project import find_root
    from edgar.providers.base import ProviderError

    root = find_root()
    try:
        settings = settings_for(args, root)
        for given in settings.tools.add_dirs:   # from config: checked as the flag's are
            checked_dir(given, "tools.add_dirs:")
        resumed = _resume(args, root)
        if resumed == "listed":
            return 0
        if getattr(args, "session_id", None) is not None:
            if resumed is not None:
                raise UsageError("--session-id names a new session; it cannot be given with "
                                 "-c/--continue or -r/--resume")
            resumed = (fresh_session_id(args.session_id, root), [])
        first = typed(args.first) if args.first is not None else None
        if args.prompt and first is not None:
            raise UsageError("give the prompt once: edgar -p PROMPT, or edgar PROMPT")
        terminal = _is_terminal(sys.stdin)
        from edgar.cli.trust_cmd import at_start

        if at_start(root, interactive=args.prompt is None and terminal):
            settings = settings_for(args, root)  # trusted just now: the held keys apply
        rules = flag_rules(args)
        args.mcp_flag = flag_servers(args)   # checked before anything starts; the REPL too
        if args.input_format == "stream-json":
            if args.output_format != "stream-json":
                raise UsageError("--input-format stream-json needs --output-format stream-json")
            if args.prompt is None and terminal:
                raise UsageError("--input-format stream-json reads stdin: use it with -p and "
                                 "pipe the user-message lines in")
        if args.prompt is not None or not terminal:
            prompt = typed(args.prompt) if args.prompt else first
            attached: list[Attachment] = []
            stdin = read_stdin(sys.stdin) if args.input_format != "stream-json" else ""
            if stdin:
                attached.append(("stdin", stdin))
            if prompt is not None and not prompt.strip() and not attached:
                # a blank prompt would be a blank text block, which the API rejects
                raise UsageError("the prompt is empty (only whitespace): say what to do, "
                                 "e.g. edgar -p \"explain this repository\"")
            if prompt is None and not attached and args.input_format != "stream-json":
                raise UsageError("nothing to run: give a prompt (edgar -p PROMPT) or pipe "
                                 "something into edgar")
            if prompt is not None:
                notes: list[str] = []
                attached.extend(attachments(prompt, Path.cwd(), root, notes))
                for note in notes:
                    print(f"edgar: {note}", file=sys.stderr)
            return _oneshot(args, root, settings, prompt, attached, resumed, rules)
        from edgar.cli.repl import run_repl

        return run_repl(args, root, settings, resumed, first=first, rules=rules)
    except (ConfigError, UsageError, AttachRefused) as exc:
        return fail(str(exc))
    except ProviderError as exc:
        if exc.usage_error:
            return fail(exc.message)
        print(f"edgar: {exc.message}", file=sys.stderr)
        return 1


def fresh_session_id(given: str, root: Path) -> str:
    """``--session-id``: a UUID (written in its canonical form) no session of this project has
    yet; ``UsageError`` otherwise. The session's file is ``<id>.jsonl``."""
    import uuid

    from edgar.core.project import state_dir
    from edgar.core.sessionlog import list_sessions

    try:
        value = str(uuid.UUID(given))
    except ValueError:
        raise UsageError(f"--session-id {given}: not a UUID (e.g. "
                         "123e4567-e89b-12d3-a456-426614174000)") from None
    if any(path.stem == value for path in list_sessions(state_dir(root))):
        raise UsageError(f"--session-id {given}: a session with this id already exists in this "
                         f"project; continue it with edgar -r {value}")
    return value


def _is_terminal(stream) -> bool:
    try:
        return stream is not None and not stream.closed and stream.isatty()
    except (OSError, ValueError):
        return False


def _resume(args, root: Path):
    """(session id, messages) to continue, 'listed' when -r listed sessions, or None."""
    from edgar.core.project import state_dir
    from edgar.core.sessionlog import list_sessions, load

    if not args.cont and args.resume is None:
        return None
    sessions = list_sessions(state_dir(root))
    if args.resume == "":
        from edgar.cli.sessions_list import render, rows

        if not sessions:
            print("no sessions yet in this project")
        for line in render(rows(sessions)):   # newest first
            print(line)
        return "listed"
    if args.cont:
        if not sessions:
            raise UsageError("no session to continue in this project")
        path = sessions[0]
    else:
        from edgar.cli.sessions_list import find

        found = find(sessions, args.resume)
        if isinstance(found, str):
            raise UsageError(found)
        path = found
    loaded = load(path)
    if loaded.torn:
        print(f"edgar: skipped {len(loaded.torn)} damaged line(s): {path}:{loaded.torn[0]}"
              + "".join(f", :{n}" for n in loaded.torn[1:5]), file=sys.stderr)
    return path.stem, loaded.messages


def _oneshot(args, root: Path, settings, prompt: str | None, attached, resumed,
             rules: tuple[list[str], list[str]]) -> int:
    from edgar.cli.setup import build

    stream = None
    if args.output_format == "stream-json":
        from edgar.cli.claude_stream import ClaudeStream

        stream = ClaudeStream(sys.stdout)
    session_id, history = resumed if resumed else (None, None)
    app = build(root, settings, session_id=session_id, history=history,
                no_history=args.no_history, no_verify=args.no_verify, echo=stream,
                flag_rules=rules, mcp_flag=args.mcp_flag)
    try:
        if prompt is not None and prompt.startswith("!") and not attached:
            return asyncio.run(app.running(_bang(app, prompt[1:].strip())))
        word, _, rest = (prompt or "").partition(" ")
        if word == "/commit" and not attached and app.commits is not None:
            return asyncio.run(app.running(_commit(app, rest.strip())))
        expand = command_expansion(app, prompt or "")
        turns = _stdin_lines() if args.input_format == "stream-json" else None

        def work(attached):
            return run_prompt(app, prompt, attached, args.output_format, expand=expand,
                              stream=stream, verbose=args.verbose, turns=turns)

        if expand is None and prompt is not None:
            return asyncio.run(app.running(_with_mcp(app, prompt, attached, work)))
        return asyncio.run(app.running(work(attached)))
    finally:
        app.close()


async def _with_mcp(app, prompt: str, attached: list, work):
    """``-p "/mcp__srv__prompt ARGS"`` and ``@srv:uri``: the servers' text joins the turn's
    attachments before it runs (``cli/mcp_prompt.py``); one that cannot be had is one line
    on stderr and exit 2, nothing sent."""
    from edgar.cli import mcp_prompt

    if mcp_prompt.needs_servers(prompt, app.mcp):
        await app.session.ready()
        try:
            attached = [*(attached or []), *await mcp_prompt.gather(prompt, app.mcp)]
        except mcp_prompt.McpRefused as exc:
            print(f"edgar: {exc}; nothing was sent", file=sys.stderr)
            return 2
    return await work(attached)


async def _stdin_lines():
    """stdin's lines as they come, read off the loop (servers and hooks go on meanwhile)."""
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            return
        yield line


async def _bang(app, command: str) -> int:
    """``edgar -p "!cmd"``: run it in the sandbox and print what it printed; no model call."""
    from edgar.cli.bang import run_bang

    if not command:
        raise UsageError("! needs a command, e.g. edgar -p '!git status'")
    shown, _ = await run_bang(app.session, command)
    for row in shown[1:-1]:
        print(row)
    print(f"edgar: {shown[-1].strip('()')}" if len(shown) > 1 else f"edgar: {shown[0]}",
          file=sys.stderr)
    return 0 if shown[-1] == "(exit 0)" else 1


async def _commit(app, message: str) -> int:
    """``edgar -p /commit [MESSAGE]``: the REPL's ``/commit``, no model call; the new hash on
    stdout, what happened on stderr; exit 1 when git failed."""
    from edgar.events import Notice

    failed: list[str] = []

    def said(event) -> None:
        if isinstance(event, Notice):
            print(f"edgar: {event.message}", file=sys.stderr)
            if event.level != "info":
                failed.append(event.message)

    app.observe(said)
    made = await app.commits.commit_pending(message)
    if made:
        print(made)
    return 1 if failed else 0


def command_expansion(app, line: str) -> Expand | None:
    """How a custom command's body joins the turn (``run_turn``'s ``expand``), or None;
    its allowed-tools go to the gate. Raises ``AttachRefused`` for an ``@path`` outside."""
    from edgar.cli import slash
    from edgar.cli.command_expand import find, prepare
    from edgar.paths import user_dir

    found = find(line, app.root, user_dir(), {*slash.COMMANDS, *slash.ALIASES})  # as the REPL
    if found is None:
        return None
    prepared = prepare(*found, app.root, Path.cwd())
    for warning in prepared.warnings:
        print(f"edgar: {warning}", file=sys.stderr)
    app.session.gate.extra = prepared.rules
    return prepared.for_turn(app.bus, app.session.id)
