"""``max_turns`` → ``max_steps`` (ADR-0058): the old name works in every layer, says so once on
stderr with the replacement (and, in a file, the line), and a mistake is still located.

The variable and the flag are run through the ``edgar`` command (tests/e2e/test_max_steps.py):
a process says each warning once, and only a fresh process shows that it is said at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgar.config import ConfigError, load


def _project(tmp_path: Path, text: str) -> tuple[Path, Path]:
    path = tmp_path / "p" / ".edgar" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return tmp_path / "p", path


def test_the_old_key_in_a_file_sets_max_steps_and_warns_once_with_its_line(tmp_path, home,
                                                                           capsys):
    project, path = _project(tmp_path, 'model = "openai:x"\n\nmax_turns = 7\n')
    assert load(project, environ={}).max_steps == 7
    assert load(project, environ={}).max_steps == 7       # loaded again (after `edgar trust`)
    err = capsys.readouterr().err
    assert err == (f"edgar: {path}:3: 'max_turns' is deprecated: use 'max_steps' (the same "
                   "meaning: model calls one turn may make)\n")


def test_the_new_names_say_nothing(tmp_path, home, capsys):
    project, _ = _project(tmp_path, "max_steps = 9\n")
    settings = load(project, overrides={"max_steps": 8}, environ={"EDGAR_MAX_STEPS": "6"})
    assert settings.max_steps == 8 and capsys.readouterr().err == ""


def test_layers_still_rise_across_old_and_new_names(tmp_path, home):
    (home / "config.toml").write_text("max_steps = 11\n")
    project, _ = _project(tmp_path, "max_turns = 12\n")   # the project file is higher
    assert load(project, environ={}).max_steps == 12
    assert load(project, overrides={"max_turns": 13}, environ={}).max_steps == 13


def test_a_bad_value_under_the_old_name_is_reported_under_it(tmp_path, home):
    project, path = _project(tmp_path, "\nmax_turns = 0\n")
    with pytest.raises(ConfigError) as err:
        load(project, environ={})
    assert str(err.value).startswith(f"{path}:2: 'max_turns': Input should be greater than 0")
    with pytest.raises(ConfigError) as err:
        load(tmp_path, overrides={"max_turns": -1}, environ={})
    assert str(err.value).startswith("--max-turns: 'max_turns': Input should be greater than 0")


@pytest.mark.parametrize("where", ["file", "env", "flag"])
def test_old_and_new_name_in_one_layer_is_an_error(tmp_path, home, where):
    project, path = _project(tmp_path, "max_turns = 5\nmax_steps = 6\n" if where == "file" else "")
    environ = {"EDGAR_MAX_TURNS": "5", "EDGAR_MAX_STEPS": "6"} if where == "env" else {}
    overrides = {"max_steps": 6, "max_turns": 5} if where == "flag" else None
    with pytest.raises(ConfigError) as err:
        load(project, overrides=overrides, environ=environ)
    said = {"file": f"{path}:1: 'max_turns' is the old name of 'max_steps': keep only 'max_steps'",
            "env": "EDGAR_MAX_TURNS and EDGAR_MAX_STEPS are both set",
            "flag": "--max-turns and --max-steps are both given"}[where]
    assert str(err.value).startswith(said)
