"""Git auto-commit through the real binary in real repositories (ADR-0108): a turn's changes
become one commit of edgar's, nothing of the person's goes in it, no hook of the repository
runs, and it holds for root and for an ordinary user."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.project import REPO, edgar_env, run_edgar, state_of, write_script
from support.users import as_user, ordinary_user, runtime_copy

from edgar.core.autocommit import read_records


def git(project: Path, *args: str, **kw) -> str:
    return subprocess.run(["git", *args], cwd=project, check=True, capture_output=True,
                          text=True, **kw).stdout


def repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", ".")
    git(path, "-c", "user.name=Pat", "-c", "user.email=pat@example.com", "commit", "-qm", "init")
    git(path, "config", "user.name", "Pat Person")
    git(path, "config", "user.email", "pat@example.com")
    return path


def plant_hooks(project: Path, witness: Path) -> None:
    """Every hook git would run on commit, in .git/hooks and in a core.hooksPath dir."""
    for folder in (project / ".git" / "hooks", project / "myhooks"):
        folder.mkdir(exist_ok=True)
        for name in ("pre-commit", "commit-msg", "prepare-commit-msg", "post-commit"):
            hook = folder / name
            hook.write_text(f"#!/bin/sh\necho {name} >> {witness}\n")
            hook.chmod(0o755)
    git(project, "config", "core.hooksPath", "myhooks")


CALLS = [
    {"name": "edit", "input": {"path": "a.txt", "old_string": "base\n", "new_string": "new\n"}},
    {"name": "write", "input": {"path": "src/new.py", "content": "print(1)\n"}},
    {"name": "write", "input": {"path": "mine.txt", "content": "edgar's\n"}},
    {"name": "shell", "input": {"command": "echo more >> b.txt; echo junk > build.out"}},
]


def turn(tmp_path: Path, project: Path, env: dict, prompt: str, *flags: str,
         calls=CALLS, name: str = "s", **kw) -> subprocess.CompletedProcess[str]:
    script = write_script(tmp_path / f"{name}.jsonl", [{"tool_calls": calls}, {"text": "done"}])
    return run_edgar(["-p", prompt, "--model", f"scripted:{script}", "--permission-mode", "yes",
                      *flags], project, env, **kw)


@pytest.fixture
def env(tmp_path):
    return edgar_env(tmp_path / "home")


def test_a_turn_commits_exactly_its_files_and_nothing_of_the_persons(tmp_path, env):
    project = repo(tmp_path / "p", {"a.txt": "base\n", "b.txt": "b\n", "mine.txt": "mine\n"})
    witness = tmp_path / "hooks-ran"
    plant_hooks(project, witness)
    (project / "mine.txt").write_text("my work in progress\n")     # dirty before the turn
    (project / "staged.txt").write_text("staged by me\n")
    git(project, "add", "staged.txt")                               # staged before the turn
    before = git(project, "rev-parse", "HEAD").strip()
    out = turn(tmp_path, project, env, "Rename base to new\nand more words", "--auto-commit")
    assert out.returncode == 0, out.stderr
    head = git(project, "rev-parse", "HEAD").strip()
    assert head != before and git(project, "rev-parse", "HEAD~1").strip() == before
    committed = git(project, "show", "--name-status", "--format=", "HEAD").split("\n")
    assert sorted(filter(None, committed)) == ["A\tsrc/new.py", "M\ta.txt", "M\tb.txt"]
    message = git(project, "log", "-1", "--format=%B")
    assert message.startswith("Rename base to new\n\n")
    assert "M a.txt\nM b.txt\nA src/new.py" in message
    assert "Edgar-Session: " in message and "Edgar-Turn: " in message
    who = git(project, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip()
    assert who == "Pat Person (edgar) <pat@example.com>|Pat Person (edgar) <pat@example.com>"
    # the person's work: still theirs, as it was (staged stays staged, dirty stays dirty)
    status = git(project, "status", "--porcelain", "--untracked-files=all")
    assert "A  staged.txt" in status and " M mine.txt" in status and "?? build.out" in status
    assert (project / "mine.txt").read_text() == "edgar's\n"
    assert "left uncommitted" in out.stderr and "mine.txt" in out.stderr
    assert f"committed {head[:7]}" in out.stderr
    assert not witness.exists(), witness.read_text()      # no hook of the repository ran
    record, = read_records(state_of(project, tmp_path / "home"))
    assert record.hash == head and record.parent == before
    assert record.paths == {"a.txt": "M", "b.txt": "M", "src/new.py": "A"}


def test_off_by_default_and_config_turns_it_on(tmp_path, env):
    project = repo(tmp_path / "p", {"a.txt": "base\n", "b.txt": "b\n", "mine.txt": "m\n"})
    before = git(project, "rev-parse", "HEAD").strip()
    assert turn(tmp_path, project, env, "change").returncode == 0
    assert git(project, "rev-parse", "HEAD").strip() == before
    git(project, "checkout", "-q", "--", ".")
    (project / "src/new.py").unlink()
    (project / ".edgar" / "config.toml").write_text("[git]\nauto_commit = true\n")
    out = turn(tmp_path, project, env, "change", "--output-format", "json", name="t")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["commit"] == git(project, "rev-parse", "HEAD").strip() != before
    out = turn(tmp_path, project, env, "again", "--no-auto-commit", "--output-format", "json",
               calls=[CALLS[0] | {"input": {"path": "a.txt", "old_string": "new\n",
                                            "new_string": "newer\n"}}], name="u")
    assert json.loads(out.stdout)["commit"] is None
    assert git(project, "rev-parse", "HEAD").strip() == result["commit"]


def test_a_secret_in_the_prompt_never_reaches_the_history(tmp_path, env):
    project = repo(tmp_path / "p", {"a.txt": "base\n", "b.txt": "b\n", "mine.txt": "m\n"})
    key = "sk-ant-api03-" + "Zq7Xw2Lm9Rt4Yb6Nc8Vd1Fg3Hj5Kp0Qs" * 3
    out = turn(tmp_path, project, env, f"use the key {key} in the config", "--auto-commit")
    assert out.returncode == 0, out.stderr
    message = git(project, "log", "-1", "--format=%B")
    assert key not in message and key[:24] not in message and "use the key" in message


def test_outside_a_repository_it_says_so_and_the_turn_is_fine(tmp_path, env):
    project = tmp_path / "p"
    project.mkdir()
    (project / "a.txt").write_text("base\n")
    out = turn(tmp_path, project, env, "change", "--auto-commit", calls=CALLS[:2])
    assert out.returncode == 0, out.stderr
    assert "auto-commit: not a git repository" in out.stderr
    assert (project / "a.txt").read_text() == "new\n"


def test_a_turn_that_changed_nothing_makes_no_commit(tmp_path, env):
    project = repo(tmp_path / "p", {"a.txt": "base\n"})
    before = git(project, "rev-parse", "HEAD").strip()
    out = turn(tmp_path, project, env, "look", "--auto-commit",
               calls=[{"name": "read", "input": {"path": "a.txt"}}])
    assert out.returncode == 0 and "committed" not in out.stderr
    assert git(project, "rev-parse", "HEAD").strip() == before


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uids: Linux")
def test_an_ordinary_user_gets_the_same_commit(tmp_path):
    user = ordinary_user()
    base = Path(tempfile.mkdtemp(prefix="edgar-commit-user-"))
    try:
        project = repo(base / "p", {"a.txt": "base\n", "b.txt": "b\n", "mine.txt": "m\n"})
        witness = base / "hooks-ran"
        plant_hooks(project, witness)
        site = runtime_copy(base / "site", REPO)   # what the user can import edgar from
        home = base / "home"
        home.mkdir()
        for path in (base, *base.rglob("*")):
            os.chown(path, user.uid, user.gid, follow_symlinks=False)
        env = edgar_env(home, HOME=str(home), PYTHONDONTWRITEBYTECODE="1")
        env["PYTHONPATH"] = site
        script = write_script(base / "s.jsonl", [{"tool_calls": CALLS}, {"text": "done"}])
        os.chown(script, user.uid, user.gid)
        out = subprocess.run([user.python, "-m", "edgar", "-p", "as a user", "--model",
                              f"scripted:{script}", "--permission-mode", "yes",
                              "--auto-commit"], cwd=project, env=env, capture_output=True,
                             text=True, timeout=60, **as_user(user))
        assert out.returncode == 0, out.stderr
        assert "committed" in out.stderr, out.stderr
        owner = git(project, "log", "-1", "--format=%an|%s", env={
            **os.environ, "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory",
            "GIT_CONFIG_VALUE_0": str(project)}).strip()
        assert owner == "Pat Person (edgar)|as a user"
        assert not witness.exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def committed_turn(tmp_path: Path, env: dict) -> tuple[Path, str, str]:
    """A repository with the person's own dirty and staged work, then one committed turn:
    (project, HEAD before, status before)."""
    project = repo(tmp_path / "p", {"a.txt": "base\n", "b.txt": "b\n", "mine.txt": "mine\n"})
    (project / "mine.txt").write_text("my work in progress\n")
    (project / "staged.txt").write_text("staged by me\n")
    git(project, "add", "staged.txt")
    before = git(project, "rev-parse", "HEAD").strip()
    status = git(project, "status", "--porcelain", "--untracked-files=all")
    out = turn(tmp_path, project, env, "change things", "--auto-commit")
    assert out.returncode == 0 and "committed" in out.stderr, out.stderr
    return project, before, status


def test_undo_takes_back_edgars_commit_and_the_tree_is_as_before(tmp_path, env):
    project, before, status = committed_turn(tmp_path, env)
    out = run_edgar(["undo"], project, env)
    assert out.returncode == 0, out.stderr
    assert "took back edgar's commit" in out.stderr and "undid 1 turn" in out.stdout
    assert git(project, "rev-parse", "HEAD").strip() == before
    now = "".join(line for line in git(project, "status", "--porcelain", "--untracked-files=all")
                  .splitlines(keepends=True) if not line.startswith("?? .edgar/"))
    # build.out is a command's output, which checkpoints remove too; the rest is as before
    assert now == status.replace("?? build.out\n", ""), (now, status)
    assert (project / "a.txt").read_text() == "base\n" and not (project / "src/new.py").exists()
    assert (project / "mine.txt").read_text() == "my work in progress\n"
    assert (project / "staged.txt").read_text() == "staged by me\n"


def test_undo_refuses_when_the_person_committed_on_top_and_changes_nothing(tmp_path, env):
    project, _, _ = committed_turn(tmp_path, env)
    edgars = git(project, "rev-parse", "HEAD").strip()
    git(project, "commit", "-qm", "my own commit")     # the staged file, the person's
    mine = git(project, "rev-parse", "HEAD").strip()
    files = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}
    out = run_edgar(["undo"], project, env)
    assert out.returncode == 1
    assert "not the last commit" in out.stderr and f"git revert {edgars[:7]}" in out.stderr
    assert "nothing was changed" in out.stderr
    assert git(project, "rev-parse", "HEAD").strip() == mine
    assert files == {p: p.read_bytes() for p in project.rglob("*")
                     if p.is_file() and ".git" not in p.parts}


def test_undo_refuses_when_the_person_changed_a_committed_file_since(tmp_path, env):
    project, _, _ = committed_turn(tmp_path, env)
    head = git(project, "rev-parse", "HEAD").strip()
    (project / "a.txt").write_text("the person's edit after the turn\n")
    out = run_edgar(["undo"], project, env)
    assert out.returncode == 1 and "you changed a.txt" in out.stderr
    assert git(project, "rev-parse", "HEAD").strip() == head
    assert (project / "a.txt").read_text() == "the person's edit after the turn\n"


def test_undo_refuses_a_commit_that_is_on_a_remote(tmp_path, env):
    project, _, _ = committed_turn(tmp_path, env)
    head = git(project, "rev-parse", "HEAD").strip()
    git(project, "update-ref", "refs/remotes/origin/main", head)   # as after a push
    out = run_edgar(["undo"], project, env)
    assert out.returncode == 1 and "already on origin/main" in out.stderr
    assert git(project, "rev-parse", "HEAD").strip() == head


def test_p_commit_commits_what_is_pending_as_edgars(tmp_path, env):
    project = repo(tmp_path / "p", {"a.txt": "base\n", "b.txt": "b\n"})
    (project / "a.txt").write_text("changed by me\n")
    (project / "b.txt").write_text("staged by me\n")
    git(project, "add", "b.txt")
    (project / "stray.txt").write_text("untracked\n")
    model = ["--model", f"scripted:{write_script(tmp_path / 'none.jsonl', [])}"]   # no call
    out = run_edgar(["-p", "/commit Tidy the readme", *model], project, env)
    assert out.returncode == 0, out.stderr
    head = git(project, "rev-parse", "HEAD").strip()
    assert out.stdout.strip() == head
    assert git(project, "log", "-1", "--format=%an|%s").strip() == \
        "Pat Person (edgar)|Tidy the readme"
    names = sorted(filter(None, git(project, "show", "--name-only", "--format=", "HEAD").split()))
    assert names == ["a.txt", "b.txt"]
    assert "not added" in out.stderr and "stray.txt" in out.stderr
    assert git(project, "status", "--porcelain").split("\n")[-2:] == ["?? stray.txt", ""]
    again = run_edgar(["-p", "/commit", *model], project, env)
    assert again.returncode == 0 and "nothing to commit" in again.stderr
