"""Custom slash commands: Markdown files in ``.edgar/commands/``, ``.claude/commands/``, the
user dir's ``commands/`` and Claude Code's ``~/.claude/commands/``, in Claude Code's format.

Guarantees:
- ``/NAME ARGS`` finds ``NAME.md`` (subdirectories namespace files but not names, as in
  Claude Code: ``frontend/component.md`` is ``/component``); the first directory in
  ``command_dirs`` order wins a clash. Built-in commands always win over files.
- ``expand`` substitutes ``$ARGUMENTS`` (the whole argument text) and ``$1`` … ``$9``
  (shell-like words); a body that uses neither gets ``ARGUMENTS: …`` appended when there
  are arguments, as Claude Code does.
- Front matter (optional): ``description``, ``argument-hint``, ``allowed-tools`` (a list or a
  comma-separated string of rules, e.g. ``Bash(git status:*), Bash(git diff:*)``), which the
  running turn may use without asking; unknown keys are ignored. A broken file is reported,
  never fatal.
- ``pieces`` splits the body into text and ``!`cmd``` shell pieces (arguments filled into
  both); ``cli/command_expand.py`` runs the shell pieces and attaches ``@path`` files.
- The expansion is text the client wrote, not the person: the caller sends it as an
  attachment (``Attached``), while the ``PromptTyped`` is the ``/NAME ARGS`` line as typed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from edgar.config.trust import RUNS

if TYPE_CHECKING:
    from edgar.tools.rules import Rule

MAX_BYTES = 256_000
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
_POSITIONAL = re.compile(r"\$([1-9])")


@dataclass(frozen=True, slots=True)
class CustomCommand:
    name: str
    description: str
    body: str
    path: Path
    where: str                      # "project", "claude", "user" or "claude-user", plus a namespace
    allowed_tools: tuple[str, ...] = ()
    argument_hint: str = ""


OWN = ("user", "claude-user")       # the person's own folders: their ``!`` lines need no trust


def command_dirs(root: Path, user: Path | None) -> list[tuple[str, Path]]:
    from edgar.paths import claude_dir

    dirs = [("project", root / ".edgar" / "commands"), ("claude", root / ".claude" / "commands")]
    if user is not None:
        dirs.append(("user", user / "commands"))
    dirs.append(("claude-user", claude_dir() / "commands"))
    return dirs


def _split_rules(value: object) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    text, out, depth, start = str(value or ""), [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return tuple(p.strip() for p in out if p.strip())


def parse_command(text: str, path: Path, where: str) -> CustomCommand:
    """One command file; raises ``ValueError`` (with the line) when its front matter is broken."""
    from edgar.skills.loader import SkillError, parse_front_matter

    meta: dict[str, object] = {}
    body = text.lstrip("\ufeff")
    if body.startswith("---"):
        try:
            meta, body, _ = parse_front_matter(body)
        except SkillError as exc:
            raise ValueError(f"{path}:{exc.line}: {exc.message}") from None
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    description = str(meta.get("description") or first[:80])
    return CustomCommand(path.stem, " ".join(description.split()), body.strip(), path, where,
                         _split_rules(meta.get("allowed-tools")),
                         str(meta.get("argument-hint") or ""))


def discover(root: Path, user: Path | None) -> tuple[dict[str, CustomCommand], list[str]]:
    """Every command by name, and one warning per file that could not be read."""
    found: dict[str, CustomCommand] = {}
    warnings: list[str] = []
    for where, directory in command_dirs(root, user):
        if not directory.is_dir():
            continue
        for path in sorted(directory.rglob("*.md")):
            if not _NAME.match(path.stem) or path.stem in found:
                continue
            namespace = path.parent.relative_to(directory).as_posix()
            label = where if namespace == "." else f"{where}:{namespace}"
            try:
                if path.stat().st_size > MAX_BYTES:
                    raise ValueError(f"{path}: larger than {MAX_BYTES} bytes")
                found[path.stem] = parse_command(path.read_text(encoding="utf-8", errors="replace"),
                                                 path, label)
            except (OSError, ValueError) as exc:
                warnings.append(str(exc))
    return found, warnings


def split_line(line: str) -> tuple[str, str] | None:
    """(name, argument text) of a ``/name args`` line, or None."""
    if not line.startswith("/") or line.startswith("//"):
        return None
    name, _, args = line[1:].partition(" ")
    name = name.strip()
    if not name or not _NAME.match(name):
        return None
    return name, args.strip()


def pieces(command: CustomCommand, args: str) -> list[tuple[str, str]]:
    """The body as ``("text", …)`` and ``("shell", command)`` pieces, in order, with the
    arguments filled in: a ``!`cmd``` is a shell piece (run before the model sees the body;
    ``cli/command_expand.py``), everything else text."""
    try:
        words = shlex.split(args)
    except ValueError:
        words = args.split()
    body = command.body
    used = "$ARGUMENTS" in body or _POSITIONAL.search(body) is not None

    def fill(text: str) -> str:
        text = text.replace("$ARGUMENTS", args)
        return _POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1]
                               if int(m.group(1)) <= len(words) else "", text)

    out: list[tuple[str, str]] = []
    at = 0
    for match in RUNS.finditer(body):
        out.append(("text", fill(body[at:match.start()])))
        out.append(("shell", fill(match.group(1))))
        at = match.end()
    out.append(("text", fill(body[at:])))
    if args and not used:
        out.append(("text", f"\n\nARGUMENTS: {args}"))
    return [(kind, text) for kind, text in out if text or kind == "shell"]


def expand(command: CustomCommand, args: str) -> str:
    """The body with the arguments filled in, ``!`cmd``` left as written (not run)."""
    return "".join(text if kind == "text" else f"!`{text}`"
                   for kind, text in pieces(command, args))


def allowed_rules(command: CustomCommand) -> tuple[list[Rule], list[str]]:
    """The command's ``allowed-tools`` as rules, and a warning per entry that is not a rule."""
    from edgar.tools.rules import RuleError, parse_rule

    rules: list[Rule] = []
    warnings: list[str] = []
    for text in command.allowed_tools:
        try:
            rules.append(parse_rule(text))
        except RuleError as exc:
            warnings.append(f"{command.path}: allowed-tools: {exc}")
    return rules, warnings
