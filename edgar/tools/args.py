"""The base of every tool's arguments, alone so that value types built from it (the todo list's
items) need not import the tool machinery in ``base.py``, which re-exports it."""

from __future__ import annotations

from edgar.declared import ConfigDict, Model

__all__ = ["ToolArgs"]


class ToolArgs(Model):
    """Base of every tool's arguments: a declared model (``edgar.declared``) that pydantic
    validates, closed and strict (a string is never a number, ``true`` is not an integer);
    ``Field(description=…, ge=…)`` is what the model is told. Its JSON Schema (``args_schema``)
    is what every request sends. Defining one imports no pydantic: a tool's model is built
    the first time the model calls it (ADR-0081)."""

    model_config = ConfigDict(extra="forbid", strict=True)
