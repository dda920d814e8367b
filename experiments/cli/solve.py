"""``race solve``, ``race count``, ``race check``: answer puzzles from a file or stdin.

A one-line file of many puzzles goes through :mod:`solvers.exact_cover.batch` when the
entrant allows it (``batch_capable``): parsed at once, solved in one compiled
call, verified vectorised. The output is the same as the per-puzzle path's.
numpy and the solvers are imported inside the commands (``race --help`` stays fast).
"""

from __future__ import annotations

import os
import sys

import click

from experiments.cli import params
from experiments.cli.invocation import current_registry
from experiments.cli.time_limit import TIMEOUT_EXIT, answer_within, limit_wall_time
from formats.errors import RaceError

SOLVER_HELP = "Entrant spec: NAME or NAME:key=value,... (see `race solvers`)."


def _interpreted(spec: str, n: int, count: int, limit: int | None) -> bool:
    """Whether solving ``count`` puzzles of box size ``n`` with the entrant ``spec`` runs its
    kernels interpreted (the solver declares it: :meth:`solvers.interface.Solver.interpreted`)."""
    from solvers.registry import parse_spec
    try:
        name, params = parse_spec(spec)
        cls = current_registry().solver_class(name)
    except RaceError:
        return False                                   # create() names the problem
    return cls.interpreted(n, count, limit, params)


TIMEOUT_HELP = ("Give up after S seconds of wall time: exit 3 with a line on stderr. The work runs "
                "in a child process, killed with any solver it started; an answer ready by then "
                "is written in full (exit 0), else none.")


def answers_within(source: str, spec: str, limit: int | None, stats: bool = False):
    """:func:`answers` under the limit of :func:`experiments.cli.time_limit.limit_wall_time`
    (when there is one): returns only with the leave to answer, else the process exits
    :data:`TIMEOUT_EXIT` quietly (the parent says why)."""
    return answer_within(lambda: answers(source, spec, limit, stats))


def resolve_pick(text: str, name: str, spec: str, stats: bool) -> str:
    """For an entrant that picks another per puzzle (``auto``: its class declares
    ``picks``), the entrant it picks for the puzzles of ``text`` (said on stderr with
    ``stats``): that entrant's spec when it is the same for every puzzle (so its fast
    paths apply), else ``spec`` (it then picks per puzzle). Any other entrant: ``spec``."""
    from formats import grid_text
    from solvers.registry import parse_spec
    try:
        if not current_registry().solver_class(parse_spec(spec)[0]).picks:
            return spec
    except RaceError:
        return spec                                    # create() names the problem
    solver = current_registry().create(spec)
    picks = [solver.pick_for(grid) for grid in grid_text.parse(text, name).grids]
    if stats:
        for index, (entrant, why) in enumerate(picks, 1):
            where = f"puzzle {index}: " if len(picks) > 1 else ""
            click.echo(f"{where}{solver.name} picked {entrant}: {why}", err=True)
    chosen = {entrant for entrant, _ in picks}
    return chosen.pop() if len(chosen) == 1 else spec


def answers(source: str, spec: str, limit: int | None, stats: bool = False):
    """(format, grids or None, results, warnings) for every puzzle of ``source``: the batch
    path for a one-line file when ``spec`` is batch capable (grids None: the
    results hold what printing needs), else one solve/count per grid, each claim checked
    (:func:`_refereed`; the warnings name a file whose record the check showed wrong). An
    entrant that picks another per puzzle (``auto``) is resolved first (:func:`resolve_pick`)."""
    from experiments.harness.referee import truth_of
    from formats import grid_text
    from formats.compiled import interpreted
    from formats.source import read_source
    text, name = read_source(source, what="a puzzle file")
    from solvers.registry import parse_spec
    spec = resolve_pick(text, name, spec, stats)
    try:
        entrant, given = parse_spec(spec)
        capable = current_registry().solver_class(entrant).batch_capable(given)
    except RaceError:
        capable = False                                # create() below names the problem
    if capable:
        from solvers.exact_cover import batch
        capable = batch.batch_capable(spec)
    many = grid_text.parse_one_line_many(text, name) if capable else None
    if many is not None:                               # one-line puzzles of one size
        n, puzzles = many
        from solvers.interface import UNSAT
        solver = current_registry().create(spec)
        node_limit = int(solver.params["node_limit"])
        with interpreted(_interpreted(spec, n, len(puzzles), limit)):
            results = batch.solve_array(puzzles, n, limit, node_limit, threads=_cores())
            results = [_confirmed_in_batch(n, puzzles[i], r, solver, limit) if r.status == UNSAT
                       else r for i, r in enumerate(results)]
        return grid_text.ONE_LINE, None, results, []
    pf = grid_text.parse(text, name)
    solver = current_registry().create(spec)
    small = _interpreted(spec, max((g.n for g in pf.grids), default=0), len(pf.grids), limit)
    # the file's record is about its one puzzle
    truth = truth_of(pf, name=name) if len(pf.grids) == 1 and pf.metadata else None
    notes: list[str] = []
    with interpreted(small):
        results = [solver.solve(g) if limit == 1 else solver.count(g, limit) for g in pf.grids]
        for i, grid in enumerate(pf.grids):
            results[i], said = _refereed(grid, results[i], solver, limit, truth, name)
            notes += said
    return pf.format, pf.grids, results, notes


def _confirmed_in_batch(n: int, cells, result, solver, limit: int | None):
    """A batch "no solution" claim held to the per-puzzle path's rules: clues that conflict
    (the rules core says so: :data:`solvers.interface.CLUES_CONFLICT`) settle it, else the
    second method must confirm it (:func:`_refereed`)."""
    from dataclasses import replace

    import numpy as np

    from formats.grid import Grid
    from solvers import rules
    from solvers.interface import CLUES_CONFLICT
    grid = Grid(n, np.array(cells, dtype=np.int32))
    if not rules.is_consistent(grid):
        return replace(result, message=CLUES_CONFLICT)
    return _refereed(grid, result, solver, limit)[0]


def _refereed(grid, result, solver, limit: int | None, truth=None, name: str = ""):
    """``result`` with its claim checked by the referee in this process, under the command's
    ``--timeout`` (:func:`experiments.harness.settle.settle`: a verified grid is proof, a
    "no solution" is confirmed by a second method whatever the file's record ``truth`` says,
    a count is counted again where the record disputes it or the solver is not a built-in
    one), and the warnings about a record the check showed wrong."""
    from experiments.harness.settle import settle
    from solvers.registry import BUILTIN, parse_spec
    builtin = solver.name in BUILTIN.names() and solver.method != "external"
    method = solver.method
    if solver.picks:                                   # auto: the family of the one it picked
        method = current_registry().solver_class(parse_spec(solver.pick_for(grid)[0])[0]).method
    return settle(grid, result, method, not builtin, limit, current_registry().create,
                  truth, name, solver.spec)


AUTO_HELP = (SOLVER_HELP + " The default, auto, runs per puzzle the entrant that did best at its n "
             "and share of empty cells in the reference campaigns (most answered, then lowest PAR-2; "
             "solvers/portfolio.csv; --stats says which and why); -s backtracking is Algorithm 1.")


STATS_HELP = ("Print work counters and phase times on stderr: load (the solver's one-off start: "
              "its compiled kernels read from the cache or compiled, a native build, PySAT) apart "
              "from the search; with auto, also the entrant picked and why.")


def _cores() -> int:
    """The CPUs this process may run on (the batch path's threads)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


@click.command()
@click.argument("puzzle", default="-")
@click.option("--solver", "-s", "spec", default="auto", show_default=True, help=AUTO_HELP)
@click.option("--stats", is_flag=True, help=STATS_HELP)
@click.option("--timeout", "-t", type=params.SECONDS, default=None,
              metavar="S", help=TIMEOUT_HELP)
def solve(puzzle: str, spec: str, stats: bool, timeout: float | None) -> None:
    """Solve PUZZLE (a file, or - for stdin) and print the solution in the
    input's format. Exit 1 with "no solution" on stderr when there is none (the
    claim is confirmed by a second method, whatever the puzzle file's header
    says; a refuted one is an error, exit 2); exit 3 with "no answer" when a
    puzzle got none (the solver's budget or own time limit ran out, the second
    method could not decide, or --timeout). A verified grid is printed (exit 0)
    even where the file's header says there is no solution: a warning names
    the file whose record is wrong.

    \b
    A one-line file with many puzzles gives one solution line per puzzle
    (an empty line where a puzzle has no solution or got no answer; stderr
    says which); with dlx they are solved in one compiled call, and with
    bitset a file of 9x9 puzzles goes through the C kernel as whole arrays.

    \b
    Example:
      race solve - < one-line.txt      # one puzzle a line, e.g. 4.....8.5.3...
      race solve --stats puzzle.sudoku # auto says which entrant it picked, why
      race solve -s backtracking puzzle.sudoku # Algorithm 1
    """
    from formats import grid_text
    from solvers.interface import SOLVED, UNSAT
    if timeout is None and not stats:
        _exit_if_answered("solve", puzzle, spec, 1)
    limit_wall_time(timeout, "solve", puzzle)
    fmt, _, results, notes = answers_within(puzzle, spec, 1, stats)
    for note in notes:
        click.echo(note, err=True)
    many = len(results) > 1
    text = _solution_lines(results, fmt)
    out: list[str] = []
    none = unanswered = 0
    for index, where, result in _checked(results, stats, out):
        if result.status == SOLVED:
            out.append(text[index - 1])
            continue
        none += result.status == UNSAT
        unanswered += result.status != UNSAT
        reason = "no solution" if result.status == UNSAT else f"no answer ({result.message})"
        click.echo(f"{where}{reason}", err=True)
        if fmt == grid_text.ONE_LINE and many:
            out.append("\n")
    click.echo("".join(out), nl=False)
    # 3 as for --timeout: a puzzle without an answer is never reported as one without a solution
    sys.exit(TIMEOUT_EXIT if unanswered else 1 if none else 0)


def _exit_if_answered(command: str, puzzle: str, spec: str, limit: int | None) -> None:
    """Exit with the status of :func:`experiments.cli.array_answers.answer_file` when that
    path served the command (a one-line file of 9x9 puzzles and the bit-set entrant)."""
    from experiments.cli.array_answers import answer_file
    code = answer_file(command, puzzle, spec, limit)
    if code is not None:
        sys.exit(code)


def _solution_lines(results: list, fmt: str) -> list[str]:
    """The printed solution of each result ("" where there is none); one-line
    solutions of one size are formatted vectorised."""
    import numpy as np

    from formats import grid_text
    from solvers.exact_cover.batch import format_one_line_many
    text = [""] * len(results)
    solved = [i for i, r in enumerate(results) if r.solution is not None]
    sizes = {results[i].solution.n for i in solved}
    if fmt == grid_text.ONE_LINE and len(sizes) == 1 and max(sizes) <= grid_text.MAX_ONE_LINE_N:
        lines = format_one_line_many(np.stack([results[i].solution.cells for i in solved]))
        for i, line in zip(solved, lines):
            text[i] = line + "\n"
        return text
    for i in solved:
        text[i] = grid_text.format_grid(results[i].solution, fmt)
    return text


@click.command()
@click.argument("puzzle", default="-")
@click.option("--solver", "-s", "spec", default="auto", show_default=True, help=AUTO_HELP)
@click.option("--limit", "-l", type=params.Integer(min=1), default=None,
              help="Stop counting at K solutions.")
@click.option("--stats", is_flag=True, help=STATS_HELP)
@click.option("--timeout", "-t", type=params.SECONDS, default=None,
              metavar="S", help=TIMEOUT_HELP)
def count(puzzle: str, spec: str, limit: int | None, stats: bool, timeout: float | None) -> None:
    """Count the solutions of PUZZLE (a file, or - for stdin).

    Prints the number (one line per puzzle), followed by "(limit reached)"
    when --limit stopped the count; "at least K" when the solver could not
    count them all (e.g. a cmd entrant without count_args, or a node budget
    that ran out after K); "0 (incomplete: why)" when it gave up before the
    first, which is no answer: exit 3, as race solve (also with --timeout);
    never a number above the limit. A count the solutions the puzzle file
    holds refute is an error (exit 2); where only its header disagrees (kind=unsat,
    kind=unique, an import's count), a second method counts again and decides:
    the count is an error, or a warning names the file whose record is wrong.
    A count of 0 is confirmed by a second method, and a program's or plugin's
    count is counted again, the same way.

    \b
    Example:
      printf '. . . .\\n. . . .\\n. . . .\\n. . . .\\n' | race count -      # 288
    """
    from solvers.interface import SOLVED, UNSAT
    if timeout is None and not stats:
        _exit_if_answered("count", puzzle, spec, limit)
    limit_wall_time(timeout, "count", puzzle)
    _, _, results, notes = answers_within(puzzle, spec, limit, stats)
    for note in notes:
        click.echo(note, err=True)
    out: list[str] = []
    unanswered = 0
    for _, _where, result in _checked(results, stats, out):
        prefix, suffix = "", " (limit reached)" if result.limit_hit else ""
        if result.status not in (SOLVED, UNSAT):
            suffix = f" (incomplete: {result.message})"
            unanswered += 1
        elif not result.complete:
            prefix = "at least "            # a solver that cannot count found this many
        out.append(f"{prefix}{result.count}{suffix}\n")
    click.echo("".join(out), nl=False)
    sys.exit(TIMEOUT_EXIT if unanswered else 0)     # an incomplete count is no answer


@click.command()
@click.argument("puzzle", default="-")
def check(puzzle: str) -> None:
    """Say whether PUZZLE is solved, consistent (with E empty cells) or
    inconsistent, and where. Exit 0 when solved or consistent, 1 when
    inconsistent, 2 when PUZZLE cannot be read (a one-line error naming the
    file and line).

    \b
    Example:
      race check puzzle.sudoku
    """
    from formats import grid_text
    from solvers import rules
    pf = grid_text.read(puzzle)
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


def _checked(results: list, stats: bool, out: list[str]):
    """Each ``(index, where, result)`` of ``results`` (``where`` names the puzzle when
    there are several), its stats printed on stderr when asked; a wrong answer prints
    the lines of ``out`` so far and raises RaceError."""
    from solvers.interface import WRONG
    many = len(results) > 1
    for index, result in enumerate(results, 1):
        where = f"puzzle {index}: " if many else ""
        if stats:
            _print_stats(where, result)
        if result.status == WRONG:
            click.echo("".join(out), nl=False)
            raise RaceError(f"{where}{result.message}")
        yield index, where, result


def _print_stats(where: str, result) -> None:
    counters = " ".join(f"{k}={v}" for k, v in result.counters.items())
    times = " ".join(f"{k}={v * 1e3:.3f}ms" for k, v in result.times.items())
    note = f" ({result.message})" if result.message else ""
    click.echo(f"{where}status={result.status} {counters} {times}{note}", err=True)


COMMANDS: list = [solve, count, check]
