"""The MCP SDK stays behind one adapter, is imported only when a server is configured, and
is a version edgar was written against."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support.architecture import imports, modules
from support.project import REPO, make_project

SDK_MODULES = ("mcp", "mcp_types", "anyio")
ADAPTER = "edgar/mcp/sdk.py"


def sdk_importers(src_root: Path) -> list[str]:
    found = []
    for rel, name, tree in modules(src_root):
        for line, target in imports(tree, name, rel.endswith("__init__.py")):
            if target.split(".")[0] in SDK_MODULES and rel != ADAPTER:
                found.append(f"{rel}:{line}: {target}")
    return found


def test_only_the_adapter_imports_the_sdk():
    assert sdk_importers(REPO) == []


def test_the_check_can_fail(tmp_path):
    (tmp_path / "edgar").mkdir()
    (tmp_path / "edgar" / "sneaky.py").write_text("def f():\n    from mcp import Client\n")
    assert sdk_importers(tmp_path) == ["edgar/sneaky.py:2: mcp", "edgar/sneaky.py:2: mcp.Client"]


PROBE = """
import json, sys
from edgar.cli.main import main
code = main(["-p", "hi", "--model", "scripted:" + sys.argv[1], "--permission-mode", "yes"])
print(json.dumps([code, sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types",
      "anyio") or m.startswith(("edgar.mcp.sdk", "edgar.hooks.")))]))
"""


def probe(root: Path, home: Path) -> list[str]:
    script = root / "script.jsonl"
    script.write_text('{"text": "hello"}\n')
    out = subprocess.run([sys.executable, "-c", PROBE, str(script)], capture_output=True,
                         text=True, timeout=60, cwd=root,
                         env={"EDGAR_HOME": str(home), "PATH": "/usr/bin:/bin",
                              "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    code, loaded = json.loads(out.stdout.splitlines()[-1])
    assert code == 0, out.stderr
    return loaded


def test_without_servers_or_hooks_a_run_imports_none_of_it(tmp_path):
    root = make_project(tmp_path / "p")
    assert probe(root, tmp_path / "home") == []


def test_with_a_server_configured_the_run_does_import_the_sdk(tmp_path):
    # the same probe sees the SDK when a server is configured, so the test above can fail
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp.servers.t]\ncommand = "{sys.executable}"\n'
        f'args = ["{REPO / "tests" / "support" / "mcp_server.py"}"]\n')
    root = make_project(tmp_path / "p")
    loaded = probe(root, home)
    assert "mcp" in loaded and "edgar.mcp.sdk" in loaded


def test_the_installed_sdk_is_a_supported_version_with_the_names_the_adapter_uses():
    from edgar.mcp import sdk

    assert sdk.version_supported(), sdk.sdk_version()
    import mcp
    import mcp_types
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.message import SessionMessage

    assert callable(streamable_http_client) and SessionMessage and mcp.Client
    assert hasattr(mcp_types, "jsonrpc_message_adapter") and hasattr(mcp_types, "Implementation")
    fields = mcp_types.Tool.model_fields
    assert {"name", "description", "input_schema", "annotations"} <= set(fields)
    assert "read_only_hint" in mcp_types.ToolAnnotations.model_fields
    assert {"content", "is_error", "structured_content"} <= set(
        mcp_types.CallToolResult.model_fields)
