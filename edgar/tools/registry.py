"""The tool set a session offers the model."""

from __future__ import annotations

from edgar.tools.base import Tool
from edgar.tools.files import Edit, Read, Write
from edgar.tools.search import Glob, Grep
from edgar.tools.shell import Shell
from edgar.tools.task import Task


def default_tools() -> dict[str, Tool]:
    tools: list[Tool] = [Read(), Write(), Edit(), Glob(), Grep(), Shell(), Task()]
    return {t.name: t for t in tools}
