"""PEM and PuTTY private-key blocks, edgar's own finder (gitleaks' `private-key` rule needs the
END line; a log line cut short has none).

Guarantee: `find_key_blocks` spans a block from its BEGIN line to the next END line; with no
END within 100 000 characters, the BEGIN line and the header and base64 lines that follow it
(also with `\\n` escapes, inside a JSON string or an env dump).
"""

from __future__ import annotations

from bisect import bisect_left

from edgar.redact.text import PRIO_TOKEN, Span, lazy

_KEY_BLOCKS = (
    (
        lazy(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
        lazy(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"),
    ),
    (lazy(r"PuTTY-User-Key-File-[0-9]+:"), lazy(r"Private-MAC:[ \t]*[0-9a-fA-F]+")),
)
_BLOCK_LIMIT = 100_000
_BLOCK_BODY = lazy(
    r"(?:[ \t]*(?:\r?\n|\\r\\n|\\n)?[ \t]*(?:[A-Za-z0-9+/=]{8,4096}|[A-Za-z-]{3,40}:[^\n\\]{0,400}))*"
)


def find_key_blocks(text: str, spans: list[Span]) -> None:
    for begin_rx, end_rx in _KEY_BLOCKS:
        ends = [(m.start(), m.end()) for m in end_rx.finditer(text)]
        covered = 0
        for b in begin_rx.finditer(text):
            if b.start() < covered:
                continue
            k = bisect_left(ends, (b.end(), 0))
            if k < len(ends) and ends[k][0] - b.end() <= _BLOCK_LIMIT:
                covered = ends[k][1]
            else:
                covered = _BLOCK_BODY.match(text, b.end()).end()
            spans.append((b.start(), covered, "private-key", PRIO_TOKEN))
