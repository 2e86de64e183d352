"""Fake keys and a shell tool spec for the provider tests.

They live here, not in ``tests/integration/conftest.py``, because ``from conftest import``
names whichever conftest module pytest imported first: run together with ``tests/e2e``, that
was the other folder's, and the import failed.
"""

from __future__ import annotations

from edgar.conversation import ToolSpec

FAKE_ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"
FAKE_OPENAI_KEY = "sk-test-openai-0123456789abcdef"

SHELL = ToolSpec("shell", "Run a command", {"type": "object",
                                             "properties": {"command": {"type": "string"}},
                                             "required": ["command"]})
