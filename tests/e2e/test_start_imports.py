"""What an ``edgar`` start pays for, checked on the real command (issue 26 item 1): the work a
start does not need is never done. Each test proves it can fail with the same fake turned the
other way."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.project import edgar_env, make_project, run_edgar, write_script

# A pydantic plugin, as a distribution would install one: an entry point in the ``pydantic``
# group. Loading it leaves a mark, so a start that scans the entry points is seen.
PLUGIN = '''
import os
from pathlib import Path

Path(os.environ["PLUGIN_MARK"]).write_text("loaded")


class Plugin:
    def new_schema_validator(self, *args, **kwargs):
        return None, None, None


plugin = Plugin()
'''


@pytest.fixture
def plugin_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    dist = site / "spy_plugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (site / "spy_plugin.py").write_text(PLUGIN)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: spy-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[pydantic]\nspy = spy_plugin:plugin\n")
    return site


@pytest.mark.parametrize("setting, loaded", [(None, False), ("", True)])
def test_a_start_never_scans_for_pydantic_plugins(tmp_path, plugin_site, setting, loaded):
    # pydantic's plugin loader reads every installed distribution's entry points the first
    # time a model is built (~40 ms of CPU): edgar uses no plugin, so it is switched off with
    # pydantic's own variable; a person who sets it (here to "") gets plugins back.
    project = make_project(tmp_path / "proj")
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "shell", "input": {"command": "true"}}]}, {"text": "done"}])
    mark = tmp_path / "mark"
    env = edgar_env(tmp_path / "home", PLUGIN_MARK=str(mark))
    env["PYTHONPATH"] = f"{plugin_site}:{env['PYTHONPATH']}"
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    if setting is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = setting
    out = run_edgar(["-p", "go", "--model", f"scripted:{script}", "--permission-mode", "yes",
                     "--no-history"], project, env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"
    assert mark.exists() is loaded


def _imported(importtime: str) -> set[str]:
    """The modules ``python -X importtime`` reported importing."""
    return {line.rsplit("|", 1)[1].strip() for line in importtime.splitlines()
            if line.startswith("import time:") and "|" in line}


def test_a_warm_start_sends_its_first_request_without_pydantic(tmp_path):
    # Settings (settings-cache.json) and the tools' JSON Schemas (tool-schemas.json) come from
    # what pydantic made on the first start (ADR-0081); the second start imports no pydantic
    # at all for a turn that calls no tool, and sends the very same request.
    import subprocess
    import sys

    from support.sse_server import SSEServer, stream

    project = make_project(tmp_path / "proj")
    (tmp_path / "home").mkdir()
    with SSEServer() as server:
        env = edgar_env(tmp_path / "home", ANTHROPIC_API_KEY="sk-ant-test",
                        ANTHROPIC_BASE_URL=server.url)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        seen = []
        for _ in range(2):
            server.anthropic(stream("anthropic_text"))
            out = subprocess.run([sys.executable, "-X", "importtime", "-m", "edgar", "-p", "hi",
                                  "--model", "anthropic:claude-sonnet-4-5", "--no-history"],
                                 cwd=project, env=env, capture_output=True, text=True,
                                 timeout=60, stdin=subprocess.DEVNULL)
            assert out.returncode == 0, out.stderr[-2000:]
            assert out.stdout.strip() == "Hello, world!"
            seen.append({m for m in _imported(out.stderr) if m.split(".")[0] == "pydantic"})
        first, second = server.bodies()
    assert "pydantic" in seen[0]      # the cold start: pydantic validated, and is seen here
    assert seen[1] == set()
    assert second["tools"] == first["tools"] and second["system"] == first["system"]


def test_a_known_script_replays_without_pydantic_and_a_changed_line_is_still_checked(tmp_path):
    import subprocess
    import sys

    project = make_project(tmp_path / "proj")
    (tmp_path / "home").mkdir()
    env = edgar_env(tmp_path / "home")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    script = write_script(tmp_path / "s.jsonl", [{"text": "Hello there.", "usage": {
        "input_tokens": 3}}])

    def run():
        return subprocess.run([sys.executable, "-X", "importtime", "-m", "edgar", "-p", "hi",
                               "--model", f"scripted:{script}", "--no-history"], cwd=project,
                              env=env, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)

    seen = []
    for _ in range(2):
        out = run()
        assert out.returncode == 0 and out.stdout == "Hello there.\n", out.stderr[-2000:]
        seen.append({m for m in _imported(out.stderr) if m.split(".")[0] == "pydantic"})
    assert "pydantic" in seen[0] and seen[1] == set()
    script.write_text(script.read_text().replace('"input_tokens": 3', '"input_tokens": -3'))
    out = run()
    assert out.returncode == 2
    assert f"{script}:1: field 'usage.input_tokens': Input should be greater than or equal to 0" \
        in out.stderr


def test_a_warm_starts_tool_call_is_validated_without_pydantic_with_the_same_errors(tmp_path):
    # The tools' core schemas (tool-schemas.json's "core", ADR-0116) come from the first
    # start; the second validates its tool calls with pydantic-core alone — a good call runs,
    # a bad one gets the very same located errors — and never imports pydantic.
    import json
    import subprocess
    import sys

    project = make_project(tmp_path / "proj")
    (tmp_path / "home").mkdir()
    env = edgar_env(tmp_path / "home")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYDANTIC_DISABLE_PLUGINS", None)
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "shell", "input": {"command": 1, "timout": 2}}]},
        {"tool_calls": [{"name": "shell", "input": {"command": "echo ran-$((6*7))"}}]},
        {"text": "done"}])

    def run() -> tuple[set[str], list[str]]:
        out = subprocess.run([sys.executable, "-X", "importtime", "-m", "edgar", "-p", "go",
                              "--model", f"scripted:{script}", "--permission-mode", "yes",
                              "--no-history", "--output-format", "stream-json"], cwd=project,
                             env=env, capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stderr[-2000:]
        results = [block["content"] for line in out.stdout.splitlines()
                   for block in (json.loads(line).get("message") or {}).get("content") or []
                   if isinstance(block, dict) and block.get("type") == "tool_result"]
        return {m for m in _imported(out.stderr) if m.startswith("pydantic")}, results

    cold, cold_results = run()
    warm, warm_results = run()
    assert "pydantic" in cold
    # pydantic-core's compiled engine is loaded alone (not through an import -X importtime
    # reports): neither pydantic nor pydantic_core/__init__.py is imported
    assert warm == set()
    assert warm_results == cold_results
    assert warm_results[0] == ("invalid arguments: command: Input should be a valid string; "
                               "timout: Extra inputs are not permitted")
    assert "ran-42" in str(warm_results[1])


def _importer(importtime: str, module: str) -> str | None:
    """The module whose import first imported ``module`` (``-X importtime`` nests by indent)."""
    lines = [line.rsplit("|", 1)[1] for line in importtime.splitlines()
             if line.startswith("import time:") and "|" in line]
    for i, name in enumerate(lines):
        if name.strip() == module:
            depth = len(name) - len(name.lstrip())
            for later in lines[i + 1:]:
                if len(later) - len(later.lstrip()) < depth:
                    return later.strip()
            return None
    return None


NETWORK = {"httpx2", "httpcore2", "anyio", "h11", "h2", "truststore", "sniffio", "certifi"}


@pytest.mark.parametrize("network", [False, True])
def test_a_scripted_run_imports_no_network_stack_and_only_asyncio_brings_ssl(tmp_path, network):
    # Issue 26 item 1: a run that opens no connection pays for no HTTP client (~85 ms with
    # httpx2's and httpcore2's importlib.metadata version look-ups). ssl itself is still
    # imported: CPython's asyncio.base_events imports it (``try: import ssl``) and nothing in
    # edgar does before it — which is why it is not deferred (it would mean patching asyncio).
    # The same run against a loopback Anthropic server imports the client: the check can fail.
    import subprocess
    import sys

    from support.sse_server import SSEServer, stream

    project = make_project(tmp_path / "proj")
    (tmp_path / "home").mkdir()
    script = write_script(tmp_path / "s.jsonl", [{"text": "Hello, world!"}])
    with SSEServer() as server:
        env = edgar_env(tmp_path / "home", ANTHROPIC_API_KEY="sk-ant-test",
                        ANTHROPIC_BASE_URL=server.url)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        server.anthropic(stream("anthropic_text"))
        model = "anthropic:claude-sonnet-4-5" if network else f"scripted:{script}"
        out = subprocess.run([sys.executable, "-X", "importtime", "-m", "edgar", "-p", "hi",
                              "--model", model, "--no-history"], cwd=project, env=env,
                             capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "Hello, world!"
    imported = {m.split(".")[0] for m in _imported(out.stderr)}
    if network:
        assert {"httpx2", "httpcore2"} <= imported
    else:
        assert imported & NETWORK == set()
        assert "ssl" in imported and _importer(out.stderr, "ssl") == "asyncio.base_events"
