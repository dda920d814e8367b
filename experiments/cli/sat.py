"""Commands of the SAT part: ``race encode`` (Task 8) and ``race decode`` (Task 9)."""

from __future__ import annotations

import sys

import click
import numpy as np

from experiments.cli import params
from experiments.cli.vocabulary import Aliased
from formats import dimacs, grid_text, sat_output
from formats.errors import RaceError
from formats.grid import Grid
from formats.source import read_source
from solvers import rules
from solvers.sat import at_most_one, sudoku_cnf
from solvers.sat.counting import DEFAULT_BACKEND
from solvers.sat.solver import DEFAULT_ENCODING


def _one_grid(puzzle: str, index: int) -> tuple[grid_text.PuzzleFile, Grid]:
    pf = grid_text.read(puzzle)
    if not 1 <= index <= len(pf.grids):
        raise RaceError(f"puzzle {index} asked, the file holds {len(pf.grids)}", source=puzzle)
    return pf, pf.grids[index - 1]


@click.command()
@click.argument("puzzle", default="-")
@click.option("--encoding", "-e", type=click.Choice(sudoku_cnf.ENCODINGS), default=DEFAULT_ENCODING,
              show_default=True, help="minimal = the assignment's clauses (i)-(v) + clue units; "
              "extended = at-least/at-most-one per cell and unit; reduced = only the candidates "
              "left after propagating the clues.")
@click.option("--amo", type=click.Choice(at_most_one.VARIANTS), default=at_most_one.DEFAULT,
              show_default=True, metavar="NAME",
              help=f"At-most-one encoding of reduced: {', '.join(at_most_one.VARIANTS)} (auto: "
                   "pairwise for narrow groups, product for wide ones; see "
                   "solvers/sat/at_most_one.py).")
@click.option("--out", "-o", "--output", "out", cls=Aliased, hidden_aliases=("--output",), default="-",
              show_default=True, help="DIMACS file (- = stdout).")
@click.option("--index", "-i", type=params.Integer(min=1), default=1, show_default=True,
              help="Which puzzle of a one-line file with many.")
def encode(puzzle: str, encoding: str, amo: str, out: str, index: int) -> None:
    """Write PUZZLE (a file, or - for stdin) as a DIMACS CNF formula.

    Variable x(i,j,k) = (i-1)*n^4 + (j-1)*n^2 + k says "cell (i,j) holds k"
    (minimal, extended); reduced numbers only the remaining candidates. The
    comment header names n and the encoding.

    \b
    Example:
      race encode puzzle.sudoku > puzzle.cnf
      race sat-solve --backend kissat puzzle.cnf > out.txt
      race decode puzzle.sudoku out.txt     # any solver's output: kissat's too
      race encode --encoding minimal -o p.cnf puzzle.sudoku
    """
    _, grid = _one_grid(puzzle, index)
    formula = sudoku_cnf.encode(grid, encoding, amo)
    dimacs.write_formula(out, formula)


@click.command()
@click.argument("puzzle")
@click.argument("output")
@click.option("--encoding", "-e", type=click.Choice(("auto", *sudoku_cnf.ENCODINGS)),
              default="auto", show_default=True,
              help="The encoding the formula was written with; auto tells it from the "
                   "number of variables in the model.")
@click.option("--amo", type=click.Choice(at_most_one.VARIANTS), default=at_most_one.DEFAULT,
              show_default=True, metavar="NAME",
              help=f"At-most-one encoding of reduced: {', '.join(at_most_one.VARIANTS)} (auto: "
                   "pairwise for narrow groups, product for wide ones; see "
                   "solvers/sat/at_most_one.py).")
@click.option("--index", "-i", type=params.Integer(min=1), default=1, show_default=True,
              help="Which puzzle of a one-line file with many.")
def decode(puzzle: str, output: str, encoding: str, amo: str, index: int) -> None:
    """Turn a SAT solver's OUTPUT file (competition format, or minisat's result
    file; - for stdin) for PUZZLE into the solved grid, printed in the puzzle's
    format. The grid is checked against the rules and the clues.
    Exit 1 with "no solution" when the solver proved unsatisfiable and a second
    method (exact cover) confirms it, whatever the puzzle file's header says (exit
    2 when a solution the file holds or the second method refutes it; a header that
    said there are solutions is named as wrong), 3 with "no answer" when the solver
    said UNKNOWN or the second method could not decide.

    \b
    Example:
      race encode p.sudoku > p.cnf
      race sat-solve --backend kissat p.cnf > out.txt   # the kissat race installs
      race decode p.sudoku out.txt
    """
    pf, grid = _one_grid(puzzle, index)
    text, name = read_source(output, what="a solver output file")
    answer = sat_output.parse(text, name)
    if answer.status == sat_output.UNSAT:
        _check_unsat_claim(pf, grid, "<stdin>" if puzzle == "-" else puzzle, name)
        click.echo("no solution", err=True)
        sys.exit(1)
    if answer.status == sat_output.UNKNOWN:
        click.echo("no answer (the solver said UNKNOWN)", err=True)
        sys.exit(3)                                    # as race solve: no answer is not "none"
    assert answer.model is not None                    # SATISFIABLE: parse() checked its model
    formula = _formula_for(grid, encoding, amo, answer.model, name)
    sat_output.parse(text, name, nvars=formula.nvars)     # the model must cover every variable
    try:
        solution = sudoku_cnf.decode(formula, answer.model)
    except RaceError as exc:
        if exc.source is not None:
            raise
        raise RaceError(exc.message, source=name) from None
    if not rules.is_solution_of(grid, solution):
        raise RaceError("the model does not decode to a solution of the puzzle "
                        "(output of another puzzle or encoding?)", source=name)
    click.echo(grid_text.format_grid(solution, pf.format, pf.metadata), nl=False)


def _check_unsat_claim(pf: grid_text.PuzzleFile, grid: Grid, puzzle_name: str, name: str) -> None:
    """Never trust a solver: the same referee as ``race solve``
    (:func:`experiments.harness.settle.settle`). An UNSAT claim that a solution the puzzle
    file holds refutes, or that the second method refutes whatever the file's header says,
    is a RaceError; one the second method cannot confirm is "no answer" (exit 3); a
    confirmed one whose file says there are solutions warns that the file is wrong."""
    from experiments.harness.referee import truth_of
    from experiments.harness.settle import settle
    from solvers.interface import CLUES_CONFLICT, UNSAT, WRONG, Result
    from solvers.registry import create
    truth = truth_of(pf, name=puzzle_name) if len(pf.grids) == 1 and pf.metadata else None
    claim = Result(UNSAT, 0, 1, False, [], {}, {}, True,
                   "" if rules.is_consistent(grid) else CLUES_CONFLICT)
    ruled, notes = settle(grid, claim, "sat", False, 1, create, truth, puzzle_name)
    for note in notes:
        click.echo(note, err=True)
    if ruled.status == WRONG:
        raise RaceError(f"the solver {ruled.message}", source=name)
    if ruled.status != UNSAT:
        click.echo(f"no answer (the solver {ruled.message})", err=True)
        sys.exit(3)


def _formula_for(grid: Grid, encoding: str, amo: str, model, name: str) -> sudoku_cnf.Formula:
    if encoding != "auto":
        return sudoku_cnf.encode(grid, encoding, amo)
    nvars = int(abs(model).max()) if model.size else 0
    if nvars == grid.side ** 3:
        return sudoku_cnf.encode(grid, "extended")         # minimal numbers variables the same way
    reduced = sudoku_cnf.encode(grid, "reduced", amo)
    if nvars == reduced.nvars:
        return reduced
    raise RaceError(f"the model has {nvars} variables: neither the {grid.side ** 3} of the "
                    f"minimal/extended encodings nor the {reduced.nvars} of the reduced one "
                    f"(amo={amo}) for this puzzle; written with another --amo?", source=name)


@click.command("sat-solve")
@click.argument("cnf", default="-")
@click.option("--backend", "-b", default=DEFAULT_BACKEND, show_default=True,
              help="A PySAT solver name, kissat, or a DIMACS solver binary (see `race solvers`).")
@click.option("--timeout", "-t", type=params.Number(0.0, max=1e6), default=0.0, show_default=True,
              help="Seconds before giving up with s UNKNOWN (0 = none).")
@click.option("--kissat-args", "kissat_args", default="", metavar="ARGS",
              help="kissat's own options, one string split as a shell would (no shell runs), "
                   "given after the race's: e.g. \"--seed=7 --restartint=100\" "
                   "(kissat --help lists them). Only with --backend kissat.")
def sat_solve(cnf: str, backend: str, timeout: float, kissat_args: str) -> None:
    """Solve a DIMACS CNF file (- = stdin) with one of the race's SAT backends
    and print the answer in the competition format (s and v lines); exit 10
    (satisfiable), 20 (unsatisfiable) or 0 (unknown). The file is checked
    against the DIMACS rules first (exit 2 with file and line when malformed),
    and a model against every clause (a backend's wrong model: exit 2).

    \b
    Example:
      race encode p.sudoku | race sat-solve - > out.txt
      race decode p.sudoku out.txt
      race sat-solve --backend glucose4 formula.cnf
      race sat-solve --backend kissat --kissat-args "--seed=7" formula.cnf
    """
    import shlex

    from solvers.sat import backends as sat_backends
    try:
        options = tuple(shlex.split(kissat_args))
    except ValueError as exc:
        raise RaceError(f"--kissat-args {kissat_args!r}: {exc}") from None
    if options and not sat_backends.runs_kissat(backend):
        raise RaceError(f"--kissat-args goes with --backend kissat, not --backend {backend}")
    solver = sat_backends.backend(backend, options=options)     # a bad option: before reading
    parsed = dimacs.read(cnf)
    if parsed.nvars > MAX_SAT_SOLVE_VARS:
        raise RaceError(f"the preamble declares {parsed.nvars} variables, more than the "
                        f"{MAX_SAT_SOLVE_VARS} race sat-solve handles (every one is printed "
                        f"in the model)", source="<stdin>" if cnf == "-" else cnf)
    formula = sudoku_cnf.Formula(0, "dimacs", parsed.nvars, parsed.blocks(), None,
                                 comments=parsed.comments)
    found = solver.enumerate(formula, 1, timeout)
    false = parsed.first_false_clause(found.models[0]) if found.models else None
    if false is not None:
        raise RaceError(f"backend {backend} said SATISFIABLE, but its model leaves clause "
                        f"{false} false: a wrong answer, not printed",
                        source="<stdin>" if cnf == "-" else cnf)
    for key, value in found.counters.items():
        click.echo(f"c {key}: {value}")
    if found.models:
        click.echo("s SATISFIABLE")
        _print_model(found.models[0], parsed.nvars)
        sys.exit(10)
    if found.complete:
        click.echo("s UNSATISFIABLE")
        sys.exit(20)
    click.echo("s UNKNOWN")
    sys.exit(0)


#: the most variables ``race sat-solve`` takes: the minimal encoding of the
#: largest grid (n = 20) has 20⁶ = 64,000,000.
MAX_SAT_SOLVE_VARS = 1 << 26

_V_CHUNK = 20 * 50_000          # variables per batch of 'v' lines (20 per line)


def _print_model(true, nvars: int) -> None:
    """The model as 'v' lines of 20 literals, ended by 0, built in batches (no
    Python object per declared variable kept)."""
    value = np.zeros(nvars + 1, dtype=bool)
    value[true] = True
    for start in range(1, nvars + 1, _V_CHUNK):
        var = np.arange(start, min(start + _V_CHUNK, nvars + 1), dtype=np.int64)
        lits = np.where(value[start:start + var.size], var, -var).tolist()
        if start + _V_CHUNK > nvars:
            lits.append(0)
        click.echo("\n".join("v " + " ".join(map(str, lits[i:i + 20]))
                             for i in range(0, len(lits), 20)))
    if nvars == 0:
        click.echo("v 0")


COMMANDS = [encode, decode, sat_solve]
