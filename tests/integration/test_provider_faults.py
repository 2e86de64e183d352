"""Faults over real sockets: retry policy, mid-stream failures, timeouts, error messages."""

from __future__ import annotations

import socket
import time

import pytest
from support.provider_fakes import FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY
from support.sse_server import Reply, anthropic_event, recording, stream

from edgar.providers.base import Finished, TextChunk
from edgar.providers.http_retry import backoff, retry_after

OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def text_of(events):
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def ok(events, error):
    assert error is None, error
    assert isinstance(events[-1], Finished)
    return text_of(events)


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_statuses_are_retried(server, make, collect, status):
    server.anthropic(Reply(status=status, json=OVERLOADED), stream("anthropic_text"))
    assert ok(*collect(make("anthropic"))) == "Hello, world!"
    assert len(server.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413])
def test_client_errors_are_never_retried(server, make, collect, status):
    body = {"type": "error", "error": {"type": "x", "message": "nope"}}
    # even a server that says "retry" does not make these worth retrying
    server.anthropic(Reply(status=status, json=body, headers={"x-should-retry": "true"}),
                     stream("anthropic_text"))
    events, error = collect(make("anthropic"))
    assert events == [] and len(server.requests) == 1
    assert error.status == status and not error.retryable
    assert error.message.startswith(f"anthropic: HTTP {status}") and "nope" in error.message
    assert "—" in error.message   # followed by what to do


def test_what_to_do_is_said_for_each_status(server, make, collect):
    server.anthropic(*(Reply(status=s, json={}) for s in (401, 404, 413)))
    messages = [collect(make("anthropic", max_retries=0))[1].message for _ in range(3)]
    assert "set ANTHROPIC_API_KEY" in messages[0]
    assert "'claude-sonnet-4-5'" in messages[1] and "ANTHROPIC_BASE_URL" in messages[1]
    assert "new session" in messages[2]


def test_spend_limit_429_is_not_retried(server, make, collect):
    body = {"error": {"message": "You exceeded your current quota, please check your plan and "
                      "billing details.", "type": "insufficient_quota",
                      "code": "insufficient_quota"}}
    server.openai(Reply(status=429, json=body), stream("openai_text"))
    _, error = collect(make("openai"))
    assert len(server.requests) == 1
    assert error.status == 429 and "spend limit" in error.message


def test_retries_give_up_with_a_count(server, make, collect):
    server.openai(*[Reply(status=503, json={"error": {"message": "busy"}})] * 3)
    _, error = collect(make("openai", max_retries=2))
    assert len(server.requests) == 3
    assert error.status == 503 and "gave up after 3 attempts" in error.message
    assert "try again later" in error.message


def test_x_should_retry_false_stops_a_retry(server, make, collect):
    server.openai(Reply(status=500, json={}, headers={"x-should-retry": "false"}),
                  stream("openai_text"))
    _, error = collect(make("openai"))
    assert error.status == 500 and len(server.requests) == 1


def test_x_should_retry_true_retries_an_unlisted_status(server, make, collect):
    server.openai(Reply(status=422, json={}, headers={"x-should-retry": "true"}),
                  stream("openai_text"))
    assert ok(*collect(make("openai"))) == "Hello, world!"


@pytest.mark.parametrize("header,value,wait", [("retry-after-ms", "300", 0.3),
                                               ("retry-after", "1", 1.0)])
@pytest.mark.timing   # asserts how long it took
def test_retry_after_headers_are_honoured(server, make, collect, header, value, wait):
    server.openai(Reply(status=429, json={}, headers={header: value}), stream("openai_text"))
    started = time.monotonic()
    ok(*collect(make("openai")))
    assert time.monotonic() - started >= wait * 0.95
    assert server.requests[1].at - server.requests[0].at >= wait * 0.95


def test_a_key_echoed_by_the_server_is_not_repeated(server, make, collect):
    body = {"error": {"message": f"Incorrect API key provided: {FAKE_OPENAI_KEY}. Or sk-live-"
                      "abcdefghijklmnop.", "type": "invalid_request_error"}}
    server.openai(Reply(status=401, json=body))
    _, error = collect(make("openai"))
    assert FAKE_OPENAI_KEY not in error.message and "abcdefghijklmnop" not in error.message
    assert "set OPENAI_API_KEY" in error.message


def test_connection_refused_is_retried_then_explained(make, collect, monkeypatch):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    _, error = collect(make("anthropic", max_retries=1))
    assert error.status is None
    assert "cannot connect" in error.message and "ANTHROPIC_BASE_URL" in error.message
    assert "gave up after 2 attempts" in error.message
    assert FAKE_ANTHROPIC_KEY not in error.message


def test_drop_before_any_output_is_retried(server, make, collect):
    server.anthropic(stream("anthropic_text", drop_after=2), stream("anthropic_text"))
    assert ok(*collect(make("anthropic"))) == "Hello, world!"   # nothing shown twice
    assert len(server.requests) == 2


def test_drop_after_output_keeps_the_partial_text_and_is_not_retried(server, make, collect):
    server.anthropic(stream("anthropic_text", drop_after=5), stream("anthropic_text"))
    events, error = collect(make("anthropic"))
    assert text_of(events) == "Hello, world"
    assert not any(isinstance(e, Finished) for e in events)
    assert "dropped" in error.message and "partial answer is kept" in error.message
    assert len(server.requests) == 1


def test_midstream_error_event_after_text(server, make, collect):
    events = recording("anthropic_text")[:5] + [anthropic_event("error", OVERLOADED)]
    server.anthropic(stream(events), stream("anthropic_text"))
    got, error = collect(make("anthropic"))
    assert text_of(got) == "Hello, world"
    assert error.status == 529 and "overloaded" in error.message
    assert len(server.requests) == 1


def test_midstream_error_event_before_text_is_retried(server, make, collect):
    events = recording("anthropic_text")[:3] + [anthropic_event("error", OVERLOADED)]
    server.anthropic(stream(events), stream("anthropic_text"))
    assert ok(*collect(make("anthropic"))) == "Hello, world!"
    assert len(server.requests) == 2


@pytest.mark.timing   # asserts how long it took
def test_read_timeout_mid_stream_keeps_partial_text(server, make, collect):
    server.anthropic(stream("anthropic_text", stall_after=5, stall=6.0))
    started = time.monotonic()
    events, error = collect(make("anthropic", read_timeout=0.3))
    assert time.monotonic() - started < 4.0   # the client gave up; the server was still silent
    assert text_of(events) == "Hello, world"
    assert "read timeout" in error.message and "read_timeout" in error.message
    assert error.status is None and len(server.requests) == 1


def test_read_timeout_before_output_is_retried(server, make, collect):
    server.openai(stream("openai_text", stall_after=0, stall=1.0), stream("openai_text"))
    assert ok(*collect(make("openai", read_timeout=0.3))) == "Hello, world!"
    assert len(server.requests) == 2


def test_anthropic_stream_cut_before_message_stop_is_an_error(server, make, collect):
    server.anthropic(stream(recording("anthropic_text")[:-1]))   # clean end, no message_stop
    events, error = collect(make("anthropic"))
    assert text_of(events) == "Hello, world!"
    assert "truncated" in error.message
    assert not any(isinstance(e, Finished) for e in events)


def test_non_stream_200_answer_is_explained(server, make, collect):
    server.openai(Reply(status=200, body=b"<html>proxy login</html>",
                        headers={"content-type": "text/html"}))
    _, error = collect(make("openai"))
    assert "not an event stream" in error.message


def test_backoff_doubles_with_jitter_and_is_capped():
    for attempt, full in [(0, 0.5), (1, 1.0), (2, 2.0), (6, 8.0)]:
        delays = [backoff(attempt, 0.5) for _ in range(50)]
        assert all(0.75 * full <= d <= full for d in delays)
        assert len(set(delays)) > 1


def test_retry_after_parsing():
    assert retry_after({"retry-after-ms": "1500"}) == 1.5
    assert retry_after({"retry-after": "3"}) == 3.0
    assert retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None  # past
    assert retry_after({"retry-after": "3600"}) is None   # too long: our own backoff instead
    assert retry_after({"retry-after": "soon"}) is None
    assert retry_after({}) is None
