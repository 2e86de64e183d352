"""30 scripted sessions of refusals, answers and one broken command → exactly one error fact
(issue 10; bench/error_facts_run.py prints the same figure)."""

from __future__ import annotations

import shutil

import pytest

pytest.importorskip("edgar.learning")

from support.error_sessions import BROKEN_IN, make_project, run  # noqa: E402


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("make") is None,
                    reason="needs git and make")
def test_thirty_sessions_make_exactly_one_fact_for_the_broken_command(tmp_path):
    result = run(make_project(tmp_path / "proj"), 30)
    assert result.kinds["denied"] == 30                     # the refusals did happen ...
    assert result.kinds["exit_answer"] == 20 * 5            # ... and so did the answers
    assert result.kinds["exit_nonzero"] == len(BROKEN_IN)
    assert result.facts == [
        'Running "make" with the shell tool has exited with code 2 in several separate sessions'
        " here; check how this project expects it to be run before calling it again."]
