"""[permissions] rules through the real binary (-p never asks, so rules are what decide)."""

from __future__ import annotations

import json
import tomllib

import pytest
from support.project import edgar_env, make_project, run_edgar, write_script

from edgar.tools.permission_config import save_allow_rule


@pytest.fixture
def env(tmp_path):
    (tmp_path / "home").mkdir()
    return edgar_env(tmp_path / "home")


def tools_of(out):
    return json.loads(out.stdout)["tools"]


def run(tmp_path, project, env, calls, *flags):
    script = write_script(tmp_path / "s.jsonl", [{"tool_calls": calls}, {"text": "done"}])
    return run_edgar(["-p", "go", "--model", f"scripted:{script}", "--output-format", "json",
                      *flags], project, env)


def test_user_allow_rules_let_p_run_without_asking_and_deny_wins(tmp_path, env):
    (tmp_path / "home" / "config.toml").write_text(
        '[permissions]\nallow = ["shell(echo *)", "edit(src/**)"]\ndeny = ["shell(echo no*)"]\n')
    project = make_project(tmp_path / "p", {"src/a.txt": "a\n"})
    out = run(tmp_path, project, env, [
        {"name": "shell", "input": {"command": "echo fine"}},
        {"name": "shell", "input": {"command": "echo nope"}},
        {"name": "write", "input": {"path": "src/b.txt", "content": "b"}},
        {"name": "write", "input": {"path": "c.txt", "content": "c"}},
        {"name": "shell", "input": {"command": "echo fine; echo chained"}}])
    assert out.returncode == 0, out.stderr
    assert [(t["ok"], t["error_kind"]) for t in tools_of(out)] == [
        (True, None), (False, "denied"), (True, None), (False, "denied"), (False, "denied")]
    assert (project / "src/b.txt").read_text() == "b" and not (project / "c.txt").exists()
    out = run(tmp_path, project, env, [{"name": "shell", "input": {"command": "echo no way"}}],
              "--permission-mode", "yes")
    assert tools_of(out)[0]["error_kind"] == "denied"       # deny holds in yes mode too


def test_project_allow_rules_wait_for_trust_but_project_deny_applies(tmp_path, env):
    project = make_project(tmp_path / "p")
    (project / ".edgar").mkdir()
    (project / ".edgar" / "config.toml").write_text(
        '[permissions]\nallow = ["shell(touch *)"]\ndeny = ["shell(ls*)"]\n')
    out = run(tmp_path, project, env, [{"name": "shell", "input": {"command": "touch x"}},
                                       {"name": "shell", "input": {"command": "ls"}}],
              "--permission-mode", "yes")
    assert "ignoring the project's [permissions] allow rules" in out.stderr
    assert [t["ok"] for t in tools_of(out)] == [True, False]   # yes mode: only deny narrows
    out = run(tmp_path, project, env, [{"name": "shell", "input": {"command": "touch y"}}])
    assert tools_of(out)[0]["error_kind"] == "denied"           # ask mode, untrusted: refused
    trusted = run_edgar(["trust"], project, env)
    assert trusted.returncode == 0 and "permissions.allow" in trusted.stdout
    out = run(tmp_path, project, env, [{"name": "shell", "input": {"command": "touch y"}}])
    assert tools_of(out)[0]["ok"] and "ignoring" not in out.stderr   # trusted: it applies


def test_a_bad_rule_is_a_located_error(tmp_path, env):
    (tmp_path / "home" / "config.toml").write_text('model = "x:y"\n[permissions]\n'
                                                   'allow = ["shell(oops"]\n')
    project = make_project(tmp_path / "p")
    out = run(tmp_path, project, env, [])
    assert out.returncode == 2 and "config.toml:3: 'permissions.allow'" in out.stderr
    assert "Traceback" not in out.stderr


def test_read_only_mode_runs_git_status_and_names_the_list(tmp_path, env):
    project = make_project(tmp_path / "p")
    out = run(tmp_path, project, env, [{"name": "shell", "input": {"command": "ls"}},
                                       {"name": "shell", "input": {"command": "touch x"}}],
              "--permission-mode", "read-only")
    assert [t["ok"] for t in tools_of(out)] == [True, False]
    assert not (project / "x").exists()


def test_a_write_outside_the_project_is_refused_before_any_question(tmp_path, env):
    project = make_project(tmp_path / "p")
    env["EDGAR_SCRIPTED_RECORD"] = str(tmp_path / "sent.jsonl")
    out = run(tmp_path, project, env, [{"name": "write", "input": {"path": "../outside.txt",
                                                                  "content": "x"}}])
    assert tools_of(out)[0]["error_kind"] == "denied"
    result = json.loads((tmp_path / "sent.jsonl").read_text().splitlines()[-1])
    told = json.dumps(result["messages"][-1])
    assert "outside the project root" in told and "confirmation" not in told
    assert not (tmp_path / "outside.txt").exists()


def test_saving_a_rule_keeps_the_rest_of_the_user_config(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('model = "openai:gpt-4.1"  # mine\n\n[permissions]\n'
                      'allow = [\n  "shell(ls*)",  # listing\n]\ndeny = ["shell(rm *)"]\n'
                      '\n[tools]\nshell_timeout = 5.0\n')
    assert save_allow_rule(config, "shell(git status*)") is None
    data = tomllib.loads(config.read_text())
    assert data["permissions"] == {"allow": ["shell(ls*)", "shell(git status*)"],
                                   "deny": ["shell(rm *)"]}
    assert data["model"] == "openai:gpt-4.1" and data["tools"] == {"shell_timeout": 5.0}
    assert "# mine" in config.read_text()
    fresh = tmp_path / "new" / "config.toml"
    assert save_allow_rule(fresh, "shell(pytest *)") is None
    assert tomllib.loads(fresh.read_text()) == {"permissions": {"allow": ["shell(pytest *)"]}}
    assert fresh.stat().st_mode & 0o777 == 0o600
    broken = tmp_path / "broken.toml"
    broken.write_text("model = \n")
    assert "does not parse" in save_allow_rule(broken, "shell(ls)")
    assert broken.read_text() == "model = \n"
