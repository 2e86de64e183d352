"""Choosing a provider from a model spec: ``PROVIDER:MODEL``.

Guarantees: an alias (``sonnet``) or a bare id (``claude-…``, ``gpt-…``) is resolved first
(``models.resolve``); an unknown prefix is a ``ProviderError(usage_error=True)`` that lists
the known ones and forms; provider modules are imported only when chosen (each costs import
time).
- ``start_notes(provider)`` is what a session says when it starts (and ``/model`` when it
  switches): a deprecated or retired model, a setting the API deprecates for it. Said on
  every run, not only by ``edgar doctor``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from edgar.providers.base import Provider, ProviderError

if TYPE_CHECKING:
    from edgar.config import Settings

KNOWN = ("anthropic", "openai", "scripted")


def split_spec(spec: str) -> tuple[str, str]:
    from edgar.providers.models import resolve

    prefix, sep, rest = resolve(spec).partition(":")
    if not sep or not rest:
        raise ProviderError("edgar", f"model {spec!r} must look like PROVIDER:MODEL, an alias "
                            f"(sonnet, opus, haiku) or a claude-…/gpt-… id "
                            f"(providers: {', '.join(KNOWN)})", usage_error=True)
    return prefix, rest


def make_provider(spec: str, settings: Settings) -> Provider:
    prefix, rest = split_spec(spec)
    if prefix == "scripted":
        from edgar.providers.scripted import ScriptedProvider

        return ScriptedProvider.shared(rest)
    if prefix == "anthropic":
        from edgar.providers.anthropic import AnthropicProvider

        return AnthropicProvider(rest, settings.provider("anthropic"))
    if prefix == "openai":
        from edgar.providers.openai import OpenAIProvider

        return OpenAIProvider(rest, settings.provider("openai"))
    raise ProviderError("edgar", f"unknown provider {prefix!r} in --model {spec!r} "
                        f"(known: {', '.join(KNOWN)})", usage_error=True)


WEB_SEARCH = "web_search_20250305"   # Anthropic's server-side web search tool, its first version


def server_tools(provider: Provider, settings: Settings) -> list[dict[str, Any]]:
    """The provider-run tools a request offers: Anthropic's web search when ``[web] search``."""
    if provider.name != "anthropic" or not settings.web.search:
        return []
    return [{"type": WEB_SEARCH, "name": "web_search",
             "max_uses": settings.web.search_max_uses}]


def start_notes(provider: Provider, settings: Settings | None = None) -> list[str]:
    """Warnings about the chosen model and its settings, for the start of every session."""
    if provider.name != "anthropic":
        if settings is not None and settings.web.search and provider.name != "scripted":
            return [f"[web] search is Anthropic's server-side tool: {provider.name} models are "
                    "not offered it (web_fetch still works)"]
        return []
    from edgar.providers.anthropic import AnthropicProvider
    from edgar.providers.models import lifecycle_note

    notes = [n for n in (lifecycle_note(provider.model),) if n]
    if isinstance(provider, AnthropicProvider):
        notes += provider.notes()
    return notes
