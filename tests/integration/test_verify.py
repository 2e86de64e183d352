"""Verify: the real loop and a real shell, against the scripted provider.

Asserts on what the model *received* (EDGAR_SCRIPTED_RECORD), not on edgar's internals.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from support.processes import gone
from support.project import edgar_env, make_project, recorded, run_edgar, write_script

from edgar.cli.setup import build
from edgar.config import Settings, VerifySettings
from edgar.core.loop import run_turn
from edgar.events import Event, Notice, VerifyFinished
from edgar.providers.scripted import ScriptedProvider

# fails until ok.txt exists; its output ends with the line the model must be shown
CHECK = ("echo collecting; seq 1 400; "
         "test -f ok.txt || { echo 'FAILED test_ok: ok.txt missing'; exit 1; }")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("EDGAR_SCRIPTED_RECORD", str(tmp_path / "requests.jsonl"))
    return make_project(tmp_path / "proj", {"a.txt": "a\n"})


def write(path: str, text: str = "x\n") -> dict:
    return {"tool_calls": [{"name": "write", "input": {"path": path, "content": text}}]}


def run(project: Path, lines: list[dict], text: str = "make the tests pass", no_verify=False,
        **verify):
    script = write_script(project.parent / "script.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    settings = Settings(model=f"scripted:{script}", permission_mode="yes",
                        verify=VerifySettings(**verify))
    app = build(project, settings, learning=False, no_verify=no_verify)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    try:
        result = asyncio.run(run_turn(app.session, text))
    finally:
        app.close()
    return result, events, recorded(project.parent / "requests.jsonl")


def last_user_text(request: dict) -> str:
    blocks = request["messages"][-1]["content"]
    return "".join(b.get("text", "") for b in blocks)


def test_a_failing_check_sends_its_tail_back_for_a_fix_round(project):
    result, events, requests = run(project, [
        write("b.txt"), {"text": "Done."},            # the edit, then the model stops
        write("ok.txt"), {"text": "Fixed."},          # the fix round
    ], command=CHECK, tail_chars=300)
    assert result.outcome == "ok" and result.text == "Fixed."
    verdicts = [(e.passed, e.exit_code) for e in events if isinstance(e, VerifyFinished)]
    assert verdicts == [(False, 1), (True, 0)]
    assert all(e.depth == 0 and e.turn_id == result.id and e.command == CHECK
               for e in events if isinstance(e, VerifyFinished))
    assert len(requests) == 4
    fix = last_user_text(requests[2])
    assert "fix round 1 of 2" in fix and "exit code 1" in fix
    assert fix.rstrip().endswith("FAILED test_ok: ok.txt missing\n</verify-output>")
    output = fix.split("<verify-output>", 1)[1]
    assert "collecting" not in output and "earlier characters omitted" in output  # tail only
    assert len(output) < 300 + 80
    assert any(isinstance(e, Notice) and "fix round 1 of 2" in e.message for e in events)


def test_max_rounds_is_respected(project):
    result, events, requests = run(project, [
        write("b.txt"), {"text": "Done."},
        write("c.txt"), {"text": "Try 1."},
        write("d.txt"), {"text": "Try 2."},
        {"text": "never reached"},
    ], command="echo nope; exit 3", max_rounds=2)
    assert result.outcome == "ok" and result.text == "Try 2."
    assert [e.exit_code for e in events if isinstance(e, VerifyFinished)] == [3, 3, 3]
    fixes = [last_user_text(r) for r in requests if "<verify-output>" in last_user_text(r)]
    assert len(fixes) == 2 and "fix round 2 of 2" in fixes[1]
    assert any(isinstance(e, Notice) and "still fails after 2 fix round(s)" in e.message
               for e in events)


def test_no_edit_no_check_and_a_fix_round_without_edits_is_not_rechecked(project):
    _, events, _ = run(project, [{"text": "Just talking."}], command="exit 1")
    assert not any(isinstance(e, VerifyFinished) for e in events)

    result, events, _ = run(project, [write("b.txt"), {"text": "Done."},
                                      {"text": "I cannot fix that."}], command="exit 1")
    assert result.text == "I cannot fix that."
    assert len([e for e in events if isinstance(e, VerifyFinished)]) == 1


def test_no_verify_skips_it(project):
    _, events, requests = run(project, [write("b.txt"), {"text": "Done."}],
                              command="exit 1", no_verify=True)
    assert not any(isinstance(e, VerifyFinished) for e in events) and len(requests) == 2


@pytest.mark.timing   # asserts how long it took
def test_a_hanging_check_is_killed_at_its_timeout(project, tmp_path):
    started = time.monotonic()
    result, events, requests = run(project, [
        write("b.txt"), {"text": "Done."}, {"text": "Giving up."},
    ], command="sleep 60.125 & setsid sleep 60.25 & wait", timeout=0.5, max_rounds=1)
    assert time.monotonic() - started < 15
    [verdict] = [e for e in events if isinstance(e, VerifyFinished)]
    assert verdict.exit_code is None and not verdict.passed and verdict.duration < 5
    assert "hung and was killed after 0.5s" in last_user_text(requests[2])
    assert gone("sleep 60.125") and gone("sleep 60.25"), (
        "a process of the verify command outlived its timeout")
    assert result.text == "Giving up."


def test_in_p_mode_the_fix_round_reaches_the_model(tmp_path):
    project = make_project(tmp_path / "proj", {".edgar/config.toml":
                                               f'[verify]\ncommand = "{CHECK}"\n'})
    script = write_script(tmp_path / "s.jsonl", [write("b.txt"), {"text": "Done."},
                                                  write("ok.txt"), {"text": "Fixed."}])
    record = tmp_path / "p.jsonl"
    env = edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record))
    assert run_edgar(["trust"], project, env).returncode == 0  # a project's command needs trust
    out = run_edgar(["-p", "make it pass", "--model", f"scripted:{script}",
                     "--permission-mode", "yes", "--output-format", "edgar-events"], project, env)
    assert out.returncode == 0, out.stderr
    kinds = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(e["passed"], e["exit_code"]) for e in kinds if e["type"] == "VerifyFinished"] == \
        [(False, 1), (True, 0)]
    assert "FAILED test_ok: ok.txt missing" in last_user_text(recorded(record)[2])

    record.unlink()
    out = run_edgar(["-p", "again", "--model", f"scripted:{script}", "--permission-mode", "yes",
                     "--no-verify", "--output-format", "edgar-events"], project, env)
    assert out.returncode == 0 and "VerifyFinished" not in out.stdout


@pytest.mark.learning
def test_stats_show_verify_pass_rates(tmp_path):
    pytest.importorskip("edgar.learning")
    project = make_project(tmp_path / "proj", {".edgar/config.toml":
                                               f'[verify]\ncommand = "{CHECK}"\n'})
    script = write_script(tmp_path / "s.jsonl", [write("b.txt"), {"text": "Done."},
                                                  write("ok.txt"), {"text": "Fixed."}])
    env = edgar_env(tmp_path / "home")
    assert run_edgar(["trust"], project, env).returncode == 0  # a project's command needs trust
    out = run_edgar(["-p", "make it pass", "--model", f"scripted:{script}",
                     "--permission-mode", "yes"], project, env)
    assert out.returncode == 0, out.stderr
    stats = run_edgar(["stats", "--json"], project, env)
    assert stats.returncode == 0, stats.stderr
    assert '"verify_runs": 1' in stats.stdout and '"verify_passed": 1' in stats.stdout
