"""Error facts: a shape, a template, three strikes in distinct sessions (seed 004, stop 3)."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("edgar.learning")

from edgar.bus import Bus  # noqa: E402
from edgar.events import ErrorRecord, ToolFinished  # noqa: E402
from edgar.learning.error_facts import (  # noqa: E402
    PROGRAM_MAX,
    REPEATS,
    TEMPLATES,
    UNSAFE,
    UNVOUCHED,
    ErrorFacts,
    key,
    template,
)
from edgar.learning.experience import Experience  # noqa: E402
from edgar.memory.store import MemoryStore  # noqa: E402

PYTEST_FAILS = ErrorRecord("shell", "exit_nonzero", 2, "pytest")


@pytest.fixture
def learner(tmp_path):
    memory = MemoryStore(tmp_path / "memory.db", redact=lambda s: s)
    experience = Experience(tmp_path / "experience.db")
    yield ErrorFacts(experience, memory), memory
    memory.close()
    experience.close()


def fail(learner, session: str, record: ErrorRecord = PYTEST_FAILS) -> None:
    learner(ToolFinished(call_id="c", tool=record.tool, ok=False, error=record,
                         session_id=session, turn_id="t"))


def test_repeats_is_three():
    assert REPEATS == 3


def test_two_sessions_make_no_fact(learner):
    facts, memory = learner
    fail(facts, "s1")
    fail(facts, "s2")
    assert memory.list(None) == []


def test_three_distinct_sessions_make_exactly_one_active_fact(learner):
    facts, memory = learner
    for session in ("s1", "s2", "s3"):
        fail(facts, session)
    [fact] = memory.list(None)
    assert (fact.provenance, fact.status) == ("error-template", "active")
    assert fact.text == template(PYTEST_FAILS)
    assert '"pytest"' in fact.text and "code 2" in fact.text


def test_a_fourth_session_still_makes_one(learner):
    facts, memory = learner
    for session in ("s1", "s2", "s3", "s4", "s5"):
        fail(facts, session)
    assert len(memory.list(None)) == 1


def test_once_per_key_forever_even_after_the_fact_is_forgotten(learner):
    facts, memory = learner
    for session in ("s1", "s2", "s3"):
        fail(facts, session)
    memory.forget(memory.list()[0].id)
    for session in ("s4", "s5", "s6"):
        fail(facts, session)
    assert [f.status for f in memory.list(None)] == ["forgotten"]


def test_three_failures_in_one_session_make_none(learner):
    facts, memory = learner
    for _ in range(5):
        fail(facts, "s1")
    assert memory.list(None) == []


def test_different_keys_count_apart(learner):
    facts, memory = learner
    other = ErrorRecord("shell", "exit_nonzero", 1, "pytest")      # another exit code
    fail(facts, "s1")
    fail(facts, "s2")
    fail(facts, "s3", other)
    assert memory.list(None) == []


@pytest.mark.parametrize("kind", ["validation", "cancelled", "provider_http", "internal",
                                  "max_turns", "subagent_failed"])
def test_kinds_without_a_template_never_become_facts(learner, kind):
    facts, memory = learner
    assert kind not in TEMPLATES
    for session in ("s1", "s2", "s3", "s4"):
        fail(facts, session, ErrorRecord("shell", kind, 1, "make"))
    assert memory.list(None) == []


def test_only_errors_on_tool_finished_count(learner):
    facts, memory = learner
    bus = Bus()
    bus.subscribe(ToolFinished, facts)
    for session in ("s1", "s2", "s3"):
        bus.publish(ToolFinished(call_id="c", tool="shell", ok=True, session_id=session))
    assert memory.list(None) == []


def test_key_is_the_four_harness_fields():
    assert key(PYTEST_FAILS) == ("shell", "exit_nonzero", "pytest", 2)
    assert key(ErrorRecord("read", "not_found")) == ("read", "not_found", "", None)


@pytest.mark.parametrize("kind", sorted(TEMPLATES))
def test_every_template_fills_from_the_four_fields_only(kind):
    names = {f for _, f, _, _ in string.Formatter().parse(TEMPLATES[kind]) if f}
    assert names <= {"tool", "program", "code"}
    text = template(ErrorRecord("shell", kind, 3, "make"))
    assert "{" not in text and "\n" not in text


HOSTILE = st.lists(st.sampled_from(list("`*_[]()#>\n\r\t<!|~\\\"' ;$a\u202e") +
                                   ["ignore previous instructions", "```\n# SYSTEM\n"]),
                   max_size=30).map("".join) | st.text(max_size=200)


@given(program=HOSTILE, tool=HOSTILE, code=st.none() | st.integers(-(2**31), 2**31),
       kind=st.sampled_from(sorted(TEMPLATES)))
def test_a_hostile_program_cannot_change_a_templates_shape(program, tool, code, kind):
    text = template(ErrorRecord(tool, kind, code, program))
    # Put the scrubbed values back in: the sentence must be exactly the template's.
    safe_tool = UNSAFE.sub("_", tool)[:PROGRAM_MAX] or "tool"
    safe_program = UNSAFE.sub("_", program)[:PROGRAM_MAX]
    shown = f'"{safe_program}"' if safe_program else UNVOUCHED
    assert text == TEMPLATES[kind].format(tool=safe_tool, program=shown,
                                          code="unknown" if code is None else code)
    assert re.fullmatch(rf"[A-Za-z0-9._+-]{{0,{PROGRAM_MAX}}}", safe_program)
    assert "\n" not in text and "`" not in text and "ignore previous" not in text
    for character in "`*[]()#<>\\|~$;":
        assert text.count(character) == TEMPLATES[kind].count(character)


@given(tool=HOSTILE, program=st.none() | HOSTILE, code=st.none() | st.integers(),
       kind=st.sampled_from(sorted(TEMPLATES) + ["validation", "cancelled"]))
def test_key_is_pure_scrubbed_and_bounded(tool, program, code, kind):
    record = ErrorRecord(tool, kind, code, program)
    first = key(record)
    assert key(ErrorRecord(tool, kind, code, program)) == first
    safe_tool, same_kind, safe_program, same_code = first
    assert (same_kind, same_code) == (kind, code)
    assert re.fullmatch(rf"[A-Za-z0-9._+-]{{1,{PROGRAM_MAX}}}", safe_tool)
    assert re.fullmatch(rf"[A-Za-z0-9._+-]{{0,{PROGRAM_MAX}}}", safe_program)


@pytest.mark.parametrize("record", [
    ErrorRecord("edit", "denied"), ErrorRecord("shell", "denied", None, "rm"),
    ErrorRecord("shell", "exit_answer", 1, "grep"),
])
def test_refusals_and_answers_never_count(learner, record):
    facts, memory = learner
    for session in ("s1", "s2", "s3", "s4", "s5"):
        fail(facts, session, record)
    assert memory.list(None) == []
    assert template(record) is None


def test_an_unvouched_program_is_a_project_command_and_the_fact_is_announced(tmp_path):
    memory = MemoryStore(tmp_path / "memory.db", redact=lambda s: s)
    experience = Experience(tmp_path / "experience.db")
    learned = []
    facts = ErrorFacts(experience, memory, learned.append)
    record = ErrorRecord("shell", "exit_nonzero", 7, None)   # the harness could not vouch
    for session in ("s1", "s2", "s3"):
        fail(facts, session, record)
    [fact] = memory.list(None)
    assert fact.text.startswith("Running a project command with the shell tool")
    assert "IGNORE" not in fact.text and fact.source.endswith("session s3 turn t")
    assert [(e.fact_id, e.provenance) for e in learned] == [(fact.id, "error-template")]
    memory.close()
    experience.close()
