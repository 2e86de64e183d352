"""The base of every tool's arguments, alone so that value types built from it (the todo list's
items) need not import the tool machinery in ``base.py``, which re-exports it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["ToolArgs"]


class ToolArgs(BaseModel):
    """Base of every tool's arguments: a pydantic model, closed and strict (a string is never
    a number, ``true`` is not an integer); ``Field(description=…, ge=…)`` is what the model
    is told. Its JSON Schema (``args_schema``) is what every request sends."""

    model_config = ConfigDict(extra="forbid", strict=True)
