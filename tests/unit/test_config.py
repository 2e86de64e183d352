from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

from edgar.config import ConfigError, ProviderSettings, Settings, load
from edgar.declared.pydantic_models import model_of


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_layers_rise_user_project_env_flags(tmp_path, home):
    project = tmp_path / "p"
    _write(home / "config.toml",
           'model = "openai:user"\nmax_steps = 7\n[tools]\nshell_timeout = 5\n')
    _write(project / ".edgar" / "config.toml", 'model = "openai:project"\n')
    s = load(project, environ={})
    assert (s.model, s.max_steps, s.tools.shell_timeout) == ("openai:project", 7, 5)
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
    path = _write(home / "config.toml", '\nmax_steps = "many"\n')
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={})
    message = str(err.value)
    assert message.startswith(f"{path}:2: 'max_steps'") and "'many'" in message


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


def test_variables_are_parsed_and_named_in_errors(tmp_path, home):
    assert load(tmp_path, environ={"EDGAR_MAX_STEPS": "7"}).max_steps == 7
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={"EDGAR_MAX_STEPS": "many"})
    assert str(err.value) == "EDGAR_MAX_STEPS: expected an integer (got 'many')"
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={"EDGAR_MAX_STEPS": "0"})
    assert str(err.value) == "EDGAR_MAX_STEPS: 'max_steps': Input should be greater than 0 (got 0)"
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={"EDGAR_PERMISSION_MODE": "sometimes"})
    assert str(err.value).startswith("EDGAR_PERMISSION_MODE: 'permission_mode': ")


def test_a_flag_out_of_range_names_the_flag(tmp_path, home):
    with pytest.raises(ConfigError) as err:
        load(tmp_path, overrides={"max_steps": -1}, environ={})
    assert str(err.value).startswith("--max-steps: 'max_steps': Input should be greater than 0")


def test_file_values_are_not_coerced(tmp_path, home):
    path = _write(tmp_path / ".edgar" / "config.toml", '[tools]\nshell_timeout = "5"\n')
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={})
    assert str(err.value) == (f"{path}:2: 'tools.shell_timeout': Input should be a valid number"
                              " (got '5')")
    _write(path, "max_steps = true\n")
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={})
    assert str(err.value).startswith(f"{path}:1: 'max_steps': Input should be a valid integer")
    _write(path, "[tools]\nshell_timeout = 5\n")  # an integer is a fine float
    assert load(tmp_path, environ={}).tools.shell_timeout == 5.0


@pytest.mark.parametrize("text, key, line", [
    ("[tools]\nshell_timeout = 0\n", "tools.shell_timeout", 2),
    ("[tools]\nshell_timeout = 1e9\n", "tools.shell_timeout", 2),
    ("[tools]\nmax_subagent_depth = 99\n", "tools.max_subagent_depth", 2),
    ("[context]\ntool_result_max_chars = 0\n", "context.tool_result_max_chars", 2),
    ("max_steps = 0\n", "max_steps", 1),
    ("[verify]\ntimeout = -3\n", "verify.timeout", 2),
    ("[providers.openai]\nmax_retries = 2\n[providers.anthropic]\nmax_retries = -1\n",
     "providers.anthropic.max_retries", 4),
    ("[providers.anthropic]\nread_timeout = nan\n", "providers.anthropic.read_timeout", 2),
    ("[providers.anthropic]\nconnect_timeout = inf\n", "providers.anthropic.connect_timeout", 2),
])
def test_out_of_range_numbers_name_file_line_and_key(tmp_path, home, text, key, line):
    path = _write(tmp_path / ".edgar" / "config.toml", text)
    with pytest.raises(ConfigError) as err:
        load(tmp_path, environ={})
    assert str(err.value).startswith(f"{path}:{line}: '{key}': Input should be ")


def test_unknown_key_in_a_provider_table_finds_its_own_line(tmp_path, home):
    path = _write(home / "config.toml", '[providers.openai]\nbase_url = "x"\n\n'
                  '[providers.anthropic]\nbase_ur = "y"\n')
    with pytest.raises(ConfigError) as err:
        load(None, environ={})
    assert str(err.value) == f"{path}:5: unknown key 'providers.anthropic.base_ur'"


def test_settings_are_mutable_and_checked_on_assignment(tmp_path, home):
    settings = load(tmp_path, environ={})
    settings.model = "openai:x"
    settings.tools.shell_timeout = 3
    assert (settings.model, settings.tools.shell_timeout) == ("openai:x", 3.0)
    with pytest.raises(ValueError):
        settings.modle = "typo"  # type: ignore[attr-defined]
    with pytest.raises(ValueError):
        settings.tools.shell_timeout = -1
    quick = settings.provider("openai").model_copy(update={"max_retries": 0})
    assert quick.max_retries == 0 and settings.provider("openai").max_retries == 4


def test_version_imports_no_pydantic():
    # ADR-0034: pydantic is paid for by the commands that load settings, never by --version.
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    code = ("import sys\nfrom edgar.cli.main import main\ntry:\n    main(['--version'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'pydantic', 'pydantic_core', 'annotated_types'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(root)},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def _keys(model, prefix=""):
    for name, info in model.model_fields.items():
        kind = info.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield from _keys(kind, f"{prefix}{name}.")
        elif name != "providers":
            yield prefix + name


def test_example_config_documents_every_setting():
    # Every key a user can set appears in .edgar.example/config.toml (set or commented out),
    # and every provider key under [providers.anthropic].
    import re

    example = (Path(__file__).resolve().parents[2] / ".edgar.example" / "config.toml").read_text()
    present = set(re.findall(r"^#?\s*(\w+)\s*=", example, re.M))
    # the schema pydantic validates against (edgar.declared builds it from the declaration)
    missing = [k for k in _keys(model_of(Settings)) if k.rsplit(".", 1)[-1] not in present]
    missing += [f"providers.*.{k}" for k in ProviderSettings.model_fields if k not in present]
    assert not missing, f"not documented in .edgar.example/config.toml: {missing}"


@pytest.mark.parametrize("section,said", [
    ("thinking_budget = 512", "below the API's minimum of 1024"),
    ("thinking_budget = 9000", "must be less than max_tokens = 8192"),
    ("thinking_budget = 2048\ntemperature = 0.5", "temperature cannot be set with thinking"),
])
def test_thinking_settings_are_checked_against_the_api_limits(tmp_path, monkeypatch, section, said):
    from edgar.config import ConfigError, load

    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    (tmp_path / ".edgar").mkdir()
    path = tmp_path / ".edgar" / "config.toml"
    path.write_text(f"[providers.anthropic]\n{section}\n")
    with pytest.raises(ConfigError) as info:
        load(tmp_path)
    message = str(info.value)
    assert message.startswith(f"{path}:1: 'providers.anthropic': ") and said in message


def test_a_valid_thinking_budget_loads(tmp_path, monkeypatch):
    from edgar.config import load

    monkeypatch.setenv("EDGAR_HOME", str(tmp_path / "home"))
    (tmp_path / ".edgar").mkdir()
    (tmp_path / ".edgar" / "config.toml").write_text(
        "[providers.anthropic]\nthinking_budget = 1024\n")
    assert load(tmp_path).provider("anthropic").thinking_budget == 1024
