"""``--system-prompt TEXT`` and ``--session-id UUID`` (issue 23 item 4), through the real binary
and the scripted provider."""

from __future__ import annotations

import uuid

from support.project import edgar_env, make_project, recorded, run_edgar, state_of, write_script


def test_system_prompt_replaces_edgars_opening_and_keeps_the_rest(tmp_path):
    root = make_project(tmp_path / "p", {"CLAUDE.md": "Run pytest -q before finishing.\n"})
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    record = tmp_path / "r.jsonl"
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}",
                     "--system-prompt", "You are a terse reviewer.",
                     "--append-system-prompt", "Answer in French."], root,
                    edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record)))
    assert out.returncode == 0, out.stderr
    system = recorded(record)[0]["system"]
    assert system.startswith("You are a terse reviewer.\n\n"), system[:200]
    assert "You are edgar" not in system
    assert "Project root:" in system and "Run pytest -q before finishing." in system
    assert system.rstrip().endswith("Answer in French.")
    assert recorded(record)[0]["tools"]          # the tool definitions are still sent


def test_session_id_names_the_session_file_and_a_clash_or_a_non_uuid_is_refused(tmp_path):
    root = make_project(tmp_path / "p")
    home = tmp_path / "home"
    env = edgar_env(home)
    given = str(uuid.uuid4())
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}", "--session-id", given],
                    root, env)
    assert out.returncode == 0, out.stderr
    assert (state_of(root, home) / "sessions" / f"{given}.jsonl").is_file()
    again = run_edgar(["-p", "hi", "--model", f"scripted:{script}", "--session-id", given],
                      root, env)
    assert again.returncode == 2
    assert again.stderr.startswith(f"edgar: --session-id {given}: a session with this id "
                                   "already exists"), again.stderr
    bad = run_edgar(["-p", "hi", "--model", f"scripted:{script}", "--session-id", "abc"],
                    root, env)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "edgar: --session-id abc: not a UUID (e.g. " \
        "123e4567-e89b-12d3-a456-426614174000)", bad.stderr
    both = run_edgar(["-p", "hi", "--model", f"scripted:{script}", "--session-id",
                      str(uuid.uuid4()), "-c"], root, env)
    assert both.returncode == 2 and "--session-id" in both.stderr, both.stderr
