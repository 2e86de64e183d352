"""The adapters over third-party private APIs (ADR 0060): their assumptions hold for the
installed libraries, they behave as the libraries' own public paths do, and no other module of
edgar touches a third-party private name."""

from __future__ import annotations

import ast
import asyncio
import sys
from importlib.metadata import version
from pathlib import Path

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgar.cli import pt_adapter
from edgar.providers import sse_adapter

ROOT = Path(__file__).resolve().parents[2]
ADAPTERS = {"edgar/cli/pt_adapter.py": pt_adapter, "edgar/providers/sse_adapter.py": sse_adapter}
# underscore names that are public API of the standard library
PUBLIC_UNDERSCORE = {"_exit", "_replace", "_asdict", "_fields", "_make", "_field_defaults"}


@pytest.mark.parametrize("rel", sorted(ADAPTERS))
def test_the_adapters_assumptions_hold_for_the_installed_library(rel):
    adapter = ADAPTERS[rel]
    broken = adapter.broken_assumptions()
    assert not broken, (
        f"{adapter.__name__} ({rel}) assumes what {adapter.ADAPTS} {version(adapter.ADAPTS)} "
        f"no longer provides: {'; '.join(broken)}. Update the adapter to the new private API, "
        f"or cap {adapter.ADAPTS} below this version in pyproject.toml (ADR 0060).")


def test_the_upper_bounds_admit_the_installed_versions():
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    specs = {d.split(">")[0].split("<")[0].split("=")[0].strip().replace("_", "-"): d
             for d in deps}
    for name, bound in (("prompt-toolkit", "<3.1"), ("httpx2", "<3")):
        assert bound in specs[name], f"{specs[name]!r} lost its upper bound {bound} (ADR 0060)"
    assert version("prompt_toolkit").startswith("3.0."), version("prompt_toolkit")
    assert version("httpx2").startswith("2."), version("httpx2")


# -- httpx2 -----------------------------------------------------------------------------------

def _source(chunks: list[bytes], limit: int | None = None) -> httpx2.EventSource:
    async def body():
        for chunk in chunks:
            yield chunk

    response = httpx2.Response(200, headers={"content-type": "text/event-stream"},
                               content=body(), request=httpx2.Request("POST", "http://127.0.0.1/"))
    return httpx2.EventSource(response) if limit is None else httpx2.EventSource(response, limit)


def _collect(aiter) -> list:
    async def run():
        return [item async for item in aiter]
    return asyncio.run(run())


messages = st.lists(st.tuples(st.sampled_from(["", "message_start", "delta", "ping"]),
                              st.text(st.characters(blacklist_categories=["Cs"],
                                                    blacklist_characters="\r\n"), max_size=30)),
                    max_size=6)


def _wire(events: list[tuple[str, str]], newline: str) -> bytes:
    out = []
    for name, data in events:
        lines = ([f"event: {name}"] if name else []) + [f"data: {data}", ""]
        out.append(newline.join(lines) + newline)
    return "".join(out).encode()


@given(events=messages, newline=st.sampled_from(["\n", "\r\n", "\r"]), cuts=st.data())
def test_sse_batches_frame_exactly_as_httpx2s_own_event_source(events, newline, cuts):
    wire = _wire(events, newline)
    points = sorted(cuts.draw(st.lists(st.integers(0, len(wire)), max_size=5)))
    chunks = [wire[a:b] for a, b in zip([0, *points], [*points, len(wire)], strict=True)
              if wire[a:b]]
    public = _collect(_source(chunks).__aiter__())
    batches = _collect(sse_adapter.sse_batches(_source(chunks)))
    assert [sse for batch in batches for sse in batch] == public
    assert all(batches) and len(batches) <= len(chunks) + 1    # at most one batch per read
    assert [(s.event, s.data) for s in public] == [(n or "message", d) for n, d in events]


def test_one_read_of_many_events_is_one_batch():
    wire = _wire([("delta", str(i)) for i in range(20)], "\n")
    batches = _collect(sse_adapter.sse_batches(_source([wire])))
    assert len(batches) == 1 and len(batches[0]) == 20


def test_the_event_sources_size_limit_still_applies():
    wire = _wire([("delta", "x" * 500)], "\n")
    with pytest.raises(httpx2.SSEError):
        _collect(sse_adapter.sse_batches(_source([wire], limit=100)))


def test_without_the_private_parser_each_event_is_its_own_batch(monkeypatch):
    monkeypatch.setitem(sys.modules, "httpx2._sse", None)    # what a release that moves it does
    wire = _wire([("delta", "a"), ("delta", "b")], "\n")
    batches = _collect(sse_adapter.sse_batches(_source([wire])))
    assert [[s.data for s in batch] for batch in batches] == [["a"], ["b"]]
    assert sse_adapter.broken_assumptions() == ["httpx2._sse._SSEParser cannot be imported"]


# -- prompt_toolkit ---------------------------------------------------------------------------

def test_redraw_now_renders_at_once_and_in_terminal_hides_the_prompt():
    from prompt_toolkit.application import Application, in_terminal
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    seen: dict[str, object] = {}

    async def main():
        with create_pipe_input() as pipe:
            app: Application = Application(input=pipe, output=DummyOutput())

            async def probe():
                await asyncio.sleep(0.05)
                seen["drawn"] = pt_adapter.prompt_drawn(app)
                before = app.render_counter
                pt_adapter.redraw_now(app)
                seen["rendered"] = app.render_counter - before     # synchronous, not scheduled
                async with in_terminal():
                    seen["drawn_in_terminal"] = pt_adapter.prompt_drawn(app)
                app.exit()

            task = asyncio.ensure_future(probe())
            await app.run_async()
            await task
            seen["drawn_after_exit"] = pt_adapter.prompt_drawn(app)

    asyncio.run(main())
    assert seen == {"drawn": True, "rendered": 1, "drawn_in_terminal": False,
                    "drawn_after_exit": False}


def test_without_the_private_methods_the_prompt_is_invalidated():
    class Later:       # an Application of a release without the private methods
        invalidated = 0

        def invalidate(self):
            self.invalidated += 1

    app = Later()
    pt_adapter.redraw_now(app)
    assert app.invalidated == 1


def test_the_prompt_toolkit_check_fails_when_a_release_moves_the_names(monkeypatch):
    from prompt_toolkit.application import Application

    # what a release that renames or re-signs the private methods looks like to the adapter
    monkeypatch.delattr(Application, "_redraw")
    monkeypatch.setattr(Application, "_request_absolute_cursor_position", lambda self, now: None)
    broken = pt_adapter.broken_assumptions()
    assert "Application._redraw() is gone" in broken
    assert any("_request_absolute_cursor_position(self, now) takes arguments" in b for b in broken)


# -- nowhere else -----------------------------------------------------------------------------

def private_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) for each third-party private name a module touches: an import from a
    private module or of a private name, ``obj._name`` on anything but self/cls, and
    ``getattr(obj, "_name")``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and not node.module.startswith(("edgar", "__future__")):
            if any(part.startswith("_") for part in node.module.split(".")) \
                    or any(a.name.startswith("_") for a in node.names):
                found.append((node.lineno, f"from {node.module} import ..."))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__") and node.attr not in PUBLIC_UNDERSCORE \
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
            found.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) \
                and node.args[1].value.startswith("_") and not node.args[1].value.startswith("__") \
                and not (isinstance(node.args[0], ast.Name) and node.args[0].id in ("self", "cls")):
            found.append((node.lineno, f"{node.func.id}(..., {node.args[1].value!r})"))
    return found


def test_only_the_adapters_touch_third_party_private_names():
    offenders = []
    for path in sorted((ROOT / "edgar").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel not in ADAPTERS:
            offenders += [f"{rel}:{line}: {what}"
                          for line, what in private_uses(path.read_text(encoding="utf-8"))]
    assert offenders == [], "private names outside an adapter (ADR 0060): " + ", ".join(offenders)


@pytest.mark.parametrize("plant", [
    "app._redraw()\n",
    "from httpx2._sse import _SSEParser\n",
    "from httpx2 import _something\n",
    "x = getattr(source, '_max_event_size', None)\n",
    "def f(app):\n    return app._running_in_terminal\n",
])
def test_the_private_name_check_sees_a_planted_use(plant):
    assert private_uses(plant)


def test_the_private_name_check_lets_public_underscore_names_and_self_pass():
    assert private_uses("import os\nos._exit(1)\nself._x = 1\np._replace(a=1)\n"
                        "from edgar.cli.prompt import x\n"
                        "from __future__ import annotations\n") == []
