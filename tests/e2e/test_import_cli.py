"""``edgar import claude-code`` the way a person uses it: import, review what was proposed,
read the stats; a progress bar only on a terminal; two imports at once and a kill -9 in the
middle end where one clean import would."""

from __future__ import annotations

import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("edgar.learning")

from support.project import edgar_env, make_project, run_edgar, state_of, with_home  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data" / "claude-code"
FASTHOOKS = "oneryalcin__fasthooks__specs__data__sample_main_transcript.jsonl"


def record(n: int, text: str, **kw) -> str:
    return json.dumps({"type": "user", "uuid": f"u{n}", "sessionId": "s-typed",
                       "timestamp": "2026-04-01T09:00:00Z", "origin": {"kind": "human"},
                       "message": {"role": "user", "content": text}} | kw) + "\n"


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home")


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "proj")


@pytest.fixture
def tree(tmp_path):
    """A ~/.claude/projects look-alike: two project folders, corpus copies and typed rules."""
    root = tmp_path / "projects"
    for i, folder in enumerate(("-home-me-app", "-home-me-lib")):
        (root / folder).mkdir(parents=True)
        shutil.copy(DATA / FASTHOOKS, root / folder / f"copy-{i}.jsonl")
    (root / "-home-me-app" / "s-typed.jsonl").write_text(
        record(1, "always run the linter before committing")
        + record(2, "The task finished. Always ship it now.", isMeta=True)
        + record(3, "never edit generated files by hand"), encoding="utf-8")
    return root


def edgar(project, env, *args, code=0):
    out = run_edgar([str(a) for a in args], project, env)
    assert out.returncode == code, out.stderr
    assert "Traceback" not in out.stderr
    return out


def state(project, env):
    stats = json.loads(edgar(project, env, "stats", "--source", "all", "--json").stdout)
    facts = json.loads(edgar(project, env, "memory", "list", "--all", "--json").stdout)
    total = stats["total"]
    return (total["runs"], total["tokens"], round(total["cost"], 9),
            sorted((f["text"], f["status"], f["provenance"]) for f in facts))


def test_import_review_and_stats(project, env, tree):
    out = edgar(project, env, "import", "claude-code", tree)
    assert "3 file(s)" in out.stdout and "14 exchange(s)" in out.stdout
    assert "2 new proposal(s) stored as pending; review them with `edgar memory review`" \
        in out.stdout
    assert json.loads(edgar(project, env, "memory", "list", "--json").stdout) == []
    pending = json.loads(edgar(project, env, "memory", "list", "--pending", "--json").stdout)
    assert sorted(f["text"] for f in pending) == ["always run the linter before committing",
                                                  "never edit generated files by hand"]
    chosen = pending[0]
    edgar(project, env, "memory", "review", "--approve", chosen["id"], "--hash", chosen["sha256"])
    [active] = json.loads(edgar(project, env, "memory", "list", "--json").stdout)
    assert (active["text"], active["provenance"]) == (chosen["text"], "reviewed")

    text = edgar(project, env, "stats", "--source", "claude-code").stdout
    # the two copies of one session are one session's turns: 6 + 2 runs, not 14
    assert text.startswith("edgar stats by shape, all time, source claude-code: 8 runs")
    data = json.loads(edgar(project, env, "stats", "--source", "claude-code", "--by", "model",
                            "--json").stdout)
    # (the typed file has questions and no replies: no model)
    assert {g["key"] for g in data["groups"]} == {"claude-haiku-4-5-20251001", ""}
    assert data["total"]["tokens"] > 0 and data["total"]["cost"] > 0

    again = edgar(project, env, "import", "claude-code", tree)
    assert "0 exchange(s)" in again.stdout and "0 new proposal(s)" in again.stdout


def test_typed_keeps_stdout_to_json_lines(project, env, tree):
    out = edgar(project, env, "import", "claude-code", "--dry-run", "--typed", tree)
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [t["text"] for t in lines if t["session_id"] == "s-typed"] == [
        "always run the linter before committing", "never edit generated files by hand"]
    assert len(lines) == 2 + 2 * 6
    assert "dry run: nothing stored; 2 proposal(s) would be made" in out.stderr
    assert "\x1b[" not in out.stderr                   # no bar: stderr is not a terminal
    assert not (state_of(project, project.parent / "home")).exists()


def test_help_exits_0(project, env):
    out = edgar(project, env, "import", "claude-code", "--help")
    assert "--dry-run" in out.stdout and "--typed" in out.stdout


def test_a_progress_bar_on_a_terminal(project, env, tree):
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "edgar", "import", "claude-code", "--dry-run",
                             str(tree)], cwd=project, env=env | {"TERM": "xterm"},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:                                 # EIO: the child closed the pty
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    assert proc.wait(timeout=60) == 0
    assert b"importing" in seen and b"MB" in seen
    assert b"3 file(s)" in proc.stdout.read()


@pytest.mark.timing   # processes racing for one store
def test_two_imports_at_once_end_like_one(project, env, tree, tmp_path):
    cmd = [sys.executable, "-m", "edgar", "import", "claude-code", str(tree)]
    procs = [subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for _ in range(2)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    clean = make_project(tmp_path / "clean")
    edgar(clean, env, "import", "claude-code", tree)
    assert state(project, env) == state(clean, env)


@pytest.mark.timing   # kills an import mid-write
def test_a_kill_mid_import_loses_nothing_and_adds_nothing_twice(env, tree, tmp_path):
    for i in range(150):                                # enough files to be killed among them
        shutil.copy(DATA / FASTHOOKS, tree / "-home-me-lib" / f"more-{i}.jsonl")
    clean = make_project(tmp_path / "clean")
    edgar(clean, env, "import", "claude-code", tree)
    interrupted = 0
    for n, delay in enumerate((0.0, 0.05, 0.15, 0.3)):
        project = make_project(tmp_path / f"killed-{n}")
        proc = subprocess.Popen([sys.executable, "-m", "edgar", "import", "claude-code", "--json",
                                 str(tree)], cwd=project, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        imports = state_of(project, tmp_path / "home") / "imports.db"
        while time.monotonic() < deadline and not imports.exists():
            time.sleep(0.005)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        rest = json.loads(edgar(project, env, "import", "claude-code", "--json", tree).stdout)
        interrupted += rest["lines"] > 0
        assert state(project, env) == state(clean, env), delay
    assert interrupted, "no kill landed mid-import: make the tree bigger"


# -- which Claude Code folder: this project's by default ---------------------------------------
def _home_with_two_projects(tmp_path, project):
    """A fake HOME whose ~/.claude/projects has this project's folder and another one's."""
    from edgar.transcripts.claude_code.projects import folder_name

    home = tmp_path / "user"
    base = home / ".claude" / "projects"
    mine = base / folder_name(os.path.realpath(project))
    other = base / "-home-someone-else"
    for folder in (mine, other):
        folder.mkdir(parents=True)
    shutil.copy(DATA / FASTHOOKS, mine / "mine.jsonl")
    (other / "s-typed.jsonl").write_text(record(1, "always run the linter before committing"),
                                         encoding="utf-8")
    shutil.copy(DATA / FASTHOOKS, other / "theirs.jsonl")
    return home, mine, other


def test_the_default_reads_only_this_projects_folder_and_says_which(project, env, tmp_path):
    home, mine, other = _home_with_two_projects(tmp_path, project)
    env = with_home(env, home)
    out = edgar(project, env, "import", "claude-code", "--dry-run")
    assert out.stdout.splitlines()[0] == f"from {mine}:"
    assert "read 1 file(s)" in out.stdout and "0 proposal(s)" in out.stdout
    summary = json.loads(edgar(project, env, "import", "claude-code", "--json").stdout)
    assert summary["folders"] == [str(mine)] and summary["files"] == 1
    data = json.loads(edgar(project, env, "stats", "--source", "claude-code", "--json").stdout)
    assert data["total"]["runs"] == 6                    # fasthooks' six questions, nothing else
    assert json.loads(edgar(project, env, "memory", "list", "--pending", "--json").stdout) == []


def test_all_reads_every_project_and_stats_filter_by_project(project, env, tmp_path):
    home, mine, other = _home_with_two_projects(tmp_path, project)
    env = with_home(env, home)
    summary = json.loads(edgar(project, env, "import", "claude-code", "--all", "--json").stdout)
    assert summary["folders"] == [str(home / ".claude" / "projects")]
    assert summary["files"] == 3 and summary["proposals"] == 1
    [fact] = json.loads(edgar(project, env, "memory", "list", "--pending", "--json").stdout)
    assert f"/{other.name}/s-typed.jsonl:1" in fact["source"]   # the source project's name

    def runs(*flags):
        out = edgar(project, env, "stats", "--source", "claude-code", "--json", *flags).stdout
        data = json.loads(out)
        return data["total"]["runs"] if data["total"] else 0

    # the two fasthooks copies are one session's turns (same uuids): the later read keeps it
    assert runs() == 7
    assert runs("--project", other.name) + runs("--project", mine.name) == 7
    assert runs("--project", other.name) >= 1
    assert runs("--project", "-no-such-project") == 0
    assert runs("--project", str(project)) == runs("--project", mine.name)   # a path works too
    text = edgar(project, env, "stats", "--source", "claude-code", "--project", other.name).stdout
    assert text.startswith("edgar stats by shape, all time, source claude-code, "
                           f"project {other.name}")
    out = edgar(project, env, "import", "claude-code", "--all", str(mine), code=2)
    assert out.stderr.startswith("edgar: claude-code: --all reads every project")


def test_no_folder_for_this_project_is_a_clear_error(project, env, tmp_path):
    home, mine, _ = _home_with_two_projects(tmp_path, project)
    shutil.rmtree(mine)
    out = edgar(project, with_home(env, home), "import", "claude-code", code=2)
    assert out.stderr == (f"edgar: no Claude Code transcripts for this project at {mine} "
                          "(--all reads every project; or pass a PATH)\n")
    assert not (state_of(project, tmp_path / "home")).exists()


def test_a_project_reached_through_a_symlink_finds_either_folder(env, tmp_path):
    """Claude Code names the folder after the real path; an IDE started from the link uses
    the link's path. Both are read, and the report names each."""
    from edgar.transcripts.claude_code.projects import folder_name

    real = make_project(tmp_path / "real" / "app")
    link = tmp_path / "link"
    os.symlink(tmp_path / "real", link)
    home = tmp_path / "user"
    base = home / ".claude" / "projects"
    by_real, by_link = base / folder_name(str(real)), base / folder_name(str(link / "app"))
    for folder in (by_real, by_link):
        folder.mkdir(parents=True)
    shutil.copy(DATA / FASTHOOKS, by_link / "from-ide.jsonl")
    cli = subprocess.run([sys.executable, "-m", "edgar", "import", "claude-code", "--dry-run",
                          "--json"], cwd=link / "app", capture_output=True, text=True,
                         env=with_home(env, home) | {"PWD": str(link / "app")}, timeout=60)
    assert cli.returncode == 0, cli.stderr
    summary = json.loads(cli.stdout)
    assert summary["folders"] == [str(by_real), str(by_link)] and summary["files"] == 1


def test_claude_config_dir_moves_the_projects_folder(project, env, tmp_path):
    from edgar.transcripts.claude_code.projects import folder_name

    config = tmp_path / "cc-config"
    mine = config / "projects" / folder_name(os.path.realpath(project))
    mine.mkdir(parents=True)
    shutil.copy(DATA / FASTHOOKS, mine / "a.jsonl")
    out = edgar(project, env | {"CLAUDE_CONFIG_DIR": str(config), "HOME": str(tmp_path / "u")},
                "import", "claude-code", "--dry-run", "--json")
    assert json.loads(out.stdout)["folders"] == [str(mine)]


def test_stats_show_a_dash_where_no_duration_is_known(project, env, tree):
    edgar(project, env, "import", "claude-code", tree)
    data = json.loads(edgar(project, env, "stats", "--source", "claude-code", "--json").stdout)
    groups = {g["key"]: g for g in data["groups"]}
    # no reply, so no time span: the typed-only file's two questions, and fasthooks' /compact
    # (line 62: only the client's compaction records follow it)
    assert groups["answer"]["duration_median"] is None and groups["answer"]["timed_runs"] == 0
    assert groups["answer"]["runs"] == 3
    timed = [g for g in data["groups"] if g["timed_runs"]]
    assert timed and all(g["duration_median"] > 0 for g in timed)
    assert data["total"]["timed_runs"] == data["total"]["runs"] - 3
    text = edgar(project, env, "stats", "--source", "claude-code").stdout
    row = next(line for line in text.splitlines() if line.startswith("answer "))
    assert row.split()[4:6] == ["—", "—"]                # median, total ("38 %" before)
    assert "(3 without a duration)" in text.splitlines()[0]
