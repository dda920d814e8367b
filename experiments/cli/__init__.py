"""The `race` command line: one module per command group; `main` is the click group."""

from experiments.cli.main import main

__all__ = ["main"]
