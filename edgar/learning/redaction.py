"""The redactor a learning store uses when it is given none: edgar's own, never the identity.

Guarantees:
- ``redact(text)`` is ``edgar.redact.Redactor.from_environ()`` applied to ``text``: every rule
  of ``edgar.redact`` plus the exact secret values of this process's environment (as
  ``MemoryStore`` does). Built on first use, not at import, so importing a store costs nothing.
- ``History``, ``entry``, ``Recorder``, ``Experience`` and ``to_run`` default to it: a caller
  that forgets to pass a redactor still writes nothing unredacted (issue 21, smaller items).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from edgar.redact import Redactor


@cache
def _redactor() -> Redactor:
    from edgar.redact import Redactor

    return Redactor.from_environ()


def redact(text: str) -> str:
    """``text`` redacted by edgar's redactor (with the environment's secret values bound)."""
    return _redactor()(text)
