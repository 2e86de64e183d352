"""The one environment allow-list (edgar.sandbox.env) and edgar's git command line
(edgar.sandbox.git): pure functions, checked over arbitrary environments and config files."""

from __future__ import annotations

import os
import string
import subprocess

from hypothesis import given
from hypothesis import strategies as st

from edgar.redact import looks_secret_name
from edgar.sandbox.env import ALLOWED, command_env
from edgar.sandbox.git import NEUTRAL, command, environment, filter_names

NAMES = st.one_of(st.sampled_from(sorted(ALLOWED)), st.sampled_from(
    ["GH_PAT", "DATABASE_URL", "MYSQL_PWD", "PGPASSWORD", "NPM_AUTH", "SENTRY_DSN",
     "DOCKER_AUTH_CONFIG", "CREDENTIALS", "OPENAI_API_KEY", "HARMLESS", "LC_ALL", "LC_X",
     "BASH_FUNC_x%%", "GIT_DIR", "GIT_CONFIG_GLOBAL"]),
    st.text(string.ascii_uppercase + "_", min_size=1, max_size=12))
VALUES = st.one_of(st.text(max_size=30), st.sampled_from(
    ["https://u:hunter2@db.example/x", "postgres://app:pw@localhost/db", "() { evil; }",
     "/usr/bin:/bin", "http://proxy:3128"]))


@given(st.dictionaries(NAMES, VALUES), st.lists(NAMES, max_size=3))
def test_only_allowed_or_passed_names_reach_a_command_and_never_a_secret(environ, passed):
    env = command_env(environ, passed)
    for name, value in env.items():
        assert environ[name] == value
        if name in passed:
            continue
        assert name in ALLOWED or name.startswith("LC_")
        assert not looks_secret_name(name)
        assert ":hunter2@" not in value and ":pw@" not in value
        assert not value.startswith("()")


def test_the_issues_secret_names_are_all_dropped():
    environ = dict.fromkeys(("GH_PAT", "DATABASE_URL", "MYSQL_PWD", "PGPASSWORD", "NPM_AUTH",
                             "SENTRY_DSN", "DOCKER_AUTH_CONFIG", "CREDENTIALS"), "x" * 12)
    environ.update(PATH="/bin", HTTPS_PROXY="http://me:secret@proxy:1", LANG="C.UTF-8")
    assert command_env(environ) == {"PATH": "/bin", "LANG": "C.UTF-8"}
    assert command_env(environ, ["SENTRY_DSN"])["SENTRY_DSN"] == "x" * 12   # the person's


FILTER = st.text(st.characters(blacklist_characters='\n\0\r', blacklist_categories=("Cs",)),
                 min_size=1, max_size=12)


def _quoted(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"')


@given(st.lists(FILTER, min_size=1, max_size=4, unique=True), st.booleans())
def test_every_filter_a_config_file_defines_is_found(tmp_path_factory, names, included):
    root = tmp_path_factory.mktemp("repo")
    (root / ".git").mkdir()
    body = "".join(f'[filter "{_quoted(n)}"]\n\tclean = /x/pay\n' for n in names)
    if included:
        (root / "extra.cfg").write_text(body)
        (root / ".git" / "config").write_text('[core]\n\tbare = false\n'
                                              '[include]\n\tpath = ../extra.cfg\n')
    else:
        (root / ".git" / "config").write_text("[core]\n" + body)
    found = set(filter_names(root))
    assert found >= set(names)
    assert found >= set(_git_says(root))   # git itself, the oracle: nothing it reads is missed


def _git_says(root) -> list[str]:
    done = subprocess.run(["git", "config", "-z", "--name-only", "--get-regexp", r"^filter\."],
                          cwd=root, capture_output=True,
                          env={"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1",
                               "GIT_CONFIG_GLOBAL": "/dev/null"})
    keys = [k for k in done.stdout.decode("utf-8", "surrogateescape").split("\0") if k]
    return [k[len("filter."):k.rindex(".")] for k in keys]


@given(st.lists(FILTER, max_size=4))
def test_each_filter_name_is_blanked_as_one_key(names):
    env = environment("/p/root", names, {"PATH": "/bin", "GIT_DIR": "/evil"})
    keys = [env[f"GIT_CONFIG_KEY_{i}"] for i in range(int(env.get("GIT_CONFIG_COUNT", 0)))]
    for name in names:
        for part in ("clean", "smudge", "process"):
            assert f"filter.{name}.{part}" in keys
    assert "GIT_DIR" not in env and env["GIT_CONFIG_GLOBAL"] == "/dev/null"
    assert env["GIT_CONFIG_NOSYSTEM"] == "1" and env["GIT_CEILING_DIRECTORIES"] == "/p"


@given(st.lists(st.text(string.ascii_letters + "-:/.", max_size=8), max_size=4))
def test_every_command_line_is_neutralised_before_its_subcommand(args):
    argv = command(["status", *args], "/p")
    sub = argv.index("status")
    head = argv[:sub]
    assert head[:3] == ["git", "--no-pager", "--no-optional-locks"]
    for setting in NEUTRAL:
        assert head[head.index(setting) - 1] == "-c"
    assert "core.fsmonitor=false" in head and "core.hooksPath=/dev/null" in head
    assert argv[sub + 1] == "--ignore-submodules=all"
    assert "--no-ext-diff" in command(["diff"], "/p") and "--no-textconv" in command(["show"], "/p")
