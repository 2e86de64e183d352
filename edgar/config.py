"""Settings from TOML files, environment and flags, in that rising order.

Guarantees:
- Layers: built-in defaults < user ``config.toml`` (platformdirs; ``EDGAR_HOME`` overrides)
  < project ``.edgar/config.toml`` < ``EDGAR_*`` environment variables < command-line flags.
- An unknown key or a value of the wrong type is a ``ConfigError`` naming the file, the line
  and the dotted key — never a traceback, never silently ignored. Types are strict
  (``edgar.schema``): ``"5"`` is not a number in a file; ``EDGAR_MAX_TURNS`` is parsed here.
- Settings are plain mutable dataclasses: attribute access and assignment, ``provider(name)``,
  ``dataclasses.replace`` for a modified copy.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from edgar.schema import UNKNOWN_KEY, SchemaError, validate

PermissionMode = Literal["ask", "auto-edit", "yes", "read-only"]

# Plain dataclasses, checked by edgar.schema when loaded (pydantic cost ~100 ms per start:
# ADR-0007). Mutable, so callers may assign (settings.model = …); slots, so a misspelt
# attribute assignment is an AttributeError rather than a silently ignored new attribute.
_section = dataclass(slots=True)


@_section
class ProviderSettings:
    """``[providers.NAME]``: how to reach one provider."""

    base_url: str | None = None
    api_key_env: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 600.0          # seconds for a whole response
    connect_timeout: float = 10.0
    read_timeout: float = 120.0     # seconds of silence mid-stream before giving up
    max_retries: int = 4
    # Anthropic only
    version: str = "2023-06-01"
    auth: Literal["x-api-key", "bearer"] = "x-api-key"
    max_tokens: int = 8192
    # Added with the wire protocols (edgar/providers/http.py, anthropic.py, openai.py)
    retry_backoff: float = 0.5      # seconds before the first retry; doubles, capped at 8 s
    temperature: float | None = None  # not sent unless set; refused by anthropic 2026-10-21
    thinking_budget: int = 0        # Anthropic extended thinking tokens; 0 = off


@_section
class ToolsSettings:
    """``[tools]``: limits on what tool calls may do and return."""

    shell_timeout: float = 120.0
    allow_outside_root: bool = False
    max_subagent_depth: int = 2


@_section
class MemorySettings:
    """``[memory]``: history.md and how much of the active facts reach a prompt."""

    history: bool = True
    budget_chars: int = 4000


@_section
class VerifySettings:
    """``[verify]``: the check run after edits."""

    command: str | None = None
    timeout: float = 300.0
    max_rounds: int = 2
    tail_chars: int = 4000


@_section
class SkillsSettings:
    """``[skills]``: SKILL.md discovery and matching."""

    enabled: bool = True
    threshold: float | None = None   # None: the calibrated default in skills/matcher.py
    refractory_turns: int = 5
    claude_skills: bool = False      # also read .claude/skills/
    max_per_surface: int = 3         # at most this many new skills per prompt or burst


@_section
class ContextSettings:
    """``[context]``: the context window and compaction."""

    compact_at: float = 0.8          # share of the context window
    tool_result_max_chars: int = 30_000
    window: int | None = None        # override the price table's context window
    keep_turns: int = 2              # typed turns kept verbatim when compacting


@_section
class McpServerSettings:
    """``[mcp.servers.NAME]``: one MCP server, the same keys as a ``.mcp.json`` entry."""

    type: Literal["stdio", "http"] | None = None   # None: stdio when command is set
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


@_section
class McpSettings:
    """``[mcp]``: MCP servers (``edgar/mcp``) and how long edgar waits for them."""

    servers: dict[str, McpServerSettings] = field(default_factory=dict)
    startup_timeout: float = field(default=15.0, metadata={"gt": 0})  # seconds per server
    call_timeout: float = field(default=120.0, metadata={"gt": 0})    # seconds per tool call
    trust_read_only_hint: bool = False   # readOnlyHint tools may run in read-only mode


@_section
class HookSettings:
    """``[[hooks.EVENT]]``: a command run on a lifecycle event (``edgar/hooks``)."""

    command: str
    matcher: str = "*"               # tool-name glob (PreToolUse, PostToolUse)
    timeout: float = field(default=60.0, metadata={"gt": 0})


@_section
class Settings:
    """Everything edgar is configured with; top-level keys and one field per section."""

    model: str = "anthropic:claude-sonnet-4-5"
    permission_mode: PermissionMode = "ask"
    max_turns: int = 50
    providers: dict[str, ProviderSettings] = field(default_factory=dict)
    tools: ToolsSettings = field(default_factory=ToolsSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    verify: VerifySettings = field(default_factory=VerifySettings)
    skills: SkillsSettings = field(default_factory=SkillsSettings)
    context: ContextSettings = field(default_factory=ContextSettings)
    mcp: McpSettings = field(default_factory=McpSettings)
    hooks: dict[str, list[HookSettings]] = field(default_factory=dict)

    def provider(self, name: str) -> ProviderSettings:
        return self.providers.get(name) or ProviderSettings()


class ConfigError(Exception):
    """A user mistake in a config file or variable, with its location."""


# EDGAR_* variables that map onto settings (name -> dotted key)
ENV_KEYS = {
    "EDGAR_MODEL": "model",
    "EDGAR_PERMISSION_MODE": "permission_mode",
    "EDGAR_MAX_TURNS": "max_turns",
}


def user_dir() -> Path:
    home = os.environ.get("EDGAR_HOME")
    if home:
        return Path(home)
    from platformdirs import user_config_dir

    return Path(user_config_dir("edgar"))


def load(project_root: Path | None, overrides: dict[str, Any] | None = None,
         environ: dict[str, str] | None = None) -> Settings:
    """Merge every layer and validate; raise ConfigError naming file, line and key."""
    env = os.environ if environ is None else environ
    merged: dict[str, Any] = {}
    sources: list[tuple[Path, str, dict[str, Any]]] = []
    files = [user_dir() / "config.toml"]
    if project_root is not None:
        files.append(project_root / ".edgar" / "config.toml")
    for path in files:
        if path.is_file():
            import tomllib  # only when there is a file to read (~3 ms of start-up otherwise)

            text = path.read_text(encoding="utf-8")
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{path}: {exc}") from None
            _check(data, path, text)
            sources.append((path, text, data))
            _deep_merge(merged, data)
    for var, key in ENV_KEYS.items():
        if env.get(var):
            _set_dotted(merged, key, _from_env(key, env[var]))
    for key, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(merged, key, value)
    try:
        return validate(Settings, merged)
    except SchemaError as exc:
        raise ConfigError(_describe(exc, sources)) from None


def _from_env(key: str, text: str) -> Any:
    # A variable is text and the schema coerces nothing, so a number is parsed here; text
    # that is not one goes through unchanged and the schema names the key and the value.
    if key == "max_turns":
        try:
            return int(text)
        except ValueError:
            return text
    return text


def _check(data: dict[str, Any], path: Path, text: str) -> None:
    # Validate each file alone first so an error names the file that holds the mistake.
    try:
        validate(Settings, data)
    except SchemaError as exc:
        raise ConfigError(_describe(exc, [(path, text, data)])) from None


def _describe(exc: SchemaError, sources: list[tuple[Path, str, dict[str, Any]]]) -> str:
    loc, msg, value = exc.errors[0]  # the first mistake, in file order
    key = ".".join(str(p) for p in loc)
    leaf = str(loc[-1]) if loc else ""
    where = "settings"
    for path, text, data in reversed(sources):
        if _has_path(data, loc):
            line = _line_of(text, leaf)
            where = f"{path}:{line}" if line else str(path)
            break
    if msg == UNKNOWN_KEY:
        return f"{where}: unknown key '{key}'"
    return f"{where}: '{key}': {msg} (got {value!r})"


def _has_path(data: Any, loc: tuple) -> bool:
    for part in loc:
        if isinstance(data, dict) and part in data:
            data = data[part]
        else:
            return False
    return True


def _line_of(text: str, key: str) -> int | None:
    pattern = re.compile(rf'^\s*("{re.escape(key)}"|{re.escape(key)})\s*=|^\s*\[.*\b{re.escape(key)}\]')
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.search(line):
            return number
    return None


def _deep_merge(into: dict[str, Any], new: dict[str, Any]) -> None:
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


def _set_dotted(into: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, leaf = dotted.split(".")
    for part in parents:
        into = into.setdefault(part, {})
    into[leaf] = value
