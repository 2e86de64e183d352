"""``edgar doctor [--model SPEC] [--ping]``: is edgar set up to reach a model?

Guarantees:
- Reports which config files exist and whether the merged settings are valid (a mistake is
  shown with file and line), the model chosen, whether its key variable is set — never the
  key itself, not even a prefix — and the base URL with where it came from.
- An alias or bare id is shown with what it resolves to (``sonnet → anthropic:…``); a model
  in Anthropic's deprecation table is warned about, and one past its end of life is a problem.
- Sends nothing unless ``--ping`` is given; then exactly one cheap request (``max_tokens`` 1,
  no retries) and reports ok or the provider's error message.
- Says which sandbox layers confine commands here (and loudly when none does).
- Exit code 0 when everything checked is fine, 1 when something needs fixing (a sandbox
  that confines nothing, outside mode ``off``, is one).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from edgar.config import Settings

# provider -> (default key variable, base URL variable, default base URL)
WIRE = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1"),
}


def _root() -> Path:
    try:
        from edgar.core.project import find_root
    except ImportError:  # the project module is optional for doctor
        here = Path.cwd().resolve()
        return next((p for p in (here, *here.parents) if (p / ".git").exists()), here)
    return find_root()


def run(argv: list[str]) -> int:
    from edgar.cli.suggest import described

    parser = argparse.ArgumentParser(prog="edgar doctor", description=described(__doc__))
    parser.add_argument("--model", help="check this PROVIDER:MODEL instead of the configured one")
    parser.add_argument("--ping", action="store_true",
                        help="send one cheap request to the provider")
    parser.add_argument("--repair", action="store_true",
                        help="move each broken state file of this project aside "
                             "(NAME.broken-TIMESTAMP; nothing is deleted)")
    args = parser.parse_args(argv)
    if args.repair:
        return repair()
    from edgar.config import ConfigError, load
    from edgar.paths import user_dir

    root = _root()
    problems = 0
    print("edgar doctor")
    for path in (user_dir() / "config.toml", root / ".edgar" / "config.toml"):
        if not path.is_file():
            _line("config", f"{path}: not found")
            continue
        try:
            tomllib.loads(path.read_text(encoding="utf-8"))
            _line("config", f"{path}: found")
        except (tomllib.TOMLDecodeError, OSError) as exc:
            _line("config", f"{path}: not valid TOML ({exc})")
            problems += 1
    try:
        settings = load(root, overrides={"model": args.model})
    except ConfigError as exc:
        _line("settings", f"invalid: {exc}")
        return 1
    _line("settings", "valid")
    problems += _sandbox(root, settings)
    from edgar.providers.models import lifecycle_note, resolve

    spec = resolve(settings.model)
    shown = settings.model if spec == settings.model else f"{settings.model} → {spec}"
    provider, _, model = spec.partition(":")
    _line("model", f"{shown}{_price_note(model)}")
    note = lifecycle_note(spec) if provider == "anthropic" else None
    if note:
        _line("lifecycle", note)
        problems += "end of life" in note   # retired: it will fail; deprecated: a warning
    settings.model = spec
    if provider not in WIRE:
        if provider != "scripted":
            _line("provider", f"unknown provider {provider!r} (known: anthropic, openai, scripted)")
            return 1
        return 1 if problems else 0
    problems += _check_key(provider, settings.provider(provider))
    if args.ping:
        problems += _ping(settings, provider)
    return 1 if problems else 0


def _line(label: str, text: str) -> None:
    print(f"  {label:<10}{text}")


def _sandbox(root: Path, settings: Settings) -> int:
    """One line per confinement layer; a problem only when nothing confines commands. The
    policy is the session's (``session_policy``), the probe the one commands use."""
    from edgar.cli.sandboxes import session_policy
    from edgar.sandbox import Sandbox, harden_self

    harden_self()   # as a session is before its first command: the probe then runs alike
    box = Sandbox(session_policy(root, settings))
    _line("sandbox", f"{box.policy.mode}, network {'on' if box.policy.network else 'off'}")
    for layer in box.layers():
        _line("", f"{'+' if layer.active else '-'} {layer.name}: {layer.detail}")
    box.close()
    return 0 if box.active or not box.policy.confined else 1


def _price_note(model: str) -> str:
    from edgar.providers import prices

    entry = prices.lookup(model)
    if entry is None:
        return f"  (not in the price table of {prices.PRICES_DATE}: cost will show as unknown)"
    rate = entry["input"]["base"] if isinstance(entry["input"], dict) else entry["input"]
    out = entry["output"]["base"] if isinstance(entry["output"], dict) else entry["output"]
    window = prices.context_window(model)
    size = f"; context {window:,} tokens" if window else ""
    return (f"  (${rate:g} in / ${out:g} out per million tokens, "
            f"prices of {prices.PRICES_DATE}{size})")


def _check_key(provider: str, ps: Any) -> int:
    default_key, base_env, default_base = WIRE[provider]
    key_env = ps.api_key_env or default_key
    if os.environ.get(base_env):
        base, source = os.environ[base_env], f"from {base_env}"
    elif ps.base_url:
        base, source = ps.base_url, f"from providers.{provider}.base_url"
    else:
        base, source = default_base, "default"
    _line("url", f"{base} ({source})")
    if os.environ.get(key_env, "").strip():  # only whether it is set: the value is never shown
        _line("key", f"{key_env} is set")
        return 0
    if provider == "openai" and "api.openai.com" not in base:
        _line("key", f"{key_env} is not set (fine for a local server that needs no key)")
        return 0
    _line("key", f"{key_env} is NOT set — export {key_env}=... (or name another variable in "
          f"providers.{provider}.api_key_env)")
    return 1


def _ping(settings: Any, provider: str) -> int:
    from edgar.conversation import Message, TextBlock
    from edgar.providers import make_provider
    from edgar.providers.base import Finished, ModelRequest, ProviderError

    quick = settings.provider(provider).model_copy(update={"max_retries": 0})
    settings = settings.model_copy(update={"providers": {**settings.providers, provider: quick}})
    request = ModelRequest(system="", messages=[Message("user", [TextBlock("ping")])], max_tokens=1)

    async def once() -> Finished | None:
        p = make_provider(settings.model, settings)
        try:
            done = None
            async for event in p.stream(request):
                if isinstance(event, Finished):
                    done = event
            return done
        finally:
            await p.aclose()

    started = time.monotonic()
    try:
        done = asyncio.run(once())
    except ProviderError as exc:
        _line("ping", f"failed: {exc.message}")
        return 1
    took = time.monotonic() - started
    model = f" from {done.model}" if done and done.model else ""
    _line("ping", f"ok{model} in {took:.2f} s")
    return 0


def repair() -> int:
    """``edgar doctor --repair`` (``cli/repair.py``)."""
    from edgar.cli.repair import repair as run_repair

    return run_repair(_root())
