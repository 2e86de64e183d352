"""MCP prompts as ``/mcp__server__prompt`` and resources as ``@server:uri`` (issue 23 item 5),
in the REPL through ``submit``, against the SDK's own server (tests/support/mcp_server.py)
and the real session with the scripted provider: what the model receives is checked."""

from __future__ import annotations

import asyncio
import sys

from support.project import REPO, recorded, write_script
from unit.test_slash import Said

from edgar.cli.asker import Asker, Screen
from edgar.cli.repl import Repl
from edgar.cli.setup import build
from edgar.config import McpServerSettings, McpSettings, Settings
from edgar.events import Attached, Event, PromptTyped
from edgar.providers.scripted import ScriptedProvider

SERVER = str(REPO / "tests" / "support" / "mcp_server.py")


def repl_for(project, tmp_path, monkeypatch, lines):
    record = tmp_path / "sent.jsonl"
    monkeypatch.setenv("EDGAR_SCRIPTED_RECORD", str(record))
    script = write_script(tmp_path / "s.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    mcp = McpSettings(servers={"t": McpServerSettings(command=sys.executable, args=[SERVER])},
                      startup_timeout=20)
    app = build(project, Settings(model=f"scripted:{script}", permission_mode="yes", mcp=mcp),
                learning=False)
    said = Said()
    screen = Screen()
    repl = Repl(said, app, Asker(said.say, screen), screen)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return repl, events, record


def run(repl, *lines):
    async def go():
        for line in lines:
            await repl.submit(line)
            if repl.foreground is not None:
                await asyncio.wait([repl.foreground])
    asyncio.run(repl.app.running(go()))


def test_a_prompt_is_a_slash_command_its_text_an_attachment_not_typed(project, tmp_path,
                                                                      monkeypatch):
    repl, events, record = repl_for(project, tmp_path, monkeypatch, [{"text": "reviewed"}])
    run(repl, '/mcp__t__review src/app.py "error handling"')
    [request] = recorded(record)
    content = request["messages"][-1]["content"]
    assert content[0]["text"] == '/mcp__t__review src/app.py "error handling"'
    body = content[1]["text"]
    # the words bound to the declared arguments in order, quotes grouping words
    assert body.startswith('<command name="mcp__t__review">')
    assert "Review src/app.py, focusing on error handling." in body
    assert "[assistant]\nI will read it first." in body     # the assistant's message, marked
    assert "[image image/png" in body and "not sent" in body  # named, never dropped silently
    typed = [e.text for e in events if isinstance(e, PromptTyped)]
    assert typed == ['/mcp__t__review src/app.py "error handling"']   # typed: the line only
    attached = [e for e in events if isinstance(e, Attached)]
    assert [e.sources for e in attached] == [("/mcp__t__review",)]
    assert "Always use tabs" not in " ".join(typed)


def test_optional_arguments_extra_words_and_a_prompt_without_arguments(project, tmp_path,
                                                                       monkeypatch):
    repl, _, record = repl_for(project, tmp_path, monkeypatch, [{"text": "a"}, {"text": "b"}])
    run(repl, "/mcp__t__review a.py the whole thing", "/mcp__t__standup")
    first, second = (r["messages"][-1]["content"] for r in recorded(record))
    assert "Review a.py, focusing on the whole thing." in first[1]["text"]   # joined, not lost
    assert "Summarise yesterday's commits." in second[1]["text"]


def test_a_missing_argument_or_a_failing_prompt_sends_nothing(project, tmp_path, monkeypatch):
    repl, events, record = repl_for(project, tmp_path, monkeypatch, [{"text": "never"}])
    run(repl, "/mcp__t__broken now", "/mcp__t__standup extra", "/mcp__t__review")
    said = repl.renderer.lines
    assert said[0].startswith('edgar: prompt \'broken\' of "t": ')
    assert said[1].startswith("edgar: /mcp__t__standup takes no arguments")
    assert said[2] == ("edgar: /mcp__t__review needs path (usage: /mcp__t__review PATH "
                       "[FOCUS]) — your line is back in the prompt")
    assert repl.default == "/mcp__t__review"          # the line is back in the prompt
    assert not record.exists()
    assert not [e for e in events if isinstance(e, PromptTyped)]


def test_help_lists_the_prompts_with_their_arguments(project, tmp_path, monkeypatch):
    repl, _, _ = repl_for(project, tmp_path, monkeypatch, [])

    async def go():
        await repl.app.mcp.ready()
        await repl.submit("/help")
    asyncio.run(repl.app.running(go()))
    text = repl.renderer.text
    assert "/mcp__t__review" in text and "PATH [FOCUS] — Review a file with a focus (mcp t)" in text
    assert "/mcp__t__standup" in text


def test_a_resource_is_attached_like_an_at_file(project, tmp_path, monkeypatch):
    repl, events, record = repl_for(project, tmp_path, monkeypatch, [{"text": "ok"}])
    run(repl, "compare @t:config://app with @t:blob://logo, and @t:config://app again")
    [request] = recorded(record)
    content = request["messages"][-1]["content"]
    assert [c["text"].split("\n")[0] for c in content[1:]] == [
        '<file path="t:config://app">', '<file path="t:blob://logo">']
    assert "port = 8080" in content[1]["text"]
    assert "[binary resource blob://logo (image/png" in content[2]["text"]
    typed = [e.text for e in events if isinstance(e, PromptTyped)]
    assert typed == ["compare @t:config://app with @t:blob://logo, and @t:config://app again"]


def test_an_unknown_resource_sends_nothing_and_other_at_words_are_text(project, tmp_path,
                                                                       monkeypatch):
    repl, _, record = repl_for(project, tmp_path, monkeypatch, [{"text": "ok"}])
    run(repl, "read @t:config://nosuch", "mail @bob:smtp://x about it")
    assert repl.renderer.lines[0].startswith("edgar: @t:config://nosuch: ")
    [request] = recorded(record)
    assert [c["text"] for c in request["messages"][-1]["content"]] == [
        "mail @bob:smtp://x about it"]
