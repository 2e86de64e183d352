"""Which MCP servers a session has: Claude Code's ``.mcp.json`` and ``~/.claude.json``, and
``[mcp.servers.NAME]``.

Guarantees:
- Sources, later wins for one name: Claude Code's user servers (``~/.claude.json``'s
  top-level ``mcpServers``, ``$CLAUDE_CONFIG_DIR/.claude.json`` when that is set) < user
  ``config.toml`` < project ``.edgar/config.toml`` < project ``.mcp.json`` < Claude Code's
  local servers for this project (``~/.claude.json``'s ``projects[<the project's absolute
  path>].mcpServers``), as Claude Code orders user < project < local. Both ``~/.claude.json``
  sources are the person's own (origin ``user``: no trust needed). The file is often large
  and holds Claude Code's other state: it is parsed only when a non-empty ``mcpServers``
  appears in it, and nothing else of it is read. Each ``ServerSpec`` says where it came from
  (``origin`` user or
  project, ``where`` file:line) so project servers can wait for trust.
- ``${VAR}`` and ``${VAR:-default}`` expand in command, args, env, url and headers (Claude
  Code's five fields); an unset variable without a default refuses that one server.
- ``type`` is ``stdio``, ``http`` (``streamable-http`` is the same) or ``sse``; ``network``
  and ``writable`` are edgar's per-server sandbox opt-ins (ADR-0102).
- A broken ``.mcp.json`` (not JSON, not an object, a server entry with wrong types) is one
  located problem per mistake; every other server still loads. A key edgar does not read
  (Claude Code's ``"timeout": 30000``) is one located warning naming it, and the server
  loads without it. Nothing here imports the SDK or starts anything.
- ``--mcp-config`` values (``read_flag_config``: a file or the JSON itself, in ``.mcp.json``'s
  shape) are the person's own: their servers win over every source for one name, and with
  ``--strict-mcp-config`` they are the only servers (``FlagServers``). Any mistake that would
  cost one of them a server is a ``FlagConfigError`` naming the file (or the value's place)
  and line and the server, raised before anything starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from edgar.config.lines import json_line, toml_line
from edgar.mcp.expand import expand

MCP_JSON = ".mcp.json"
ENTRY_KEYS = {"type", "command", "args", "env", "url", "headers", "network", "writable"}
Transport = Literal["stdio", "http", "sse"]
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class ServerSpec:
    """One server as configured, variables expanded."""

    name: str
    origin: Literal["user", "project"]
    where: str                                  # file:line, for messages
    transport: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    network: bool = False                       # this server's sandbox may reach the network
    writable: tuple[str, ...] = ()              # more dirs its sandbox may write


def _from_entry(name: str, entry: Any, origin: Literal["user", "project"], where: str,
                environ: Mapping[str, str], problems: list[str]) -> ServerSpec | None:
    """A ServerSpec from one entry (dict from JSON or TOML), or None with a problem said."""
    if not isinstance(entry, dict):
        problems.append(f"{where}: mcp server {name!r}: expected an object")
        return None
    if not NAME.match(name):
        problems.append(f"{where}: mcp server {name!r}: a name is 1-64 letters, digits, "
                        "'_', '-' or '.'")
        return None
    unknown = sorted(set(entry) - ENTRY_KEYS)
    if unknown:
        # Claude Code's own extras (``timeout``…) must not cost the person the server
        problems.append(f"{where}: mcp server {name!r}: edgar does not read "
                        f"{', '.join(repr(k) for k in unknown)}: ignored (edgar reads "
                        f"{', '.join(sorted(ENTRY_KEYS))})")
        entry = {k: v for k, v in entry.items() if k in ENTRY_KEYS}
    said = entry.get("type") or ("http" if "url" in entry and "command" not in entry else "stdio")
    if said not in ("stdio", "http", "streamable-http", "sse"):
        problems.append(f"{where}: mcp server {name!r}: type {said!r} is not supported "
                        "(stdio, http or sse)")
        return None
    kind: Transport = "sse" if said == "sse" else "stdio" if said == "stdio" else "http"
    wrong = [k for k, want in (("command", str), ("url", str), ("args", list), ("env", dict),
                               ("headers", dict), ("network", bool), ("writable", list))
             if k in entry and not isinstance(entry[k], want)]
    wrong += [k for k in ("args", "env", "headers", "writable") if k in entry and isinstance(
              entry[k], (list, dict)) and not all(isinstance(v, str) for v in (
                  entry[k] if isinstance(entry[k], list) else entry[k].values()))]
    if wrong:
        problems.append(f"{where}: mcp server {name!r}: wrong type for "
                        f"{', '.join(sorted(set(wrong)))} (command and url are strings, args "
                        "and writable lists of strings, env and headers objects of strings, "
                        "network true or false)")
        return None
    missing: list[str] = []
    command = expand(entry.get("command", ""), environ, missing)
    args = tuple(expand(a, environ, missing) for a in entry.get("args", []))
    env = {k: expand(v, environ, missing) for k, v in entry.get("env", {}).items()}
    url = expand(entry.get("url", ""), environ, missing)
    headers = {k: expand(v, environ, missing) for k, v in entry.get("headers", {}).items()}
    if missing:
        problems.append(f"{where}: mcp server {name!r}: environment variable "
                        f"{', '.join(missing)} is not set and has no default "
                        "(write ${NAME:-default} for one)")
        return None
    if kind == "stdio" and not command:
        problems.append(f"{where}: mcp server {name!r}: a stdio server needs \"command\"")
        return None
    if kind != "stdio" and not url.startswith(("http://", "https://")):
        problems.append(f"{where}: mcp server {name!r}: an {kind} server needs an http(s) "
                        "\"url\"")
        return None
    return ServerSpec(name, origin, where, kind, command, args, env, url, headers,
                      network=bool(entry.get("network", False)),
                      writable=tuple(entry.get("writable", ())))


def read_mcp_json(path: Path, environ: Mapping[str, str],
                  problems: list[str]) -> list[ServerSpec]:
    """The servers of one ``.mcp.json`` (project origin); problems appended, never raised."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"{path}: cannot read it ({type(exc).__name__})")
        return []
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); "
                        "no server from this file was started")
        return []
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        problems.append(f"{path}:1: expected {{\"mcpServers\": {{NAME: {{…}}}}}}")
        return []
    out = []
    for name, entry in servers.items():
        where = f"{path}:{json_line(text, ('mcpServers', str(name)))}"
        spec = _from_entry(str(name), entry, "project", where, environ, problems)
        if spec is not None:
            out.append(spec)
    return out


@dataclass(frozen=True)
class FlagServers:
    """The servers of ``--mcp-config`` (ADR-0114): the person's own (origin ``user``, no trust
    needed), winning over every other source for one name; ``strict``
    (``--strict-mcp-config``): no other source is read. ``warnings`` are said at start."""

    specs: tuple[ServerSpec, ...] = ()
    strict: bool = False
    warnings: tuple[str, ...] = ()


class FlagConfigError(Exception):
    """A ``--mcp-config`` value edgar cannot use; ``str()`` is located (file:line or the
    value's place on the command line, and the server's key)."""


def read_flag_config(given: str, index: int, environ: Mapping[str, str],
                     warnings: list[str]) -> list[ServerSpec]:
    """One ``--mcp-config`` value: a file holding Claude Code's ``.mcp.json`` shape, or that
    JSON itself (a value starting with ``{``). A problem that costs a server raises
    ``FlagConfigError``; an ignored key is appended to ``warnings``."""
    if given.lstrip().startswith("{"):
        text, label = given, f"--mcp-config #{index} (JSON)"
    else:
        path = Path(given).expanduser()
        label = str(path)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FlagConfigError(f"--mcp-config {given}: no such file") from None
        except IsADirectoryError:
            raise FlagConfigError(f"--mcp-config {given}: a directory, not a JSON file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise FlagConfigError(f"--mcp-config {given}: cannot read it "
                                  f"({type(exc).__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FlagConfigError(f"{label}:{exc.lineno}:{exc.colno}: not valid JSON "
                              f"({exc.msg})") from None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise FlagConfigError(f"{label}:1: expected {{\"mcpServers\": {{NAME: {{…}}}}}}")
    out = []
    for name, entry in servers.items():
        where = f"{label}:{json_line(text, ('mcpServers', str(name)))}"
        said: list[str] = []
        spec = _from_entry(str(name), entry, "user", where, environ, said)
        if spec is None:
            raise FlagConfigError("; ".join(said))
        warnings.extend(said)
        out.append(spec)
    return out


def _toml_names(path: Path) -> tuple[str, set[str]]:
    """(text, server names) of one config.toml's ``[mcp.servers]``; empty when unreadable."""
    if not path.is_file():
        return "", set()
    import tomllib

    try:
        text = path.read_text(encoding="utf-8")
        servers = tomllib.loads(text).get("mcp", {}).get("servers", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError):
        return "", set()  # config.load has already said what is wrong with this file
    return text, set(servers) if isinstance(servers, dict) else set()


def load_servers(root: Path, user_dir: Path, configured: Mapping[str, Any],
                 environ: Mapping[str, str], problems: list[str],
                 claude_json: Path | None = None) -> list[ServerSpec]:
    """Every server: ``~/.claude.json``'s user servers, ``configured`` (the merged
    ``[mcp.servers]`` of the settings), ``.mcp.json``, then ``~/.claude.json``'s servers for
    this project, a later source winning for one name, in a stable order."""
    if claude_json is None:
        from edgar.paths import claude_json as find

        claude_json = find()
    theirs, local = read_claude_json(claude_json, root, environ, problems)
    project_toml = root / ".edgar" / "config.toml"
    user_toml = user_dir / "config.toml"
    project_text, project_names = _toml_names(project_toml)
    user_text, _ = _toml_names(user_toml)
    found: dict[str, ServerSpec] = {spec.name: spec for spec in theirs}
    for name, entry in configured.items():
        in_project = name in project_names
        path, text = (project_toml, project_text) if in_project else (user_toml, user_text)
        where = f"{path}:{toml_line(text, ('mcp', 'servers', name)) or 1}" if text else "settings"
        # the settings model keeps the keys it does not know (extra="allow"), said below
        raw = entry if isinstance(entry, dict) else {
            k: v for k, v in entry.model_dump(exclude_unset=True).items() if v is not None}
        spec = _from_entry(name, raw, "project" if in_project else "user", where, environ,
                           problems)
        if spec is not None:
            found[name] = spec
    for spec in [*read_mcp_json(root / MCP_JSON, environ, problems), *local]:
        found[spec.name] = spec
    return list(found.values())


def any_configured(root: Path, settings_servers: Mapping[str, Any],
                   claude_json: Path | None = None) -> bool:
    """Cheap: is there anything to load at all (no SDK, no parsing when there is not)?"""
    if settings_servers or (root / MCP_JSON).is_file():
        return True
    if claude_json is None:
        from edgar.paths import claude_json as find

        claude_json = find()
    return _claude_json_bytes(claude_json) is not None


# a non-empty "mcpServers" object; Claude Code writes an empty one into every project entry
_SOME_SERVERS = re.compile(rb'"mcpServers"\s*:\s*\{\s*"')


def _claude_json_bytes(path: Path) -> bytes | None:
    """The file's bytes when it names at least one server, else None (absent or none)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    return raw if _SOME_SERVERS.search(raw) else None


def read_claude_json(path: Path, root: Path, environ: Mapping[str, str],
                     problems: list[str]) -> tuple[list[ServerSpec], list[ServerSpec]]:
    """(user servers, this project's local servers) of Claude Code's ``~/.claude.json``;
    a file that is not JSON is one located problem, an entry edgar cannot use one each."""
    raw = _claude_json_bytes(path)
    if raw is None:
        return [], []
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        problems.append(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); no "
                        "MCP server from it was started")
        return [], []
    if not isinstance(data, dict):
        return [], []
    lines = text.splitlines()

    def servers(table: Any, start: int) -> list[ServerSpec]:
        out = []
        for name, entry in (table.items() if isinstance(table, dict) else ()):
            line = next((n + 1 for n in range(start, len(lines))
                         if json.dumps(name) in lines[n]), start + 1)
            spec = _from_entry(str(name), entry, "user", f"{path}:{line}", environ, problems)
            if spec is not None:
                out.append(spec)
        return out

    top = next((n for n, row in enumerate(lines) if row.startswith(('  "mcpServers"',
                                                                    '{"mcpServers"'))), 0)
    user = servers(data.get("mcpServers"), top)
    projects = data.get("projects")
    local: list[ServerSpec] = []
    if isinstance(projects, dict):
        import os

        keys = dict.fromkeys([str(root), os.path.realpath(root)])
        for key in keys:
            entry = projects.get(key)
            if isinstance(entry, dict) and entry.get("mcpServers"):
                at = next((n for n, row in enumerate(lines) if json.dumps(key) in row), 0)
                local = servers(entry["mcpServers"], at)
                break
    return user, local
