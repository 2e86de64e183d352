"""What the session began on (issue 21 item 8): the commit HEAD named, read from git's files,
and a path's place in it, believed only once every object's id is recomputed — against real
repositories (loose and packed refs, a worktree, a detached HEAD, SHA-256) and a forged object;
the sandboxed ``git cat-file`` also as the ordinary user of ``support.users`` and with bubblewrap
hidden (``support.hostile``), in a child process run as that user."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.hostile import Machine, machine_fixture

from edgar.sandbox import Policy, Sandbox
from edgar.tools.committed import (
    Baseline,
    batch_objects,
    committed,
    head_commit,
    object_id,
    plain_parts,
    tree_entries,
    verified_entry,
)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(root, *args, input=None) -> str:
    return subprocess.run(["git", "-C", str(root), "-c", "safe.directory=*", "-c", "user.name=p",
                           "-c", "user.email=p@example.com", *args], check=True,
                          capture_output=True, input=input).stdout.decode().strip()


def repo(root, files=None, fmt="sha1"):
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", f"--object-format={fmt}")
    for name, text in (files or {"scripts/build.sh": "#!/bin/sh\nexit 2\n"}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "one")
    return root


# --- the pure part -------------------------------------------------------------------------

names = st.binary(min_size=1, max_size=20).filter(lambda b: b" " not in b and b"\0" not in b
                                                  and b"/" not in b)


def tree_body(entries: dict[bytes, tuple[bytes, bytes]]) -> bytes:
    return b"".join(mode + b" " + name + b"\0" + raw for name, (mode, raw) in entries.items())


MODES = st.sampled_from([b"100644", b"100755", b"120000", b"40000"])


@given(st.sampled_from([20, 32]).flatmap(lambda n: st.dictionaries(
    names, st.tuples(MODES, st.binary(min_size=n, max_size=n)), max_size=8)))
def test_a_tree_body_parses_back_to_its_entries(entries):
    length = 2 * len(next(iter(entries.values()))[1]) if entries else 40
    parsed = tree_entries(tree_body(entries), length)
    assert parsed == {name: (mode, raw.hex()) for name, (mode, raw) in entries.items()}


@given(st.binary(max_size=200), st.sampled_from([40, 64]))
def test_a_cut_or_garbled_tree_raises_or_parses_never_reads_past_its_end(body, length):
    try:
        entries = tree_entries(body, length)
    except ValueError:
        return
    assert all(len(oid) == length for _, oid in entries.values())


@given(st.lists(st.one_of(st.none(), st.tuples(st.sampled_from([b"blob", b"tree", b"commit"]),
                                               st.binary(max_size=100))), max_size=6))
def test_cat_file_output_parses_back_to_what_it_said(items):
    out = b""
    want = []
    for i, item in enumerate(items):
        if item is None:
            out += f"name{i} missing\n".encode()
            want.append(None)
        else:
            kind, body = item
            oid = object_id(kind, body, 40)
            out += f"{oid} ".encode() + kind + f" {len(body)}\n".encode() + body + b"\n"
            want.append((oid, kind, body))
    assert batch_objects(out) == want


@given(st.binary(max_size=300))
def test_cat_file_garbage_raises_value_error_or_parses(out):
    with contextlib.suppress(ValueError):
        batch_objects(out)


@pytest.mark.parametrize("rel, parts", [
    ("a.sh", ["a.sh"]), ("scripts/build.sh", ["scripts", "build.sh"]),
    ("", None), ("/abs", None), ("a//b", None), ("./a", None), ("a/../b", None),
    ("a/.", None), ("a\nb", None), ("a\0b", None), ("a/", None),
])
def test_only_plain_paths_are_walked(rel, parts):
    assert plain_parts(rel) == parts


@needs_git
def test_object_ids_are_gits(tmp_path):
    root = repo(tmp_path / "r")
    for kind, body in ((b"blob", b"hello\n"), (b"blob", b""), (b"tree", b"")):
        want = git(root, "hash-object", "-t", kind.decode(), "--stdin", input=body)
        assert object_id(kind, body, 40) == want


# --- real repositories --------------------------------------------------------------------

@needs_git
def test_head_is_read_from_loose_and_packed_refs_worktrees_and_a_detached_head(tmp_path):
    root = repo(tmp_path / "r")
    head = git(root, "rev-parse", "HEAD")
    assert head_commit(root) == head
    git(root, "pack-refs", "--all")
    assert not list((root / ".git" / "refs" / "heads").iterdir())
    assert head_commit(root) == head
    git(root, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    assert (tmp_path / "wt" / ".git").is_file() and head_commit(tmp_path / "wt") == head
    git(root, "checkout", "-q", "--detach")
    assert head_commit(root) == head
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q")
    assert head_commit(empty) is None                   # no commit yet
    assert head_commit(tmp_path / "nothing") is None    # not a repository
    (empty / ".git" / "HEAD").write_text("ref: refs/heads/../../../etc/passwd\n")
    assert head_commit(empty) is None


@needs_git
@pytest.mark.parametrize("fmt", ["sha1", "sha256"])
def test_committed_names_what_the_commit_holds_and_nothing_else(tmp_path, fmt):
    root = repo(tmp_path / "r", {"scripts/build.sh": "x\n", "top.sh": "y\n",
                                 "deep/er/still/run.sh": "z\n", "sp ace/a:b.sh": "w\n"}, fmt)
    os.symlink("top.sh", root / "link.sh")
    git(root, "add", "link.sh")
    git(root, "commit", "-qm", "a link")
    began = Baseline.take(root)
    box = Sandbox(Policy.for_project(root))
    for rel in ("scripts/build.sh", "top.sh", "deep/er/still/run.sh", "link.sh", "sp ace/a:b.sh"):
        assert committed(began, root, rel, box), rel
    (root / "new.sh").write_text("n\n")
    git(root, "add", "new.sh")
    git(root, "commit", "-qm", "later")
    for rel in ("new.sh", "scripts", "deep/er", "scripts/build.sh/x", "missing.sh",
                "scripts/../top.sh", "Scripts/build.sh"):
        assert not committed(began, root, rel, box), rel
    assert committed(Baseline.take(root), root, "new.sh", box)
    assert not committed(None, root, "top.sh", box)
    assert not committed(Baseline(0, None), root, "top.sh", box)


@needs_git
def test_a_forged_object_in_the_repository_is_not_believed(tmp_path):
    """The model rewrites the baseline commit's loose object so that its tree names a file of
    its own: git serves the forged bytes under the old id, the recomputed id gives it away."""
    root = repo(tmp_path / "r", {"a.txt": "a\n"})
    began = Baseline.take(root)
    box = Sandbox(Policy.for_project(root))
    (root / "Evil.sh").write_text("#!/bin/sh\nexit 3\n")
    git(root, "add", "Evil.sh")
    evil_tree = git(root, "write-tree")
    body = git(root, "cat-file", "commit", began.commit).encode()
    forged = b"tree " + evil_tree.encode() + body[body.index(b"\n"):]
    path = root / ".git" / "objects" / began.commit[:2] / began.commit[2:]
    os.chmod(path, 0o644)
    path.write_bytes(zlib.compress(b"commit %d\0" % len(forged) + forged))
    shown = git(root, "cat-file", "-p", f"{began.commit}:")   # git itself is fooled
    assert "Evil.sh" in shown
    assert not committed(began, root, "Evil.sh", box)


@needs_git
def test_the_walk_refuses_a_tree_that_is_not_the_commits(tmp_path):
    root = repo(tmp_path / "r", {"d/a.sh": "a\n"})
    commit = head_commit(root)
    assert commit is not None
    raw = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], check=True,
                         capture_output=True,
                         input=f"{commit}\n{commit}^{{tree}}\n{commit}:d\n".encode()).stdout
    objects = batch_objects(raw)
    assert verified_entry(commit, ["d", "a.sh"], objects) == b"100644"
    assert verified_entry(commit, ["d", "b.sh"], objects) is None
    swapped = [objects[0], objects[2], objects[1]]             # the right ids, the wrong places
    assert verified_entry(commit, ["d", "a.sh"], swapped) is None
    assert verified_entry(commit, ["d", "a.sh"], objects[:2]) is None
    assert verified_entry(commit, ["d", "a.sh"], [objects[0], objects[1], None]) is None


# --- as every kind of machine: the sandboxed cat-file run by the user edgar runs as ----------

ASK = """
import json, sys
from pathlib import Path
from edgar.sandbox import Policy, Sandbox
from edgar.tools.committed import Baseline, committed
root, commit, *rels = sys.argv[1:]
box = Sandbox(Policy.for_project(Path(root)))
print(json.dumps([committed(Baseline(0, commit), Path(root), rel, box) for rel in rels]))
"""


machine = machine_fixture("edgar-committed-")


def ask(machine: Machine, root: Path, commit: str, rels: list[str]) -> list[bool]:
    from support.users import as_user

    machine.own()
    env = machine.env(machine.base / "home")
    kw = as_user(machine.user) if machine.user is not None else {}
    done = subprocess.run([machine.python, "-c", ASK, str(root), commit, *rels], env=env,
                          cwd=root, capture_output=True, text=True, timeout=60, **kw)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@needs_git
def test_the_sandboxed_cat_file_holds_as_root_and_user_with_and_without_bwrap(machine):
    root = machine.base / "r"
    (root / "scripts").mkdir(parents=True)
    (root / "scripts" / "build.sh").write_text("x\n")
    (root / "a.txt").write_text("a\n")
    machine.git("init", "-q", cwd=root)
    machine.git("add", "-A", cwd=root)
    machine.git("commit", "-qm", "one", cwd=root)
    began = head_commit(root)
    assert began is not None
    (root / "Evil.sh").write_text("#!/bin/sh\nexit 3\n")
    machine.git("add", "Evil.sh", cwd=root)
    machine.git("commit", "-qm", "later", cwd=root)
    rels = ["scripts/build.sh", "a.txt", "Evil.sh", "scripts", "missing.sh"]
    assert ask(machine, root, began, rels) == [True, True, False, False, False]
    # the model forges the baseline commit's object to name its file: git believes it, edgar not
    evil_tree = git(root, "rev-parse", "HEAD^{tree}")
    body = git(root, "cat-file", "commit", began).encode()
    forged = b"tree " + evil_tree.encode() + body[body.index(b"\n"):]
    path = root / ".git" / "objects" / began[:2] / began[2:]
    os.chmod(path, 0o644)
    path.write_bytes(zlib.compress(b"commit %d\0" % len(forged) + forged))
    assert "Evil.sh" in git(root, "cat-file", "-p", f"{began}:")
    assert ask(machine, root, began, ["Evil.sh", "a.txt"]) == [False, False]
