"""The ``race`` command line.

Foundation commands live here (solve, count, check, solvers); the commands of
each later part (cover, example, encode, decode, generate, run, plot, report)
live with that part and are added to the group from :data:`COMMAND_MODULES`.
Every user error (:class:`RaceError`) is printed on one line, exit status 2.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from formats import grid_text
from formats.errors import RaceError, printable
from solvers import registry
from solvers.interface import SOLVED, UNSAT, WRONG

#: modules that define click commands; each exposes ``COMMANDS`` (a list).
COMMAND_MODULES: list[str] = [
    "experiments.cli.cover",      # cover, example        (DLX)
    "experiments.cli.sat",        # encode, decode        (SAT)
    "experiments.cli.generate",   # generate              (generators)
    "experiments.cli.run",        # run                   (harness)
    "experiments.cli.landscape",  # landscape             (harness: the hardness axis)
    "experiments.cli.report",     # plot, report          (analysis)
    "experiments.cli.dataset",    # import                (datasets)
    "experiments.cli.export",     # export                (analysis)
]


class RaceGroup(click.Group):
    """A click group that turns RaceError, bad options and failed writes into
    one-line errors (``race: error: ...``, exit 2); a broken pipe ends quietly."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
            code = 2
        except click.UsageError as exc:
            command = exc.ctx.command_path if exc.ctx else "race"
            _fail(f"{exc.format_message()} (see '{command} --help')", exc.exit_code)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            code = 1
        except SystemExit as exc:
            code = exc.code
        except BrokenPipeError:         # --help or --version into a closed pipe
            _silence_stdout()
            code = 0
        except OSError as exc:          # ... or onto a full device
            _write_failed(exc)
        _flush_stdout()
        sys.exit(code or 0)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except RaceError as exc:
            _fail(str(exc))
        except BrokenPipeError:
            _silence_stdout()
            sys.exit(0)
        except OSError as exc:          # a write failed: /dev/full, ENOSPC, EIO, ...
            _write_failed(exc)


def _fail(message: str, code: int = 2) -> None:
    click.echo(f"race: error: {printable(' '.join(message.split()))}", err=True)
    sys.exit(code)


def _write_failed(exc: OSError) -> None:
    _silence_stdout()
    where = printable(str(exc.filename)) if exc.filename else "the output"
    _fail(f"cannot write {where}: {exc.strerror or exc}")


def _flush_stdout() -> None:
    """Flush stdout now, so a failed write becomes a one-line error and not a
    message from the interpreter at exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        _write_failed(exc)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):   # not a real file (tests), or closed
        pass


@click.group(cls=RaceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sudoku-race")
def main() -> None:
    """Race Sudoku solvers: backtracking, dancing links (DLX) and SAT.

    \b
    Quick start:
      race solve puzzle.sudoku               # solve with the default solver
      race solve --solver dlx puzzle.sudoku
      race count --limit 2 puzzle.sudoku     # is the solution unique?
      race solvers                           # the entrants and their parameters
    """


def _puzzles(source: str) -> grid_text.PuzzleFile:
    return grid_text.read(source)


SOLVER_HELP = "Entrant spec: NAME or NAME:key=value,... (see `race solvers`)."


@main.command()
@click.argument("puzzle", default="-")
@click.option("--solver", "-s", "spec", default="backtracking", show_default=True, help=SOLVER_HELP)
@click.option("--stats", is_flag=True, help="Print work counters and phase times on stderr.")
def solve(puzzle: str, spec: str, stats: bool) -> None:
    """Solve PUZZLE (a file, or - for stdin) and print the solution in the
    input's format. Exit 1 with "no solution" on stderr when there is none.

    \b
    A one-line file with many puzzles gives one solution line per puzzle
    (an empty line where a puzzle has no solution).

    \b
    Example:
      echo 4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4...... | race solve -
    """
    pf = _puzzles(puzzle)
    solver = registry.create(spec)
    failed = 0
    for index, grid in enumerate(pf.grids, 1):
        result = solver.solve(grid)
        where = f"puzzle {index}: " if len(pf.grids) > 1 else ""
        if stats:
            _print_stats(where, result)
        if result.status == WRONG:
            raise RaceError(f"{where}{result.message}")
        if result.status == SOLVED:
            click.echo(grid_text.format_grid(result.solution, pf.format), nl=False)
        else:
            failed += 1
            reason = "no solution" if result.status == UNSAT else f"no answer ({result.message})"
            click.echo(f"{where}{reason}", err=True)
            if pf.format == grid_text.ONE_LINE and len(pf.grids) > 1:
                click.echo("")
    sys.exit(1 if failed else 0)


@main.command()
@click.argument("puzzle", default="-")
@click.option("--solver", "-s", "spec", default="backtracking", show_default=True, help=SOLVER_HELP)
@click.option("--limit", "-l", type=click.IntRange(min=1), default=None,
              help="Stop counting at K solutions.")
@click.option("--stats", is_flag=True, help="Print work counters and phase times on stderr.")
def count(puzzle: str, spec: str, limit: int | None, stats: bool) -> None:
    """Count the solutions of PUZZLE (a file, or - for stdin).

    Prints the number (one line per puzzle), followed by "(limit reached)"
    when --limit stopped the count.

    \b
    Example:
      printf '. . . .\\n. . . .\\n. . . .\\n. . . .\\n' | race count -      # 288
    """
    pf = _puzzles(puzzle)
    solver = registry.create(spec)
    for index, grid in enumerate(pf.grids, 1):
        result = solver.count(grid, limit)
        where = f"puzzle {index}: " if len(pf.grids) > 1 else ""
        if stats:
            _print_stats(where, result)
        if result.status == WRONG:
            raise RaceError(f"{where}{result.message}")
        suffix = " (limit reached)" if result.limit_hit else ""
        if result.status not in (SOLVED, UNSAT):
            suffix = f" (incomplete: {result.message})"
        click.echo(f"{result.count}{suffix}")


@main.command()
@click.argument("puzzle", default="-")
def check(puzzle: str) -> None:
    """Say whether PUZZLE is solved, consistent (with E empty cells) or
    inconsistent, and where. Exit 0 when solved or consistent, 1 otherwise.

    \b
    Example:
      race check puzzle.sudoku
    """
    from solvers import rules
    pf = _puzzles(puzzle)
    bad = 0
    for index, grid in enumerate(pf.grids, 1):
        where = f"puzzle {index}: " if len(pf.grids) > 1 else ""
        found = rules.conflicts(grid, limit=5)
        if found:
            bad += 1
            click.echo(f"{where}inconsistent: " + "; ".join(c.describe() for c in found))
        elif grid.empties() == 0:
            click.echo(f"{where}solved")
        else:
            click.echo(f"{where}consistent, {grid.empties()} empty cells "
                       f"({grid.clues()} clues, n={grid.n})")
    sys.exit(1 if bad else 0)


@main.command("solvers")
def list_solvers() -> None:
    """List the registered solvers and their parameters.

    \b
    Example:
      race solvers
    """
    for name in registry.names():
        target, fixed = registry.SOLVERS[name]
        try:
            cls = registry.solver_class(name)
        except RaceError as exc:
            click.echo(f"{name:14s} (unavailable: {exc})")
            continue
        params = ", ".join(
            f"{k}={fixed.get(k, d)}" + (f" [{'|'.join(map(str, c))}]" if c and k not in fixed else "")
            for k, (d, c) in cls.parameters.items())
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        alias = f" (= {cls.name}:" + ",".join(f"{k}={v}" for k, v in fixed.items()) + ")" if fixed else ""
        click.echo(f"{name:14s} {doc}{alias}")
        if params:
            click.echo(f"{'':14s}   parameters: {params}")


def _print_stats(where: str, result) -> None:
    counters = " ".join(f"{k}={v}" for k, v in result.counters.items())
    times = " ".join(f"{k}={v * 1e3:.3f}ms" for k, v in result.times.items())
    click.echo(f"{where}status={result.status} {counters} {times}", err=True)


for _module in COMMAND_MODULES:
    for _command in importlib.import_module(_module).COMMANDS:
        main.add_command(_command)
