"""Settings from TOML files, environment and flags, in that rising order (pydantic v2 models).

Guarantees:
- Layers: built-in defaults < user ``config.toml`` (platformdirs; ``EDGAR_HOME`` overrides)
  < project ``.edgar/config.toml`` < ``EDGAR_*`` environment variables < command-line flags.
  The project layer's keys that run code or widen permissions (``edgar.config.trust.GATES``)
  apply only once the project is trusted; ``trust.pending(root)`` lists what was held back.
- A mistake is a ``ConfigError`` that says where it is, never a traceback, never silently
  ignored: in a file ``path:line: 'dotted.key': …`` (or ``unknown key 'dotted.key'``); in a
  variable ``EDGAR_NAME: …``; in a flag ``--flag-name: …``. Each layer is checked alone first,
  so the error names the layer that holds the mistake.
- Types are strict: ``"5"`` is not a number in a file, ``true`` is not an integer; an integer
  is accepted for a float. Numbers are range-checked (``> 0`` and a sane maximum, per field).
  ``EDGAR_MAX_STEPS``, text by nature, is parsed here.
- A renamed key works under its old name in every layer (``max_turns``, ``EDGAR_MAX_TURNS``,
  ``--max-turns``: ADR-0058) and says so once on stderr, with its replacement and file:line;
  a bad value is named as written. Old and new name in one layer is an error.
- ``Settings`` and its sections are mutable models: attribute access and assignment (assignment
  is validated too; a misspelt attribute is an error), ``provider(name)``, ``model_copy``.

Adding a section: one small ``_Section`` subclass with ``Field`` bounds, one field on
``Settings``, one commented block in ``.edgar.example/config.toml``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from edgar.config.cache import SettingsCache
from edgar.config.lines import toml_line
from edgar.declared import ConfigDict, Field, Model, model_validator
from edgar.paths import user_dir
from edgar.tools.modes import PermissionMode

DAY = 86_400.0  # seconds: the longest any single timeout may be
MILLION = 1_000_000


if TYPE_CHECKING:
    from pydantic import ValidationError


class _Section(Model):
    """Closed (unknown keys are errors), strict, validated on assignment too. Declared, not
    built: pydantic builds and runs the validating model only when something is to be checked
    (edgar.declared; a warm start reads what it checked before: edgar.config.cache)."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True)


class ProviderSettings(_Section):
    """``[providers.NAME]``: how to reach one provider."""

    base_url: str | None = None
    api_key_env: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(600.0, gt=0, le=DAY)          # seconds for a whole response
    connect_timeout: float = Field(10.0, gt=0, le=DAY)
    read_timeout: float = Field(120.0, gt=0, le=DAY)     # seconds of silence mid-stream
    max_retries: int = Field(4, ge=0, le=20)
    # Anthropic only
    version: str | None = None      # None: the version the pinned official SDK sends (models.json)
    auth: Literal["x-api-key", "bearer"] = "x-api-key"
    max_tokens: int = Field(8192, gt=0, le=MILLION)
    retry_backoff: float = Field(0.5, ge=0, le=60)       # seconds; doubles, capped at 8 s
    temperature: float | None = Field(None, ge=0, le=2)  # not sent unless set
    thinking_budget: int = Field(0, ge=0, le=MILLION)    # Anthropic extended thinking; 0 = off
    # Anthropic: "adaptive" (the model decides how much to think; Claude 4.6 and later),
    # "enabled" (a fixed thinking_budget), "off"; unset: "enabled" when thinking_budget > 0
    thinking: Literal["adaptive", "enabled", "off"] | None = None

    @model_validator(mode="after")
    def _thinking_limits(self) -> ProviderSettings:
        # The API's documented limits (anthropic ThinkingConfigEnabledParam): budget_tokens
        # >= 1024 and < max_tokens; sampling parameters are refused with thinking on.
        budget = self.thinking_budget
        if self.thinking == "enabled" and not budget:
            raise ValueError('thinking = "enabled" needs thinking_budget (1024 or more); or set '
                             'thinking = "adaptive" to let the model decide')
        if self.thinking in ("adaptive", "off") and budget:
            raise ValueError(f'thinking_budget = {budget} is for thinking = "enabled"; with '
                             f'thinking = "{self.thinking}" remove it')
        if self.thinking == "adaptive" and self.temperature is not None:
            raise ValueError("temperature cannot be set with thinking on (remove temperature "
                             'or set thinking = "off")')
        if budget and budget < 1024:
            raise ValueError(f"thinking_budget = {budget} is below the API's minimum of 1024 "
                             "(set 1024 or more, or 0 to turn thinking off)")
        if budget and budget >= self.max_tokens:
            raise ValueError(f"thinking_budget = {budget} must be less than max_tokens = "
                             f"{self.max_tokens} (thinking counts toward it)")
        if budget and self.temperature is not None:
            raise ValueError("temperature cannot be set with thinking on (remove temperature "
                             "or set thinking_budget = 0)")
        return self


class ToolsSettings(_Section):
    """``[tools]``: limits on what tool calls may do and return."""

    shell_timeout: float = Field(120.0, gt=0, le=DAY)
    allow_outside_root: bool = False
    # more roots the tools and commands may read and write (--add-dir; ADR-0113)
    add_dirs: list[str] = Field(default_factory=list, max_length=64)
    max_subagent_depth: int = Field(2, ge=0, le=10)


class MemorySettings(_Section):
    """``[memory]``: history.md and how much of the active facts reach a prompt."""

    history: bool = True
    budget_chars: int = Field(4000, ge=0, le=MILLION)


class VerifySettings(_Section):
    """``[verify]``: the check run after edits."""

    command: str | None = None
    timeout: float = Field(300.0, gt=0, le=DAY)
    max_rounds: int = Field(2, ge=0, le=20)
    tail_chars: int = Field(4000, gt=0, le=MILLION)


class SkillsSettings(_Section):
    """``[skills]``: SKILL.md discovery and matching."""

    enabled: bool = True
    threshold: float | None = Field(None, ge=0, le=1)  # None: calibrated default (matcher.py)
    refractory_turns: int = Field(5, ge=0, le=1000)
    claude_skills: bool = False      # also read .claude/skills/
    max_per_surface: int = Field(3, ge=0, le=100)  # new skills per prompt or burst


class ContextSettings(_Section):
    """``[context]``: the context window and compaction."""

    compact_at: float = Field(0.8, gt=0, le=1)       # share of the context window
    tool_result_max_chars: int = Field(30_000, gt=0, le=10 * MILLION)
    window: int | None = Field(None, gt=0, le=100 * MILLION)  # override the price table's
    keep_turns: int = Field(2, ge=0, le=1000)        # typed turns kept verbatim when compacting


class PermissionsSettings(_Section):
    """``[permissions]``: rules such as ``shell(git status*)`` (edgar/tools/rules.py).

    ``deny`` wins over everything, in every mode. A project file's ``allow`` widens what
    runs unasked, so it applies only once the project is trusted (tools/permission_config.py).
    """

    allow: list[str] = Field(default_factory=list, max_length=1000)
    deny: list[str] = Field(default_factory=list, max_length=1000)


class SandboxSettings(_Section):
    """``[sandbox]``: how the commands edgar runs are confined (edgar/sandbox, docs/sandbox.md).

    In a project's ``.edgar/config.toml`` a widening value (mode "off", network on, extra
    writable dirs, passed variables) takes effect only once the project is trusted
    (``edgar trust``)."""

    mode: Literal["workspace-write", "read-only", "off"] = "workspace-write"
    network: bool = False
    writable: list[str] = Field(default_factory=list, max_length=64)  # more writable dirs
    # more of your environment for commands, by name (beyond edgar.sandbox.env.ALLOWED)
    env: list[str] = Field(default_factory=list, max_length=256)


class McpServerSettings(_Section):
    """``[mcp.servers.NAME]``: one MCP server, the same keys as a ``.mcp.json`` entry, plus
    edgar's own sandbox opt-ins for it (``network``, ``writable``; ADR-0102). A key edgar
    does not read (Claude Code's ``timeout``, say) is kept here and warned about by
    ``edgar.mcp.config``, never fatal to the whole config."""

    model_config = ConfigDict(extra="allow", strict=True, validate_assignment=True)

    type: Literal["stdio", "http", "sse", "streamable-http"] | None = None   # None: by keys
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    network: bool = False            # this server's sandbox may use the network
    writable: list[str] = Field(default_factory=list, max_length=64)  # more writable dirs


class McpSettings(_Section):
    """``[mcp]``: MCP servers (``edgar/mcp``) and how long edgar waits for them."""

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    startup_timeout: float = Field(15.0, gt=0, le=600)   # seconds per server, in parallel
    call_timeout: float = Field(120.0, gt=0, le=DAY)     # seconds per tool call
    trust_read_only_hint: bool = False   # readOnlyHint tools may run in read-only mode
    network: bool = False                # every stdio server may use the network (sandbox)
    max_message_bytes: int = Field(64 << 20, ge=1 << 20, le=1 << 30)   # one stdio message


class WebSettings(_Section):
    """``[web]``: the ``web_fetch`` tool edgar runs itself, and Anthropic's web search.

    ``allow_hosts`` lets ``web_fetch`` reach private, loopback or link-local addresses (by
    host name, address or network: ``"127.0.0.1"``, ``"intranet.example"``, ``"10.0.0.0/8"``);
    in a project's file it applies only once the project is trusted."""

    allow_hosts: list[str] = Field(default_factory=list, max_length=256)
    search: bool = False                                   # offer Anthropic's web_search tool
    search_max_uses: int = Field(5, ge=1, le=50)           # searches per request
    max_bytes: int = Field(5 * 1024 * 1024, ge=1024, le=100 * MILLION)   # one download
    timeout: float = Field(30.0, gt=0, le=600)             # seconds for one fetch, redirects too


class GitSettings(_Section):
    """``[git]``: commits edgar makes (ADR-0108). ``auto_commit``: each turn that changed files
    ends with a commit of exactly those files, its message the prompt's first line and the
    files (no model call). ``commit_message = "model"`` (ADR-0111): one more model call per
    commit writes the subject and body from the commit's redacted diff; on any failure the
    summary message is used, said once."""

    auto_commit: bool = False
    commit_message: Literal["summary", "model"] = "summary"


class HookSettings(_Section):
    """``[[hooks.EVENT]]``: a command run on a lifecycle event (``edgar/hooks``)."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_assignment=True,
                              populate_by_name=True)

    command: str = Field(min_length=1)
    matcher: str = "*"               # Claude Code's matcher: exact names, or a regex
    timeout: float | None = Field(None, gt=0, le=DAY)   # None: the event's default
    network: bool = False            # this hook's sandbox may use the network
    writable: list[str] = Field(default_factory=list, max_length=64)  # more writable dirs
    if_: str | None = Field(None, alias="if")   # one permission rule: run only for such calls
    args: list[str] | None = None    # exec form: command is the program, no shell


class Settings(_Section):
    """Everything edgar is configured with; top-level keys and one field per section."""

    model: str = "sonnet"   # an alias: the current Sonnet of edgar/providers/models.json
    permission_mode: PermissionMode = "ask"
    max_steps: int = Field(50, gt=0, le=10_000)   # model calls of the loop in one turn
    append_system_prompt: str | None = Field(None, max_length=MILLION)  # the person's words, last
    system_prompt: str | None = Field(None, max_length=MILLION)  # replaces edgar's base words
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)
    tools: ToolsSettings = Field(default_factory=ToolsSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    skills: SkillsSettings = Field(default_factory=SkillsSettings)
    context: ContextSettings = Field(default_factory=ContextSettings)
    permissions: PermissionsSettings = Field(default_factory=PermissionsSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    git: GitSettings = Field(default_factory=GitSettings)
    hooks: dict[str, list[HookSettings]] = Field(default_factory=dict)

    def provider(self, name: str) -> ProviderSettings:
        return self.providers.get(name) or ProviderSettings()


class ConfigError(Exception):
    """A user mistake in a config file, variable or flag, with its location."""


# EDGAR_* variables that map onto settings (name -> dotted key); integers are parsed here
ENV_KEYS = {
    "EDGAR_MODEL": "model",
    "EDGAR_PERMISSION_MODE": "permission_mode",
    "EDGAR_MAX_STEPS": "max_steps",
    "EDGAR_MAX_TURNS": "max_turns",     # the deprecated name of EDGAR_MAX_STEPS
}
_ENV_INTS = frozenset({"max_steps", "max_turns"})
RENAMED = {"max_turns": "max_steps"}   # deprecated top-level key -> its name now (ADR-0058)
_warned: set[str] = set()   # deprecation lines already said by this process


def load(project_root: Path | None, overrides: dict[str, Any] | None = None,
         environ: dict[str, str] | None = None) -> Settings:
    """Merge every layer and validate; raise ConfigError naming file, line and key."""
    env = os.environ if environ is None else environ
    memo = SettingsCache.open(user_dir())   # what pydantic accepted before (ADR-0081)
    merged: dict[str, Any] = {}
    files = [user_dir() / "config.toml"]
    if project_root is not None:
        files.append(project_root / ".edgar" / "config.toml")
        _say_if_not_a_dir(project_root / ".edgar")
    for index, path in enumerate(files):
        if path.is_file():
            import tomllib  # only when there is a file to read (~3 ms of start-up otherwise)

            text = _read_config(path)
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{path}: {exc}") from None
            if project_root is not None and index == 1:  # the project's file
                # a cloned repository's keys that run code wait for `edgar trust`
                from edgar.config.trust import admit

                data = admit(project_root, data)
            renamed = _rename(data, _in_file(path, text))
            _check(data, lambda loc, p=path, t=text: _file_place(p, t, loc), renamed, memo)
            _deep_merge(merged, data)
    for var, key in ENV_KEYS.items():
        if env.get(var):
            layer: dict[str, Any] = {}
            _set_dotted(layer, key, _from_env(var, key, env[var]))
            renamed = _rename(layer, lambda old, new: (_env_name(old), _env_name(new)))
            if renamed and env.get(_env_name(RENAMED[key])):
                raise ConfigError(f"{var} and {_env_name(RENAMED[key])} are both set: "
                                  f"{var} is the old name, keep only {_env_name(RENAMED[key])}")
            _check(layer, lambda loc, v=var: v, renamed, memo)
            _deep_merge(merged, layer)
    for key, value in (overrides or {}).items():
        if value is not None:
            layer = {}
            _set_dotted(layer, key, value)
            renamed = _rename(layer, lambda old, new: (_flag(old), _flag(new)))
            if renamed and (overrides or {}).get(RENAMED[key]) is not None:
                raise ConfigError(f"{_flag(key)} and {_flag(RENAMED[key])} are both given: "
                                  f"{_flag(key)} is the old name, keep only {_flag(RENAMED[key])}")
            _check(layer, lambda loc, k=key: _flag(k), renamed, memo)
            _deep_merge(merged, layer)
    cached = memo.settings(merged)
    if cached is not None:
        return cached
    from pydantic import ValidationError

    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:  # each layer passed alone; only a combination can fail here
        raise ConfigError(_describe(exc, lambda loc: "settings")) from None
    memo.add_settings(merged, settings)
    memo.save()
    return settings


def _say_if_not_a_dir(shared: Path) -> None:
    """``.edgar`` that is a file (or anything but a directory): nothing in it can be read,
    which the person is told once per process, with the way out; never a traceback."""
    if not os.path.lexists(shared) or shared.is_dir():
        return
    line = (f"edgar: {shared} is not a directory, so this project's config, commands, skills "
            "and hooks in it are not read — move it aside or run `edgar doctor --repair`")
    if line not in _warned:
        _warned.add(line)
        print(line, file=sys.stderr)


def _read_config(path: Path) -> str:
    """The file's text; bytes that are not UTF-8 are a located error, not a traceback."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ConfigError(f"{path}:{line}: not valid UTF-8 (byte {data[exc.start]:#04x}); "
                          "save the file as UTF-8") from None


def _from_env(var: str, key: str, text: str) -> Any:
    if key in _ENV_INTS:
        try:
            return int(text.strip())
        except ValueError:
            raise ConfigError(f"{var}: expected an integer (got {text!r})") from None
    return text


def _in_file(path: Path, text: str) -> Callable[[str, str], tuple[str, str]]:
    def names(old: str, new: str) -> tuple[str, str]:
        return f"{_file_place(path, text, (old,))}: '{old}'", f"'{new}'"
    return names


def _flag(key: str) -> str:
    return "--" + key.replace("_", "-").replace(".", "-")


def _env_name(key: str) -> str:
    return next((var for var, k in ENV_KEYS.items() if k == key), "EDGAR_" + key.upper())


def _rename(layer: dict[str, Any],
            names: Callable[[str, str], tuple[str, str]]) -> dict[str, str]:
    """Move this layer's deprecated keys to their new names, saying so once per place;
    ``names(old, new)`` spells both. Returns {new: old} of the keys moved."""
    moved: dict[str, str] = {}
    for old, new in RENAMED.items():
        if old not in layer:
            continue
        said_old, said_new = names(old, new)
        if new in layer:
            raise ConfigError(f"{said_old} is the old name of {said_new}: keep only {said_new}")
        layer[new] = layer.pop(old)
        moved[new] = old
        line = (f"edgar: {said_old} is deprecated: use {said_new} (the same meaning: model "
                "calls one turn may make)")
        if line not in _warned:
            _warned.add(line)
            print(line, file=sys.stderr)
    return moved


def _check(data: dict[str, Any], place: Any, renamed: dict[str, str] | None = None,
           memo: SettingsCache | None = None) -> None:
    """Validate one layer alone, so an error names the file, variable or flag that holds it.
    A layer pydantic accepted before (the same data, the same schema) is not checked again."""
    if memo is not None and memo.known_valid(data):
        return
    from pydantic import ValidationError

    try:
        Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, place, renamed or {})) from None
    if memo is not None:
        memo.add_valid(data)


def _describe(exc: ValidationError, place: Any, renamed: dict[str, str] | None = None) -> str:
    error = exc.errors(include_url=False)[0]  # the first mistake, in input order
    loc = tuple(error["loc"])
    if loc and renamed and loc[0] in renamed:   # said under the name the person wrote
        loc = (renamed[str(loc[0])], *loc[1:])
    key = ".".join(str(part) for part in loc)
    where = place(loc)
    if error["type"] == "extra_forbidden":
        return f"{where}: unknown key '{key}'"
    if error["type"] == "value_error":   # a rule across fields: its own sentence says it all
        return f"{where}: '{key}': {str(error['msg']).removeprefix('Value error, ')}"
    return f"{where}: '{key}': {error['msg']} (got {error['input']!r})"


def _file_place(path: Path, text: str, loc: tuple) -> str:
    line = toml_line(text, tuple(str(part) for part in loc))
    return f"{path}:{line}" if line else str(path)


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
