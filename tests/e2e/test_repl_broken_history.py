"""The REPL with a broken state file (issue 21 item 10), on a real pseudo-terminal: an input
history that is a directory, a FIFO or a dangling link is said in one line with the way out,
and the session goes on with its history in memory (Up still recalls this session's lines);
one that breaks mid-session is said once; a damaged checkpoint manifest makes ``/undo`` and
``/diff`` say so, not crash; ``edgar doctor --repair`` moves the history aside."""

from __future__ import annotations

import os
import sys

import pytest
from support.project import edgar_env, make_project, run_edgar, state_of, write_script
from test_repl_pty import PROMPT, Terminal

pytestmark = pytest.mark.timing   # a pseudo-terminal: what appears, and when

WAY_OUT = "move it aside or run `edgar doctor --repair`"


def start(tmp_path, project, lines, name="s") -> Terminal:
    script = write_script(tmp_path / f"{name}.jsonl", lines)
    env = edgar_env(tmp_path / "home", TERM="xterm")
    term = Terminal([sys.executable, "-m", "edgar", "--model", f"scripted:{script}",
                     "--permission-mode", "yes"], project, env, cols=200)
    term.expect(PROMPT)
    return term


def bare(text: str) -> str:
    """Without any white space: a long line the terminal wrapped mid-word reads whole."""
    return "".join(text.split())


@pytest.mark.parametrize("how", ["directory", "fifo", "dangling link"])
def test_a_broken_input_history_is_said_and_the_session_goes_on(tmp_path, how):
    project = make_project(tmp_path / "proj")
    history = state_of(project, tmp_path / "home") / "input_history"
    history.parent.mkdir(parents=True)
    if how == "directory":
        history.mkdir()
    elif how == "fifo":
        os.mkfifo(history)        # opened for reading, it would wait for a writer forever
    else:
        history.symlink_to(tmp_path / "nowhere")
    term = start(tmp_path, project, [{"text": "first answer\n"}, {"text": "second answer\n"}])
    try:
        said = bare(term.text)
        assert bare(f"edgar: {history} is not a file, so input history is not kept this session"
                    f" — {WAY_OUT}") in said, term.text
        term.line("hello one")
        term.expect("first answer")
        term.expect(PROMPT)
        term.send("\x1b[A")                    # Up: this session's line, from memory
        term.expect("hello one")
        term.send("\r")
        term.expect("second answer")
        term.expect(PROMPT)
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.kill()
    assert "Traceback" not in term.text
    assert os.path.lexists(history) and not history.is_file() or history.is_symlink()
    env = edgar_env(tmp_path / "home")
    fixed = run_edgar(["doctor", "--repair"], project, env)
    assert f"moved {history} aside to input_history.broken-" in fixed.stdout, fixed.stdout
    again = start(tmp_path, project, [{"text": "third answer\n"}], "again")
    try:
        again.line("hello two")
        again.expect("third answer")
        again.expect(PROMPT)
        again.send("\x04")
        assert again.wait_exit() == 0
    finally:
        again.kill()
    assert "is not a file" not in again.text
    assert "+hello two" in history.read_text()


def test_a_history_that_breaks_mid_session_is_said_once(tmp_path):
    project = make_project(tmp_path / "proj")
    history = state_of(project, tmp_path / "home") / "input_history"
    term = start(tmp_path, project, [{"text": "one\n"}, {"text": "two\n"}, {"text": "three\n"}])
    try:
        term.line("first line")
        term.expect("one")
        term.expect(PROMPT)
        assert "+first line" in history.read_text()
        history.unlink()
        history.mkdir()                        # something put a directory in its place
        term.line("second line")
        term.expect("two")
        term.expect(PROMPT)
        term.line("third line")
        term.expect("three")
        term.expect(PROMPT)
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.kill()
    said = bare(term.text)
    assert "Traceback" not in term.text
    assert said.count(bare(f"edgar: {history} cannot be written")) == 1, term.text
    assert bare("kept in memory only from now on") in said and bare(WAY_OUT) in said


def test_undo_and_diff_in_the_repl_say_a_damaged_manifest(tmp_path):
    project = make_project(tmp_path / "proj", {"b.txt": "v0\n"})
    term = start(tmp_path, project, [
        {"tool_calls": [{"name": "write", "input": {"path": "b.txt", "content": "v1\n"}}]},
        {"text": "written\n"}])
    try:
        term.line("change b")
        term.expect("written")
        term.expect(PROMPT)
        [turn] = (state_of(project, tmp_path / "home") / "checkpoints").glob("0*")
        (turn / "manifest.json").write_text("{not json")
        for command in ("/undo", "/diff"):
            term.line(command)
            term.expect(r"is not JSON[^›]*doctor --repair")
            term.expect(PROMPT)
            assert bare(f"{command}: {turn / 'manifest.json'} is not JSON") in bare(term.text)
        term.send("\x04")
        assert term.wait_exit() == 0
    finally:
        term.kill()
    assert "Traceback" not in term.text
    assert (project / "b.txt").read_text() == "v1\n"
