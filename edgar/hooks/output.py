"""What one hook said, read by Claude Code's output contract
(https://code.claude.com/docs/en/hooks#exit-code-output, #json-output, #decision-control).

Guarantees (pure; ``read`` never raises, whatever the hook printed):
- Stdout whose first non-blank character is ``{`` and that parses as a JSON object is JSON
  output, read on every exit code; anything else is plain text.
- Exit 2 blocks, whatever the JSON says; the reason is the JSON's own blocking reason when
  it gives one, else stderr. Exit 0, or any exit code with valid JSON, lets the JSON decide.
  Any other exit code without JSON is a non-blocking error (``error``: the code and the first
  line of stderr), never a block.
- JSON fields, per event as Claude Code honours them: top-level ``decision: "block"`` +
  ``reason`` (UserPromptSubmit, PostToolUse, PostToolUseFailure, Stop, SubagentStop,
  PreCompact; for PreToolUse the deprecated ``approve``/``block`` mean allow/deny);
  ``hookSpecificOutput.permissionDecision`` allow/deny/ask with its reason and
  ``updatedInput`` (PreToolUse); ``hookSpecificOutput.additionalContext`` (SessionStart,
  UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Stop, SubagentStop); plain
  stdout is context too for UserPromptSubmit and SessionStart; ``continue: false`` with
  ``stopReason``; ``systemMessage``. ``suppressOutput`` is accepted and, as in Claude Code,
  changes nothing. A field of the wrong type is a non-blocking error naming it, and that
  field is ignored.
- Fields edgar reads but cannot honour are listed in ``unsupported`` by name, so the runner
  can say so once; they are never silently dropped.
- Strings are capped at ``LIMIT`` characters (Claude Code's 10 000).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

LIMIT = 10_000
DECISION_EVENTS = frozenset({"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop",
                             "SubagentStop", "PreCompact"})
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
                            "PostToolUseFailure", "Stop", "SubagentStop"})
STDOUT_IS_CONTEXT = frozenset({"SessionStart", "UserPromptSubmit"})
# (event or "*", field) edgar reads but has nothing to do with yet
UNSUPPORTED: dict[str, tuple[str, ...]] = {
    "*": ("terminalSequence",),
    "SessionStart": ("initialUserMessage", "sessionTitle", "watchPaths", "reloadSkills"),
    "UserPromptSubmit": ("sessionTitle", "suppressOriginalPrompt"),
    "PostToolUse": ("updatedToolOutput", "updatedMCPToolOutput", "classifierContext"),
}
Permission = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class HookOutput:
    block: bool = False
    reason: str = ""                       # why it blocks (for the model or the person)
    permission: Permission | None = None   # PreToolUse's decision
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    context: tuple[str, ...] = ()          # for the model, where Claude Code places it
    stop: bool = False                     # continue: false
    stop_reason: str = ""
    system_message: str = ""               # for the person
    error: str = ""                        # a non-blocking failure to report
    unsupported: tuple[str, ...] = field(default_factory=tuple)


def _cap(text: str) -> str:
    return text if len(text) <= LIMIT else text[:LIMIT] + f"… [{len(text) - LIMIT} more characters]"


def _json(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def read(event: str, exit_code: int | None, stdout: str, stderr: str) -> HookOutput:
    """The outcome of one finished hook (``exit_code`` None: it timed out and said nothing)."""
    if exit_code is None:
        return HookOutput()
    data = _json(stdout)
    if data is None:
        if exit_code == 2:
            return HookOutput(block=True, reason=_cap(stderr.strip()))
        if exit_code != 0:
            said = _first_line(stderr)
            return HookOutput(error=f"exited {exit_code}" + (f": {said}" if said else ""))
        text = stdout.strip()
        if text and event in STDOUT_IS_CONTEXT:
            return HookOutput(context=(_cap(text),))
        return HookOutput()
    return _from_json(event, data, exit_code == 2, stderr)


def _from_json(event: str, data: dict[str, Any], exit_2: bool, stderr: str) -> HookOutput:
    problems: list[str] = []

    def text(source: dict[str, Any], key: str) -> str:
        value = source.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            problems.append(f"{key!r} must be a string")
            return ""
        return _cap(value)

    specific = data.get("hookSpecificOutput")
    if specific is not None and not isinstance(specific, dict):
        problems.append("'hookSpecificOutput' must be an object")
        specific = None
    specific = specific or {}
    block, reason = False, ""
    decision = data.get("decision")
    permission: Permission | None = None
    _kinds: dict[str, Permission] = {"allow": "allow", "deny": "deny", "ask": "ask"}
    if event == "PreToolUse":
        said = specific.get("permissionDecision")
        legacy = {"approve": "allow", "block": "deny"}.get(decision) if isinstance(
            decision, str) else None
        said = said if said is not None else legacy
        if said in ("allow", "deny", "ask"):
            permission = _kinds[said]
        elif said is not None and said != "defer":
            problems.append(f"'permissionDecision' must be allow, deny or ask (got {said!r})")
        reason = text(specific, "permissionDecisionReason") or text(data, "reason")
        block = permission == "deny"
    elif decision is not None:
        if decision == "block" and event in DECISION_EVENTS:
            block, reason = True, text(data, "reason")
        elif decision not in ("block", "approve"):
            problems.append(f"'decision' must be \"block\" (got {decision!r})")
    updated = specific.get("updatedInput") if event == "PreToolUse" else None
    if updated is not None and not isinstance(updated, dict):
        problems.append("'updatedInput' must be an object")
        updated = None
    context = text(specific, "additionalContext") if event in CONTEXT_EVENTS else ""
    keep_going = data.get("continue", True)
    if not isinstance(keep_going, bool):
        problems.append("'continue' must be true or false")
        keep_going = True
    unsupported = [name for scope in ("*", event) for name in UNSUPPORTED.get(scope, ())
                   if name in data or name in specific]
    if specific.get("permissionDecision") == "defer":
        unsupported.append('permissionDecision "defer"')
    if exit_2:   # exit 2 blocks whatever the JSON says; its own reason wins when it has one
        block, reason = True, reason or _cap(stderr.strip())
        if permission != "deny" and event == "PreToolUse":
            permission = "deny"
    return HookOutput(block=block, reason=reason, permission=permission,
                      permission_reason=reason if permission is not None else "",
                      updated_input=updated, context=(context,) if context else (),
                      stop=not keep_going, stop_reason=text(data, "stopReason"),
                      system_message=text(data, "systemMessage"),
                      error="; ".join(f"invalid output: {p}" for p in problems),
                      unsupported=tuple(unsupported))
