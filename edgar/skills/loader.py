"""SKILL.md files: YAML front matter (``name``, ``description``, optional ``keywords``) + body.

Guarantees:
- The shape is Claude Code's and Codex's, so their skills load unchanged: unknown keys
  (``license``, ``allowed-tools``, nested ``metadata:`` maps, …) are accepted and ignored.
- The front matter is read by a small YAML subset parser, not PyYAML: plain and quoted
  scalars, ``[a, b]`` flow lists, ``- item`` block lists, ``|``/``>`` block scalars, indented
  continuation lines and nested maps.
- A malformed file never raises out of ``discover``: it is skipped and reported as a
  ``SkillWarning`` located at ``file:line``.
- Discovery order decides which of two same-named skills wins: the project's
  ``.edgar/skills`` first, then (when enabled) the project's ``.claude/skills``, then the
  user directory's ``skills``, then (when enabled) ``~/.claude/skills``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Skill", "SkillError", "SkillWarning", "parse_front_matter", "parse_skill", "load_skill",
           "discover", "skill_dirs"]

MAX_BYTES = 256_000   # a SKILL.md larger than this is not a skill, it is a book
_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*)|\s*)$")


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    keywords: tuple[str, ...]
    body: str
    path: Path | None = None


@dataclass(frozen=True, slots=True)
class SkillWarning:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class SkillError(ValueError):
    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


# --- the YAML subset ----------------------------------------------------------------------

def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _scalar(raw: str, number: int) -> Any:
    text = raw.strip()
    if not text:
        return ""
    if text[0] in "\"'":
        quote = text[0]
        end = _closing_quote(text, quote)
        if end < 0:
            raise SkillError(number, f"unterminated {quote}-quoted string")
        rest = text[end + 1:].strip()
        if rest and not rest.startswith("#"):
            raise SkillError(number, f"unexpected text after the quoted string: {rest[:30]!r}")
        inner = text[1:end]
        if quote == "'":
            return inner.replace("''", "'")
        return (inner.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t")
                .replace("\\\\", "\\"))
    if text[0] == "[":
        if not text.rstrip().endswith("]"):
            raise SkillError(number, "a [list] must close on the same line")
        items = _split_flow(text[1:-1], number)
        return [_scalar(item, number) for item in items if item.strip()]
    if text[0] == "{":
        raise SkillError(number, "{flow maps} are not supported; use indented keys")
    return re.sub(r"\s+#.*$", "", text)  # a plain scalar's trailing comment


def _closing_quote(text: str, quote: str) -> int:
    i = 1
    while i < len(text):
        ch = text[i]
        if quote == '"' and ch == "\\":
            i += 2
            continue
        if ch == quote:
            if quote == "'" and text[i + 1:i + 2] == "'":
                i += 2  # '' is an escaped quote inside '…'
                continue
            return i
        i += 1
    return -1


def _split_flow(inner: str, number: int) -> list[str]:
    items, current, quote = [], [], ""
    for ch in inner:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            current.append(ch)
        elif ch == ",":
            items.append("".join(current))
            current = []
        elif ch in "[]{}":
            raise SkillError(number, "nested lists are not supported")
        else:
            current.append(ch)
    if quote:
        raise SkillError(number, "unterminated quoted item in a [list]")
    items.append("".join(current))
    return items


def _block(lines: list[tuple[int, str]], start: int, indent: int) -> tuple[Any, int]:
    """Parse the lines from ``start`` that are indented deeper than ``indent``."""
    i = start
    while i < len(lines) and not lines[i][1].strip():
        i += 1
    if i >= len(lines) or _indent(lines[i][1]) <= indent:
        return "", i
    child = _indent(lines[i][1])
    if lines[i][1].lstrip().startswith("- ") or lines[i][1].strip() == "-":
        items = []
        while i < len(lines) and (not lines[i][1].strip() or _indent(lines[i][1]) >= child):
            number, line = lines[i]
            if not line.strip():
                i += 1
                continue
            stripped = line.strip()
            if _indent(line) != child or not (stripped.startswith("- ") or stripped == "-"):
                raise SkillError(number, "expected a '- item' line in this list")
            items.append(_scalar(stripped[1:], number))
            i += 1
        return items, i
    return _mapping(lines, i, child)


def _mapping(lines: list[tuple[int, str]], start: int, indent: int) -> tuple[dict[str, Any], int]:
    out: dict[str, Any] = {}
    i = start
    while i < len(lines):
        number, line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            i += 1
            continue
        here = _indent(line)
        if here < indent:
            break
        if here > indent:
            raise SkillError(number, "unexpected indentation")
        match = _KEY.match(line.strip())
        if not match:
            raise SkillError(number, f"expected 'key: value', got {line.strip()[:40]!r}")
        key, value = match.group(1), (match.group(2) or "").strip()
        i += 1
        if value in ("|", ">", "|-", ">-", "|+", ">+"):
            out[key], i = _block_scalar(lines, i, indent, folded=value[0] == ">")
        elif value == "" or value.startswith("#"):
            out[key], i = _block(lines, i, indent)
        else:
            scalar = _scalar(value, number)
            if isinstance(scalar, str) and value[0] not in "\"'[":
                # a plain scalar may continue on deeper-indented lines (folded with spaces)
                while i < len(lines) and lines[i][1].strip() and _indent(lines[i][1]) > indent:
                    scalar += " " + lines[i][1].strip()
                    i += 1
            out[key] = scalar
    return out, i


def _block_scalar(lines: list[tuple[int, str]], start: int, indent: int,
                  folded: bool) -> tuple[str, int]:
    body: list[str] = []
    i = start
    while i < len(lines) and (not lines[i][1].strip() or _indent(lines[i][1]) > indent):
        body.append(lines[i][1])
        i += 1
    while body and not body[-1].strip():
        body.pop()
    cut = min((_indent(b) for b in body if b.strip()), default=0)
    text = [b[cut:] for b in body]
    if folded:
        return re.sub(r"(?<!\n)\n(?!\n)", " ", "\n".join(text)).strip(), i
    return "\n".join(text).strip(), i


def parse_front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """(front matter, body, line number where the body starts). Raises ``SkillError``."""
    text = text.lstrip("\ufeff")
    raw = text.split("\n")
    if not raw or raw[0].strip() != "---":
        raise SkillError(1, "no front matter: the file must start with a '---' line")
    for end in range(1, len(raw)):
        if raw[end].strip() in ("---", "..."):
            break
    else:
        raise SkillError(1, "the front matter opened on line 1 is never closed with '---'")
    lines = [(n + 1, raw[n].rstrip("\r").replace("\t", "    ")) for n in range(1, end)]
    meta, _ = _mapping(lines, 0, 0)
    body = "\n".join(raw[end + 1:]).strip("\n")
    return meta, body, end + 2


# --- skills -------------------------------------------------------------------------------

def _line_of(text: str, key: str) -> int:
    for number, line in enumerate(text.split("\n"), 1):
        if re.match(rf"^{re.escape(key)}\s*:", line):
            return number
    return 1


def parse_skill(text: str, path: Path | None = None) -> Skill:
    """A Skill from a SKILL.md's text; raises ``SkillError`` (with its line) when malformed."""
    meta, body, _ = parse_front_matter(text)
    folder = path.parent.name if path is not None else ""
    name = meta.get("name", folder)
    if not isinstance(name, str) or not name.strip():
        raise SkillError(_line_of(text, "name"), "'name' must be a non-empty string")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(_line_of(text, "description") if "description" in meta else 1,
                         "'description' is required and must be a non-empty string")
    keywords = meta.get("keywords", [])
    if isinstance(keywords, str):  # "a, b, c" is how some people write it
        keywords = [k for k in (p.strip() for p in keywords.split(",")) if k]
    if not isinstance(keywords, list) or not all(isinstance(k, str) for k in keywords):
        raise SkillError(_line_of(text, "keywords"), "'keywords' must be a list of strings")
    return Skill(name.strip(), " ".join(description.split()), tuple(k.strip() for k in keywords),
                 body, path)


def load_skill(path: Path) -> Skill:
    """Read and parse one SKILL.md; raises ``SkillError`` or ``OSError``."""
    data = path.read_bytes()[:MAX_BYTES]
    return parse_skill(data.decode("utf-8", errors="replace"), path)


def skill_dirs(root: Path, user_dir: Path | None, claude: bool = False,
               home: Path | None = None) -> list[Path]:
    """Folders searched for ``<name>/SKILL.md``, highest precedence first."""
    dirs = [root / ".edgar" / "skills"]
    if claude:
        dirs.append(root / ".claude" / "skills")
    if user_dir is not None:
        dirs.append(user_dir / "skills")
    if claude:
        dirs.append((home or Path.home()) / ".claude" / "skills")
    return dirs


def discover(dirs: list[Path]) -> tuple[list[Skill], list[SkillWarning]]:
    """Every loadable skill under ``dirs`` (first name wins) and a warning per bad file."""
    skills: dict[str, Skill] = {}
    warnings: list[SkillWarning] = []
    for folder in dirs:
        try:
            candidates = sorted(folder.glob("*/SKILL.md"))
        except OSError:
            continue
        for path in candidates:
            try:
                skill = load_skill(path)
            except SkillError as exc:
                warnings.append(SkillWarning(path, exc.line, exc.message))
                continue
            except OSError as exc:
                warnings.append(SkillWarning(path, 1, f"cannot read it ({exc.strerror or exc})"))
                continue
            if skill.name in skills:
                first = skills[skill.name].path
                warnings.append(SkillWarning(path, 1, f"skill {skill.name!r} is already defined "
                                        f"in {first}; this one is ignored"))
                continue
            skills[skill.name] = skill
    return list(skills.values()), warnings
