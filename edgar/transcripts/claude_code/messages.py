"""Merging the streamed records of one assistant API message.

Claude Code writes one content block per ``assistant`` record; the records of
one API message share ``message.id`` (and ``requestId``) and are not always
adjacent. Pure; never raises on odd field types.

Guarantees: blocks are ordered by ``apiBlockIndex`` when every block carries
one, else by file order; an exact repeat of a block (same type and id or
text, as a resume re-appends) is kept once; usage is the per-field maximum of
the records (siblings repeat or grow the counters, a sum would double count);
thinking is kept apart from the answer text; tool uses are kept by name only.
``Tally`` adds finished messages up per session: there, different messages
are summed. Counters keep at most MAX_KINDS labels (files can invent many).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .values import Reply, SessionStats, Usage

TOOL_BLOCKS = ("tool_use", "server_tool_use", "mcp_tool_use")
# The field of a block that is kept, by block type; other blocks are not kept.
_VALUE_KEY = {"text": "text", "thinking": "thinking", **dict.fromkeys(TOOL_BLOCKS, "name")}
MAX_KINDS = 100  # distinct labels kept in a counter


def bump(counter: Counter, key: str) -> None:
    key = key[:64]  # labels come from the file: keep them short
    if key in counter or len(counter) < MAX_KINDS:
        counter[key] += 1
    else:
        counter["<other>"] += 1


def text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _raise(tokens: list[int], u: dict) -> None:
    """``tokens`` (input, output, cache write, cache read) to the per-field max with ``u``."""
    # ``type() is int`` rules out bool (and is what JSON yields); a count that is not a
    # positive int cannot raise a maximum that starts at 0. Written out, not looped over the
    # four keys: it runs once per assistant record, on the import's hot path (issue 17).
    n = u.get("input_tokens")
    if type(n) is int and n > tokens[0]:
        tokens[0] = n
    n = u.get("output_tokens")
    if type(n) is int and n > tokens[1]:
        tokens[1] = n
    n = u.get("cache_creation_input_tokens")
    if type(n) is int and n > tokens[2]:
        tokens[2] = n
    n = u.get("cache_read_input_tokens")
    if type(n) is int and n > tokens[3]:
        tokens[3] = n


class Merged:
    """One API message while its records are still arriving.

    A plain class with slots, not a dataclass: one is made per API message of every file.
    """

    __slots__ = ("key", "exchange_id", "session", "line", "offset", "message_id", "model",
                 "blocks", "seen", "tokens", "last_usage")

    def __init__(self, key: tuple, exchange_id: int | None, session: str, line: int,
                 offset: int, message_id: str | None) -> None:
        self.key = key
        self.exchange_id = exchange_id
        self.session = session
        self.line = line  # of its first record
        self.offset = offset
        self.message_id = message_id
        self.model: str | None = None
        self.blocks: list = []  # (index|None, order, type, value)
        self.seen: set = set()
        # Usage as four ints, raised in place (a Usage per record would be built to be dropped).
        self.tokens = [0, 0, 0, 0]
        self.last_usage: object = None  # raw, of the last record

    def add(self, record: dict, message: dict, model: object = False) -> None:
        """Merge one record; ``model`` is ``message["model"]`` if the caller read it already."""
        if not self.model:
            self.model = text_or_none(message.get("model") if model is False else model)
        u = message.get("usage")
        # Siblings mostly repeat the same usage: an equal one cannot raise the
        # maximum, and comparing dicts is far cheaper than building Usages.
        if type(u) is dict and u != self.last_usage:
            self.last_usage = u
            _raise(self.tokens, u)
        index = record.get("apiBlockIndex")
        if type(index) is not int:  # (``type() is int`` also rules out bool)
            index = None
        content = message.get("content")
        if type(content) is str:
            content = [{"type": "text", "text": content}]
        elif type(content) is not list:
            return
        seen, blocks = self.seen, self.blocks
        for block in content:
            if type(block) is not dict:
                continue
            kind = block.get("type")
            key = _VALUE_KEY.get(kind) if type(kind) is str else None  # (lists are unhashable)
            if key is None:
                continue
            value = block.get(key)
            if type(value) is not str:
                continue
            ident = block.get("id")
            ident = (kind, ident if type(ident) is str and ident else value)
            if ident in seen:  # a resume re-appends records already seen
                continue
            seen.add(ident)
            blocks.append((index, len(blocks), kind, value))

    @property
    def usage(self) -> Usage:
        return Usage(*self.tokens)

    def reply(self) -> Reply:
        blocks = self.blocks
        if blocks and all(b[0] is not None for b in blocks):
            blocks = sorted(blocks, key=lambda b: (b[0], b[1]))
        # One pass, not three: a message is finished once, but there are many.
        text: list[str] = []
        thinking: list[str] = []
        tools: list[str] = []
        for _, _, k, v in blocks:
            if k == "text":
                if v.strip():
                    text.append(v)
            elif k == "thinking":
                if v.strip():
                    thinking.append(v)
            elif k in TOOL_BLOCKS:
                tools.append(v)
        return Reply(
            self.message_id, self.model, "\n".join(text), "\n".join(thinking), tuple(tools),
            self.usage, self.line,
        )


@dataclass
class Tally:
    """What one scan counted for one session."""

    typed: int = 0
    exchanges: int = 0
    messages: int = 0
    tools: Counter = field(default_factory=Counter)
    models: Counter = field(default_factory=Counter)
    first: str | None = None
    last: str | None = None
    # Usage summed as four ints (a Usage per message would be built only to be summed).
    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0

    @property
    def usage(self) -> Usage:
        return Usage(self.input, self.output, self.cache_write, self.cache_read)

    def seen(self, timestamp: str) -> None:
        self.first = self.first or timestamp
        self.last = timestamp

    def add(self, m: Merged, reply: Reply) -> None:
        self.messages += 1
        i, o, w, r = m.tokens
        self.input += i
        self.output += o
        self.cache_write += w
        self.cache_read += r
        for tool in reply.tools:
            bump(self.tools, tool)
        model = m.model
        if model and model != "<synthetic>":
            models = self.models
            if model in models:       # (bump, inlined: once per message of every file)
                models[model] += 1
            else:
                bump(models, model)

    def stats(self, session_id: str, file: str) -> SessionStats:
        return SessionStats(
            session_id, file, self.typed, self.exchanges, self.messages, dict(self.tools),
            dict(self.models), self.usage, self.first, self.last,
        )
