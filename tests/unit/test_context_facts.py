"""The system prompt says where each fact came from (issue 10): what the person typed or
approved, apart from what edgar noticed from repeated failures."""

from __future__ import annotations

from edgar.core.context import system_prompt
from edgar.memory.store import MemoryStore


def test_facts_are_grouped_by_provenance(tmp_path):
    with MemoryStore(tmp_path / "memory.db", redact=lambda s: s) as store:
        store.add("always run ruff first", "user-prompt")
        store.add('Running "make" with the shell tool has exited with code 2 …', "error-template")
        store.add("never touch vendor/", "manual")
        pending = store.add("runs here often touch src/a.py", "distilled")
        store.approve(pending.id, pending.sha256)                     # → reviewed
        store.add("imported, still pending", "imported")
        prompt = system_prompt(tmp_path, store.active(10_000))
    told, noticed = prompt.split("The user told you:\n")[1].split(
        "edgar noticed in earlier sessions:\n")
    assert sorted(line for line in told.splitlines() if line) == [
        "- always run ruff first", "- never touch vendor/", "- runs here often touch src/a.py"]
    assert noticed.strip() == '- Running "make" with the shell tool has exited with code 2 …'
    assert "pending" not in prompt and "asked you to remember" not in prompt


def test_only_noticed_facts_make_no_user_heading(tmp_path):
    with MemoryStore(tmp_path / "memory.db", redact=lambda s: s) as store:
        store.add("The edit tool has hit input/output errors …", "error-template")
        prompt = system_prompt(tmp_path, store.active(10_000))
    assert "The user told you" not in prompt and "edgar noticed in earlier sessions:" in prompt
