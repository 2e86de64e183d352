"""edgar: a terminal coding agent that learns only from what you typed."""

__version__ = "0.1.0"
