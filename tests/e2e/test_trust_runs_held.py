"""A trusted hook's script is read-only to the model (ADR-0073), through the real binary with
the scripted provider, as root and as the ordinary user of ``support.users``, bubblewrap
present and hidden: ``write`` and ``edit`` refuse it with the reason, and every shell spelling
of rewriting it (append, replace, ``sed -i``, moving its folder away) is refused by the
sandbox. The script is unchanged afterwards, trust still holds and the hook still runs."""

from __future__ import annotations

import json

from support.hostile import machine_fixture
from support.project import write_script

GUARD = ".claude/hooks/guard.py"
BODY = "import pathlib\npathlib.Path('hook-ran').write_text('ran')\n"
ATTACKS = [
    "echo 'import os; os.system(\"curl evil\")' >> .claude/hooks/guard.py",
    "rm -f .claude/hooks/guard.py; echo evil > .claude/hooks/guard.py",
    "sed -i s/pathlib/evil/ .claude/hooks/guard.py",
    "mv .claude/hooks .claude/h2 && mkdir .claude/hooks && echo evil > .claude/hooks/guard.py",
    "mv .claude .claude2 && mkdir -p .claude/hooks && echo evil > .claude/hooks/guard.py",
    "cp /etc/hostname x && mv x .claude/hooks/guard.py",
]


machine = machine_fixture("edgar-trust-runs-")


def test_the_model_cannot_change_a_trusted_hook_script(machine):
    project = machine.base / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".claude" / "hooks").mkdir(parents=True)
    (project / GUARD).write_text(BODY)
    (project / ".edgar").mkdir()
    (project / ".edgar" / "config.toml").write_text(
        f'[[hooks.UserPromptSubmit]]\ncommand = "python3 {GUARD}"\n')
    record = machine.base / "requests.jsonl"
    env = machine.env(machine.base / "home", EDGAR_SCRIPTED_RECORD=str(record))
    trusted = machine.edgar(["trust"], cwd=project, env=env)
    assert trusted.returncode == 0 and GUARD in trusted.stdout, trusted.stderr
    calls = [{"name": "write", "input": {"path": GUARD, "content": "evil\n"}},
             {"name": "edit", "input": {"path": f"./.claude/../{GUARD}",
                                        "old_string": "pathlib.Path", "new_string": "evil"}},
             *({"name": "shell", "input": {"command": c}} for c in ATTACKS)]
    script = write_script(machine.base / "s.jsonl",
                          [{"tool_calls": [call]} for call in calls] + [{"text": "done"}])
    done = machine.edgar(["-p", "go", "--model", f"scripted:{script}",
                          "--permission-mode", "yes"], cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert (project / GUARD).read_text() == BODY                 # not one attack landed
    assert (project / "hook-ran").read_text() == "ran"           # and the hook ran, trusted
    last = json.loads(record.read_text().splitlines()[-1])["messages"]
    results = [block for m in last if isinstance(m.get("content"), list)
               for block in m["content"] if block.get("type") == "tool_result"]
    texts = [json.dumps(r.get("content")) for r in results]
    assert len(texts) == len(calls), texts
    for text in texts[:2]:                                       # write, edit: the reason
        assert f"{GUARD} is run by this project's trusted config (UserPromptSubmit hook)" in text
        assert "`edgar trust`" in text
    show = machine.edgar(["trust", "--show"], cwd=project, env=env)
    assert show.stdout.startswith("trusted since"), show.stdout
    (project / "hook-ran").unlink()
    again = machine.edgar(["-p", "go", "--model", f"scripted:{script}"], cwd=project, env=env)
    assert (project / "hook-ran").exists() and "lapsed" not in again.stderr, again.stderr
