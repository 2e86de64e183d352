"""Value types produced by the Claude Code transcript reader.

Guarantees: every type here is a frozen dataclass built from plain str/int/
bool/tuple/dict values, so results can be compared, stored and serialised
without touching the reader again. Nothing here performs I/O.

Vocabulary:
- ``Typed``: text a person typed (the only thing learning may use);
- ``Evidence``: text the client wrote that joined an exchange, labelled by kind;
- ``Reply``: one assistant API message, merged from its streamed records;
- ``Burst``: consecutive queued messages typed while the agent worked;
- ``Exchange``: a typed question, its follow-up bursts, replies and evidence;
- ``Malformed``: a line that was skipped; ``Anomaly``: a line kept despite an oddity;
- ``ScanMark``: where a later scan of the same file resumes;
- ``ScanResult``: the last item of every scan, with counts and the new mark.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields

# Typed.source values.
SOURCES = ("user", "enqueue", "queued_command", "command", "bash")


@dataclass(frozen=True)
class Malformed:
    """A line that was skipped: it could not be read as a usable record."""

    file: str
    line: int
    reason: str


@dataclass(frozen=True)
class Anomaly:
    """A line that was kept although something in it was odd (kept, counted)."""

    file: str
    line: int
    reason: str


@dataclass(frozen=True)
class Typed:
    """One message a person typed. ``source`` is one of SOURCES."""

    file: str
    line: int
    session_id: str
    timestamp: str | None
    source: str
    text: str
    queued: bool = False  # typed while the agent worked (joins the open exchange)
    uuid: str | None = None  # the record's uuid, for cross-file de-duplication

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "line": self.line,
            "session_id": self.session_id,
            "timestamp": self.timestamp,
            "source": self.source,
            "text": self.text,
        }


@dataclass(frozen=True)
class Evidence:
    """Client-written text that joined an exchange; never a question."""

    kind: str
    text: str
    line: int


@dataclass(frozen=True)
class Usage:
    input: int = 0
    output: int = 0
    cache_write: int = 0
    cache_read: int = 0

    def max(self, other: Usage) -> Usage:
        # Streamed siblings repeat or grow the same counters: the largest is
        # the message's usage, a sum would double count.
        return Usage(
            max(self.input, other.input),
            max(self.output, other.output),
            max(self.cache_write, other.cache_write),
            max(self.cache_read, other.cache_read),
        )

    def plus(self, other: Usage) -> Usage:
        # Only for different messages (session totals).
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_write + other.cache_write,
            self.cache_read + other.cache_read,
        )


@dataclass(frozen=True)
class Reply:
    """One assistant API message, merged from every record that carried a block of it."""

    message_id: str | None
    model: str | None
    text: str
    thinking: str
    tools: tuple[str, ...]
    usage: Usage
    line: int  # line of its first record


@dataclass(frozen=True)
class Burst:
    """Queued messages with no assistant record between them: one follow-up."""

    messages: tuple[Typed, ...]

    @property
    def text(self) -> str:
        return "\n".join(m.text for m in self.messages)

    @property
    def line(self) -> int:
        return self.messages[0].line


@dataclass(frozen=True)
class Exchange:
    """A typed question and everything that joined it until the next one.

    ``open`` is True when the file ended while the exchange could still grow;
    a later scan emits it again, complete, under the same (file, line) key.
    ``question.timestamp`` to ``ended`` is how long it took (None: not known).
    """

    file: str
    session_id: str
    line: int
    question: Typed
    followups: tuple[Burst, ...]
    replies: tuple[Reply, ...]
    evidence: tuple[Evidence, ...]
    tool_results: int
    end_line: int
    open: bool = False
    ended: str | None = None  # timestamp of its last main-chain assistant record, if any

    @property
    def typed(self) -> tuple[Typed, ...]:
        return (self.question,) + tuple(m for b in self.followups for m in b.messages)


@dataclass(frozen=True)
class SessionStats:
    """What one scan saw of one session: counts, tokens and models."""

    session_id: str
    file: str
    typed: int
    exchanges: int
    messages: int  # assistant API messages (merged), sidechain ones included
    tool_uses: dict = field(default_factory=dict)  # tool name -> count
    models: dict = field(default_factory=dict)  # model -> messages
    usage: Usage = Usage()
    first_timestamp: str | None = None
    last_timestamp: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class ScanMark:
    """Where the next scan of a file resumes (JSON-serialisable).

    ``offset``/``line``: after the last whole line consumed. The next scan
    re-reads from ``resume_offset``/``resume_line`` (the start of the exchange
    or queued message still open) to rebuild its state, and suppresses what it
    already reported: typed messages whose line is in ``emitted``, and every
    count or problem at or before ``line``.
    """

    size: int = 0
    mtime_ns: int = 0
    offset: int = 0
    line: int = 0
    resume_offset: int = 0
    resume_line: int = 0
    emitted: tuple[int, ...] = ()
    session_id: str | None = None
    head: str = ""  # digest of the file's first bytes, to notice a replaced file
    head_len: int = 0
    final: bool = True
    open_line: int = 0  # question line of the exchange still open (0: none)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ScanMark:
        """Parse a stored mark; keys it does not know are ignored (other versions).

        Raises ValueError when the text is not a mark at all.
        """
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a scan mark is a JSON object")
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        data["emitted"] = tuple(data.get("emitted", ()))
        return cls(**data)


@dataclass(frozen=True, kw_only=True)
class ScanResult:
    """The last item of a scan. Counts cover only lines new to this scan."""

    file: str
    lines: int
    malformed: int
    anomalies: int
    typed: int
    exchanges: int
    sessions: tuple[SessionStats, ...]
    client_messages: dict
    unknown_types: dict
    pending: tuple[Typed, ...]  # queued text not settled yet (final=False only)
    mark: ScanMark
    restarted: bool = False  # the previous mark did not fit the file: read from 0
