"""stdio framing with no line limit (issue 23 item 5): a real SDK server's reply of many MiB
arrives whole; one past ``mcp.max_message_bytes`` ends that server with the reason, never
silently."""

from __future__ import annotations

import asyncio

from hypothesis import given, settings
from hypothesis import strategies as st
from integration.test_mcp import app_for, call, notices, results, session_turns, stdio

from edgar.config import ContextSettings, McpSettings
from edgar.mcp.framing import MessageTooLarge, read_line


def test_a_reply_far_past_the_old_1_mib_line_passes_whole(project):
    app, events = app_for(project, [{"tool_calls": [call("mcp__t__big", chars=8_000_000)]},
                                    {"text": "ok"}], servers={"t": stdio()},
                          context=ContextSettings(tool_result_max_chars=10_000_000))
    [result] = session_turns(app, "go")
    assert result.outcome == "ok"
    [big] = results(app)
    assert not big.is_error and big.content == "x" * 8_000_000
    assert not [m for m in notices(events) if "gone" in m]


def test_a_reply_past_the_bound_ends_the_server_with_the_reason(project):
    app, events = app_for(project, [
        {"tool_calls": [call("mcp__t__big", chars=2_000_000)]},
        {"tool_calls": [call("mcp__t__echo", text="again")]}, {"text": "ok"}],
        mcp=McpSettings(servers={"t": stdio()}, startup_timeout=20,
                        max_message_bytes=1 << 20, call_timeout=60))
    [result] = session_turns(app, "go")
    big, again = results(app)
    assert big.is_error and "larger than 1048576 bytes" in big.content
    assert "mcp.max_message_bytes" in big.content
    assert again.is_error and "unknown tool" in again.content   # its tools left the session
    said = [m for m in notices(events) if m.startswith('mcp: server "t"')]
    assert len(said) == 1 and "larger than 1048576 bytes" in said[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.binary(max_size=300).map(lambda b: b.replace(b"\n", b"")), max_size=6),
       st.integers(min_value=16, max_value=128), st.booleans())
def test_read_line_gives_back_every_line_whatever_the_buffer(lines, limit, newline_at_end):
    data = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")

    async def go() -> list[bytes]:
        reader = asyncio.StreamReader(limit=limit)
        reader.feed_data(data)
        reader.feed_eof()
        got = []
        while (line := await read_line(reader, bound=10_000)) is not None:
            got.append(line)
        return got

    got = asyncio.run(go())
    *whole, last = data.split(b"\n")
    assert got == [w + b"\n" for w in whole] + ([last] if last else [])


def test_read_line_refuses_past_the_bound():
    async def go() -> None:
        reader = asyncio.StreamReader(limit=64)
        reader.feed_data(b"y" * 5000 + b"\nnext\n")
        reader.feed_eof()
        try:
            await read_line(reader, bound=1000)
        except MessageTooLarge as exc:
            assert exc.bound == 1000 and exc.size > 1000
            return
        raise AssertionError("not refused")

    asyncio.run(go())
