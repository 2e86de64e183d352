"""Fixtures for the provider tests: a real loopback SSE server and providers pointed at it.

Nothing here mocks edgar: the providers speak HTTP over a real socket to ``SSEServer``.
Keys are fake, and the environment is cleaned so a developer's real key or base URL never
leaks into a test (or a test into the internet).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support.project import make_project
from support.provider_fakes import FAKE_ANTHROPIC_KEY, FAKE_OPENAI_KEY
from support.sse_server import SSEServer

from edgar.config import ProviderSettings
from edgar.conversation import Message, TextBlock, ToolSpec
from edgar.providers.base import Finished, ModelRequest, ProviderError


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A one-file project with its own user dir: what the MCP tests run in (a module's own
    ``project`` wins over this one)."""
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    return make_project(tmp_path / "proj", {"a.txt": "hello\n"})


@pytest.fixture
def server():
    with SSEServer() as s:
        yield s
        # every request body edgar sent in the test, against the official SDKs' types
        problems = s.invalid_requests()
        assert not problems, "\n".join(problems)


@pytest.fixture
def provider_env(monkeypatch, server):
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL",
                 "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_ANTHROPIC_KEY)
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")


def settings(**kw: Any) -> ProviderSettings:
    """Fast settings for tests: tiny backoff and timeouts so fault tests take milliseconds."""
    base = {"retry_backoff": 0.01, "read_timeout": 5.0, "connect_timeout": 2.0, "max_retries": 2}
    return ProviderSettings(**{**base, **kw})


@pytest.fixture
def make(provider_env):
    """``make("anthropic", model=..., **settings)`` -> a provider aimed at the fixture server."""

    def build(kind: str, model: str | None = None, **kw: Any):
        if kind == "anthropic":
            from edgar.providers.anthropic import AnthropicProvider

            return AnthropicProvider(model or "claude-sonnet-4-5", settings(**kw))
        from edgar.providers.openai import OpenAIProvider

        return OpenAIProvider(model or "gpt-4.1", settings(**kw))

    return build


def _request(*messages: Message, text: str = "hi", tools: tuple[ToolSpec, ...] = (),
             system: str = "You are edgar.", max_tokens: int = 8192) -> ModelRequest:
    msgs = list(messages) or [Message("user", [TextBlock(text)])]
    return ModelRequest(system=system, messages=msgs, tools=list(tools), max_tokens=max_tokens)


@pytest.fixture
def request_of():
    """``request_of(*messages, text=, tools=)`` -> a ModelRequest."""
    return _request


def _collect(provider, req: ModelRequest | None = None) -> tuple[list[Any], ProviderError | None]:
    """Every event the provider yields, and the ProviderError that ended it, if any."""

    async def go():
        events: list[Any] = []
        try:
            async for event in provider.stream(req or _request()):
                events.append(event)
        except ProviderError as exc:
            return events, exc
        finally:
            await provider.aclose()
        return events, None

    return asyncio.run(go())


@pytest.fixture
def collect():
    return _collect


def finished(events: list[Any]) -> Finished:
    assert isinstance(events[-1], Finished), events
    assert sum(isinstance(e, Finished) for e in events) == 1
    return events[-1]


@pytest.fixture
def last():
    """``last(events)`` -> the single Finished event, asserted to be last."""
    return finished
