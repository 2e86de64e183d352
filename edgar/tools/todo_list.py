"""The session's checklist (``todo_write``'s list) as a value: its items, the way a person sees
them and the JSON ``-p`` prints. Apart from the tool so that a tool context can carry one without
importing the tool (``base.py`` names it; ``todo.py`` fills it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from edgar.declared import Field
from edgar.tools.args import ToolArgs

__all__ = ["MARKS", "Status", "TodoItem", "TodoList"]

Status = Literal["pending", "in_progress", "completed"]
MARKS = {"pending": "☐", "in_progress": "◐", "completed": "☑"}


class TodoItem(ToolArgs):
    """One item of the list."""

    content: str = Field(min_length=1, description="What to do, imperative: 'Run the tests'")
    status: Status = Field(description="pending, in_progress (one at a time) or completed")
    activeForm: str = Field(min_length=1, description="The same, as it is being done: "
                            "'Running the tests'")


@dataclass
class TodoList:
    """The session's checklist; ``items`` are replaced whole by each ``todo_write``."""

    items: list[TodoItem] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The list as a person sees it: a mark, then the text (the active form while doing)."""
        return [f"{MARKS[t.status]} {t.activeForm if t.status == 'in_progress' else t.content}"
                for t in self.items]

    def to_json(self) -> list[dict[str, str]]:
        return [t.model_dump() for t in self.items]
