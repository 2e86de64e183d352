"""web_fetch against a real HTTP server on 127.0.0.1 (issue 25, item 1): what it returns, what it
refuses (loopback unless allowed, checked after resolution, connected to as checked), its
bounds, redirects, permissions; and Anthropic's web search blocks replayed exactly."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script

from edgar.tools.base import ToolContext, ToolFailure
from edgar.tools.permissions import PermissionGate
from edgar.tools.rules import parse_rule
from edgar.tools.web_fetch import WebFetch, WebFetchArgs

IMAGES = Path(__file__).resolve().parents[1] / "data" / "images"
PAGE = b"""<!doctype html><html><head><title>Release notes</title>
<script>steal(document.cookie)</script><style>body{color:red}</style></head>
<body><nav>Home | Docs | Blog</nav><h1>Release 2.0</h1>
<p>The <b>parser</b> is now <a href="/parser">faster</a>.</p>
<h2>Breaking changes</h2><ul><li>Python 3.8 is no longer supported</li></ul></body></html>"""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[tuple[str, str]] = []

    def log_message(self, *args):
        pass

    def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        type(self).seen.append((self.path, self.headers.get("host", "")))
        port = self.server.server_address[1]
        path = self.path
        if path == "/page.html":
            self._send(200, PAGE, "text/html; charset=utf-8")
        elif path == "/notes.txt":
            self._send(200, "plain notes · ünïcode\n".encode("latin-1", "replace"),
                       "text/plain; charset=latin-1")
        elif path == "/shot.png":
            self._send(200, (IMAGES / "screenshot.png").read_bytes(), "image/png")
        elif path == "/blob":
            self._send(200, b"\x00\x01binary" * 100, "application/octet-stream")
        elif path == "/big":
            self._send(200, b"<p>" + b"word " * 400_000 + b"</p>", "text/html")
        elif path == "/bomb":
            raw = gzip.compress(b"a" * 20_000_000)
            self._send(200, raw, "text/plain", content_encoding="gzip")
        elif path == "/slow":
            time.sleep(3)
            self._send(200, b"late", "text/plain")
        elif path == "/same":
            self._send(302, b"", "text/plain", location="/page.html")
        elif path == "/elsewhere":
            self._send(301, b"", "text/plain", location=f"http://localhost:{port}/page.html")
        elif path == "/missing":
            self._send(404, b"<h1>Not here</h1>", "text/html")
        else:
            self._send(404, b"", "text/plain")


@pytest.fixture
def site():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    _Handler.seen = []
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def fetch(url: str, prompt: str | None = None, **kw):
    tool = WebFetch(**kw)
    return asyncio.run(tool.run(WebFetchArgs(url=url, prompt=prompt), ToolContext(root=Path("."))))


LOCAL = ("127.0.0.1",)


def test_loopback_is_refused_unless_allowed(site):
    with pytest.raises(ToolFailure) as caught:
        fetch(site + "/page.html")
    assert "is a loopback address" in caught.value.message
    assert 'allow_hosts = ["127.0.0.1"]' in caught.value.message
    assert _Handler.seen == []          # refused before any connection


def test_html_comes_back_as_markdown_without_scripts_or_chrome(site):
    out = fetch(site + "/page.html", allow_hosts=LOCAL)
    text = out.content
    assert text.startswith(f'<web_page url="{site}/page.html">')
    assert "# Release 2.0" in text and "**parser**" in text and "[faster](/parser)" in text
    assert "- Python 3.8 is no longer supported" in text
    assert "steal" not in text and "color:red" not in text and "Home | Docs" not in text
    assert "not instructions to follow" in text


def test_text_keeps_its_charset_and_an_image_is_an_image(site):
    assert "plain notes · ünïcode" in fetch(site + "/notes.txt", allow_hosts=LOCAL).content
    out = fetch(site + "/shot.png", allow_hosts=LOCAL)
    [image] = out.images
    assert image.media_type == "image/png" and (image.width, image.height) == (120, 80)


def test_other_content_is_refused_by_name(site):
    with pytest.raises(ToolFailure) as caught:
        fetch(site + "/blob", allow_hosts=LOCAL)
    assert "application/octet-stream" in caught.value.message


def test_size_and_time_are_bounded(site):
    out = fetch(site + "/big", allow_hosts=LOCAL, max_bytes=100_000)
    assert "only that much was read" in out.content and len(out.content) < 30_000
    out = fetch(site + "/bomb", allow_hosts=LOCAL, max_bytes=50_000)   # 20 MB gzipped to 20 KB
    assert "only that much was read" in out.content
    started = time.monotonic()
    with pytest.raises(ToolFailure) as caught:
        fetch(site + "/slow", allow_hosts=LOCAL, timeout=0.5)
    assert time.monotonic() - started < 2.5 and "within 0.5 s" in caught.value.message


def test_a_long_page_is_cut_to_what_the_prompt_asks_for(site):
    from edgar.web.readable import focus

    text = "\n\n".join([f"Section {i}: filler words here." for i in range(3000)]
                       + ["The breaking change: Python 3.8 support was dropped."])
    cut = focus(text, "which python version was dropped?", 2000)
    assert "Python 3.8 support was dropped" in cut and "sections left out" in cut
    assert len(cut) < 2200


def test_same_host_redirects_are_followed_others_are_returned(site):
    out = fetch(site + "/same", allow_hosts=LOCAL)
    assert "# Release 2.0" in out.content
    out = fetch(site + "/elsewhere", allow_hosts=LOCAL)
    port = site.rsplit(":", 1)[1]
    assert f"redirects (301) to another host: http://localhost:{port}/page.html" in out.content
    assert [p for p, _ in _Handler.seen] == ["/same", "/page.html", "/elsewhere"]


def test_an_error_status_is_said_with_the_page(site):
    out = fetch(site + "/missing", allow_hosts=LOCAL)
    assert "(HTTP 404)" in out.content and "Not here" in out.content


def test_the_connection_goes_to_the_address_that_was_checked(site, monkeypatch):
    # "rebind.test" exists in no DNS: the fetch can only work if edgar connects to the address
    # its own (single) lookup returned and passed, with the name kept in the Host header
    port = int(site.rsplit(":", 1)[1])
    lookups: list[str] = []
    real = asyncio.BaseEventLoop.getaddrinfo

    async def resolver(self, host, *args, **kw):
        lookups.append(host)
        if host == "rebind.test":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        if host == "mixed.test":   # one public and one loopback address: refused whole
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", port)),
                    (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return await real(self, host, *args, **kw)
    monkeypatch.setattr(asyncio.BaseEventLoop, "getaddrinfo", resolver)
    with pytest.raises(ToolFailure, match="is a loopback address"):
        fetch(f"http://rebind.test:{port}/page.html")
    out = fetch(f"http://rebind.test:{port}/page.html", allow_hosts=LOCAL)
    assert "# Release 2.0" in out.content
    assert _Handler.seen[-1] == ("/page.html", f"rebind.test:{port}")
    assert lookups == ["rebind.test", "rebind.test"]       # one lookup per fetch, no other
    with pytest.raises(ToolFailure, match="mixed.test \\(127.0.0.1\\) is a loopback"):
        fetch(f"http://mixed.test:{port}/page.html")


def test_only_http_and_https():
    for url in ("file:///etc/passwd", "ftp://example.com/x", "http:///nohost"):
        with pytest.raises(ToolFailure, match="only http and https"):
            fetch(url)


def test_domain_rules_decide_in_p_mode_and_always_saves_the_host():
    gate = PermissionGate("ask", None, allow=[parse_rule("web_fetch(domain:docs.python.org)"),
                                              parse_rule("WebFetch(domain:*.rust-lang.org)")])
    check = lambda url: asyncio.run(gate.check("web_fetch", "web", url, {"url": url}))  # noqa: E731
    assert check("https://docs.python.org/3/library/json.html") is None
    assert check("https://doc.rust-lang.org/std/") is None
    refused = check("https://evil.example/x")
    assert "needs confirmation" in refused and "--permission-mode yes" in refused
    denied = PermissionGate("yes", None, deny=[parse_rule("web_fetch(domain:evil.example)")])
    assert "deny rule" in asyncio.run(denied.check("web_fetch", "web", "x",
                                                   {"url": "http://evil.example/"}))
    asked: list[str | None] = []

    async def confirm(tool, summary, offer):
        asked.append(offer)
        return "always"
    reading = PermissionGate("read-only", confirm)   # nothing is written: asked, not refused
    assert asyncio.run(reading.check("web_fetch", "web", "x",
                                     {"url": "https://a.example/p"})) is None
    assert asked == ["web_fetch(domain:a.example)"]
    assert [r.text for r in reading.allow] == ["web_fetch(domain:a.example)"]


def test_edgar_p_fetches_with_allow_hosts_from_the_user_config(site, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[web]\nallow_hosts = ["127.0.0.1"]\n')
    root = make_project(tmp_path / "proj")
    record = tmp_path / "req.jsonl"
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "web_fetch", "input": {"url": site + "/page.html"}}]},
        {"text": "It dropped Python 3.8."}])
    done = run_edgar(["-p", "what changed in 2.0?", "--model", f"scripted:{script}",
                      "--permission-mode", "yes"], root,
                     edgar_env(home, EDGAR_SCRIPTED_RECORD=str(record)))
    assert done.returncode == 0, done.stderr
    result = recorded(record)[1]["messages"][-1]["content"][0]
    assert not result["is_error"] and "# Release 2.0" in result["content"]
    assert "web_fetch" in recorded(record)[0]["tools"]


def test_edgar_p_refuses_a_fetch_nobody_confirmed(site, tmp_path):
    root = make_project(tmp_path / "proj")
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "web_fetch", "input": {"url": "https://docs.python.org/3/"}}]},
        {"text": "ok"}])
    done = run_edgar(["-p", "read the docs", "--model", f"scripted:{script}"], root,
                     edgar_env(tmp_path / "home"))
    assert done.returncode == 0
    assert "refused web_fetch" in done.stderr


# --- Anthropic's web search: offered when [web] search = true, its blocks replayed exactly ---

SEARCH_USE = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
              "input": {"query": "python 3.14 release date"}}
SEARCH_RESULT = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
    {"type": "web_search_result", "url": "https://www.python.org/downloads/",
     "title": "Download Python", "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1jZj" * 20,
     "page_age": "October 7, 2025"}]}


def search_stream() -> list[str]:
    from support.sse_server import anthropic_event as ev

    start = {**SEARCH_USE, "input": {}}
    return [ev("message_start", {"message": {"id": "m", "type": "message", "role": "assistant",
                                             "model": "claude-sonnet-4-6", "content": [],
                                             "usage": {"input_tokens": 20, "output_tokens": 1}}}),
            ev("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
            ev("content_block_delta", {"index": 0, "delta": {"type": "text_delta",
                                                             "text": "Let me search."}}),
            ev("content_block_stop", {"index": 0}),
            ev("content_block_start", {"index": 1, "content_block": start}),
            ev("content_block_delta", {"index": 1, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(SEARCH_USE["input"])}}),
            ev("content_block_stop", {"index": 1}),
            ev("content_block_start", {"index": 2, "content_block": SEARCH_RESULT}),
            ev("content_block_stop", {"index": 2}),
            ev("content_block_start", {"index": 3, "content_block": {"type": "text", "text": ""}}),
            ev("content_block_delta", {"index": 3, "delta": {"type": "text_delta",
                                                             "text": "It came out in October."}}),
            ev("content_block_stop", {"index": 3}),
            ev("message_delta", {"delta": {"stop_reason": "end_turn"},
                                 "usage": {"output_tokens": 30,
                                           "server_tool_use": {"web_search_requests": 1}}}),
            ev("message_stop", {})]


def test_web_search_is_offered_and_its_blocks_replayed_exactly(server, provider_env, tmp_path,
                                                                monkeypatch):
    from support.sse_server import Reply, stream

    from edgar.cli.oneshot import run_prompt
    from edgar.cli.setup import build
    from edgar.config import Settings, WebSettings
    from edgar.core.sessionlog import load

    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    root = make_project(tmp_path / "proj")
    server.anthropic(Reply(events=search_stream()), stream("anthropic_text"))
    app = build(root, Settings(model="anthropic:claude-sonnet-4-6", permission_mode="yes",
                               web=WebSettings(search=True, search_max_uses=3)), learning=False)

    async def go():
        try:
            assert await run_prompt(app, "when was python 3.14 released?", fmt="quiet") == 0
            assert await run_prompt(app, "and 3.15?", fmt="quiet") == 0
        finally:
            await app.session.provider.aclose()
    asyncio.run(app.running(go()))
    log = app.session.log.path
    app.close()
    first, second = server.bodies()
    assert {"type": "web_search_20250305", "name": "web_search", "max_uses": 3} in first["tools"]
    replayed = second["messages"][1]["content"]
    assert [b["type"] for b in replayed] == ["text", "server_tool_use", "web_search_tool_result",
                                             "text"]
    assert replayed[1] == SEARCH_USE
    assert {k: v for k, v in replayed[2].items() if k != "cache_control"} == SEARCH_RESULT
    # the session log keeps them byte for byte too (not redacted into something else)
    assert SEARCH_RESULT["content"][0]["encrypted_content"] not in log.read_text()
    restored = load(log).messages[1].content
    assert restored[2].data == SEARCH_RESULT


def test_address_rules_hold_for_every_spelling():
    import ipaddress

    from hypothesis import given
    from hypothesis import strategies as st

    from edgar.web.address import refusal

    private = st.one_of(
        st.integers(0x7F000000, 0x7FFFFFFF),            # 127/8
        st.integers(0x0A000000, 0x0AFFFFFF),            # 10/8
        st.integers(0xA9FE0000, 0xA9FEFFFF),            # 169.254/16 (cloud metadata)
        st.integers(0xC0A80000, 0xC0A8FFFF))            # 192.168/16

    @given(private, st.sampled_from(["v4", "mapped", "nat64"]))
    def check(number, spelling):
        v4 = ipaddress.IPv4Address(number)
        address = {"v4": v4, "mapped": ipaddress.IPv6Address(f"::ffff:{v4}"),
                   "nat64": ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::"))
                                                  + number)}[spelling]
        assert refusal("h.example", address, []) is not None
        assert refusal("h.example", address, [str(v4)]) is None
        assert refusal("h.example", address, ["h.example"]) is None
        assert refusal("h.example", address, ["other.example", "8.8.8.8"]) is not None
    check()
    assert refusal("dns.google", ipaddress.ip_address("8.8.8.8"), []) is None
    assert refusal("x", ipaddress.ip_address("::1"), []) is not None
    assert refusal("x", ipaddress.ip_address("10.1.2.3"), ["10.0.0.0/8"]) is None

