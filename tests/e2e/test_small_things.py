"""The rough edges a new user hit, each through the real binary."""

from __future__ import annotations

import json
import tomllib

import pytest
from support.project import edgar_env, make_project, run_edgar, write_script


@pytest.fixture
def env(tmp_path):
    (tmp_path / "home").mkdir()
    return edgar_env(tmp_path / "home")


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "p")


def prompt(tmp_path, project, env, text, name):
    script = write_script(tmp_path / f"{name}.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", text, "--model", f"scripted:{script}", "--output-format", "json"],
                    project, env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["session_id"]


def test_resume_lists_newest_first_with_date_turns_and_prompt_and_takes_a_prefix(
        tmp_path, project, env):
    first = prompt(tmp_path, project, env, "first thing", "a")
    second = prompt(tmp_path, project, env, "second thing", "b")
    rows = run_edgar(["-r"], project, env).stdout.splitlines()
    assert rows[0].startswith(second) and rows[1].startswith(first)
    assert "1 turn " in rows[0] and rows[0].endswith("second thing")
    assert rows[0].split()[1].count("-") == 2 and ":" in rows[0].split()[2]   # date and time
    script = write_script(tmp_path / "c.jsonl", [{"text": "resumed"}])
    out = run_edgar(["-r", first[:5], "-p", "again", "--model", f"scripted:{script}",
                     "--output-format", "json"], project, env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["session_id"] == first
    assert "no session 'zzz'" in run_edgar(["-r", "zzz", "-p", "x"], project, env).stderr


def test_did_you_mean_and_help(project, env):
    out = run_edgar(["memroy", "list"], project, env)
    assert out.returncode == 2 and "did you mean `edgar memory`?" in out.stderr
    out = run_edgar(["--modle", "x"], project, env)
    assert out.returncode == 2 and "did you mean --model?" in out.stderr
    out = run_edgar(["help"], project, env)
    assert out.returncode == 0 and "usage: edgar" in out.stdout and "``" not in out.stdout
    out = run_edgar(["help", "demo"], project, env)
    assert out.returncode == 0 and "usage: edgar demo" in out.stdout and "``" not in out.stdout


def test_memory_alone_lists_and_reading_never_creates_the_state_dir(project, env):
    pytest.importorskip("edgar.learning")  # facts and stats are the learning package's
    for argv in (["memory"], ["memory", "list"], ["memory", "list", "--pending"], ["-r"],
                 ["stats"], ["history", "show"], ["diff"], ["undo"]):
        out = run_edgar(argv, project, env)
        assert out.returncode == 0, (argv, out.stderr)
        assert not (project / ".edgar").exists(), argv
    run_edgar(["memory", "add", "prefer small commits"], project, env)
    assert "prefer small commits" in run_edgar(["memory"], project, env).stdout


def test_init_leaves_keys_the_user_config_sets_to_the_user(tmp_path, project, env):
    (tmp_path / "home" / "config.toml").write_text('model = "openai:gpt-4.1"\n'
                                                   '[tools]\nshell_timeout = 30.0\n')
    assert run_edgar(["init"], project, env).returncode == 0
    text = (project / ".edgar" / "config.toml").read_text()
    data = tomllib.loads(text)
    assert "model" not in data and "shell_timeout" not in data.get("tools", {})
    assert 'permission_mode = "ask"' in text and "# model = " in text
    out = run_edgar(["doctor"], project, env).stdout
    assert "openai:gpt-4.1" in out


def test_one_run_is_one_run(tmp_path, project, env):
    pytest.importorskip("edgar.learning")  # facts and stats are the learning package's
    prompt(tmp_path, project, env, "hello", "a")
    out = run_edgar(["stats"], project, env).stdout
    assert "1 run," in out and "1 runs" not in out
