"""The ``race`` command line: the click group ``main`` and its table of commands.

``race --help`` must answer at once, so the group is lazy (click's LazyGroup
pattern): :data:`COMMANDS` names each command's module and short help, and a
command's module (with numpy, numba, pandas, PySAT...) is imported only when
that command runs. Each command module keeps its heavy imports inside the
functions that use them. Every user error (:class:`RaceError`) is printed on
one line, exit status 2.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

import click

from experiments.cli import numba_cache, streams
from formats.compiled import ctrl_c_stops_kernels
from formats.errors import RaceError, is_interrupt
from solvers import methods

#: command name -> (module, attribute, short help). ``race --help`` prints the help
#: from here without importing the module; tests/test_startup.py checks the table
#: against each module's ``COMMANDS``.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "animate": ("experiments.cli.animate", "animate",
                "Draw the search for PUZZLE (queens:N or a Sudoku file) frame by frame."),
    "check": ("experiments.cli.solve", "check",
              "Say whether PUZZLE is solved, consistent or inconsistent, and where."),
    "count": ("experiments.cli.solve", "count",
              "Count the solutions of PUZZLE (a file, or - for stdin)."),
    "compare": ("experiments.cli.compare", "compare",
                "Compare two entrants of a campaign, or two campaigns, on identical instances."),
    "cover": ("experiments.cli.cover", "cover",
              "Solve the exact cover problem in FILE (Knuth's dlx format)."),
    "decode": ("experiments.cli.sat", "decode",
               "Turn a SAT solver's OUTPUT file into the solved grid."),
    "encode": ("experiments.cli.sat", "encode",
               "Write PUZZLE (a file, or - for stdin) as a DIMACS CNF formula."),
    "example": ("experiments.cli.cover", "example",
                "Print an example exact cover problem in Knuth's dlx format."),
    "export": ("experiments.cli.export", "export",
               "Export a campaign as parquet, jsonl, csv or a markdown summary."),
    "generate": ("experiments.cli.generate", "generate",
                 "Generate seeded Sudoku instances with box size N."),
    "import": ("experiments.cli.dataset", "import_dataset",
               "Normalise a puzzle collection into an instance set with a manifest."),
    "landscape": ("experiments.cli.landscape", "landscape",
                  "Measure the hardness landscape: each entrant vs the hole fraction, per n."),
    "merge": ("experiments.cli.compare", "merge",
              "Merge campaigns run on different machines over the same instances."),
    "plot": ("experiments.cli.report", "plot",
             "Plot the campaign in RESULTS_DIR (runs.csv + meta.json)."),
    "portfolio": ("experiments.cli.portfolio", "portfolio",
                  "Learn the rule of the auto entrant from campaigns: per n, who answers most, fastest."),
    "report": ("experiments.cli.report", "report",
               "Build the report of the campaign in RESULTS_DIR: the PDF, or the HTML page."),
    "run": ("experiments.cli.run", "run",
            "Race the entrants on generated or imported instances."),
    "sat-solve": ("experiments.cli.sat", "sat_solve",
                  "Solve a DIMACS CNF file (- = stdin) with one of the race's SAT backends."),
    "solve": ("experiments.cli.solve", "solve",
              "Solve PUZZLE (a file, or - for stdin) and print the solution."),
    "solvers": ("experiments.cli.solver_list", "list_solvers",
                "List the registered solvers (built-in and plugins) and their parameters."),
}


#: commands that hold nothing the interpreter's teardown must release (their kernels are
#: closed, their output written): the race process ends at once after them, without tearing
#: down every module (about 10 ms of the 67 ms ``race cover`` took on a small problem)
QUICK_EXIT = frozenset({"cover", "example"})


class RaceGroup(click.Group):
    """A lazy click group (commands imported when used, see :data:`COMMANDS`) that
    turns RaceError, bad options and failed writes into one-line errors
    (``race: error: ...``, exit 2); a broken pipe ends quietly; Ctrl-C, in Python or inside
    a PySAT solver, is ``race: interrupted``, exit 130."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands or name not in COMMANDS:
            return super().get_command(ctx, name)
        module, attribute, _ = COMMANDS[name]
        command = getattr(importlib.import_module(module), attribute)
        self.add_command(command, name)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table: no command module is imported for --help."""
        rows = [(name, COMMANDS[name][2] if name in COMMANDS and name not in self.commands
                 else self.commands[name].get_short_help_str(formatter.width))
                for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        streams.closed_streams()
        RaceGroup.ran = None
        try:
            ctrl_c_stops_kernels()      # Ctrl-C stops a long compiled search too (no numba import)
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
            code = 2
        except click.UsageError as exc:
            command = exc.ctx.command_path if exc.ctx else "race"
            message = exc.format_message()
            if isinstance(exc, click.NoSuchOption) and exc.ctx is not None:
                from experiments.cli.vocabulary import retired_hint
                hint = retired_hint(exc.ctx.info_name or "", exc.option_name)
                message = f"No such option: {exc.option_name}: {hint}" if hint else message
            streams.fail(f"{message} (see '{command} --help')", exc.exit_code)
        except click.ClickException as exc:
            streams.fail(exc.format_message(), exc.exit_code)
        except click.Abort:             # Ctrl-C: 130 as a shell would say, never 1 ("no solution")
            click.echo("race: interrupted", err=True)
            code = 130
            if args is None:            # the race process itself (not a caller in-process)
                # a SAT solver stopped inside by Ctrl-C may crash when freed at exit (PySAT
                # leaves CaDiCaL mid-state: SIGSEGV after the message was seen): end here,
                # with what was written flushed, and nothing torn down
                streams.flush_stdout()
                with contextlib.suppress(Exception):
                    sys.stderr.flush()
                os._exit(130)
        except SystemExit as exc:
            code = exc.code
        except BrokenPipeError:         # --help or --version into a closed pipe
            streams.silence_stdout()
            code = 0
        except OSError as exc:          # ... or onto a full device
            streams.write_failed(exc)
        finally:                        # for this command only (a caller in-process: tests)
            ctrl_c_stops_kernels(False)
        streams.flush_stdout()
        if args is None and self.ran in QUICK_EXIT:
            streams.end_now(code)
        sys.exit(code or 0)

    #: the name of the command this process ran (None before one ran)
    ran: str | None = None

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name, command, rest = super().resolve_command(ctx, args)
        RaceGroup.ran = name
        return name, command, rest

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except RaceError as exc:
            streams.fail(str(exc))
        except BrokenPipeError:
            streams.silence_stdout()
            sys.exit(0)
        except OSError as exc:          # a write failed: /dev/full, ENOSPC, EIO, ...
            streams.write_failed(exc)
        except Exception as exc:
            if is_interrupt(exc):       # Ctrl-C inside a PySAT solver: a plain Abort
                raise click.Abort() from None
            raise


@click.group(cls=RaceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sudoku-race")
@click.pass_context
def main(ctx: click.Context) -> None:
    """{methods}

    \b
    Quick start:
      race solve puzzle.sudoku               # solve with the default solver
      race solve --solver dlx puzzle.sudoku
      race count --limit 2 puzzle.sudoku     # is the solution unique?
      race solvers                           # the entrants and their parameters
      race run --n 2..3 --solvers dlx,sat    # race them; results under results/
    """
    numba_cache.configure()     # before any numba import; inherited by the harness's workers
    if isinstance(ctx.obj, dict) or ctx.obj is None:
        from solvers import registry
        ctx.ensure_object(dict).setdefault("registry", registry.INSTALLED)


# the first line of ``race --help``: every method, from the one list (solvers/methods.py)
main.help = (main.help or "").replace("{methods}", f"{methods.description()}.")
