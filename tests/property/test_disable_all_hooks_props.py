"""``disableAllHooks`` over Claude Code's three settings files (ADR-0112), as a pure function:
the highest counted file at or above a file decides, and an untrusted project decides nothing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from edgar.config.claude_settings import ClaudeFile, hooks_off

SCOPES = ("user", "project", "local")
VALUE = st.sampled_from([None, True, False, "yes"])


def files_of(values: list[object]) -> list[ClaudeFile]:
    return [ClaudeFile(Path(f"/x/{scope}.json"), scope, "{}",   # type: ignore[arg-type]
                       {} if value is None else {"disableAllHooks": value})
            for scope, value in zip(SCOPES, values, strict=True)]


@given(st.lists(VALUE, min_size=3, max_size=3), st.booleans())
def test_the_highest_counted_file_at_or_above_decides(values, trusted):
    notes: list[str] = []
    off = hooks_off(files_of(values), trusted, notes)
    for i in range(3):
        counted = [v for j, v in enumerate(values) if j >= i and isinstance(v, bool)
                   and (j == 0 or trusted)]
        assert off[i] == (counted[-1] if counted else False)
    assert all("disableAllHooks" in n for n in notes)


@given(VALUE, VALUE, VALUE)
def test_an_untrusted_project_never_turns_the_persons_hooks_off(user, project, local):
    off = hooks_off(files_of([user, project, local]), trusted=False)
    assert off[0] == (user is True)
    assert off[1] == off[2] is False
