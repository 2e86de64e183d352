"""Suite-wide settings.

Under CI (``CI`` set: `.ci/run` exports ``CI=1`` unless hosted CI already set it) hypothesis
is derandomized: the same examples every run, so a landing is never decided by a lucky or
unlucky draw. Locally (no ``CI``) it explores with fresh random examples each run — that is
where new counterexamples come from; pin each one with an explicit test when it is found.

The suite runs in parallel (``-n auto`` in pyproject.toml, pytest-xdist, ADR 0090):

- tests marked ``timing`` (they measure elapsed time, race processes or kill them mid-write)
  share one xdist group, so they run one after another in one worker and never race each
  other for the machine (``--dist loadgroup``);
- the ``edgar`` processes the tests start write their bytecode to a private directory of this
  test process (``PYTHONPYCACHEPREFIX``) even when ``PYTHONDONTWRITEBYTECODE`` is set: without
  it every one of them compiles the tree again, and nothing is written into the checkout;
- a test that does not choose a user dir gets a fresh one (``EDGAR_HOME``): edgar keeps each
  project's learned state there (ADR-0075), and a test must never write the person's own;
- nor read the person's Claude Code setup: ``CLAUDE_CONFIG_DIR`` points at an empty dir of the
  test's own (``~/.claude`` and ``~/.claude.json`` would run a developer's hooks and MCP
  servers); a test that gives edgar a ``HOME`` through ``support.project.with_home`` or
  ``edgar_env(HOME=…)`` gets that home's ``.claude`` instead;
- ``--learning-may-differ`` keeps only the tests whose outcome can depend on whether
  ``edgar/learning`` exists (``tests/support/learning_reach.py`` decides, from the source),
  for `.ci/run`'s learning-deleted pass.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                          print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

TIMING_GROUP = "timing"
_pycache: list[str] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--learning-may-differ", action="store_true",
                     help="run only the tests whose outcome can depend on edgar/learning "
                          "being there (the learning-deleted pass of .ci/run)")


def pytest_configure(config: pytest.Config) -> None:
    # the child processes' bytecode: compiled once per run, not once per `edgar` started
    # (xdist's workers inherit the directory the main process made; one set by the person
    # running the tests is theirs to keep)
    if not os.environ.get("PYTHONPYCACHEPREFIX"):
        cache = tempfile.mkdtemp(prefix="edgar-test-pycache-")
        _pycache.append(cache)
        os.environ["PYTHONPYCACHEPREFIX"] = cache
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    # xdist's workers get COLUMNS=80 and LINES=24 from execnet; a program on the tests'
    # pseudo-terminals must learn its size from the terminal, as it does for a person
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ.pop("COLUMNS", None)
        os.environ.pop("LINES", None)


def pytest_unconfigure(config: pytest.Config) -> None:
    for cache in _pycache:
        shutil.rmtree(cache, ignore_errors=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("timing"):
            item.add_marker(pytest.mark.xdist_group(TIMING_GROUP))
    if config.getoption("--learning-may-differ"):
        from support.learning_reach import Reach

        reach = Reach(Path(__file__).resolve().parents[1])
        keep, drop = [], []
        for item in items:
            (keep if reach.may_differ(Path(str(item.path))) else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(autouse=True)
def _own_user_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test's edgar in this process gets a user dir of its own unless the test set one."""
    if not os.environ.get("EDGAR_HOME"):
        monkeypatch.setenv("EDGAR_HOME", str(tmp_path_factory.mktemp("edgar-home")))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude-config")))
