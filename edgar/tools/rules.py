"""Permission rules: ``shell(git status*)``, ``edit(src/**)``, ``mcp__time__*``.

Guarantees (pure functions, no I/O):
- ``web_fetch(domain:docs.python.org)`` (Claude Code's ``WebFetch(domain:…)`` too) matches the
  host of the URL fetched, the part after ``domain:`` a glob (``*.python.org``).
- ``parse_rule`` accepts edgar's tool names and Claude Code's (``Bash(npm run test:*)``,
  ``Edit(src/**)``, ``Read``, ``Agent``/``Task``, ``WebFetch``, ``TodoWrite``,
  ``mcp__server__tool``, and ``mcp__server`` for every tool of one server) and rejects
  anything else with a message saying what a rule looks like.
- An allow rule never matches a shell command that chains, pipes, redirects or substitutes
  (``;`` ``&`` ``|`` ``>`` ``<`` backticks ``$(`` newlines): ``git status*`` does not allow
  ``git status; rm -rf ~``. A deny rule matches if the whole command or any piece of it does.
- A path rule matches paths inside the project root only, relative to it (``..`` resolved
  first by the caller); ``**`` crosses directories, ``*`` and ``?`` do not; a pattern with no
  ``/`` matches a file name at any depth.
- ``read_only_command`` says yes only for a short list of commands that cannot change
  anything, parsed conservatively (see ``READ_ONLY``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

# Claude Code's tool names and edgar's; "edit" covers every tool that changes a file.
ALIASES = {"bash": "shell", "shell": "shell", "edit": "edit", "multiedit": "edit",
           "notebookedit": "edit", "write": "write", "read": "read", "glob": "glob",
           "grep": "grep", "task": "task", "agent": "task", "ls": "glob",
           "webfetch": "web_fetch", "web_fetch": "web_fetch", "todowrite": "todo_write",
           "todo_write": "todo_write", "exitplanmode": "exit_plan_mode",
           "exit_plan_mode": "exit_plan_mode"}
# Claude Code's whole-server rule: ``mcp__time`` is every tool of the server ``time``
SERVER_RULE = re.compile(r"^mcp__[A-Za-z0-9_.-]+?$")
FAMILY = {"edit": ("edit", "write"), "write": ("write",)}
_RULE = re.compile(r"^\s*([A-Za-z0-9_*?.-]+)\s*(?:\((.*)\))?\s*$", re.S)
CHAINING = re.compile(r"[;&|<>`\n\r]|\$\(")
SPLIT = re.compile(r"&&|\|\||[;&|\n\r`()]|\$\(")


@dataclass(frozen=True)
class Rule:
    """One rule: a tool (name or glob over names) and an optional pattern for its subject."""

    text: str
    tool: str
    pattern: str | None = None

    def tools(self) -> tuple[str, ...]:
        return FAMILY.get(self.tool, (self.tool,))


class RuleError(ValueError):
    """A rule that does not parse; the message says what a rule looks like."""


def parse_rule(text: str) -> Rule:
    match = _RULE.match(text) if isinstance(text, str) else None
    if not match:
        raise RuleError(f"{text!r} is not a rule: write TOOL or TOOL(PATTERN), e.g. "
                        '"shell(git status*)", "edit(src/**)", "mcp__time__*"')
    name, pattern = match.group(1), match.group(2)
    tool = ALIASES.get(name.lower(), name)
    if SERVER_RULE.match(tool) and "__" not in tool[len("mcp__"):] and pattern is None:
        tool += "__*"
    if pattern is not None:
        pattern = pattern.strip()
        if tool == "shell" and pattern.endswith(":*"):  # Claude Code's prefix form
            pattern = pattern[:-2] + "\0"            # "\0": the prefix, then a word break
        if pattern in ("", "*", "**"):
            pattern = None
    return Rule(text.strip(), tool, pattern)


def parse_rules(texts: Iterable[str]) -> list[Rule]:
    return [parse_rule(t) for t in texts]


@lru_cache(maxsize=512)
def _glob(pattern: str, path_like: bool) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*" and path_like and pattern[i:i + 2] == "**":
            i += 2
            if pattern[i:i + 1] == "/":
                out.append("(?:.*/)?")
                i += 1
            else:
                out.append(".*")
            continue
        if ch == "*":
            out.append("[^/]*" if path_like else ".*")
        elif ch == "?":
            out.append("[^/]" if path_like else ".")
        elif ch == "\0":
            out.append("(?:\\s.*)?")
        else:
            out.append(re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z", re.S)


def _tool_matches(rule: Rule, tool: str) -> bool:
    return any(_glob(t, False).match(tool) for t in rule.tools())


def path_matches(pattern: str, path: str) -> bool:
    """``path`` is relative to the project root, with ``/`` separators and no ``..``."""
    pattern = pattern[2:] if pattern.startswith("./") else pattern.lstrip("/")
    if pattern.endswith("/"):
        pattern += "**"
    if "/" not in pattern:
        return bool(_glob(pattern, True).match(path.rsplit("/", 1)[-1]))
    return bool(_glob(pattern, True).match(path))


def _subject_matches(rule: Rule, tool: str, subject: str | None, deny: bool) -> bool:
    if rule.pattern is None:
        return True
    if subject is None:
        return False
    if tool == "web_fetch":   # web_fetch(domain:HOST-GLOB): the host the URL names
        if not rule.pattern.startswith("domain:"):
            return False
        return bool(_glob(rule.pattern[len("domain:"):].strip().lower(), False).match(subject))
    if tool == "shell":
        command = " ".join(subject.split())
        regex = _glob(rule.pattern, False)
        if not deny:
            return not CHAINING.search(subject) and bool(regex.match(command))
        pieces = [command] + [" ".join(p.split()) for p in SPLIT.split(subject)]
        return any(regex.match(p) for p in pieces if p)
    return path_matches(rule.pattern, subject)


def first_match(rules: Iterable[Rule], tool: str, subject: str | None, *,
                deny: bool = False) -> Rule | None:
    """The first rule that covers this call (``deny`` switches to the wider shell match)."""
    for rule in rules:
        if _tool_matches(rule, tool) and _subject_matches(rule, tool, subject, deny):
            return rule
    return None


# Programs whose second word names what they do (``git status``, ``npm test``).
SUBCOMMANDS = frozenset({"git", "npm", "pnpm", "yarn", "bun", "cargo", "go", "docker", "kubectl",
                         "pip", "uv", "poetry", "make", "just", "gh", "dotnet", "mvn", "gradle",
                         "bundle", "rails", "mix", "stack", "cabal", "terraform", "helm"})


def suggest(tool: str, subject: str | None) -> str | None:
    """The rule an "always" answer saves for a shell command: its program and subcommand.

    ``git status -s`` → ``shell(git status*)``; ``pytest -q tests`` → ``shell(pytest *)``
    (a subcommand only for programs in ``SUBCOMMANDS``).
    None when the command chains or cannot be split (then "always" is not offered).
    """
    if tool == "web_fetch" and subject:
        return f"web_fetch(domain:{subject})"
    if tool != "shell" or not subject or CHAINING.search(subject):
        return None
    try:
        words = shlex.split(subject)
    except ValueError:
        return None
    if not words or "=" in words[0] or any(c in words[0] for c in "*?[]{}$()"):
        return None
    if len(words) > 1 and words[0] in SUBCOMMANDS and re.fullmatch(r"[a-z][a-z0-9:-]*", words[1]):
        return f"shell({words[0]} {words[1]}*)"
    return f"shell({words[0]} *)" if len(words) > 1 else f"shell({words[0]})"


# Commands that only read. Each entry: program → subcommands allowed (None: any arguments).
READ_ONLY: dict[str, frozenset[str] | None] = {
    "ls": None, "cat": None, "head": None, "tail": None, "wc": None, "pwd": None,
    "rg": None, "grep": None, "find": None, "tree": None, "stat": None, "file": None,
    "du": None, "df": None, "which": None, "echo": None, "diff": None,
    "git": frozenset({"status", "diff", "log", "show", "blame", "ls-files", "rev-parse",
                      "grep", "shortlog", "describe"}),
}
# Options that make a "read-only" program write a file or run another program.
WRITING_OPTIONS: dict[str, re.Pattern[str]] = {
    "find": re.compile(r"^-(?:exec|execdir|ok|okdir|delete|fprint\w*|fls)$"),
    "rg": re.compile(r"^--pre(?:-glob)?(?:=.*)?$"),
    "git": re.compile(r"^--(?:output|ext-diff|textconv|exec)(?:=.*)?$|^-o"),
    "tree": re.compile(r"^-o"),
}


def read_only_command(command: str) -> bool:
    """True only for a plain call of a ``READ_ONLY`` program with no writing option."""
    if CHAINING.search(command) or "$" in command:
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if not words or words[0] not in READ_ONLY:
        return False
    allowed = READ_ONLY[words[0]]
    args = words[1:]
    if allowed is not None:
        if not args or args[0] not in allowed:
            return False
        args = args[1:]
    writing = WRITING_OPTIONS.get(words[0])
    return writing is None or not any(writing.match(a) for a in args)


def read_only_names() -> str:
    """The built-in list as said to a person: ``git status, git diff, …, ls, cat, …``."""
    git = sorted(READ_ONLY["git"] or (), key=lambda s: (s not in ("status", "diff", "log"), s))
    return ", ".join([f"git {s}" for s in git] + [k for k, v in READ_ONLY.items() if v is None])
