"""Settings from TOML files, environment and flags, in that rising order.

Guarantees:
- Layers: built-in defaults < user ``config.toml`` (platformdirs; ``EDGAR_HOME`` overrides)
  < project ``.edgar/config.toml`` < ``EDGAR_*`` environment variables < command-line flags.
- An unknown key or a value of the wrong type is a ``ConfigError`` naming the file, the line
  and the dotted key — never a traceback, never silently ignored.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PermissionMode = Literal["ask", "auto-edit", "yes", "read-only"]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, defer_build=True)


class ProviderSettings(_Section):
    base_url: str | None = None
    api_key_env: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
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


class ToolsSettings(_Section):
    shell_timeout: float = 120.0
    allow_outside_root: bool = False
    max_output_chars: int = 30_000
    max_subagent_depth: int = 2


class MemorySettings(_Section):
    history: bool = True
    budget_chars: int = 4000


class VerifySettings(_Section):
    command: str | None = None
    timeout: float = 300.0
    max_rounds: int = 2
    tail_chars: int = 4000


class SkillsSettings(_Section):
    enabled: bool = True
    threshold: float | None = None   # None: the calibrated default in skills/matcher.py
    refractory_turns: int = 5
    claude_skills: bool = False      # also read .claude/skills/
    max_per_surface: int = 3         # at most this many new skills per prompt or burst


class ContextSettings(_Section):
    compact_at: float = 0.8          # share of the context window
    tool_result_max_chars: int = 30_000
    window: int | None = None        # override the price table's context window
    keep_turns: int = 2              # typed turns kept verbatim when compacting


class Settings(_Section):
    model: str = "anthropic:claude-sonnet-4-5"
    permission_mode: PermissionMode = "ask"
    max_turns: int = 50
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    tools: ToolsSettings = Field(default_factory=ToolsSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    skills: SkillsSettings = Field(default_factory=SkillsSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)

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
            _set_dotted(merged, key, env[var])
    for key, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(merged, key, value)
    try:
        return Settings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, sources)) from None


def _check(data: dict[str, Any], path: Path, text: str) -> None:
    # Validate each file alone first so an error names the file that holds the mistake.
    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, [(path, text, data)])) from None


def _describe(exc: ValidationError, sources: list[tuple[Path, str, dict[str, Any]]]) -> str:
    err = exc.errors()[0]
    key = ".".join(str(p) for p in err["loc"])
    leaf = str(err["loc"][-1]) if err["loc"] else ""
    where = "settings"
    for path, text, data in reversed(sources):
        if _has_path(data, err["loc"]):
            line = _line_of(text, leaf)
            where = f"{path}:{line}" if line else str(path)
            break
    if err["type"] == "extra_forbidden":
        return f"{where}: unknown key '{key}'"
    return f"{where}: '{key}': {err['msg']} (got {err.get('input')!r})"


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
