"""``edgar diff``: see ``checkpoint_cmd``."""

from edgar.cli.checkpoint_cmd import run_diff as run

__all__ = ["run"]
