"""``--add-dir`` pieces (ADR-0113): the policy makes an added directory a writable root with its
own protected paths, ``prepare`` makes an added repository's git paths exist, the tools'
``root_of`` and ``protected_reason`` treat it as a second root, and the flag is checked."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgar.cli.oneshot import UsageError
from edgar.cli.run import added_dirs
from edgar.sandbox import Policy
from edgar.sandbox.prepare import prepare
from edgar.tools.base import added_roots, protected_reason, root_of


def repo(path: Path) -> Path:
    (path / ".git" / "hooks").mkdir(parents=True)
    (path / ".git" / "config").write_text("")
    return path


def test_an_added_dir_is_writable_with_its_git_protected(tmp_path):
    root, added, home = repo(tmp_path / "p"), repo(tmp_path / "lib"), tmp_path / "home"
    policy = Policy.for_project(root, user_dir=home, extra_roots=(str(added),))
    real = os.path.realpath(added)
    assert real in policy.writable and policy.extra_roots == (real,)
    for inner in (".git/hooks/pre-commit", ".git/config", ".edgar/config.toml"):
        assert not policy.is_writable(f"{real}/{inner}"), inner
    assert f"{real}/.git/hooks" in policy.protected_inside()
    assert f"{real}/.git" in policy.anchors()   # a mount point: .git cannot be renamed away
    readonly = Policy.for_project(root, mode="read-only", user_dir=home,
                                  extra_roots=(str(added),))
    assert not readonly.is_writable(f"{real}/src/a.py")    # even in a temp dir
    without = Policy.for_project(root, user_dir=home)
    assert real not in without.writable and without.extra_roots == ()


def test_prepare_makes_an_added_repositorys_git_paths_but_not_its_edgar_dir(tmp_path):
    root, added = repo(tmp_path / "p"), tmp_path / "lib"
    (added / ".git").mkdir(parents=True)
    prepare(Policy.for_project(root, user_dir=tmp_path / "home", extra_roots=(str(added),)))
    assert (added / ".git" / "hooks").is_dir() and (added / ".git" / "config").is_file()
    assert (added / ".git" / "info" / "attributes").is_file()
    assert not (added / ".edgar").exists()


def test_protected_reason_names_an_added_dirs_git_and_edgar(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    root, added = (tmp_path / "p").resolve(), (tmp_path / "lib").resolve()
    root.mkdir()
    assert "git's internals" in (protected_reason(root, added / ".git" / "config", (added,))
                                 or "")
    assert ".edgar/" in (protected_reason(root, added / ".edgar" / "x", (added,)) or "")
    assert protected_reason(root, added / "src" / "a.py", (added,)) is None
    assert protected_reason(root, added / ".git" / "config") is None   # not added: not its


parts = st.lists(st.sampled_from(["a", "b", "c", "ab"]), min_size=1, max_size=4)


@given(st.lists(parts, min_size=1, max_size=4), parts)
def test_root_of_is_the_first_root_the_path_is_beneath(roots, path):
    bases = tuple(Path("/", *r) for r in roots)
    full = Path("/", *path)
    found = root_of(full, bases)
    holding = [b for b in bases if full == b or b in full.parents]
    assert found == (holding[0] if holding else None)
    if found is not None:   # beneath means by whole components: /ab is not beneath /a
        assert full.parts[:len(found.parts)] == found.parts


def test_added_roots_are_resolved_and_unique(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "l").symlink_to("d")
    assert added_roots([str(tmp_path / "d"), str(tmp_path / "l")]) == ((tmp_path / "d").resolve(),)


def test_the_flag_takes_groups_and_refuses_what_is_not_a_directory(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "f").write_text("")
    args = argparse.Namespace(add_dir=[[str(tmp_path / "a"), str(tmp_path / "b")]])
    assert added_dirs(args) == [os.path.realpath(tmp_path / "a"), os.path.realpath(tmp_path / "b")]
    assert added_dirs(argparse.Namespace(add_dir=None)) is None
    with pytest.raises(UsageError, match="--add-dir .*f: not a directory"):
        added_dirs(argparse.Namespace(add_dir=[[str(tmp_path / "f")]]))
    with pytest.raises(UsageError, match="--add-dir .*gone: no such directory"):
        added_dirs(argparse.Namespace(add_dir=[[str(tmp_path / "gone")]]))
