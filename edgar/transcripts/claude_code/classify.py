"""Who wrote a Claude Code record: the person, or the client.

Pure: a record (already parsed JSON) in, a ``Verdict`` out; never raises, for
any value of any field.

Guarantees (the rules, in the order they apply to a top-level ``user`` record):
1. sidechain (``isSidechain``, an ``agentId``, or a sidechain file) -> client ``sidechain``;
2. a ``toolUseResult`` field or a ``tool_result`` block -> client ``tool-result``;
3. ``isMeta`` -> ``meta``; ``isCompactSummary``/``isVisibleInTranscriptOnly``
   -> ``compact-summary``; ``turnCompanion`` -> ``companion``;
   ``verifiedSlackHumanTurn`` -> ``slack`` (both excluded by the CLI's own
   "human turn" predicate, so excluded here too);
4. an ``origin`` field decides alone: ``origin.kind == "human"`` is typed,
   anything else is the client's, labelled with that kind. The text is never
   used to overrule the marker;
5. no ``origin`` (older versions): ``promptSource == "system"`` is the client's;
   otherwise the marker-free text rules of ``text`` decide.
Queued text (``queue-operation`` ``enqueue`` content, ``attachment``
``queued_command`` prompt) goes through ``classify_queued`` with the same
origin rule. Any truthy flag counts: an odd value is treated as the client's.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import message_text, text_parts

# Block types whose presence makes a user record a tool result.
_RESULT_BLOCKS = frozenset({"tool_result", "web_search_tool_result", "advisor_tool_result"})


@dataclass(frozen=True)
class Verdict:
    typed: bool
    kind: str  # "typed" or the client kind
    text: str  # typed text, or the client's text (evidence)
    source: str = ""  # user | command | bash | enqueue | queued_command
    queued: bool = False  # typed while the agent worked


def _client(kind: str, text: str = "") -> Verdict:
    return Verdict(False, kind, text)


# The two verdicts most records get, built once (a frozen dataclass costs per call).
_SIDECHAIN = _client("sidechain", "")
_TOOL_RESULT = _client("tool-result", "")


def _origin_kind(origin: object) -> str:
    if isinstance(origin, dict):
        kind = origin.get("kind")
        if isinstance(kind, str) and kind:
            return kind[:64]  # a label, not content
    return "origin"  # present but unreadable: the client's, conservatively


def _raw(content: object) -> str:
    return "\n".join(text_parts(content))


def _content(record: dict) -> object:
    message = record.get("message")
    return message.get("content") if isinstance(message, dict) else None


def _has_result_block(content: object) -> bool:
    if not isinstance(content, list):
        return False
    return any(isinstance(b, dict) and isinstance(b.get("type"), str)
               and b["type"] in _RESULT_BLOCKS for b in content)


def _from_text(content: object, *, marked: bool, queued: bool,
               source: str | None = None) -> Verdict:
    tv = message_text(content, marked=marked)
    if tv.kind != "typed":
        return _client(tv.kind, tv.text)
    return Verdict(True, "typed", tv.text, source or tv.source, queued)


def classify(record: object, *, sidechain: bool = False) -> Verdict | None:
    """Classify a top-level ``user`` record; None for any other record."""
    if not isinstance(record, dict) or record.get("type") != "user":
        return None
    content = _content(record)
    if sidechain or record.get("isSidechain") or record.get("agentId"):
        # A subagent's record can carry ``agentId`` without ``isSidechain``: either
        # marks text the parent model wrote for it.
        return _SIDECHAIN
    if "toolUseResult" in record or _has_result_block(content):
        return _TOOL_RESULT
    flags = (
        ("isMeta", "meta"),
        ("isCompactSummary", "compact-summary"),
        ("isVisibleInTranscriptOnly", "compact-summary"),
        ("turnCompanion", "companion"),
        ("verifiedSlackHumanTurn", "slack"),
    )
    for name, kind in flags:
        if record.get(name):
            return _client(kind, _raw(content))
    queued = record.get("promptSource") == "queued"
    if "origin" in record:
        kind = _origin_kind(record.get("origin"))
        if kind != "human":
            return _client(kind, _raw(content))
        return _from_text(content, marked=True, queued=queued)
    if record.get("promptSource") == "system":
        return _client("system", _raw(content))
    return _from_text(content, marked=False, queued=queued)


def classify_queued(content: object, origin: object = None, *, has_origin: bool = False,
                    source: str) -> Verdict:
    """Classify queued text (``enqueue`` content or a ``queued_command`` prompt)."""
    if has_origin:
        kind = _origin_kind(origin)
        if kind != "human":
            return _client(kind, _raw(content))
        return _from_text(content, marked=True, queued=True, source=source)
    return _from_text(content, marked=False, queued=True, source=source)
