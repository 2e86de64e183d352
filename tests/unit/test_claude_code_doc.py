"""docs/claude-code.md counts what it says: each summary figure is its table's rows, and the
hook tables name exactly the events and fields edgar's code knows."""

from __future__ import annotations

import re

from support.project import REPO

from edgar.hooks.config import EVENTS, NOT_FIRED
from edgar.hooks.output import UNSUPPORTED

DOC = (REPO / "docs" / "claude-code.md").read_text(encoding="utf-8")
AREAS = {"Files Claude Code reads": "Files Claude Code reads", "Hook events": "Hook events",
         "Hook input fields": "Hook input fields", "Hook entry fields": "Hook entry fields",
         "Hook decisions and output fields": "Hook decisions and output fields",
         "Print-mode flags and formats": "Print-mode flags and formats", "MCP": "MCP"}


def rows(section: str) -> list[tuple[str, str]]:
    """(first cell, edgar cell) of each row of the table under ``## section``."""
    body = DOC.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    out = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[1] in ("yes", "no"):
            out.append((cells[0], cells[1]))
    return out


def summary() -> dict[str, tuple[int, int]]:
    block = DOC.split("<!-- summary -->", 1)[1].split("<!-- /summary -->", 1)[0]
    found = re.findall(r"^\| (.+?) \| (\d+) / (\d+) \|$", block, re.M)
    return {name: (int(a), int(b)) for name, a, b in found}


def test_every_summary_figure_is_its_tables_count():
    figures = summary()
    assert set(figures) == set(AREAS)
    for area, section in AREAS.items():
        table = rows(section)
        assert figures[area] == (sum(v == "yes" for _, v in table), len(table)), area


def test_the_events_table_is_exactly_what_edgar_fires_and_does_not():
    table = {name.strip("`"): v for name, v in rows("Hook events")}
    assert {k for k, v in table.items() if v == "yes"} == set(EVENTS)
    assert {k for k, v in table.items() if v == "no"} == set(NOT_FIRED)


def test_every_output_field_edgar_names_as_unsupported_is_a_no_row():
    table = " ".join(name for name, v in rows("Hook decisions and output fields") if v == "no")
    for fields in UNSUPPORTED.values():
        for field in fields:
            assert f"`{field}" in table, field
