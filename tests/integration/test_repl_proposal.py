"""The REPL asks once, inline, after a turn that proposed a fact (issue 22, item 4): y makes
it active, e edits it first, n turns it down for good, anything else leaves it pending."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("edgar.learning")

from integration.test_repl_shortcuts import repl_for  # noqa: E402

from edgar.events import PromptTyped  # noqa: E402
from edgar.learning.learner import Learner  # noqa: E402
from edgar.memory.store import MemoryStore  # noqa: E402


@pytest.fixture
def repl(tmp_path):
    r = repl_for(tmp_path, [{"text": "Done."}, {"text": "Done again."}])
    with MemoryStore(tmp_path / "memory.db", redact=lambda s: s) as memory:
        r.app.memory = memory
        r.proposals.memory = memory
        r.app.bus.subscribe(PromptTyped, Learner(memory, r.app.bus.publish))
        yield r


def _turn(repl, line):
    async def go():
        await repl.submit(line)
        if repl.foreground is not None:
            await asyncio.wait([repl.foreground])
    asyncio.run(go())


def _answer(repl, line):
    asyncio.run(repl.submit(line))


def test_yes_makes_the_proposal_active_and_replaces_what_it_contradicts(repl):
    memory = repl.app.memory
    old = memory.add("always use npm", "user-prompt")
    _turn(repl, "fix the build. use pnpm, not npm")
    assert repl.renderer.lines.count('remember "use pnpm, not npm"? [y/N/e(dit)]') == 1
    fact, = memory.list("pending")
    _answer(repl, "y")
    assert memory.get(fact.id).status == "active"
    assert memory.get(fact.id).provenance == "reviewed"
    assert memory.get(old.id).status == "forgotten"
    assert repl.renderer.lines[-1] == (f"remembered: use pnpm, not npm (fact {fact.id} · "
                                       f"replaces fact {old.id}: always use npm)")


def test_no_is_remembered_and_the_same_text_is_not_asked_again(repl):
    _turn(repl, "use pnpm from now on")
    fact, = repl.app.memory.list("pending")
    _answer(repl, "")                                   # Enter: the N default
    assert repl.app.memory.get(fact.id).status == "rejected"
    _turn(repl, "use pnpm from now on")
    assert sum(line.startswith("remember ") for line in repl.renderer.lines) == 1
    assert repl.app.memory.list("active") == []


def test_edit_puts_the_text_in_the_prompt_and_the_edited_text_is_what_becomes_active(repl):
    _turn(repl, "use pnpm from now on")
    fact, = repl.app.memory.list("pending")
    _answer(repl, "e")
    assert repl.default == "use pnpm"
    _answer(repl, "use pnpm for every install")
    active, = repl.app.memory.list("active")
    assert (active.id, active.text) == (fact.id, "use pnpm for every install")


def test_another_line_leaves_it_pending_and_runs_as_a_prompt(repl):
    _turn(repl, "stop using print for debugging and use logging")
    fact, = repl.app.memory.list("pending")
    _turn(repl, "now fix the parser")
    assert repl.app.memory.get(fact.id).status == "pending"
    assert repl.app.session.provider.cursor == 2        # the line was a prompt: a second turn


def test_one_question_per_turn_the_rest_wait_for_review(repl):
    _turn(repl, "use pnpm from now on. I prefer small commits. stop using mocks in tests")
    asked = [line for line in repl.renderer.lines if line.startswith("remember ")]
    assert asked == ['remember "use pnpm"? [y/N/e(dit)]']
    assert "  (2 more proposal(s) wait in `edgar memory review`)" in repl.renderer.lines
    assert len(repl.app.memory.list("pending")) == 3
