"""Secret-bearing variables reach no program edgar starts (issue 21 item 1), through the real
binary, as root and as the ordinary user of ``support.users``, bubblewrap present and hidden:
the shell tool's command and a trusted hook — two ways edgar starts a process, one policy —
see none of ``GH_PAT``, ``DATABASE_URL`` (with its password), ``MYSQL_PWD``, ``PGPASSWORD``,
``NPM_AUTH``, ``SENTRY_DSN``, ``DOCKER_AUTH_CONFIG``, ``CREDENTIALS`` or a proxy URL carrying a
password, while the variables a build needs arrive; the control: a name the person passes with
``[sandbox] env`` does arrive."""

from __future__ import annotations

from support.hostile import machine_fixture
from support.project import write_script

SECRETS = {
    "GH_PAT": "ghp_CANARY1", "DATABASE_URL": "postgres://app:CANARY2@db/app",
    "MYSQL_PWD": "CANARY3", "PGPASSWORD": "CANARY4", "NPM_AUTH": "CANARY5",
    "DOCKER_AUTH_CONFIG": '{"auths":{"x":{"auth":"CANARY6"}}}', "CREDENTIALS": "CANARY7",
    "HTTPS_PROXY": "http://me:CANARY8@proxy:3128",
}
PASSED = {"SENTRY_DSN": "https://CANARY9@sentry.example/1"}   # named in [sandbox] env
DUMP = "import os, sys\nopen(sys.argv[1], 'w').write(repr(dict(os.environ)))\n"


machine = machine_fixture("edgar-env-secrets-")


def test_no_secret_variable_reaches_the_shell_or_a_hook(machine):
    project = machine.base / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "tools").mkdir()
    (project / "tools" / "dump.py").write_text(DUMP)
    (project / ".edgar").mkdir()
    (project / ".edgar" / "config.toml").write_text(
        '[[hooks.UserPromptSubmit]]\ncommand = "python3 tools/dump.py hook-env.txt"\n')
    home = machine.base / "home"
    home.mkdir()
    (home / "config.toml").write_text('[sandbox]\nenv = ["SENTRY_DSN"]\n')
    env = machine.env(home, LANG="C.UTF-8", **SECRETS, **PASSED)
    trusted = machine.edgar(["trust"], cwd=project, env=env)
    assert trusted.returncode == 0, trusted.stderr
    script = write_script(machine.base / "s.jsonl", [
        {"tool_calls": [{"name": "shell", "input": {"command": "env > shell-env.txt"}}]},
        {"text": "done"}])
    done = machine.edgar(["-p", "go", "--model", f"scripted:{script}",
                          "--permission-mode", "yes"], cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    for seen in ("shell-env.txt", "hook-env.txt"):
        text = (project / seen).read_text()
        assert "PATH" in text and "C.UTF-8" in text, (seen, text)     # what a build needs
        leaked = [name for name, value in SECRETS.items() if name in text or value in text]
        leaked += [f"CANARY{i}" for i in range(1, 9) if f"CANARY{i}" in text]
        assert not leaked, (seen, leaked)
        assert "CANARY9" in text, (seen, text)                        # the person passed it
