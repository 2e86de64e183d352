from __future__ import annotations

from pathlib import Path

import pytest

from edgar.config import ConfigError, load


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("EDGAR_HOME", str(home))
    return home


def test_layers_rise_user_project_env_flags(tmp_path, home):
    project = tmp_path / "p"
    _write(home / "config.toml", 'model = "openai:user"\nmax_turns = 7\n[tools]\nshell_timeout = 5\n')
    _write(project / ".edgar" / "config.toml", 'model = "openai:project"\n')
    s = load(project, environ={})
    assert (s.model, s.max_turns, s.tools.shell_timeout) == ("openai:project", 7, 5)
    s = load(project, environ={"EDGAR_MODEL": "openai:env"})
    assert s.model == "openai:env"
    s = load(project, overrides={"model": "openai:flag"}, environ={"EDGAR_MODEL": "openai:env"})
    assert s.model == "openai:flag"


def test_unknown_key_names_file_line_and_key(tmp_path, home):
    project = tmp_path / "p"
    path = _write(project / ".edgar" / "config.toml",
                  'model = "openai:x"\n\n[tools]\nshel_timeout = 3\n')
    with pytest.raises(ConfigError) as err:
        load(project, environ={})
    assert str(err.value) == f"{path}:4: unknown key 'tools.shel_timeout'"


def test_wrong_type_names_file_line_and_key(tmp_path, home):
    path = _write(home / "config.toml", '\nmax_turns = "many"\n')
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={})
    message = str(err.value)
    assert message.startswith(f"{path}:2: 'max_turns'") and "'many'" in message


def test_invalid_toml_is_a_located_error(tmp_path, home):
    path = _write(tmp_path / ".edgar" / "config.toml", "model = \n")
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={})
    assert str(path) in str(err.value) and "line 1" in str(err.value)


def test_bad_permission_mode_from_env_is_an_error(tmp_path, home):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={"EDGAR_PERMISSION_MODE": "sometimes"})
    assert "permission_mode" in str(err.value)


def test_example_config_is_valid(tmp_path, home):
    example = Path(__file__).resolve().parents[2] / ".edgar.example" / "config.toml"
    _write(tmp_path / ".edgar" / "config.toml", example.read_text())
    assert load(tmp_path, environ={}).permission_mode == "ask"
