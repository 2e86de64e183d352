"""Claude Code's JSONL transcripts, read purely and in stages (README.md names them): physical
lines, streamed records merged into API messages, exchanges of typed text and replies, and the
classification of who wrote each message. ``reader.py`` is the public reader; its names are
re-exported here so callers say ``edgar.transcripts.claude_code``."""

from .reader import (
    MAX_LINE,
    Anomaly,
    Burst,
    Evidence,
    Exchange,
    Malformed,
    Reply,
    ScanMark,
    ScanResult,
    SessionStats,
    Typed,
    Usage,
    Verdict,
    check_record,
    classify,
    classify_queued,
    dedupe_key,
    is_sidechain_path,
    message_text,
    read_lines,
    scan,
    scan_stream,
    strip_elements,
    summarize,
)

__all__ = [
    "Anomaly", "Burst", "Evidence", "Exchange", "Malformed", "Reply", "ScanMark", "ScanResult",
    "SessionStats", "Typed", "Usage", "Verdict", "classify", "classify_queued", "dedupe_key",
    "message_text", "strip_elements", "read_lines", "scan", "scan_stream", "summarize",
    "is_sidechain_path", "check_record", "MAX_LINE",
]
