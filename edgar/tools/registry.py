"""The tool set a session offers the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from edgar.tools.base import Tool
from edgar.tools.files import Edit, Read, Write
from edgar.tools.plan import ExitPlanMode
from edgar.tools.search import Glob, Grep
from edgar.tools.shell import Shell
from edgar.tools.task import Task
from edgar.tools.todo import TodoWrite
from edgar.tools.web_fetch import WebFetch

if TYPE_CHECKING:
    from edgar.config import WebSettings


def default_tools(web: WebSettings | None = None) -> dict[str, Tool]:
    fetch = WebFetch() if web is None else WebFetch(tuple(web.allow_hosts), web.max_bytes,
                                                     web.timeout)
    tools: list[Tool] = [Read(), Write(), Edit(), Glob(), Grep(), Shell(), Task(), fetch,
                         ExitPlanMode(), TodoWrite()]
    return {t.name: t for t in tools}
