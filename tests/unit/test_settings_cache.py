"""The settings cache (ADR-0081): a warm load imports no pydantic, and no cached result ever
stands in for data pydantic has not seen (a mistake is still a located error)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.user_edgar import runner, workdir
from support.users import as_user

from edgar.config import ConfigError, Settings, load
from edgar.config.cache import FILE, decode, digest, encode
from edgar.config.trust import trust

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


LOAD = """import json, sys
from pathlib import Path
from edgar.config import load
s = load(Path(sys.argv[1]), overrides={"model": "scripted:x.jsonl", "permission_mode": "yes"},
         environ={})
print(json.dumps([s.model, s.tools.shell_timeout, s.providers["openai"].max_retries,
                  sorted({m.split(".")[0] for m in sys.modules} & {"pydantic", "pydantic_core"})]))
"""


def _load_in_a_process(project: Path, home: Path) -> list:
    env = {**os.environ, "EDGAR_HOME": str(home), "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", LOAD, str(project)], env=env, cwd=project,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_a_warm_load_imports_no_pydantic(tmp_path, home):
    project = tmp_path / "p"
    _write(home / "config.toml",
           "[tools]\nshell_timeout = 5\n[providers.openai]\nmax_retries = 2\n")
    _write(project / ".edgar" / "config.toml", 'model = "openai:project"\n')
    cold = _load_in_a_process(project, home)
    assert cold == ["scripted:x.jsonl", 5.0, 2, ["pydantic", "pydantic_core"]]
    assert (home / FILE).stat().st_mode & 0o777 == 0o600
    warm = _load_in_a_process(project, home)
    assert warm == ["scripted:x.jsonl", 5.0, 2, []]


def test_a_changed_file_is_checked_even_with_the_same_size_and_mtime(tmp_path, home):
    path = _write(home / "config.toml", "[tools]\nshell_timeout = 5\n")
    assert load(None, environ={}).tools.shell_timeout == 5.0
    stat = path.stat()
    path.write_text("[tools]\nshell_timeout = 0\n", encoding="utf-8")   # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))             # same mtime
    with pytest.raises(ConfigError) as err:
        load(None, environ={})
    assert str(err.value).startswith(f"{path}:2: 'tools.shell_timeout': Input should be ")


def test_a_mistake_stays_a_located_error_on_every_load(tmp_path, home):
    project = tmp_path / "p"
    path = _write(project / ".edgar" / "config.toml", "[tools]\nshel_timeout = 3\n")
    for _ in range(3):
        with pytest.raises(ConfigError) as err:
            load(project, environ={})
        assert str(err.value) == f"{path}:2: unknown key 'tools.shel_timeout'"


def test_a_flag_checked_once_is_still_checked_with_a_new_value(tmp_path, home):
    assert load(None, overrides={"max_steps": 7}, environ={}).max_steps == 7
    with pytest.raises(ConfigError) as err:
        load(None, overrides={"max_steps": 0}, environ={})
    assert str(err.value).startswith("--max-steps: 'max_steps': Input should be greater than 0")


def test_warm_settings_equal_cold_ones_and_are_fresh_each_load(tmp_path, home):
    _write(home / "config.toml", '[providers.anthropic]\nheaders = {x-a = "1"}\n'
           '[[hooks.PreToolUse]]\ncommand = "true"\nif = "shell(rm *)"\n'
           '[mcp.servers.time]\ncommand = "uvx"\ntimeout = 30\n')
    cold = load(None, environ={})
    warm = load(None, environ={})
    assert (home / FILE).exists()
    assert warm == cold and warm.model_dump() == cold.model_dump()
    assert warm.mcp.servers["time"].model_dump(exclude_unset=True) == {"command": "uvx",
                                                                       "timeout": 30}
    assert warm.hooks["PreToolUse"][0].if_ == "shell(rm *)"
    assert warm.model_fields_set == cold.model_fields_set == {"providers", "hooks", "mcp"}
    warm.tools.shell_timeout = 1
    warm.providers["anthropic"].headers["x-a"] = "changed"
    again = load(None, environ={})
    assert again.tools.shell_timeout == 120.0 and again.providers["anthropic"].headers == {
        "x-a": "1"}


def test_trusting_a_project_is_seen_at_once(tmp_path, home):
    project = tmp_path / "p"
    _write(project / ".edgar" / "config.toml", '[sandbox]\nmode = "off"\n')
    assert load(project, environ={}).sandbox.mode == "workspace-write"   # held back
    assert load(project, environ={}).sandbox.mode == "workspace-write"
    trust(project)
    assert load(project, environ={}).sandbox.mode == "off"


@pytest.mark.parametrize("garbage", [b"", b"{", b"\xff\xfe", b"[]", b'{"format": 1}',
                                     b'{"format": 1, "schema": "x", "valid": [], "settings": {}}'])
def test_a_corrupt_cache_is_ignored_and_rebuilt(tmp_path, home, garbage):
    _write(home / "config.toml", "max_steps = 9\n")
    (home / FILE).write_bytes(garbage)
    assert load(None, environ={}).max_steps == 9
    data = json.loads((home / FILE).read_bytes())
    assert data["format"] == 1 and data["valid"] and data["settings"]
    assert load(None, environ={}).max_steps == 9


def test_an_entry_naming_an_unknown_model_is_a_miss_not_an_error(tmp_path, home):
    _write(home / "config.toml", "max_steps = 9\n")
    load(None, environ={})
    data = json.loads((home / FILE).read_bytes())
    for key in data["settings"]:
        data["settings"][key] = ["model", "edgar.config.Gone", {"max_steps": 1}, {}]
    (home / FILE).write_text(json.dumps(data))
    assert load(None, environ={}).max_steps == 9


def test_a_user_dir_that_cannot_be_written_is_no_error():
    # root writes anywhere: the ordinary user of support.users is who meets a read-only user dir
    run = runner("user")
    base = workdir(run)
    home = base / "home"
    try:
        _write(home / "config.toml", "max_steps = 9\n")
        run.own(base)
        os.chmod(home, 0o500)
        out = subprocess.run(
            [run.python, "-c",
             "from edgar.config import load; print(load(None, environ={}).max_steps)"],
            cwd=base, env=run.env(home, HOME=str(base)), capture_output=True, text=True, timeout=60,
            **(as_user(run.user) if run.user is not None else {}))
        assert out.returncode == 0 and out.stdout.strip() == "9", out.stderr
        assert not (home / FILE).exists()
    finally:
        os.chmod(home, 0o700)
        shutil.rmtree(base, ignore_errors=True)
        run.close()


def test_what_json_cannot_say_exactly_is_never_cached():
    import datetime

    assert digest({"a": datetime.date(2026, 1, 1)}) is None
    assert digest({"a": 1}) != digest({"a": 1.0}) != digest({"a": True})
    assert digest({"a": 1, "b": 2}) != digest({"b": 2, "a": 1})   # order is data (servers)


_keys = st.fixed_dictionaries({}, optional={
    "model": st.text(min_size=1, max_size=20),
    "max_steps": st.integers(1, 10_000),
    "tools": st.fixed_dictionaries({}, optional={
        "shell_timeout": st.floats(0.001, 86_400), "allow_outside_root": st.booleans()}),
    "providers": st.dictionaries(st.text(min_size=1, max_size=8), st.fixed_dictionaries(
        {}, optional={"headers": st.dictionaries(st.text(max_size=5), st.text(max_size=5),
                                                 max_size=2),
                      "max_retries": st.integers(0, 20), "base_url": st.none() | st.text()}),
        max_size=2),
    "mcp": st.fixed_dictionaries({}, optional={"servers": st.dictionaries(
        st.text(min_size=1, max_size=8), st.fixed_dictionaries(
            {"command": st.text(min_size=1, max_size=8)},
            optional={"args": st.lists(st.text(max_size=4), max_size=3),
                      "timeout": st.integers(0, 99)}), max_size=2)}),
})


@settings(max_examples=60, deadline=None)
@given(_keys)
def test_encode_then_decode_gives_the_same_settings(data):
    made = Settings.model_validate(data)
    back = decode(json.loads(json.dumps(encode(made))))
    assert back == made and back.model_dump() == made.model_dump()
    assert back.model_dump(exclude_unset=True) == made.model_dump(exclude_unset=True)
