"""Fixtures the REPL tests share: ``project`` and ``spawn`` (a scripted edgar REPL on a pty),
defined beside the pty harness in ``test_repl_pty``; a module's own fixture of the same name
wins over these."""

from test_repl_pty import project, spawn  # noqa: F401 (fixtures, re-exported)
