"""Trust: project config that runs code or widens permissions waits for ``edgar trust``.

A cloned repository can commit ``.edgar/config.toml`` and ``.mcp.json``. Keys there that run
code or widen what edgar may do (``GATES``) take effect only once the person has trusted the
project (the convention of ``direnv allow`` and ``mise trust``); everything else in those
files applies at once. User-level config, ``EDGAR_*`` variables and flags are the person's
own and always apply.

Guarantees:
- ``trusted(root)`` is True only when the user dir holds a record for this root whose
  SHA-256 of every file in ``TRUSTED_FILES`` and of every folder in ``TRUSTED_DIRS`` (absent
  counts; a record made before a name was digested counts it absent) equals them now, and
  whose SHA-256 of every project file that config runs (``runs``: a hook's script, an MCP
  server's source, a verify script, a command's ``!`` script; ``edgar.config.runs``) equals
  them now, over the files named then and now, so a script that appears lapses it too:
  any change to them needs trust again (ADR-0073). ``lapse_reason`` names the files.
- ``covered(root)`` lists the files the record's config runs: the model's tools refuse
  them and the sandbox holds them read-only while a record exists.
- ``admit(root, data)`` returns the project layer without the gated keys when the project is
  not trusted; ``pending(root)`` lists what was held back (file, key, value, what it does).
- The record (``trust.json`` in the user dir, mode 0600) is replaced atomically; a damaged
  one (not a file, not UTF-8, not JSON, not a record) trusts nothing and is said in one line
  naming it, with the way out (move it aside or ``edgar doctor --repair``), never a traceback;
  ``trust`` and ``revoke`` refuse to overwrite it (``BrokenState``), so no other project's
  record in it is lost.
- Pure but for reading the files and the record; no network, no model.

Claude Code's project settings (``.claude/settings.json``, ``.claude/settings.local.json``)
are trusted files too: their hooks run, their ``permissions.allow`` and ``env`` apply, only in
a trusted project (ADR-0079).

Custom command folders (``TRUSTED_DIRS``) are part of the digest: a project command's
``!`cmd``` runs, and its ``allowed-tools`` apply, only in a trusted project (ADR-0064).
So is ``.claude/rules`` (Claude Code's rule files, ADR-0112): read only in a trusted
project, and a changed rule lapses trust like a changed command.

Reused by hooks and MCP servers (issue 15) and permission rules (issue 16): add a ``Gate``
for each new key that runs code, and call ``trusted(root)`` before starting anything the
project's files name.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgar.config import runs
from edgar.config.runs import RUNS
from edgar.tools.modes import UNASKED

# Claude Code's project settings configure hooks that run, rules and variables (ADR-0079)
TRUSTED_FILES: tuple[str, ...] = (".edgar/config.toml", ".mcp.json", ".claude/settings.json",
                                  ".claude/settings.local.json")
# custom command folders (cli/custom_commands.py): a body's !`cmd` runs, allowed-tools widen
TRUSTED_DIRS: tuple[str, ...] = (".edgar/commands", ".claude/commands", ".claude/rules")
RECORD = "trust.json"


@dataclass(frozen=True, slots=True)
class Gate:
    """A project-level key that needs trust when ``widens(value)``; ``says`` what it does."""

    key: str                                   # dotted; ``*`` matches one table name
    widens: Callable[[Any], bool]
    says: str


def _always(value: Any) -> bool:
    return True


GATES: tuple[Gate, ...] = (
    Gate("permission_mode", lambda v: v in UNASKED,
         "lets tools run without asking"),
    Gate("tools.allow_outside_root", lambda v: v is True,
         "lets tools read and write outside the project"),
    Gate("tools.add_dirs", lambda v: bool(v),
         "lets tools and commands read and write these directories outside the project"),
    Gate("sandbox.mode", lambda v: v == "off", "runs commands without the sandbox"),
    Gate("sandbox.network", lambda v: v is True, "lets commands reach the network"),
    Gate("sandbox.writable", lambda v: bool(v), "lets commands write outside the project"),
    Gate("sandbox.env", lambda v: bool(v), "passes more of your environment to commands"),
    Gate("verify.command", lambda v: bool(v), "runs this command after every turn that edits"),
    Gate("web.allow_hosts", lambda v: bool(v),
         "lets web_fetch reach these private or local addresses"),
    Gate("providers.*.base_url", _always, "sends your API key and prompts to this address"),
    Gate("providers.*.api_key_env", _always, "sends the value of this variable as the API key"),
    Gate("providers.*.headers", _always, "adds these headers to every provider request"),
    Gate("hooks", _always, "runs these commands on edgar's events"),
    Gate("mcp", _always, "starts these MCP servers"),
    Gate("permissions.allow", lambda v: bool(v), "lets these tool calls run without asking"),
)
GATED_KEYS: tuple[str, ...] = tuple(g.key for g in GATES)


@dataclass(frozen=True, slots=True)
class Held:
    """One gated setting a project file asks for."""

    file: str      # relative to the root
    key: str
    value: Any
    says: str

    def line(self) -> str:
        shown = json.dumps(self.value, ensure_ascii=False)
        shown = shown if len(shown) <= 120 else shown[:117] + "…"
        return f"{self.file}: {self.key} = {shown}  ({self.says})"


def user_dir() -> Path:
    from edgar.paths import user_dir as find

    return find()


def _record_path() -> Path:
    return user_dir() / RECORD


def _key(root: Path) -> str:
    return os.path.realpath(root)


def digests(root: Path) -> dict[str, str]:
    """SHA-256 of each trusted file as it is now ("absent" when missing), and of each
    command folder (every ``*.md`` under it: its path and bytes)."""
    out: dict[str, str] = {}
    for name in TRUSTED_FILES:
        try:
            out[name] = hashlib.sha256((root / name).read_bytes()).hexdigest()
        except FileNotFoundError:
            out[name] = "absent"
        except OSError as exc:
            out[name] = f"unreadable: {exc.strerror}"
    for name in TRUSTED_DIRS:
        out[name] = _tree_digest(root / name)
    return out


def _command_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.rglob("*.md") if p.is_file())
    except OSError:
        return []


def _tree_digest(directory: Path) -> str:
    if not directory.is_dir():
        return "absent"
    digest = hashlib.sha256()
    for path in _command_files(directory):
        try:
            with path.open("rb") as handle:   # streamed: a huge file costs no memory
                each = hashlib.file_digest(handle, "sha256").digest()
        except OSError as exc:
            return f"unreadable: {path.name}: {exc.strerror}"
        rel = path.relative_to(directory).as_posix().encode("utf-8", "surrogateescape")
        digest.update(len(rel).to_bytes(4, "big") + rel + each)
    return digest.hexdigest()


def _same(recorded: object, now: dict[str, str]) -> list[str]:
    """Names whose digest differs from the record (a name the record lacks was absent)."""
    files = recorded if isinstance(recorded, dict) else {}
    return [name for name, digest in now.items() if files.get(name, "absent") != digest]


WAY_OUT = "move it aside or run `edgar doctor --repair`"


def damage(path: Path) -> str | None:
    """Why the trust record at ``path`` cannot be read ("is not a file", "is not JSON …"),
    or None when it is absent or sound. Reads it; changes nothing."""
    return _parse(path)[1]


def _parse(path: Path) -> tuple[dict[str, Any], str | None]:
    if not os.path.lexists(path):
        return {}, None
    if path.is_symlink() or not path.is_file():
        return {}, "is not a file"
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        return {}, f"cannot be read ({exc.strerror or exc})"
    except UnicodeDecodeError:
        return {}, "is not UTF-8 text"
    except ValueError as exc:
        return {}, f"is not JSON ({exc})"
    if not isinstance(data, dict) or not isinstance(data.get("projects", {}), dict):
        return {}, "is not a trust record"
    return data.get("projects", {}), None


def _load_records() -> tuple[dict[str, Any], str | None]:
    """(records, problem): a missing file is no records; a damaged one is said, in one line
    with the way out, and trusts nothing."""
    path = _record_path()
    projects, why = _parse(path)
    if why is not None:
        return {}, f"{path} {why}, so nothing is trusted — {WAY_OUT}"
    return projects, None


def _records_to_change() -> dict[str, Any]:
    """The records, to be rewritten: a damaged file is never overwritten (the other
    projects' records in it would be lost); ``BrokenState`` says so instead."""
    from edgar.storage.broken import BrokenState

    path = _record_path()
    projects, why = _parse(path)
    if why is not None:
        raise BrokenState(path, why)
    return projects


def record(root: Path) -> dict[str, Any] | None:
    entry = _load_records()[0].get(_key(root))
    return entry if isinstance(entry, dict) else None


def _runs_now(root: Path, entry: dict[str, Any]) -> dict[str, str]:
    """The digest now of every file the config runs now or ran when trusted."""
    recorded = entry.get("runs")
    # named then (recorded) or run as a program now: a script that appears lapses trust,
    # a data file a command mentions (``test -f ok.txt``) appearing later does not
    names = runs.programs(root) | (set(recorded) if isinstance(recorded, dict) else set())
    return runs.digests(root, names)


def _lapsed(root: Path, entry: dict[str, Any] | None) -> list[str] | None:
    """Names that differ from the record (None when there is no usable record)."""
    if entry is None or not isinstance(entry.get("files"), dict):
        return None
    found = _same(entry["files"], digests(root))
    if found:
        return found   # the config itself changed: what it runs may be anything now
    return _same(entry.get("runs"), _runs_now(root, entry))


def trusted(root: Path) -> bool:
    """Whether this project's config files, and the project files they run, are exactly the
    ones the person trusted."""
    return _lapsed(root, record(root)) == []


def changed(root: Path) -> list[str]:
    """Trusted files (config, or a file it runs) that differ from what was trusted (empty
    when trusted or never trusted)."""
    return _lapsed(root, record(root)) or []


def lapse_reason(root: Path) -> str | None:
    """One sentence saying why trust lapsed, naming the files, or None when it has not."""
    entry = record(root)
    names = _lapsed(root, entry)
    if not names:
        return None
    assert entry is not None
    if "runs" not in entry and not _same(entry["files"], digests(root)):
        return (f"trust lapsed: edgar now covers the files this project's config runs "
                f"({', '.join(names)}), which were not part of your trust; run `edgar trust` "
                f"in {root} again")
    return (f"trust lapsed: {', '.join(names)} changed since you trusted this project; run "
            f"`edgar trust` in {root} again")


def covered(root: Path) -> dict[str, list[str]]:
    """The project files trusted config runs (from the record, so trust alone grants them
    protection) -> what runs them; empty when the project was never trusted."""
    entry = record(root)
    recorded = entry.get("runs") if entry is not None else None
    if not isinstance(recorded, dict) or not recorded:
        return {}
    now = runs.find(root)
    return {name: now.get(name, ["trusted config"]) for name in sorted(recorded)}


def _write_records(projects: dict[str, Any]) -> None:
    path = _record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{RECORD}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"version": 1, "projects": projects}, handle, indent=1, sort_keys=True)
    os.replace(tmp, path)


def trust(root: Path) -> dict[str, str]:
    """Record the config files and the project files they run as they are now; returns
    their digests (the files it runs after the config files)."""
    projects = _records_to_change()
    files = digests(root)
    ran = runs.digests(root, runs.find(root))
    projects[_key(root)] = {"files": files, "runs": ran,
                            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    _write_records(projects)
    return {**files, **ran}


def revoke(root: Path) -> bool:
    """Forget this project's record; True when there was one."""
    projects = _records_to_change()
    if projects.pop(_key(root), None) is None:
        return False
    _write_records(projects)
    return True


def _lookup(data: Any, parts: list[str], prefix: str = "") -> list[tuple[str, Any]]:
    if not parts:
        return [(prefix, data)]
    if not isinstance(data, dict):
        return []
    head, rest = parts[0], parts[1:]
    names = list(data) if head == "*" else ([head] if head in data else [])
    found: list[tuple[str, Any]] = []
    for name in names:
        found += _lookup(data[name], rest, f"{prefix}.{name}" if prefix else str(name))
    return found


def gated(data: dict[str, Any], file: str = ".edgar/config.toml") -> list[Held]:
    """The settings in ``data`` (one project file, parsed) that need trust."""
    held: list[Held] = []
    for gate in GATES:
        for key, value in _lookup(data, gate.key.split(".")):
            if gate.widens(value):
                held.append(Held(file, key, value, gate.says))
    return held


def strip(data: dict[str, Any], held: list[Held]) -> dict[str, Any]:
    """A copy of ``data`` without the held keys (empty tables dropped)."""
    out = copy.deepcopy(data) if held else data
    for item in held:
        *parents, leaf = item.key.split(".")
        node = out
        for part in parents:
            node = node.get(part, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node.pop(leaf, None)
    return out


def admit(root: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The project layer as it applies: whole when trusted, without gated keys when not."""
    held = gated(data)
    if not held or trusted(root):
        return data
    return strip(data, held)


def pending(root: Path) -> list[Held]:
    """Every gated setting this project's files ask for that is not trusted now."""
    if trusted(root):
        return []
    return wanted(root)


def wanted(root: Path) -> list[Held]:
    """Every gated setting the project's files ask for, trusted or not (for ``edgar trust``)."""
    held: list[Held] = []
    config = root / ".edgar" / "config.toml"
    if config.is_file():
        import tomllib

        # the config loader reports a broken file, with its line
        with contextlib.suppress(tomllib.TOMLDecodeError, OSError, UnicodeDecodeError):
            held += gated(tomllib.loads(config.read_text(encoding="utf-8")))
    mcp = root / ".mcp.json"
    if mcp.is_file():
        try:
            servers = json.loads(mcp.read_text(encoding="utf-8")).get("mcpServers", {})
        except (ValueError, OSError, AttributeError):
            servers = {}
        if isinstance(servers, dict):
            for name, spec in servers.items():
                command = spec if not isinstance(spec, dict) else " ".join(
                    str(x) for x in [spec.get("command", spec.get("url", "")),
                                     *(spec.get("args") or [])] if x)
                held.append(Held(".mcp.json", f"mcpServers.{name}", command,
                                 "starts this MCP server"))
    return held + _claude_wanted(root) + _commands_wanted(root)


def _claude_wanted(root: Path) -> list[Held]:
    """What Claude Code's project settings files would run (hooks), allow (allow rules) or
    pass to commands (env)."""
    from edgar.config.claude_settings import paths, read_file

    held: list[Held] = []
    for scope, path in paths(root, root)[1:]:   # the project's two, not the user's
        file = read_file(scope, path, [])   # the session reports a broken file
        if file is None:
            continue
        name = file.name
        hooks = file.data.get("hooks")
        for event, groups in (hooks.items() if isinstance(hooks, dict) else ()):
            for group in groups if isinstance(groups, list) else ():
                handlers = group.get("hooks") if isinstance(group, dict) else None
                for handler in handlers if isinstance(handlers, list) else ():
                    if isinstance(handler, dict):
                        what = handler.get("command", handler.get("url", handler))
                        held.append(Held(name, f"hooks.{event}", what,
                                         f"runs this on {event}"))
        permissions = file.data.get("permissions")
        allow = permissions.get("allow") if isinstance(permissions, dict) else None
        if allow:
            held.append(Held(name, "permissions.allow", allow,
                             "lets these tool calls run without asking"))
        env = file.data.get("env")
        if env:
            held.append(Held(name, "env", sorted(env) if isinstance(env, dict) else env,
                             "sets these variables for every command"))
    return held


def _commands_wanted(root: Path) -> list[Held]:
    """What each project command file would run (``!`cmd```) or allow (``allowed-tools``)."""
    from edgar.skills.loader import SkillError, parse_front_matter

    held: list[Held] = []
    for folder in TRUSTED_DIRS:
        for path in _command_files(root / folder):
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            name, file = f"/{path.stem}", path.relative_to(root).as_posix()
            meta: dict[str, Any] = {}
            if text.lstrip("\ufeff").startswith("---"):
                # the command loader reports a broken file, with its line
                with contextlib.suppress(SkillError):
                    meta = parse_front_matter(text)[0]
            runs = RUNS.findall(text)
            if runs:
                held.append(Held(file, name, runs, f"runs these commands when you type {name}"))
            if meta.get("allowed-tools"):
                held.append(Held(file, f"{name} allowed-tools", meta["allowed-tools"],
                                 f"lets these tool calls run unasked during {name}"))
    return held


def problem() -> str | None:
    """A damaged trust record, said once by the caller (None when all is well)."""
    return _load_records()[1]
