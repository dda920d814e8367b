"""The words of the ``race`` command line: each option spelling means one thing in every command.

``-s`` is the solver, ``-o/--out`` what a command writes, ``-t/--timeout`` a time limit in
seconds, ``-f/--format`` an output format, ``-l/--limit`` a number of solutions, ``-j/--jobs``
worker processes, ``--n`` box sizes, ``--seed`` the seed, ``--instances`` a number of puzzles
(tests/test_cli_vocabulary.py walks every command and fails on a spelling with two meanings).

Two things keep old spellings working or explained:

* :class:`Aliased`: an option with old spellings that still work but no longer show in
  ``--help`` (``race encode --output``);
* :data:`RETIRED`: a short flag a command gave up, with the one-line hint the CLI prints
  when it is used (``race generate -s 3``: the seed is ``--seed``).
"""

from __future__ import annotations

import click


class Aliased(click.Option):
    """A click option whose ``hidden_aliases`` (old spellings among its declarations) are
    accepted but left out of ``--help``."""

    def __init__(self, *args, hidden_aliases: tuple[str, ...] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.hidden_aliases = tuple(hidden_aliases)
        unknown = [a for a in self.hidden_aliases if a not in self.opts]
        if unknown:
            raise TypeError(f"option {self.name}: hidden aliases {unknown} are not among its spellings")

    def get_help_record(self, ctx: click.Context):
        shown = self.opts
        self.opts = [o for o in shown if o not in self.hidden_aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown


#: (command, flag) -> what to use instead: a spelling a command no longer takes because it
#: means something else in the other commands
RETIRED: dict[tuple[str, str], str] = {
    ("generate", "-s"): "the seed is --seed (-s is the solver, as in race solve -s dlx)",
    ("generate", "--count"): "the number of puzzles is --instances (-k), as in race run",
    ("animate", "--output"): "the file to write is -o/--out, as in every command",
    ("export", "-t"): "the table is --table (-t is a time limit, as in race solve -t 5)",
}


def retired_hint(command: str, flag: str | None) -> str | None:
    """The hint for ``flag`` given to ``command`` when the command gave it up, else None."""
    return RETIRED.get((command, flag or ""))
