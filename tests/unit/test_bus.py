from __future__ import annotations

import dataclasses

import pytest

from edgar.bus import Bus
from edgar.events import (
    ALL_EVENTS,
    ErrorRecord,
    Event,
    PromptTyped,
    TextDelta,
    ToolFinished,
    to_dict,
)


def test_delivery_in_subscription_order_and_by_base_class():
    bus = Bus()
    seen: list[str] = []
    bus.subscribe(TextDelta, lambda e: seen.append("first"))
    bus.subscribe(Event, lambda e: seen.append("any"))
    bus.subscribe(TextDelta, lambda e: seen.append("second"))
    bus.publish(TextDelta(text="x"))
    assert seen == ["first", "any", "second"]
    seen.clear()
    bus.publish(ToolFinished(call_id="1", tool="read", ok=True))
    assert seen == ["any"]


def test_a_failing_subscriber_is_isolated_and_reported_without_its_text():
    reports = []
    bus = Bus(on_error=lambda name, kind, exc:
              reports.append((name, kind.__name__, type(exc).__name__)))
    seen = []

    def broken(event):
        raise RuntimeError("secret stderr text")

    bus.subscribe(TextDelta, broken)
    bus.subscribe(TextDelta, lambda e: seen.append(e.text))
    bus.publish(TextDelta(text="hi"))
    assert seen == ["hi"]
    assert reports == [("test_a_failing_subscriber_is_isolated_and_reported_without_its_text"
                        ".<locals>.broken", "TextDelta", "RuntimeError")]


def test_a_failing_error_reporter_does_not_break_publish():
    def bad_reporter(*args):
        raise ValueError("boom")

    bus = Bus(on_error=bad_reporter)
    bus.subscribe(TextDelta, lambda e: 1 / 0)
    bus.publish(TextDelta(text="x"))  # must not raise


def test_unsubscribe_and_late_subscribe_rebuild_routes():
    bus = Bus()
    seen = []
    handler = seen.append
    bus.publish(TextDelta(text="a"))
    bus.subscribe(TextDelta, handler)
    bus.publish(TextDelta(text="b"))
    bus.unsubscribe(handler)
    bus.publish(TextDelta(text="c"))
    assert [e.text for e in seen] == ["b"]


@pytest.mark.parametrize("kind", ALL_EVENTS)
def test_every_event_is_frozen_and_has_depth(kind):
    fields = {f.name for f in dataclasses.fields(kind)}
    assert {"session_id", "turn_id", "depth"} <= fields
    assert kind.__dataclass_params__.frozen


def test_events_cannot_be_mutated_and_serialise_with_their_type():
    event = PromptTyped(text="always run tests", session_id="s")
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.text = "other"  # type: ignore[misc]
    assert to_dict(event)["type"] == "PromptTyped"
    failed = ToolFinished(call_id="1", tool="shell", ok=False,
                          error=ErrorRecord("shell", "exit_nonzero", 2, "make"))
    assert to_dict(failed)["error"] == {"tool": "shell", "kind": "exit_nonzero",
                                        "exit_code": 2, "program": "make"}


def test_no_event_has_a_field_for_tool_output_or_stderr():
    forbidden = {"output", "stderr", "stdout", "content", "result", "exception", "traceback"}
    for kind in ALL_EVENTS:
        assert not forbidden & {f.name for f in dataclasses.fields(kind)}, kind
