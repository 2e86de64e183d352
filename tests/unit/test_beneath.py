"""tools/beneath: edgar's own writes beneath the root never follow a link (ADR-0076)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgar.tools import beneath

NAME = st.text(st.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)),
               min_size=1, max_size=8)


@given(st.lists(NAME, min_size=1, max_size=5))
def test_plain_components_come_back_as_they_were(parts):
    rel = "/".join(parts)
    if any(p in (".", "..") for p in parts):
        with pytest.raises(beneath.Refused):
            beneath.parts_of(rel)
    else:
        assert beneath.parts_of(rel) == parts


@given(st.lists(NAME, min_size=0, max_size=3), st.sampled_from(["", ".", ".."]),
       st.lists(NAME, min_size=0, max_size=3))
def test_an_empty_dot_or_dotdot_component_anywhere_is_refused(head, bad, tail):
    with pytest.raises(beneath.Refused):
        beneath.parts_of("/".join([*head, bad, *tail]))


def test_absolute_and_nul_paths_are_refused():
    for rel in ("/etc/passwd", "a\0b"):
        with pytest.raises(beneath.Refused):
            beneath.parts_of(rel)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "p" / "src").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return tmp_path / "p"


def test_write_makes_parents_and_follows_the_umask(root):
    old = os.umask(0o022)
    try:
        beneath.write(root, "a/b/c.txt", b"hi\n")
    finally:
        os.umask(old)
    assert (root / "a/b/c.txt").read_bytes() == b"hi\n"
    assert stat.S_IMODE((root / "a/b/c.txt").stat().st_mode) == 0o644
    os.chmod(root / "a/b/c.txt", 0o755)
    beneath.write(root, "a/b/c.txt", b"again\n")
    assert stat.S_IMODE((root / "a/b/c.txt").stat().st_mode) == 0o755
    assert sorted(os.listdir(root / "a/b")) == ["c.txt"]   # no temp file left behind


def test_a_link_on_the_way_or_at_the_end_is_refused_and_nothing_lands_outside(root):
    outside = root.parent / "outside"
    (outside / "target").write_text("theirs\n")
    os.symlink(outside, root / "src" / "link")
    os.symlink(outside / "target", root / "last")
    for rel in ("src/link/target", "src/link/new", "last"):
        with pytest.raises(beneath.Refused, match="symbolic link"):
            beneath.write(root, rel, b"evil\n")
        with pytest.raises(beneath.Refused, match="symbolic link"):
            beneath.remove(root, rel)
    with pytest.raises(beneath.Refused):
        beneath.read(root, "src/link/target")
    assert (outside / "target").read_text() == "theirs\n"
    assert sorted(os.listdir(outside)) == ["target"]
    assert (root / "last").is_symlink()


def test_read_lstat_and_remove_of_absent_paths(root):
    assert beneath.read(root, "no/such") is None
    assert beneath.lstat(root, "no/such") is None
    assert beneath.remove(root, "no/such") is False
    beneath.write(root, "src/x", b"1")
    assert beneath.read(root, "src/x", limit=0) == b""
    assert beneath.remove(root, "src/x") is True and not (root / "src/x").exists()
