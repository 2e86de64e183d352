"""`edgar -p` as a person or a script runs it: a real subprocess, a scripted model."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest
from support.project import edgar_env, make_project, recorded, run_edgar, write_script


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(tmp_path / "received.jsonl"))


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj", {"notes.txt": "remember the milk\n"})


def test_version_and_python_m(project, env):
    out = run_edgar(["--version"], project, env)
    assert out.returncode == 0 and out.stdout.startswith("edgar ")


def test_json_output_has_the_documented_fields(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [
        {"text": "Let me look.", "tool_calls": [{"name": "read", "input": {"path": "notes.txt"}},
                                                {"name": "shell", "input": {"command": "exit 4"}}],
         "usage": {"input_tokens": 100, "output_tokens": 10}, "model": "claude-sonnet-4-5"},
        {"text": "It says: remember the milk.", "usage": {"input_tokens": 150, "output_tokens": 8}},
    ])
    out = run_edgar(["-p", "what does notes.txt say?", "--model", f"scripted:{script}",
                     "--permission-mode", "yes", "--output-format", "json"], project, env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["result"] == "It says: remember the milk."
    assert data["outcome"] == "ok" and data["num_turns"] == 2 and data["num_steps"] == 2
    assert data["usage"]["input_tokens"] == 250 and data["usage"]["output_tokens"] == 18
    assert data["tools"] == [{"name": "read", "ok": True, "error_kind": None},
                             {"name": "shell", "ok": False, "error_kind": "exit_nonzero"}]
    expected = (250 * 3 + 18 * 15) / 1e6  # claude-sonnet-4-5: $3 in / $15 out per million
    assert data["cost_usd"] == pytest.approx(expected)
    assert isinstance(data["duration_ms"], int) and data["session_id"]


def test_text_output_streams_the_answer(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [{"text": "Hello there."}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 0 and out.stdout == "Hello there.\n"


def test_stream_json_prints_every_event_in_order(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [
        {"text": "a", "tool_calls": [{"name": "glob", "input": {"pattern": "*.txt"}}]},
        {"text": "b"}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}",
                     "--output-format", "edgar-events"],
                    project, env)
    types = [json.loads(line)["type"] for line in out.stdout.splitlines()]
    assert types[0] == "PromptTyped" and types[1] == "TurnStarted" and types[-1] == "TurnFinished"
    assert "ToolProposed" in types and "ToolFinished" in types and "TextDelta" in types
    first = json.loads(out.stdout.splitlines()[0])
    assert first["text"] == "hi" and first["depth"] == 0 and first["queued"] is False


def test_piped_stdin_and_at_path_are_attached_not_typed(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    out = run_edgar(["-p", "summarise @notes.txt", "--model", f"scripted:{script}",
                     "--output-format", "edgar-events"], project, env, stdin="piped body\n")
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    typed = [e for e in events if e["type"] == "PromptTyped"]
    assert [e["text"] for e in typed] == ["summarise @notes.txt"]
    attached = [e for e in events if e["type"] == "Attached"]
    assert attached[0]["sources"] == ["stdin", "@notes.txt"]
    sent = recorded(tmp_path / "received.jsonl")[0]["messages"][0]["content"]
    assert sent[0]["text"] == "summarise @notes.txt"
    assert sent[1]["text"] == "<stdin>\npiped body\n\n</stdin>"
    assert sent[2]["text"].startswith('<file path="notes.txt">\nremember the milk')


@pytest.mark.parametrize("args,needle", [
    (["-p", "read @../../../../../../etc/passwd"], "outside the project root"),
    (["-p", "hi", "--model", "bogus:thing"], "unknown provider 'bogus'"),
    (["-p", "hi", "--model", "nocolon"], "must look like PROVIDER:MODEL"),
    (["-p", "hi", "--permission-mode", "sometimes"], "invalid choice"),
])
def test_usage_errors_exit_2_with_one_clear_line(project, env, tmp_path, args, needle):
    script = write_script(tmp_path / "s.jsonl", [{"text": "ok"}])
    if "--model" not in args:
        args = args + ["--model", f"scripted:{script}"]
    out = run_edgar(args, project, env)
    assert out.returncode == 2, out
    assert needle in out.stderr and "Traceback" not in out.stderr


def test_malformed_script_names_file_and_line(project, env, tmp_path):
    script = tmp_path / "bad.jsonl"
    script.write_text('{"text": "fine"}\n{"text": 5}\n')
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 2 and f"{script}:2: field 'text'" in out.stderr
    script.write_text('{"text": "fine"}\n\n{not json\n')
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 2 and f"{script}:3: not valid JSON" in out.stderr
    assert "Traceback" not in out.stderr


def test_config_typo_exit_2_names_file_and_key(project, env, tmp_path):
    (project / ".edgar").mkdir()
    (project / ".edgar" / "config.toml").write_text("[verify]\ncomand = 'pytest'\n")
    out = run_edgar(["-p", "hi"], project, env)
    assert out.returncode == 2
    assert out.stderr.strip() == (f"edgar: {project / '.edgar' / 'config.toml'}:2: "
                                  "unknown key 'verify.comand'")


def test_turn_error_exits_1(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [{"error": {"status": 500, "message": "down"}}])
    out = run_edgar(["-p", "hi", "--model", f"scripted:{script}"], project, env)
    assert out.returncode == 1 and "down" in out.stderr and "Traceback" not in out.stderr


def test_ask_mode_in_p_refuses_instead_of_prompting(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "write", "input": {"path": "x.txt", "content": "x"}}]},
        {"text": "ok"}])
    out = run_edgar(["-p", "write it", "--model", f"scripted:{script}", "--output-format", "json"],
                    project, env)
    data = json.loads(out.stdout)
    assert data["tools"] == [{"name": "write", "ok": False, "error_kind": "denied"}]
    assert not (project / "x.txt").exists()


def test_ctrl_c_cancels_with_exit_130_and_turn_finished(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl", [
        {"text": "a b c d e f g h", "delay_s": 0.2,
         "tool_calls": [{"name": "shell", "input": {"command": "sleep 30"}}]}])
    proc = subprocess.Popen([sys.executable, "-m", "edgar", "-p", "go",
                             "--model", f"scripted:{script}",
                             "--permission-mode", "yes", "--output-format", "edgar-events"],
                            cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 20
    received = tmp_path / "received.jsonl"
    while time.time() < deadline and not received.exists():
        time.sleep(0.05)
    time.sleep(0.8)  # the shell tool is now running
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    finished = [json.loads(line) for line in out.splitlines() if '"TurnFinished"' in line]
    assert len(finished) == 1 and finished[0]["outcome"] == "cancelled"


def test_continue_restores_the_conversation(project, env, tmp_path):
    script = write_script(tmp_path / "s.jsonl",
                          [{"text": "first answer"}, {"text": "second answer"}])
    assert run_edgar(["-p", "first question", "--model", f"scripted:{script}"],
                     project, env).returncode == 0
    script2 = write_script(tmp_path / "s2.jsonl", [{"text": "second answer"}])
    out = run_edgar(["-c", "-p", "second question", "--model", f"scripted:{script2}"], project, env)
    assert out.returncode == 0, out.stderr
    last = recorded(tmp_path / "received.jsonl")[-1]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert last[0]["content"][0]["text"] == "first question"
