"""The one place edgar touches prompt_toolkit's private Application API (ADR 0060).

``AboveThePrompt`` (``cli/prompt.py``) writes output above the live prompt the way
prompt_toolkit's own ``in_terminal()`` does, minus its switch to cooked mode; that needs three
private names of ``Application``, and only this module uses them.

Guarantees:
- ``prompt_drawn(app)``: the prompt is on screen (running, not done, not suspended by
  ``run_in_terminal``), so erasing and redrawing it is right.
- ``redraw_now(app)``: asks the terminal where the cursor is and redraws the prompt at once,
  as ``in_terminal()`` does after its body. If the private names are gone (a newer
  prompt_toolkit) it falls back to the public ``app.invalidate()``: the prompt is redrawn on
  the next loop iteration instead of at once.
- ``broken_assumptions()`` names every assumption that no longer holds for the installed
  prompt_toolkit; ``tests/unit/test_adapters.py`` fails on any of them, naming this module and
  the version.

The assumptions (prompt_toolkit 3.0.53, ``application/application.py``):
``Application._redraw(render_as_done=False)`` renders synchronously,
``Application._request_absolute_cursor_position()`` sends the cursor-position request, and
``Application._running_in_terminal`` is True exactly while ``in_terminal()`` runs its body, and
``in_terminal()`` itself ends with those two calls (so copying it is still right).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prompt_toolkit.application import Application

ADAPTS = "prompt_toolkit"


def prompt_drawn(app: Application[Any]) -> bool:
    """True while the prompt is on screen and may be erased and redrawn."""
    return bool(app.is_running and not app.is_done
                and not getattr(app, "_running_in_terminal", False))


def redraw_now(app: Application[Any]) -> None:
    """Redraw the prompt now, below whatever was just written (after ``renderer.erase()``)."""
    request = getattr(app, "_request_absolute_cursor_position", None)
    redraw = getattr(app, "_redraw", None)
    if request is None or redraw is None:
        app.invalidate()
        return
    request()
    redraw()


def broken_assumptions() -> list[str]:
    """What this adapter assumes of the installed prompt_toolkit and no longer holds."""
    import inspect  # only the version test asks; a session never does

    from prompt_toolkit.application import Application

    problems: list[str] = []
    redraw = getattr(Application, "_redraw", None)
    if not callable(redraw):
        problems.append("Application._redraw() is gone")
    else:
        params = inspect.signature(redraw).parameters
        if (list(params) != ["self", "render_as_done"]
                or params["render_as_done"].default is not False):
            problems.append(f"Application._redraw{inspect.signature(redraw)} is not "
                            "(self, render_as_done=False)")
    request = getattr(Application, "_request_absolute_cursor_position", None)
    if not callable(request):
        problems.append("Application._request_absolute_cursor_position() is gone")
    elif list(inspect.signature(request).parameters) != ["self"]:
        problems.append(f"Application._request_absolute_cursor_position"
                        f"{inspect.signature(request)} takes arguments")
    from prompt_toolkit.input import DummyInput
    from prompt_toolkit.output import DummyOutput

    if getattr(Application(input=DummyInput(), output=DummyOutput()),
               "_running_in_terminal", None) is not False:
        problems.append("a new Application has no _running_in_terminal = False")
    # redraw_now copies what in_terminal() does after its body; it must still do that
    import importlib

    module = importlib.import_module("prompt_toolkit.application.run_in_terminal")
    try:
        body = inspect.getsource(module.in_terminal)
    except (OSError, TypeError):
        body = ""
    steps = ["app._running_in_terminal = False", "app._request_absolute_cursor_position()",
             "app._redraw()"]
    at = [body.find(step) for step in steps]
    if -1 in at or at != sorted(at):
        problems.append("in_terminal() no longer ends with _running_in_terminal = False, "
                        "_request_absolute_cursor_position(), _redraw()")
    return problems
