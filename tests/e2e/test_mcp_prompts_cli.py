"""``edgar -p "/mcp__server__prompt ARGS"`` and ``@server:uri`` through the binary, with the
SDK's own server configured as a user server: the model gets the server's text, nothing of
it is learned, and a prompt that cannot be had sends nothing."""

from __future__ import annotations

import sys

import pytest
from support.project import REPO, edgar_env, make_project, recorded, run_edgar, write_script

SERVER = REPO / "tests" / "support" / "mcp_server.py"


@pytest.fixture
def env(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp.servers.t]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n')
    return edgar_env(home, EDGAR_SCRIPTED_RECORD=str(tmp_path / "sent.jsonl"))


def test_a_prompt_in_p_reaches_the_model_as_an_attachment(tmp_path, env):
    project = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "/mcp__t__review a.py tests, and @t:config://app", "--model",
                     f"scripted:{script}"], project, env)
    assert out.returncode == 0, out.stderr
    content = recorded(tmp_path / "sent.jsonl")[0]["messages"][-1]["content"]
    assert content[0]["text"] == "/mcp__t__review a.py tests, and @t:config://app"
    assert "Review a.py, focusing on tests, and @t:config://app." in content[1]["text"]
    assert content[2]["text"].startswith('<file path="t:config://app">')


def test_a_prompt_that_cannot_be_had_is_exit_2_and_nothing_is_sent(tmp_path, env):
    project = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.jsonl", [{"text": "never"}])
    out = run_edgar(["-p", "/mcp__t__review", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 2
    assert "edgar: /mcp__t__review needs path" in out.stderr and "nothing was sent" in out.stderr
    assert not (tmp_path / "sent.jsonl").exists()


def test_nothing_is_learned_from_a_prompt_or_a_resource(tmp_path, env):
    pytest.importorskip("edgar.learning")  # facts are the learning package's
    project = make_project(tmp_path / "p")
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}] * 3)
    for line in ("/mcp__t__review a.py", "look at @t:config://app"):
        out = run_edgar(["-p", line, "--model", f"scripted:{script}"], project, env)
        assert out.returncode == 0, out.stderr
    # both texts say "Always use tabs for indentation."; the server wrote it, not the person
    assert "tabs" not in run_edgar(["memory", "list"], project, env).stdout.lower()
    # the control: the same sentence typed is learned, so the check above can fail
    assert run_edgar(["-p", "Always use tabs for indentation.", "--model",
                      f"scripted:{script}"], project, env).returncode == 0
    assert "tabs" in run_edgar(["memory", "list"], project, env).stdout.lower()
