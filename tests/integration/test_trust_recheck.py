"""Trust is asked again before each run of what trusted project config runs (ADR-0073): a
script the person changes during a session stops its hook or verify command at once, and
one warning names the file; an unchanged script goes on running."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from support.project import REPO, make_project, write_script

from edgar.cli.setup import build
from edgar.config import HookSettings, Settings, VerifySettings, trust
from edgar.core.loop import run_turn
from edgar.events import Event, Notice, VerifyFinished
from edgar.providers.scripted import ScriptedProvider

PY = shlex.quote(sys.executable)
HOOK = f"{PY} tools/hook.py record"
CHECK = "sh ci/check.sh"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    root = make_project(tmp_path / "proj", {
        ".edgar/config.toml": (f"[[hooks.UserPromptSubmit]]\ncommand = {HOOK!r}\n"
                               f"[verify]\ncommand = {CHECK!r}\n"),
        "ci/check.sh": "exit 0\n", "a.txt": "x\n"})
    (root / "tools").mkdir()
    shutil.copy(REPO / "tests" / "support" / "hooks" / "hook.py", root / "tools" / "hook.py")
    trust.trust(root)
    return root


def session(project: Path, lines):
    script = write_script(project.parent / f"s-{len(ScriptedProvider._shared)}.jsonl", lines)
    ScriptedProvider._shared.pop(script.resolve(), None)
    settings = Settings(model=f"scripted:{script}", permission_mode="yes",
                        hooks={"UserPromptSubmit": [HookSettings(command=HOOK)]},
                        verify=VerifySettings(command=CHECK))
    app = build(project, settings, learning=False)
    events: list[Event] = []
    app.bus.subscribe(Event, events.append)
    return app, events


def turns(app, *prompts):
    async def go():
        return [await run_turn(app.session, p) for p in prompts]
    return asyncio.run(app.running(go()))


def hook_runs(project: Path) -> int:
    log = project / "hook-log.jsonl"
    return len(log.read_text().splitlines()) if log.exists() else 0


def warned(events) -> list[str]:
    return [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]


EDIT = {"tool_calls": [{"name": "write", "input": {"path": "a.txt", "content": "y\n"}}]}


@pytest.mark.parametrize("changed", ["tools/hook.py", "ci/check.sh"])
def test_a_script_changed_mid_session_stops_what_runs_it(project, changed):
    app, events = session(project, [EDIT, {"text": "one"}, EDIT, {"text": "two"},
                                    EDIT, {"text": "three"}])

    async def go():
        await run_turn(app.session, "first")
        with open(project / changed, "a") as handle:     # the person, in another terminal
            handle.write("\n# changed\n")
        await run_turn(app.session, "second")
        await run_turn(app.session, "third")

    asyncio.run(app.running(go()))
    verified = [e for e in events if isinstance(e, VerifyFinished)]
    lapsed = [m for m in warned(events) if "trust lapsed" in m]
    # trust is the project's whole: either file lapses it, so neither runs any more
    assert hook_runs(project) == 1 and len(verified) == 1
    assert [m.split(": trust lapsed")[0] for m in lapsed] == [   # each said once, not per turn
        "hooks: project hooks no longer run", f"verify `{CHECK}` no longer runs"], lapsed
    assert all(changed in m and "`edgar trust`" in m for m in lapsed)


def test_unchanged_scripts_go_on_running(project):
    app, events = session(project, [EDIT, {"text": "one"}, EDIT, {"text": "two"}])
    turns(app, "first", "second")
    assert hook_runs(project) == 2
    assert len([e for e in events if isinstance(e, VerifyFinished)]) == 2
    assert not [m for m in warned(events) if "lapsed" in m]


def test_the_persons_own_verify_command_is_never_held(project, tmp_path):
    (project / ".edgar" / "config.toml").write_text(f"[[hooks.UserPromptSubmit]]\n"
                                                    f"command = {HOOK!r}\n")
    trust.trust(project)
    with open(project / "ci" / "check.sh", "a") as handle:    # not the project's command now
        handle.write("# mine\n")
    app, events = session(project, [EDIT, {"text": "one"}])
    turns(app, "first")
    assert len([e for e in events if isinstance(e, VerifyFinished)]) == 1
