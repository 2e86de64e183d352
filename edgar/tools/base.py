"""What a tool is, what it returns, and how a failure becomes a shape.

Guarantees:
- A tool's arguments are a declared model (``ToolArgs``) that pydantic validates before it
  runs; bad arguments from the model are a ``validation`` error naming each field, never a
  traceback. ``spec()`` tells the model that model's JSON Schema, as pydantic makes it (read
  from the tool-schema cache when pydantic made it before: ``edgar.tools.schema_cache``).
- A tool reports failure by raising ``ToolFailure(kind, message, …)``; the harness turns it
  into an ``ErrorRecord`` (the shape, for the bus) and a ``ToolResultBlock`` (the text, for
  the model only).
- Paths are resolved inside the project root or a directory the person added
  (``--add-dir``, ``ToolContext.extra_roots``); anything outside is refused unless allowed.
  A path to write (``resolve_for_write``) is refused, with the reason, under ``.edgar/``,
  ``.git/`` (the project's and each added directory's) and edgar's user dir, and where it
  is a project file trusted config runs (a hook's script, an MCP server's source:
  ``edgar.config.trust.covered``, ADR-0073), however
  it is spelt (symlinks are resolved first).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from edgar.conversation import ImageBlock, ToolResultBlock, ToolSpec
from edgar.events import ErrorKind, ErrorRecord, ToolFinished, Where
from edgar.tools.args import ToolArgs

if TYPE_CHECKING:
    from pydantic_core import ValidationError

    from edgar.sandbox.session import SessionSandbox
    from edgar.tools.committed import Baseline
    from edgar.tools.permissions import PermissionGate
    from edgar.tools.todo_list import TodoList

__all__ = ["Tool", "ToolArgs", "ToolContext", "ToolFailure", "ToolOutcome", "ErrorRecord",
           "HookVerdict", "ToolGuard",
           "args_schema", "validation_text", "resolve", "resolve_for_write", "root_of",
           "added_roots", "clip", "strip_env"]

Access = Literal["read", "write", "shell", "task", "web"]


def args_schema(args: type[ToolArgs]) -> dict[str, Any]:
    """The JSON Schema a model is given for ``args``: pydantic's, without ``title`` noise and
    without the class docstring (the tool's own description says what it does); what pydantic
    made before, from the tool-schema cache, while the tools' sources are unchanged."""
    from edgar.tools.schema_cache import schema_of

    return schema_of(args, _pydantic_schema)


def _pydantic_schema(args: type[ToolArgs]) -> dict[str, Any]:
    schema: dict[str, Any] = _untitled(args.model_json_schema())
    schema.pop("description", None)
    return schema


def _untitled(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _untitled(v) for k, v in node.items()
                if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_untitled(v) for v in node]
    return node


def validation_text(exc: ValidationError) -> str:
    """What the model is told about arguments that did not validate: every problem, located."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(p) for p in error["loc"]) or "(arguments)"
        parts.append(f"{where}: {error['msg']}")
    return "invalid arguments: " + "; ".join(parts)


class ToolFailure(Exception):
    """A tool failed in a way the harness can name. ``message`` goes to the model only."""

    def __init__(self, kind: ErrorKind, message: str, exit_code: int | None = None,
                 program: str | None = None):
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.exit_code = exit_code
        self.program = program


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    content: str
    files: tuple[str, ...] = ()
    images: tuple[ImageBlock, ...] = ()   # pictures for the model (read of a PNG, MCP)


class ChangeRecorder(Protocol):
    """What the harness tells before a change (core/checkpoints.py keeps copies for undo)."""

    def before_write(self, path: str) -> None: ...

    def after_write(self, path: str) -> None: ...

    async def before_shell(self) -> None: ...

    async def after_shell(self) -> None: ...


@dataclass(frozen=True, slots=True)
class HookVerdict:
    """What the person's hooks said about one tool call (ADR-0044, ADR-0100).

    Invariant: every field comes from a program the person configured; ``refusal`` and
    ``context`` reach the model only (in the tool result and beside it), ``stop`` and
    ``reason`` the person only. Nothing here reaches the bus or learning.
    """

    refusal: str | None = None                        # the call is refused, and why
    permission: Literal["allow", "ask"] | None = None  # PreToolUse: skip or force the question
    reason: str = ""                                  # why allow/ask, for the person
    args: dict[str, Any] | None = None                # updatedInput, in edgar's keys
    context: tuple[str, ...] = ()                     # for the model, beside the result
    stop: str | None = None                           # continue: false: the turn ends here


class ToolGuard(Protocol):
    """Decision points around a tool call (user hooks, ADR-0044/ADR-0100): before it, ahead
    of the permission check, and after it ran."""

    async def before_tool(self, call_id: str, tool: str, args: dict[str, Any],
                          where: Where) -> HookVerdict:
        """PreToolUse: refuse, allow or ask, rewrite the arguments, add context, or stop."""
        ...

    async def after_tool(self, call_id: str, tool: str, args: dict[str, Any],
                         result: ToolResultBlock, finished: ToolFinished,
                         where: Where) -> HookVerdict:
        """PostToolUse / PostToolUseFailure: context for the model, or stop."""
        ...


@dataclass
class ToolContext:
    root: Path
    allow_outside_root: bool = False
    shell_timeout: float = 120.0
    depth: int = 0
    # the one allow-list of edgar.sandbox.env; the shell adds the policy's [sandbox] env
    env: dict[str, str] = field(default_factory=lambda: strip_env(os.environ))
    # the task tool's door to a subagent: (prompt, description) -> final text
    run_subagent: Callable[[str, str], Awaitable[str]] | None = None
    permission: PermissionGate | None = None
    checkpoint: ChangeRecorder | None = None
    # where a running tool's output is shown as it arrives: (call id, text) -> None
    on_output: Callable[[str, str], None] | None = None
    output: Callable[[str], None] | None = None   # set by the harness for the running call
    # how commands run (edgar/sandbox); None: the default confined policy for ``root``
    sandbox: SessionSandbox | None = None
    guard: ToolGuard | None = None
    # plan mode's door to the person: the plan -> what the model is told (tools/plan.py)
    plan: Callable[[str], Awaitable[str]] | None = None
    todos: TodoList | None = None   # the main agent's checklist (tools/todo.py)
    # what the hooks of this step's calls said for the model, given beside the results
    notes: list[str] = field(default_factory=list)
    stopped: str | None = None   # a hook's continue: false; the loop ends the turn
    # what the session began on: the only project files an error fact may name (issue 21 item 8)
    baseline: Baseline | None = None
    # the person's --add-dir directories (resolved): more roots, confined like the project's
    extra_roots: tuple[Path, ...] = ()


class Tool:
    # class attributes of a built-in tool; an MCP tool (mcp/tool.py) sets them per instance
    name: str
    description: str
    Args: ClassVar[type[ToolArgs]]
    access: Access = "read"

    def spec(self) -> ToolSpec:
        cached = _SPECS.get(type(self))
        if cached is None:  # called for every request; a tool's schema never changes
            cached = _SPECS[type(self)] = ToolSpec(self.name, self.description,
                                                   args_schema(self.Args))
        return cached

    def parse(self, raw: Any) -> Any:
        """The model's arguments checked and built; ``ToolFailure("validation")`` when wrong.
        Validated by pydantic-core from the cached core schema when there is one (ADR-0116),
        else by the pydantic model, built at the tool's first call (ADR-0081): one engine,
        the same errors."""
        from edgar.tools.schema_cache import validator_of

        check = validator_of(self.Args)
        if check is None:
            from pydantic import ValidationError

            try:
                return self.Args.model_validate(raw)
            except ValidationError as exc:
                raise ToolFailure("validation", validation_text(exc)) from None
        from edgar.declared.core_schemas import engine

        try:
            return check(raw)
        except engine().ValidationError as exc:  # pydantic's ValidationError, the same class
            raise ToolFailure("validation", validation_text(exc)) from None

    def summary(self, args: dict[str, Any]) -> str:
        """One line for the person: what this call will do."""
        first = next(iter(args.values()), "") if args else ""
        return f"{self.name} {str(first)[:120]}"

    async def run(self, args: Any, ctx: ToolContext) -> ToolOutcome:
        raise NotImplementedError


_SPECS: dict[type, ToolSpec] = {}

def strip_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a tool's subprocess sees: the sandbox's one allow-list
    (``edgar.sandbox.env.command_env``), never a variable that holds a secret."""
    from edgar.sandbox.env import command_env

    return command_env(environ)


def resolve(ctx: ToolContext, path: str) -> Path:
    """An absolute path for ``path`` (relative to the root), refused outside the root and the
    added directories (``--add-dir``)."""
    if "\0" in path:
        raise ToolFailure("validation", "the path contains a NUL character")
    raw = Path(os.path.expanduser(path))
    try:
        full = (raw if raw.is_absolute() else ctx.root / raw).resolve()
    except OSError as exc:   # a link loop, or a component swapped while it was being read
        raise ToolFailure("denied", f"{path}: cannot be resolved ({exc.strerror or exc}); "
                          "edgar does not follow links that loop or change under it") from None
    root = ctx.root.resolve()
    if not ctx.allow_outside_root and root_of(full, (root, *ctx.extra_roots)) is None:
        added = "".join(f", {p}" for p in ctx.extra_roots)
        where = (f"the project root {root} and the added directories ({added[2:]})"
                 if added else f"the project root {root}")
        raise ToolFailure("denied", f"{path} is outside {where}; add its directory with "
                          "--add-dir, or set tools.allow_outside_root = true to allow it")
    return full


def added_roots(dirs: list[str] | tuple[str, ...]) -> tuple[Path, ...]:
    """``tools.add_dirs`` as the resolved roots ``ToolContext.extra_roots`` holds."""
    return tuple(dict.fromkeys(Path(os.path.realpath(os.path.expanduser(d))) for d in dirs))


def root_of(full: Path, roots: tuple[Path, ...]) -> Path | None:
    """The first of ``roots`` (resolved) that ``full`` (resolved) lies beneath, or None."""
    for base in roots:
        if full == base or base in full.parents:
            return base
    return None


def resolve_for_write(ctx: ToolContext, path: str) -> Path:
    """``resolve``, and refused where a write would change what edgar or git does next."""
    full = resolve(ctx, path)
    reason = protected_reason(ctx.root.resolve(), full, ctx.extra_roots)
    if reason:
        raise ToolFailure("denied", f"{path}: {reason}; ask the person to change it themselves")
    return full


def protected_reason(root: Path, full: Path, extra_roots: tuple[Path, ...] = ()) -> str | None:
    """Why ``full`` (resolved) is not the model's to write, or None. An added directory's
    ``.edgar/`` and ``.git/`` are protected as the project's are."""
    from edgar.paths import user_dir

    def inside(base: Path) -> bool:
        return full == base or base in full.parents

    for base in (root, *extra_roots):
        shown = "" if base == root else f"{base}/"
        if inside(base / ".edgar"):
            return (f"{shown}.edgar/ is edgar's own state (its config, memory and sessions), "
                    "not a tool's")
        if inside(base / ".git"):
            return (f"{shown}.git/ is git's internals: its hooks and config run code and no "
                    "tool edits them")
    home = Path(os.path.realpath(user_dir()))
    if inside(home):
        return f"{home} is edgar's user dir (its config and trust records), not a tool's"
    from edgar.config.trust import covered  # here: only a write pays for reading the record

    for name, by in covered(root).items():
        if full == Path(os.path.realpath(root / name)):
            return (f"{name} is run by this project's trusted config ({', '.join(by)}), so "
                    "`edgar trust` covers it and no tool changes it (the person edits it, "
                    "then runs `edgar trust` again)")
    return None


def rel(ctx: ToolContext, path: Path) -> str:
    try:
        return str(path.relative_to(ctx.root.resolve()))
    except ValueError:
        return str(path)


def clip(text: str, limit: int) -> str:
    """Head and tail of ``text`` with a marker saying how much was dropped."""
    if len(text) <= limit:
        return text
    head = text[: limit * 2 // 3]
    tail = text[-(limit // 3):]
    dropped = len(text) - len(head) - len(tail)
    # say how to get the rest, so the model asks for it instead of guessing
    return (f"{head}\n… [{dropped} of {len(text)} characters omitted; to see them, read the "
            f"file with offset/limit, or narrow the command (grep, head, tail)] …\n{tail}")
