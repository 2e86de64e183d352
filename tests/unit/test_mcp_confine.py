"""``edgar.mcp.confine`` and ``edgar.paths.cache_dir``: the download cache and the hint."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgar.mcp.confine import cache_env, network_hint
from edgar.paths import cache_dir, user_dir


def test_the_cache_is_edgar_cache_else_beside_edgar_home(monkeypatch, tmp_path):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("EDGAR_CACHE", raising=False)
    assert cache_dir() == tmp_path / "home-cache"
    monkeypatch.setenv("EDGAR_CACHE", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"


def test_the_cache_is_never_inside_the_user_dir(monkeypatch):
    monkeypatch.delenv("EDGAR_HOME", raising=False)
    monkeypatch.delenv("EDGAR_CACHE", raising=False)
    assert not cache_dir().is_relative_to(user_dir())


def test_package_managers_are_pointed_beneath_the_cache():
    env = cache_env(Path("/c"))
    assert env["npm_config_cache"] == "/c/npm" and env["UV_CACHE_DIR"] == "/c/uv"
    assert all(v.startswith("/c/") for k, v in env.items() if k != "npm_config_update_notifier")


@pytest.mark.parametrize("command,args,stderr,hinted", [
    ("npx", ("-y", "@modelcontextprotocol/server-filesystem"), "", True),
    ("/usr/local/bin/uvx", ("mcp-server-git",), "", True),
    ("npm", ("exec", "some-server"), "", True),
    ("python3", ("server.py",), "getaddrinfo EAI_AGAIN registry.npmjs.org", True),
    ("python3", ("server.py",), "Traceback: KeyError 'x'", False),
    ("npm", ("start",), "", False),
])
def test_the_hint_comes_only_for_what_looks_like_a_download(command, args, stderr, hinted):
    said = network_hint(command, args, stderr, network=False, confined=True, name="fs")
    assert bool(said) is hinted
    if hinted:
        assert "edgar's sandbox with the network off" in said
        assert '"network": true in the "fs" entry' in said


def test_no_hint_when_the_network_was_on_or_nothing_was_confined():
    assert network_hint("npx", ("-y", "x"), "", network=True, confined=True, name="a") == ""
    assert network_hint("npx", ("-y", "x"), "", network=False, confined=False, name="a") == ""
