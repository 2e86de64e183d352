"""The in-process event bus (ADR-0011).

Guarantees:
- ``publish`` delivers an event to every handler subscribed to its type or to any base
  class of it, in subscription order.
- A handler that raises is isolated: the failure is reported (``on_error``, and on stderr
  with ``EDGAR_DEBUG=1``) and every other handler, and the turn, go on. The report carries
  the handler's name and the exception's type, never its text.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from typing import TypeVar, cast

from edgar.events import Event

E = TypeVar("E", bound=Event)
Handler = Callable[[E], None]


class Bus:
    def __init__(self, on_error: Callable[[str, type[Event], BaseException], None] | None = None):
        self._handlers: list[tuple[type[Event], Callable[[Event], None]]] = []
        self._route: dict[type[Event], tuple[Callable[[Event], None], ...]] = {}
        self._on_error = on_error
        self._debug = bool(os.environ.get("EDGAR_DEBUG"))
        self._failing = False

    def subscribe(self, event_type: type[E], handler: Callable[[E], None]) -> None:
        # Sound, though the checker cannot see it: publish hands ``handler`` only events that
        # are instances of ``event_type`` (issubclass below), i.e. always an ``E``.
        self._handlers.append((event_type, cast("Callable[[Event], None]", handler)))
        self._route.clear()  # routes are cached per concrete type; rebuild lazily

    def unsubscribe(self, handler: Callable[[E], None]) -> None:
        self._handlers = [(t, h) for t, h in self._handlers if h is not handler]
        self._route.clear()

    def publish(self, event: Event) -> None:
        kind = type(event)
        route = self._route.get(kind)
        if route is None:
            route = tuple(h for t, h in self._handlers if issubclass(kind, t))
            self._route[kind] = route
        for handler in route:
            try:
                handler(event)
            except Exception as exc:  # isolation is the point: one subscriber never breaks another
                self._report(handler, kind, exc)

    def _report(self, handler: Callable[[Event], None], kind: type[Event], exc: Exception) -> None:
        name = getattr(handler, "__qualname__", None) or type(handler).__qualname__
        if self._debug:
            print(f"edgar: subscriber {name} failed on {kind.__name__}:", file=sys.stderr)
            traceback.print_exception(exc, file=sys.stderr)
        if self._on_error is not None and not self._failing:
            self._failing = True  # an error reporter that itself fails must not recurse
            try:
                self._on_error(name, kind, exc)
            except Exception:
                pass
            finally:
                self._failing = False
