"""``--allowedTools`` / ``--disallowedTools`` hold in the REPL as in ``-p`` (issue 23 item 4):
the REPL used to build its session without them, so a denied tool ran, silently."""

from __future__ import annotations

import sys

import pytest
from support.project import edgar_env, recorded, write_script
from test_repl_pty import PROMPT, Terminal

pytestmark = pytest.mark.timing


@pytest.mark.parametrize("flags, refused", [([], False), (["--disallowedTools", "Read"], True),
                                            (["--disallowedTools", "Bash Write"], False)])
def test_disallowed_tools_are_refused_in_the_repl(project, tmp_path, flags, refused):
    (project / "a.txt").write_text("secret plan\n")
    record = tmp_path / "sent.jsonl"
    script = write_script(tmp_path / "s.jsonl", [
        {"tool_calls": [{"name": "read", "input": {"path": "a.txt"}}]}, {"text": "All read."}])
    term = Terminal([sys.executable, "-m", "edgar", "--model", f"scripted:{script}",
                     "--permission-mode", "yes", *flags], project,
                    edgar_env(tmp_path / "home", EDGAR_SCRIPTED_RECORD=str(record),
                              TERM="xterm"))
    try:
        term.expect(PROMPT)
        term.line("read a.txt")
        term.expect(r"All read\.")
        term.expect(PROMPT)
        term.line("/exit")
        assert term.wait_exit() == 0
    finally:
        term.kill()
    result = recorded(record)[1]["messages"][-1]["content"][0]
    assert result["is_error"] is refused, result
    assert ("secret plan" in str(result["content"])) is not refused
