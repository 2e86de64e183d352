"""Which project files the project's own config runs: the scripts trust covers (ADR-0073).

A trusted hook ``python .claude/hooks/guard.py``, an MCP server ``python tools/server.py``, a
``verify.command = "sh ci/check.sh"`` or a custom command's ``!`./scripts/x``` runs a file of
the project; trusting the config is trusting that file too, so ``edgar.config.trust`` digests
it and the model's tools and sandboxed commands may not change it.

Guarantees:
- ``find(root)`` reads the project's config files as they are now (``.edgar/config.toml``'s
  ``[[hooks.EVENT]]``, ``[mcp.servers.NAME]`` and ``verify.command``; ``.mcp.json``;
  ``.claude/settings.json`` and ``settings.local.json`` hooks in Claude Code's shape; the
  ``!`cmd``` lines of ``.edgar/commands`` and ``.claude/commands``) and returns every project
  file a command there names, each with what names it (``PreToolUse hook``, ``MCP server
  tools``). A file that cannot be read or parsed names nothing (the loaders say what is wrong).
- ``words(root, …)`` is the rule, pure but for ``stat``: every word of a command (shell words
  for a command string, split on ``; | && ||`` too; each item of an exec-form list), and the
  part after ``=`` of ``--opt=x`` / ``VAR=x``, with ``$CLAUDE_PROJECT_DIR``/``${…}`` and
  ``$EDGAR_PROJECT_DIR`` as the root, that is a regular file (a link counts, through it) whose
  real path lies beneath the root. Words resolve against the root, where these commands run;
  ``python -m pkg.mod`` names pkg/mod.py (or pkg/mod/__main__.py), ``python pkg`` its
  pkg/__main__.py. Conservative: a data file a command names (``--rules rules.json``) counts,
  since it changes what the command does; a directory, a word resolved after ``cd``, and what a
  named script imports or reads itself are not found (said in docs/sandbox.md).
- ``programs(root)`` is the part of ``find`` a command runs as a program: the first word of
  each command (after ``VAR=x`` and ``env``/``exec``/``nohup``…), and an interpreter's
  (``python``, ``sh``, ``bash``, ``node``, ``source``…) first argument that is not an option,
  or its ``-m`` module. Trust checks these as they appear (``python later`` with ``later``
  made after trust lapses it); a data file named in passing (``test -f ok.txt``) is checked
  only when it existed at trust.
- ``digest(root, name)`` is the SHA-256 of the file's bytes, ``absent`` when it is missing
  (or no longer a regular file), ``link …`` folded in when the name is a symbolic link, so
  pointing a link elsewhere changes it too. Streamed; never raises.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from edgar.shellwords import shell_words

CLAUDE_SETTINGS = (".claude/settings.json", ".claude/settings.local.json")
COMMAND_DIRS = (".edgar/commands", ".claude/commands")
ROOT_VARS = re.compile(r"\$\{(?:CLAUDE|EDGAR)_PROJECT_DIR\}|\$(?:CLAUDE|EDGAR)_PROJECT_DIR\b")
ENV_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
RUNS = re.compile(r"!`([^`\n]+)`")   # Claude Code's "run this first" in a command body
PYTHONS = re.compile(r"^python[0-9.]*$")
INTERPRETERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|sh|bash|zsh|dash|ksh|mksh|fish|node|nodejs"
                          r"|deno|bun|tsx|ts-node|ruby|perl|php|lua|luajit|Rscript|source|\.)$")
EVALUATORS = frozenset({"node", "nodejs", "deno", "bun", "tsx", "ts-node", "ruby", "perl",
                        "php", "lua", "luajit", "Rscript"})   # their inline code is -e, not -c
EVALS = ("-e", "--eval", "-p", "--print", "-r", "-E")
WRAPPERS = frozenset({"env", "exec", "command", "builtin", "nohup", "time", "nice", "setsid"})
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _root_vars(text: str, root: Path) -> str:
    return ROOT_VARS.sub(lambda _: str(root), text)


def _beneath(path: str, root: str) -> bool:
    return path.startswith(root.rstrip("/") + "/")


def _operator(word: str) -> bool:
    return bool(word) and set(word) <= set(";|&()")


def _run_positions(argv: list[str], shell: bool) -> tuple[set[int], set[int]]:
    """(indices of the words a command runs as a program, indices of ``-m`` modules): the
    first word of each command (after ``VAR=x`` and wrappers such as ``env``, ``exec``,
    ``nohup``), and an interpreter's script (its first argument that is not an option) or
    ``-m`` module."""
    positions: set[int] = set()
    modules: set[int] = set()
    start, i = True, 0
    while i < len(argv):
        word = argv[i]
        if shell and _operator(word):
            start = True
        elif start and not (ASSIGNMENT.match(word) or os.path.basename(word) in WRAPPERS):
            positions.add(i)
            start = False
            program = os.path.basename(word)
            j = i + 1
            while INTERPRETERS.match(program) and j < len(argv) \
                    and not (shell and _operator(argv[j])):
                arg = argv[j]
                if arg == "-" or arg in (EVALS if program in EVALUATORS else ("-c",)):
                    break                      # inline code, or stdin: no file
                if arg == "-m" and PYTHONS.match(program) and j + 1 < len(argv):
                    modules.add(j + 1)
                    break
                if arg == "--" and j + 1 < len(argv):
                    positions.add(j + 1)
                    break
                if arg.startswith("-") or (arg == "run" and program in ("deno", "bun")):
                    j += 1
                    continue
                positions.add(j)
                break
        i += 1
    return positions, modules


def _candidates(argv: list[str], shell: bool) -> Iterator[tuple[str, bool]]:
    """(path, run as a program) for each word, the value of ``x=value``, the module of
    ``python -m mod`` and the ``__main__.py`` of ``python pkg``."""
    ran, modules = _run_positions(argv, shell)
    for i, word in enumerate(argv):
        if not word:
            continue
        yield word, i in ran
        if "=" in word:
            yield word.split("=", 1)[1], False
        if i in modules:
            module = word.replace(".", "/")
            yield f"{module}.py", True
            yield f"{module}/__main__.py", True
        elif i in ran and i > 0:
            yield f"{word}/__main__.py", True   # python pkg runs pkg/__main__.py


def scan(root: Path, argv: Iterable[str], shell: bool = False) -> list[tuple[str, bool]]:
    """(project file relative to ``root``, ``/``-separated; run as a program) for each file
    ``argv`` names; shell words when ``shell`` (operators start a new command)."""
    real_root, plain_root = os.path.realpath(root), os.path.normpath(str(root))
    found: dict[str, bool] = {}
    for word, ran in _candidates([_root_vars(w, root) for w in argv], shell):
        word = os.path.expanduser(word) if word.startswith("~") else word
        if "\0" in word:
            continue
        lexical = os.path.normpath(word if os.path.isabs(word) else os.path.join(root, word))
        base = next((b for b in (plain_root, real_root) if _beneath(lexical, b)), None)
        try:   # cheapest first: most words are no file at all
            if base is None or not os.path.isfile(lexical) \
                    or not _beneath(os.path.realpath(lexical), real_root):
                continue
        except (OSError, ValueError):
            continue
        name = lexical[len(base.rstrip("/")) + 1:]
        found[name] = found.get(name, False) or ran
    return list(found.items())


def words(root: Path, argv: Iterable[str], shell: bool = False) -> list[str]:
    """The project files (relative to ``root``, ``/``-separated) that ``argv`` names."""
    return [name for name, _ in scan(root, argv, shell)]


def command_files(root: Path, command: str, args: Iterable[str] | None = None) -> list[str]:
    """The project files one configured command names: shell form, or exec form with ``args``."""
    return [name for name, _ in command_scan(root, command, args)]


def command_scan(root: Path, command: str,
                 args: Iterable[str] | None = None) -> list[tuple[str, bool]]:
    if args is not None:
        return scan(root, [command, *args])
    return scan(root, shell_words(command), shell=True)


def _toml(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}
    return data


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _expand(text: str) -> str:
    """``${VAR}``/``${VAR:-default}`` as an MCP entry expands them (an unset one stays)."""
    def one(match: re.Match[str]) -> str:
        value = os.environ.get(match.group(1))
        if match.group(2) is not None and not value:
            return match.group(2)
        return value if value is not None else match.group(0)

    return ENV_VAR.sub(one, text)


def commands(root: Path) -> Iterator[tuple[str, str, list[str] | None]]:
    """(what names it, command, exec-form args or None) for every command the project's own
    config files would run."""
    config = _toml(root / ".edgar" / "config.toml")
    hooks = config.get("hooks")
    for event, entries in (hooks.items() if isinstance(hooks, dict) else ()):
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("command"), str):
                yield f"{event} hook", entry["command"], _strings(entry.get("args"))
    mcp = config.get("mcp")
    servers = mcp.get("servers") if isinstance(mcp, dict) else None
    yield from _servers(servers, (lambda s: s))
    verify = config.get("verify")
    if isinstance(verify, dict) and isinstance(verify.get("command"), str):
        yield "verify.command", verify["command"], None
    yield from _servers(_json(root / ".mcp.json").get("mcpServers"), _expand)
    for name in CLAUDE_SETTINGS:
        table = _json(root / name).get("hooks")
        for event, groups in (table.items() if isinstance(table, dict) else ()):
            for group in groups if isinstance(groups, list) else ():
                handlers = group.get("hooks") if isinstance(group, dict) else None
                for handler in handlers if isinstance(handlers, list) else ():
                    if isinstance(handler, dict) and isinstance(handler.get("command"), str):
                        yield (f"{event} hook", handler["command"],
                               _strings(handler.get("args")))
    for folder in COMMAND_DIRS:
        for path in _markdown(root / folder):
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            for line in RUNS.findall(text):
                yield f"/{path.stem}", line, None


def _servers(servers: Any,
             expand: Callable[[str], str]) -> Iterator[tuple[str, str, list[str] | None]]:
    for name, entry in (servers.items() if isinstance(servers, dict) else ()):
        if isinstance(entry, dict) and isinstance(entry.get("command"), str):
            args = _strings(entry.get("args")) or []
            yield (f"MCP server {name}", expand(entry["command"]), [expand(a) for a in args])


def _markdown(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.rglob("*.md") if p.is_file())
    except OSError:
        return []


def _found(root: Path) -> dict[str, tuple[list[str], bool]]:
    out: dict[str, tuple[list[str], bool]] = {}
    for by, command, args in commands(root):
        for name, ran in command_scan(root, command, args):
            names, before = out.setdefault(name, ([], False))
            if by not in names:
                names.append(by)
            out[name] = (names, before or ran)
    return dict(sorted(out.items()))


def find(root: Path) -> dict[str, list[str]]:
    """Every project file the project's config names in a command -> what names it."""
    return {name: by for name, (by, _) in _found(root).items()}


def programs(root: Path) -> set[str]:
    """The files among ``find`` that a command runs as a program or script (not a data file
    it merely names): one that appears after trust lapses it, where a new data file does not."""
    return {name for name, (_, ran) in _found(root).items() if ran}


def digest(root: Path, name: str) -> str:
    """SHA-256 of the file ``name`` (relative to root) now, ``absent`` when it is not one."""
    path = root / name
    try:
        link = os.readlink(path) if path.is_symlink() else None
        if not path.is_file():
            return "absent"
        with path.open("rb") as handle:
            body = hashlib.file_digest(handle, "sha256").hexdigest()
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    if link is None:
        return body
    return hashlib.sha256(f"link {link}\0{body}".encode("utf-8", "surrogateescape")).hexdigest()


def digests(root: Path, names: Iterable[str]) -> dict[str, str]:
    return {name: digest(root, name) for name in sorted(set(names))}
