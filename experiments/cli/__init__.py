"""The `race` command line: one module per command group. The click group is
:func:`experiments.cli.main.main`; the executable starts at :func:`experiments.cli.entry.race`,
and this package imports nothing, so that a plain ``race cover`` starts without click."""
