"""The sandbox probe's answer kept per boot (ADR-0115): a later start with the same key skips
the forked probe and gets the same capabilities; a file the model or another user could have
made, or one for another key, is not believed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from edgar.sandbox import probe_cache

ROOT = Path(__file__).resolve().parents[2]


def _true() -> str:   # the program the probe runs
    return shutil.which("true") or "/bin/true"


needs_boot_id = pytest.mark.skipif(not os.path.exists("/proc/sys/kernel/random/boot_id"),
                                   reason="no /proc boot id: nothing is ever cached")


@needs_boot_id
def test_the_key_is_stable_and_names_this_boot_and_user():
    first, again = probe_cache.key(_true()), probe_cache.key(_true())
    assert first is not None and first == again and len(first) == 64
    # another program for the probe to run is another key
    assert probe_cache.key("/bin/sh") != first


@needs_boot_id
def test_remembered_is_seen_and_only_under_its_key(home):
    key = probe_cache.key(_true())
    assert key is not None
    assert not probe_cache.seen(key)
    assert probe_cache.remember(key)
    path = home / probe_cache.NAME
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text()) == {"format": 1, "key": key}
    assert probe_cache.seen(key)
    assert not probe_cache.seen("0" * 64)
    assert [p.name for p in home.iterdir()] == [probe_cache.NAME]   # no temporary left


def test_nothing_is_written_without_a_user_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "absent"))
    assert not probe_cache.remember("a" * 64)
    assert not (tmp_path / "absent").exists()


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o606, 0o620])
def test_a_file_others_may_read_or_write_is_not_believed(home, mode):
    key = "b" * 64
    path = home / probe_cache.NAME
    path.write_text(json.dumps({"format": 1, "key": key}))
    path.chmod(mode)
    assert not probe_cache.seen(key)
    path.chmod(0o600)
    assert probe_cache.seen(key)


def test_a_link_is_not_believed(home, tmp_path):
    key = "c" * 64
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"format": 1, "key": key}))
    target.chmod(0o600)
    (home / probe_cache.NAME).symlink_to(target)
    assert not probe_cache.seen(key)


@pytest.mark.parametrize("text", ["", "{", "[]", '{"format": 2, "key": "KEY"}',
                                  '{"format": 1, "key": "KEY", "full": false}',
                                  '{"format": 1}', "x" * 5000])
def test_any_other_content_is_a_miss(home, text):
    key = "d" * 64
    path = home / probe_cache.NAME
    path.write_text(text.replace("KEY", key))
    path.chmod(0o600)
    assert not probe_cache.seen(key)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another uid needs root")
def test_a_file_another_user_owns_is_not_believed(home):
    key = "e" * 64
    path = home / probe_cache.NAME
    path.write_text(json.dumps({"format": 1, "key": key}))
    path.chmod(0o600)
    os.chown(path, 65534, 65534)
    assert not probe_cache.seen(key)


PROBE = """import json, sys
from edgar.sandbox.probe import capabilities
caps = capabilities()
print(json.dumps([caps.landlock_abi, repr(caps.namespaces), caps.bwrap, list(caps.why_not)]))
"""


def _probe_in_fresh_process(home: Path) -> list[object]:
    env = {**os.environ, "EDGAR_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


@needs_boot_id
def test_a_second_start_reads_what_the_first_probed_and_gets_the_same_answer(home):
    first = _probe_in_fresh_process(home)
    path = home / probe_cache.NAME
    key = probe_cache.key(_true())
    if "user=True, pid=True, mount=True, net=True" in str(first[1]):
        # the full plan worked: kept, and the next start's answer is the same
        assert json.loads(path.read_text()) == {"format": 1, "key": key}
        assert _probe_in_fresh_process(home) == first
        # a file for another key (another boot, user, kernel setting…) is probed again and
        # replaced by this key
        path.write_text(json.dumps({"format": 1, "key": "f" * 64}))
        path.chmod(0o600)
        assert _probe_in_fresh_process(home) == first
        assert json.loads(path.read_text()) == {"format": 1, "key": key}
    else:
        # a degraded answer is never kept: probed again on every start
        assert not path.exists()
        assert _probe_in_fresh_process(home) == first
        assert not path.exists()
