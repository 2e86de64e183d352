"""Cutting streamed model text into finished Markdown blocks (what the rich renderer prints).

Guarantees:
- ``feed`` returns only finished blocks, in order: one block per line of prose, a whole
  fenced code block once its closing fence arrives, a whole table once a non-table line
  follows it. Nothing is returned twice; text never comes back in a different order.
- ``feed(text, wrap=N)`` also returns the finished screen lines of a long paragraph that
  has no newline yet (cut at the last space before a multiple of N), so a long single-line
  paragraph streams instead of appearing all at once; list items, headings, quotes, tables
  and code are never cut.
- ``flush`` returns whatever is left (a partial line, an unclosed fence) so that the end of
  a response, a tool call or an interruption never loses streamed text.
- Pure string handling: no terminal, no rich; unit-tested in tests/unit/test_render.py.
"""

from __future__ import annotations

import re

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
PLAIN_NOT = re.compile(r"^\s*(?:[-+*>#|]|\d+[.)]|`{3}|~{3})")   # not a plain paragraph


class BlockSplitter:
    def __init__(self) -> None:
        self.partial = ""
        self.held: list[str] = []
        self.mode: str | None = None      # None, "fence" or "table"
        self.fence = ""

    def feed(self, text: str, wrap: int | None = None) -> list[str]:
        """Add streamed text; the blocks it finished."""
        self.partial += text
        out: list[str] = []
        if "\n" in self.partial:
            *lines, self.partial = self.partial.split("\n")
            for line in lines:
                out.extend(self._line(line))
        if wrap and self.mode is None and len(self.partial) > wrap and not PLAIN_NOT.match(
                self.partial):
            cut = self.partial.rfind(" ", 0, len(self.partial) // wrap * wrap + 1)
            if cut > 0:
                out.append(self.partial[:cut])
                self.partial = self.partial[cut + 1:]
        return out

    def flush(self) -> list[str]:
        """Everything not yet returned, as finished blocks; the splitter is empty afterwards."""
        out: list[str] = []
        if self.partial:
            line, self.partial = self.partial, ""
            out.extend(self._line(line))
        if self.held:
            out.append("\n".join(self.held))
        self.held, self.mode, self.fence = [], None, ""
        return out

    @property
    def pending(self) -> str:
        """Text received but not yet returned as a block."""
        return "\n".join(self.held + ([self.partial] if self.partial else []))

    def _line(self, line: str) -> list[str]:
        stripped = line.strip()
        if self.mode == "fence":
            self.held.append(line)
            if stripped.startswith(self.fence) and not stripped.strip(self.fence[0]):
                block, self.held, self.mode = "\n".join(self.held), [], None
                return [block]
            return []
        if self.mode == "table":
            if stripped.startswith("|"):
                self.held.append(line)
                return []
            block, self.held, self.mode = "\n".join(self.held), [], None
            return [block, *self._line(line)]
        match = FENCE.match(line)
        if match:
            self.mode, self.fence, self.held = "fence", match.group(1), [line]
            return []
        if stripped.startswith("|"):
            self.mode, self.held = "table", [line]
            return []
        return [line]
