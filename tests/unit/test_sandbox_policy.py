"""The sandbox policy and the refusal messages are pure: what is writable, which directories
must become mount points, what the model is told."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, strategies as st

from edgar.sandbox import Policy, explain
from edgar.sandbox.core import carve_out
from edgar.sandbox.policy import anchors as anchors_of

names = st.text(alphabet="abcdefgh.", min_size=1, max_size=6).filter(lambda n: n not in (".", ".."))


def test_default_policy_protects_state_inside_the_writable_project(tmp_path):
    root = tmp_path / "p"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("")
    (root / ".edgar").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    policy = Policy.for_project(root, user_dir=home)
    real = os.path.realpath(root)
    assert policy.is_writable(f"{real}/src/a.py")
    for path in (".edgar/config.toml", ".git/hooks/pre-commit", ".git/config"):
        assert not policy.is_writable(f"{real}/{path}"), path
    assert policy.is_writable(f"{real}/.git/index")
    assert not policy.is_writable(f"{os.path.realpath(home)}/config.toml")
    assert not policy.is_writable("/etc/passwd") and policy.is_writable("/dev/null")
    readonly = Policy.for_project(root, mode="read-only", user_dir=home)
    assert not readonly.is_writable(f"{real}/src/a.py")
    assert Policy.for_project(root, mode="off", user_dir=home).is_writable("/etc/passwd")


def test_a_gitdir_file_is_protected_whole(tmp_path):
    (tmp_path / ".git").write_text("gitdir: /elsewhere\n")
    policy = Policy.for_project(tmp_path, user_dir=tmp_path / "home")
    assert f"{os.path.realpath(tmp_path)}/.git" in policy.protected


@given(st.lists(names, min_size=1, max_size=4), st.lists(names, min_size=0, max_size=3))
def test_anchors_lie_strictly_between_a_writable_root_and_what_they_protect(inner, extra):
    base = "/w"
    protected = "/".join([base, *inner])
    policy = Policy(writable=(base, "/w/" + "/".join(extra) if extra else base),
                    protected=(protected,))
    anchors = anchors_of(policy.writable, list(policy.protected))
    for anchor in anchors:
        assert protected.startswith(anchor + "/") and anchor != base
    # every directory between the outermost root and the protected path is anchored
    assert len(anchors) == len(inner) - 1
    assert not policy.is_writable(protected) and not policy.is_writable(protected + "/x")


def test_carve_out_grants_everything_but_the_protected_paths(tmp_path):
    for name in ("src", ".git/objects", ".git/hooks", ".edgar"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "README").write_text("")
    (tmp_path / ".git" / "config").write_text("")
    (tmp_path / "link").symlink_to("/etc")
    root = str(tmp_path)
    protected = (f"{root}/.edgar", f"{root}/.git/hooks", f"{root}/.git/config")
    dirs, files = carve_out(root, protected)
    assert sorted(dirs) == [f"{root}/.git/objects", f"{root}/src"]
    assert files == [f"{root}/README"]  # never the link: its grant would land on /etc
    assert carve_out(f"{root}/src", protected) == ([f"{root}/src"], [])


def test_explain_names_the_refusal_and_leaves_ordinary_failures_alone(tmp_path):
    policy = Policy.for_project(tmp_path, user_dir=tmp_path / "h")
    assert explain("ok", 0, policy) == []
    assert explain("make: *** [all] Error 2", 2, policy) == []
    [line] = explain("bash: /etc/x: Permission denied", 1, policy)
    assert line.startswith("sandbox: write outside the project refused")
    [line] = explain("bash: .edgar/config.toml: Read-only file system", 1, policy)
    assert "edgar's state refused" in line
    [line] = explain("curl: (6) Could not resolve host: example.com", 6, policy)
    assert line.startswith("sandbox: network is off")
    assert explain("Could not resolve host", 6, Policy(mode="off")) == []
