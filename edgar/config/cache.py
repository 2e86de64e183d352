"""The settings cache: what pydantic accepted before, so a warm start never imports it (ADR-0081).

Validation is a pure function of two things: the data of a layer (or of all layers merged)
and the schema (the declared sections, edgar.declared, pydantic itself). This file remembers
its results in ``<user dir>/settings-cache.json``:

- ``valid``: digests of layer data pydantic accepted alone (``_check`` skips those);
- ``settings``: for a digest of the merged data, the settings pydantic made of it, as JSON.

Guarantees:
- A hit needs the very same data: the digest is SHA-256 of the layer as JSON in its own key
  order (a TOML date, or anything else JSON cannot say, is never cached), under the very
  same schema fingerprint (edgar's version and the size and mtime of every file that declares
  or builds the schema, pydantic's and pydantic_core's included). A changed file, variable or
  flag is new data: pydantic checks it, so a mistake is still a located error.
- The file is edgar's alone: 0600 in the user dir (read-only to every sandboxed command),
  written whole to a temporary file and renamed. One that cannot be read as this format
  (truncated, hand-edited, another version, an unknown class) is ignored and rebuilt; one
  that cannot be written (a read-only dir) is skipped. Neither is ever an error.
- Bounded: the newest ``KEEP_VALID`` layers and ``KEEP_SETTINGS`` merged results.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from edgar.declared import Model, results
from edgar.declared.results import CacheFormatError, decode, digest, encode

__all__ = ["FILE", "SettingsCache", "decode", "digest", "encode", "fingerprint"]

FILE = "settings-cache.json"
KEEP_VALID = 64
KEEP_SETTINGS = 16
# what the schema is made of, besides edgar/config/ itself: the declared-model machinery and
# the permission modes' Literal
_SCHEMA_MODULES = ("edgar.declared", "edgar.declared.pydantic_models", "edgar.declared.results",
                   "edgar.tools.modes")


def fingerprint() -> str:
    """What a cached result was checked against: edgar's version and the stat of every
    source file of the schema, pydantic's entry points included (an upgrade rewrites them)."""
    return results.fingerprint([*sorted(str(p) for p in Path(__file__).parent.glob("*.py")),
                                *(results.module_file(name) for name in _SCHEMA_MODULES)])


class SettingsCache:
    """One load's view of the cache file; ``save`` writes what this load added."""

    def __init__(self, path: Path, schema: str, valid: list[str],
                 settings: dict[str, Any]):
        self.path = path
        self.schema = schema
        self.valid = valid
        self.results = settings
        self.changed = False

    @classmethod
    def open(cls, user_dir: Path) -> SettingsCache:
        path = user_dir / FILE
        schema = fingerprint()
        data = results.read(path, schema)
        if (data is not None and isinstance(data.get("valid"), list)
                and all(isinstance(v, str) for v in data["valid"])
                and isinstance(data.get("settings"), dict)):
            return cls(path, schema, data["valid"], data["settings"])
        return cls(path, schema, [], {})

    def known_valid(self, layer: dict[str, Any]) -> bool:
        key = digest(layer)
        return key is not None and key in self.valid

    def add_valid(self, layer: dict[str, Any]) -> None:
        key = digest(layer)
        if key is not None and key not in self.valid:
            self.valid = [*self.valid, key][-KEEP_VALID:]
            self.changed = True

    def settings(self, merged: dict[str, Any]) -> Any:
        """The settings pydantic made of ``merged`` before, fresh (callers may assign to
        them); None on a miss or an entry this edgar cannot read."""
        key = digest(merged)
        if key is None or key not in self.results:
            return None
        try:
            return decode(self.results[key])
        except (CacheFormatError, TypeError, ValueError):
            self.results = {k: v for k, v in self.results.items() if k != key}
            self.changed = True
            return None

    def add_settings(self, merged: dict[str, Any], settings: Model) -> None:
        key = digest(merged)
        if key is None:
            return
        results = {k: v for k, v in self.results.items() if k != key}
        results[key] = encode(settings)
        self.results = dict(list(results.items())[-KEEP_SETTINGS:])
        self.changed = True

    def save(self) -> None:
        """Write the file whole (temporary file, rename), 0600; skipped when it cannot be."""
        if self.changed and results.write(self.path, self.schema,
                                          {"valid": self.valid, "settings": self.results}):
            self.changed = False
