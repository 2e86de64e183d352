"""Claude Code's ``type: "http"`` hooks against a real loopback HTTP server (ADR-0118): the
event's JSON POSTed to the URL, decisions read from a 2xx JSON body, a non-2xx answer, a
refused connection and a timeout non-blocking, redirects not followed, headers filled only
from ``allowedEnvVars``, a project's http hooks only after ``edgar trust``; and the entry
fields ``statusMessage`` (said while the hook runs) and ``async`` (runs without holding edgar
up, its context with the next prompt)."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from support.project import make_project, write_script

from edgar.cli.setup import build
from edgar.config import Settings
from edgar.config.trust import trust
from edgar.core.loop import run_turn
from edgar.events import Event, Notice
from edgar.providers.scripted import ScriptedProvider

SHELL = {"name": "shell", "input": {"command": "echo ran > ran.txt"}}


class Server:
    """A loopback HTTP server that records each request and answers from ``routes``:
    path -> (status, body, headers, seconds to wait first)."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.routes: dict[str, tuple[int, str, dict[str, str], float]] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:   # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length).decode()
                outer.requests.append({"path": self.path, "headers": dict(self.headers),
                                       "body": json.loads(body) if body else None})
                status, text, headers, wait = outer.routes.get(self.path, (200, "", {}, 0))
                time.sleep(wait)
                data = text.encode()
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass   # the client gave up (a timeout test)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def paths(self) -> list[str]:
        return [r["path"] for r in self.requests]


@pytest.fixture
def server():
    s = Server()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    claude = tmp_path / "claude-home"
    claude.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                 "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    project = make_project(tmp_path / "proj", {"a.txt": "hello\n"})
    return project, claude


def settings_file(path: Path, hooks: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}, indent=2))


def http_hook(event: str, url: str, matcher: str = "Bash", **extra) -> dict:
    return {event: [{"matcher": matcher, "hooks": [{"type": "http", "url": url, **extra}]}]}


def session(project: Path, lines, mode="yes"):
    script = write_script(project / f"s{len(ScriptedProvider._shared)}.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    app = build(project, Settings(model=f"scripted:{script}", permission_mode=mode),
                learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def run(app, *prompts):
    async def go():
        return [await run_turn(app.session, p) for p in prompts]
    try:
        return asyncio.run(app.running(go()))
    finally:
        app.close()


def results(app):
    return [b for m in app.session.messages if m.role == "user" for b in m.content
            if getattr(b, "tool_use_id", None)]


def said(events, level="warning"):
    return [e.message for e in events if isinstance(e, Notice) and e.level == level]


def deny(reason: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                                              "permissionDecision": "deny",
                                              "permissionDecisionReason": reason}})


def test_a_2xx_json_deny_refuses_the_call_and_the_server_got_claude_codes_input(
        env, server, monkeypatch):
    project, claude = env
    monkeypatch.setenv("HOOK_TOKEN", "t0k3n")
    monkeypatch.setenv("OTHER_SECRET", "must-not-leave")
    server.routes["/guard"] = (200, deny("no shell today"), {"Content-Type": "application/json"},
                               0)
    settings_file(claude / "settings.json", http_hook(
        "PreToolUse", server.url + "/guard",
        headers={"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "${OTHER_SECRET}"},
        allowedEnvVars=["HOOK_TOKEN"]))
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    assert not (project / "ran.txt").exists()
    assert "no shell today" in results(app)[0].content
    [request] = server.requests
    body = request["body"]
    assert body["hook_event_name"] == "PreToolUse" and body["tool_name"] == "Bash"
    assert body["tool_input"]["command"] == "echo ran > ran.txt"
    assert body["session_id"] == app.session.id and body["cwd"]
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers["content-type"] == "application/json"
    assert headers["authorization"] == "Bearer t0k3n"
    assert headers["x-other"] == ""    # not in allowedEnvVars: the empty string
    assert any("OTHER_SECRET, which allowedEnvVars does not list" in m for m in said(events))


@pytest.mark.parametrize("route, words", [
    ((500, "boom", {}, 0), "answered HTTP 500"),
    ((200, "", {}, 0), None),
])
def test_a_non_2xx_answer_is_a_non_blocking_error_and_an_empty_2xx_is_go_on(
        env, server, route, words):
    project, claude = env
    server.routes["/h"] = route
    settings_file(claude / "settings.json", http_hook("PreToolUse", server.url + "/h"))
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    assert (project / "ran.txt").read_text() == "ran\n"   # it ran: the hook cannot block so
    assert server.paths() == ["/h"]
    warnings = [m for m in said(events) if "PreToolUse" in m]
    if words is None:
        assert warnings == []
    else:
        assert any(words in m and str(claude / "settings.json") in m for m in warnings)


def test_a_refused_connection_is_said_and_the_call_goes_on(env):
    project, claude = env
    settings_file(claude / "settings.json", http_hook("PreToolUse", "http://127.0.0.1:9/x"))
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    assert (project / "ran.txt").exists()
    assert any("could not reach http://127.0.0.1:9/x" in m for m in said(events))


def test_a_redirect_is_not_followed(env, server):
    project, claude = env
    server.routes["/a"] = (302, "", {"Location": server.url + "/elsewhere"}, 0)
    server.routes["/elsewhere"] = (200, deny("followed"), {}, 0)
    settings_file(claude / "settings.json", http_hook("PreToolUse", server.url + "/a"))
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    assert server.paths() == ["/a"]          # the network is reached only where configured
    assert (project / "ran.txt").exists()
    assert any("answered HTTP 302" in m for m in said(events))


def test_the_hooks_timeout_cancels_a_slow_server(env, server):
    project, claude = env
    server.routes["/slow"] = (200, deny("late"), {}, 3)
    settings_file(claude / "settings.json", http_hook("PreToolUse", server.url + "/slow",
                                                      timeout=0.5))
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    started = time.monotonic()
    run(app, "go")
    assert time.monotonic() - started < 2.5
    assert (project / "ran.txt").exists()
    assert any("timed out after 0.5s" in m for m in said(events))


def test_a_2xx_block_from_user_prompt_submit_and_plain_text_context(env, server):
    project, claude = env
    server.routes["/ups"] = (200, "remember: tabs, not spaces", {}, 0)
    settings_file(claude / "settings.json", http_hook("UserPromptSubmit", server.url + "/ups",
                                                      matcher=""))
    app, _ = session(project, [{"text": "ok"}])
    run(app, "go")
    [request] = server.requests
    assert request["body"]["prompt"] == "go"
    sent = json.dumps([m.content for m in app.session.messages if m.role == "user"],
                      default=str)
    assert "remember: tabs, not spaces" in sent


def test_a_projects_http_hook_waits_for_trust(env, server):
    project, _ = env
    server.routes["/p"] = (200, deny("project says no"), {}, 0)
    settings_file(project / ".claude" / "settings.json", http_hook("PreToolUse",
                                                                  server.url + "/p"))
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    assert server.requests == [] and (project / "ran.txt").exists()
    assert any("1 project hook(s) not run" in m for m in said(events))
    (project / "ran.txt").unlink()
    trust(project)
    app, _ = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    assert server.paths() == ["/p"] and not (project / "ran.txt").exists()


def test_bad_http_entries_are_located_and_do_not_run(env, server):
    project, claude = env
    settings_file(claude / "settings.json", {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": "file:///etc/passwd"},
        {"type": "http", "url": server.url + "/x", "headers": {"A": "b\r\nInjected: 1"}},
        {"type": "http", "url": server.url + "/y", "async": True}]}]})
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    problems = said(events)
    where = str(claude / "settings.json")
    assert any("needs \"url\": an http:// or https:// address" in m and where in m
               for m in problems)
    assert any("wrong type for headers" in m for m in problems)
    assert any("does not read 'async' on an http hook" in m for m in problems)
    assert server.paths() == ["/y"]


def py_hook(code: str) -> str:
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def test_status_message_is_said_while_the_hook_runs(env, server):
    project, claude = env
    settings_file(claude / "settings.json", {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "http", "url": server.url + "/s", "statusMessage": "Checking with policy"},
        {"type": "command", "command": py_hook("pass"), "statusMessage": "Local check"}]}]})
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "ok"}])
    run(app, "go")
    info = said(events, "info")
    assert "PreToolUse hook: Checking with policy" in info
    assert "PreToolUse hook: Local check" in info
    assert not any("statusMessage" in m for m in said(events))   # read, not named as ignored


def test_an_async_hook_does_not_hold_the_call_and_its_context_comes_with_the_next_prompt(
        env, tmp_path):
    project, claude = env
    witness = tmp_path / "async-done"
    code = ("import json, sys, time; time.sleep(0.3); "
            f"open({str(witness)!r}, 'w').write('done'); "
            "print(json.dumps({'decision': 'block', 'reason': 'ignored', "
            "'hookSpecificOutput': {'hookEventName': 'PostToolUse', "
            "'additionalContext': 'lint found 2 warnings'}}))")
    settings_file(claude / "settings.json", {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": py_hook(code), "async": True}]}]})
    app, events = session(project, [{"tool_calls": [SHELL]}, {"text": "first"},
                                    {"text": "second"}])
    started = time.monotonic()

    async def go():
        await run_turn(app.session, "one")
        first = time.monotonic() - started
        done_at_first = witness.exists()
        for _ in range(100):
            if witness.exists():
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        await run_turn(app.session, "two")
        return first, done_at_first
    try:
        _, done_at_first = asyncio.run(app.running(go()))
    finally:
        app.close()
    assert (project / "ran.txt").exists()
    assert not done_at_first            # the turn did not wait for the async hook
    assert "ignored" not in results(app)[0].content   # its decision has no effect
    user_texts = [json.dumps(m.content, default=str) for m in app.session.messages
                  if m.role == "user"]
    assert "lint found 2 warnings" in user_texts[-1]
    assert not any("lint found" in t for t in user_texts[:-1])
