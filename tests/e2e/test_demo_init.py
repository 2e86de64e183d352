"""`edgar demo` and `edgar init` as a person runs them."""

from __future__ import annotations

import importlib.util

from support.project import edgar_env, make_project, run_edgar

LEARNING = importlib.util.find_spec("edgar.learning") is not None


def test_demo_runs_the_real_loop_offline(tmp_path):
    env = edgar_env(tmp_path / "home")
    out = run_edgar(["demo", "--fast"], tmp_path, env, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for needle in ("→ read greet.py", "→ edit greet.py", "→ shell $ python3 greet.py",
                   "✗ exit_nonzero", "Hello, world!", "[ok ·"):
        assert needle in text, needle
    if LEARNING:
        assert "Always run the tests with -q" in text  # learned from the typed line
        assert "user-prompt" in text
    else:
        assert "learning is not installed" in out.stderr
    assert not list(tmp_path.glob(".edgar"))  # the demo never touches the current project


def test_init_copies_the_documented_example_without_overwriting(tmp_path):
    project = make_project(tmp_path / "p")
    env = edgar_env(tmp_path / "home")
    out = run_edgar(["init"], project, env)
    assert out.returncode == 0, out.stderr
    config = project / ".edgar" / "config.toml"
    assert config.is_file() and "permission_mode" in config.read_text()
    assert "history.md" in (project / ".edgar" / ".gitignore").read_text()
    assert (project / ".edgar" / "skills" / "run-tests" / "SKILL.md").is_file()
    config.write_text('model = "openai:mine"\n')
    out = run_edgar(["init"], project, env)
    assert out.returncode == 0 and config.read_text() == 'model = "openai:mine"\n'
