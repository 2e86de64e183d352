"""``edgar undo``: see ``checkpoint_cmd``."""

from edgar.cli.checkpoint_cmd import run_undo as run

__all__ = ["run"]
