"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty user dir of edgar's own (``EDGAR_HOME``), made for this test."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("EDGAR_HOME", str(home))
    return home
