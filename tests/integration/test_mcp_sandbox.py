"""Per-server sandbox settings (ADR-0102) against real servers in edgar's real sandbox:
``network`` and ``writable`` in an entry, the download cache ``npx -y``/``uvx`` write to, the
hint when a server fails at start for want of the network, and the HTTP+SSE transport."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid

import pytest
from integration.test_mcp import SERVER, app_for, call, notices, results, session_turns
from support.project import beyond_temp, make_project

from edgar.config import McpServerSettings, McpSettings
from edgar.config.trust import trust
from edgar.sandbox.probe import capabilities


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("EDGAR_CACHE", raising=False)
    return make_project(tmp_path / "proj", {"a.txt": "hello\n"})


@pytest.fixture
def outside():
    """A directory no sandbox may write unless told to."""
    where = beyond_temp() / "mcp-scratch" / uuid.uuid4().hex
    where.mkdir(parents=True)
    yield where
    shutil.rmtree(where, ignore_errors=True)


def confined() -> None:
    # without namespaces and Landlock nothing withholds a write or the network: a located
    # failure that names the machine's gap, never a skip
    caps = capabilities()
    assert caps.namespaces is not None and caps.landlock_abi >= 1, (
        "this machine gives edgar no namespaces or Landlock, so a server's sandbox cannot "
        f"withhold anything: {'; '.join(caps.why_not)}")


def server(*extra: str, **kw) -> McpServerSettings:
    return McpServerSettings(command=sys.executable, args=[SERVER, *extra], **kw)


class Listener:
    """A TCP listener on the host's 127.0.0.1: what a download would reach."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.close()

    def close(self) -> None:
        self.sock.close()


def test_writable_in_an_entry_opens_that_dir_to_that_server_only(project, outside):
    confined()
    (outside / "a").mkdir()
    app, _ = app_for(project, [{"tool_calls": [
        call("mcp__a__write_file", path=str(outside / "a" / "x"), text="by a"),
        call("mcp__a__write_file", path=str(outside / "y"), text="by a"),
        call("mcp__b__write_file", path=str(outside / "a" / "z"), text="by b"),
        call("mcp__a__write_file", path=str(project / "in-project"), text="by a")]},
        {"text": "ok"}],
        servers={"a": server(writable=[str(outside / "a")]), "b": server()})
    session_turns(app, "go")
    into_a, beside_a, b_into_a, in_project = (r.content for r in results(app))
    assert into_a.startswith("wrote") and (outside / "a" / "x").read_text() == "by a"
    assert beside_a.startswith("refused") and not (outside / "y").exists()
    assert b_into_a.startswith("refused") and not (outside / "a" / "z").exists()
    assert in_project.startswith("wrote")          # the project stays writable as for shell


def test_the_download_cache_is_writable_and_package_managers_point_there(project, outside,
                                                                         monkeypatch):
    confined()
    cache = outside / "cache"
    monkeypatch.setenv("EDGAR_CACHE", str(cache))
    app, _ = app_for(project, [{"tool_calls": [
        call("mcp__t__env_report", name="npm_config_cache"),
        call("mcp__t__env_report", name="UV_CACHE_DIR"),
        call("mcp__t__write_file", path="$npm_config_cache/_npx-probe", text="cached"),
        call("mcp__t__write_file", path=str(outside / "not-cache"), text="no")]},
        {"text": "ok"}], servers={"t": server()})
    session_turns(app, "go")
    npm, uv, into_cache, beside = (r.content for r in results(app))
    assert npm == str(cache / "mcp" / "npm") and uv == str(cache / "mcp" / "uv")
    assert into_cache.startswith("wrote") and (cache / "mcp" / "npm" / "_npx-probe").is_file()
    assert beside.startswith("refused") and not (outside / "not-cache").exists()


def test_an_entrys_own_env_wins_over_the_cache_variables(project):
    app, _ = app_for(project, [{"tool_calls": [
        call("mcp__t__env_report", name="npm_config_cache")]}, {"text": "ok"}],
        servers={"t": server(env={"npm_config_cache": "/mine"})})
    session_turns(app, "go")
    assert results(app)[0].content == "/mine"


def test_a_server_that_fails_at_start_without_network_gets_a_hint_naming_the_sandbox(project):
    confined()
    listener = Listener()
    try:
        app, events = app_for(project, [{"tool_calls": [call("read", path="a.txt")]},
                                        {"text": "ok"}],
                              servers={"dl": server("--connect", str(listener.port))})
        session_turns(app, "go")
    finally:
        listener.close()
    [said] = [m for m in notices(events) if m.startswith('mcp: server "dl"')]
    assert "exited (code 1): npm ERR! connect ECONNREFUSED" in said
    assert ("it ran in edgar's sandbox with the network off; if it downloads itself "
            "(python" in said)
    assert '"network": true in the "dl" entry' in said and said.endswith("not available")
    assert app.mcp.rows()[0].state == "failed"


@pytest.mark.parametrize("where", ["entry", "mcp"])
def test_network_true_lets_that_server_reach_the_network(project, where):
    confined()
    listener = Listener()
    entry = server("--connect", str(listener.port), network=where == "entry")
    mcp = McpSettings(servers={"dl": entry, "plain": server()}, startup_timeout=20,
                      network=where == "mcp")
    try:
        app, events = app_for(project, [{"tool_calls": [call("mcp__dl__echo", text="up")]},
                                        {"text": "ok"}], mcp=mcp)
        session_turns(app, "go")
    finally:
        listener.close()
    assert results(app)[0].content == "up"
    assert not [m for m in notices(events) if m.startswith("mcp: server")]
    boxes = {name: s.link.sandbox.get().policy.network for name, s in app.mcp.servers.items()}
    assert boxes == {"dl": True, "plain": where == "mcp"}   # one server's opt-in is its own


def test_a_project_entry_gets_its_opt_ins_only_once_trusted(project):
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"t": {
        "command": sys.executable, "args": [SERVER], "network": True}}}))
    app, events = app_for(project, [{"text": "ok"}])
    session_turns(app, "go")
    assert app.mcp.rows()[0].state == "untrusted"   # an untrusted server does not run at all
    trust(project)
    app, _ = app_for(project, [{"tool_calls": [call("mcp__t__echo", text="x")]},
                               {"text": "ok"}])
    session_turns(app, "go")
    assert results(app)[0].content == "x"
    assert app.mcp.servers["t"].link.sandbox.get().policy.network is True


def test_sse_server(project):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, SERVER, "sse", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"old": {
            "type": "sse", "url": f"http://127.0.0.1:{port}/sse"}}}))
        trust(project)
        app, _ = app_for(project, [{"tool_calls": [call("mcp__old__echo", text="over sse",
                                                        times=2)]}, {"text": "ok"}])
        session_turns(app, "go")
        [echo] = results(app)
        assert echo.content == "over sseover sse" and not echo.is_error
        assert app.mcp.rows()[0][:3] == ("old", "sse", "stopped")
    finally:
        proc.terminate()
        proc.wait(10)
