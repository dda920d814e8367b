"""``race solve``, ``race count``, ``race check``: answer puzzles from a file or stdin.

A one-line file of many puzzles goes through :mod:`solvers.batch` when the
entrant allows it (``batch_capable``): parsed at once, solved in one compiled
call, verified vectorised. The output is the same as the per-puzzle path's.
numpy and the solvers are imported inside the commands (``race --help`` stays fast).
"""

from __future__ import annotations

import os
import signal
import sys
import time

import click

from formats.errors import RaceError

SOLVER_HELP = "Entrant spec: NAME or NAME:key=value,... (see `race solvers`)."
#: DLX on at most this many puzzles of box size <= 3 runs interpreted (solvers.compiled):
#: a 9x9 takes milliseconds that way, against ~0.6 s to import numba and load its cache
INTERPRETED_MAX_PUZZLES = 16
#: the SAT entrants (in-process and external) encode interpreted up to this box size:
#: measured, the reduced encoder's first call takes 0.04 s (n = 5), 0.21 s (n = 7) and
#: 0.33 s (n = 8) interpreted, against 0.42-0.56 s compiled (numba's import and cache)
SAT_INTERPRETED_MAX_N = 7
SAT_ENTRANTS = ("sat", "kissat")


def _interpreted(entrant: str, n: int, count: int, limit: int | None) -> bool:
    """Whether solving ``count`` puzzles of box size ``n`` with ``entrant`` runs the
    kernels interpreted. DLX: only to find one solution of n <= 3 (its search for one
    solution of a 9x9 is short even interpreted; a count may walk a large tree). SAT:
    n <= :data:`SAT_INTERPRETED_MAX_N`, any limit (the kernels only build the formula;
    the SAT solver, compiled C, does the search and the counting)."""
    if count > INTERPRETED_MAX_PUZZLES:
        return False
    if entrant == "dlx":
        return limit == 1 and n <= 3
    return entrant in SAT_ENTRANTS and n <= SAT_INTERPRETED_MAX_N


#: exit status of ``race solve|count --timeout`` when the limit is reached
TIMEOUT_EXIT = 3
TIMEOUT_HELP = ("Give up after S seconds of wall time: exit 3 with a line on stderr. The work runs "
                "in a child process, killed with any solver it started.")
#: after SIGTERM, how long the child gets to stop the solvers it started before SIGKILL
_TERM_GRACE_S = 0.5


def limit_wall_time(timeout: float | None, command: str, source: str) -> None:
    """With ``timeout``: fork. The child returns at once and does the command's work, in a
    session of its own (SIGTERM ends it as an exit, so the external solvers it started
    are killed on the way out). The parent never returns: it exits with the child's
    status, or, ``timeout`` seconds on, stops the child (SIGTERM, then SIGKILL to its
    whole process group) and exits :data:`TIMEOUT_EXIT` with one line on stderr."""
    if timeout is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        from solvers.limited_process import die_with_parent
        die_with_parent()
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(TIMEOUT_EXIT))
        return
    deadline = time.monotonic() + timeout
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                if code < 0:
                    click.echo(f"race {command}: error: the process answering {source} died "
                               f"(signal {-code})", err=True)
                    os._exit(2)
                os._exit(code)
            if time.monotonic() >= deadline:
                break
            time.sleep(0.01)
    except BaseException:
        _stop(pid)
        raise
    _stop(pid)
    click.echo(f"race {command}: no answer within {timeout:g} s ({source})", err=True)
    os._exit(TIMEOUT_EXIT)


def _stop(pid: int) -> None:
    """SIGTERM the child, give it :data:`_TERM_GRACE_S` to exit, then SIGKILL its group."""
    from solvers.limited_process import kill_group
    try:
        os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + _TERM_GRACE_S
        while time.monotonic() < end and os.waitpid(pid, os.WNOHANG) == (0, 0):
            time.sleep(0.01)
    except ChildProcessError:
        pass                                            # reaped: gone
    except ProcessLookupError:
        pass
    kill_group(pid)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _registry():
    """The solver registry of this invocation (built-ins + plugins, or a test's)."""
    obj = click.get_current_context().find_root().obj
    if isinstance(obj, dict) and "registry" in obj:
        return obj["registry"]
    from solvers import registry
    return registry.INSTALLED


def answers(source: str, spec: str, limit: int | None):
    """(format, grids or None, results) for every puzzle of ``source``: the batch
    path for a one-line file when ``spec`` is batch capable (grids None: the
    results hold what printing needs), else one solve/count per grid."""
    from formats import grid_text
    from formats.source import read_source
    from solvers.compiled import interpreted
    text, name = read_source(source, what="a puzzle file")
    from solvers.registry import parse_spec
    try:
        entrant = parse_spec(spec)[0]
    except RaceError:
        entrant = ""                                   # create() below names the problem
    is_dlx = entrant == "dlx"                          # numba only for the entrants that use it
    capable = is_dlx
    if capable:
        from solvers import batch
        capable = batch.batch_capable(spec)
    many = grid_text.parse_one_line_many(text, name) if capable else None
    if many is not None:                               # one-line puzzles of one size
        n, puzzles = many
        solver = _registry().create(spec)
        node_limit = int(solver.params["node_limit"])
        with interpreted(_interpreted(entrant, n, len(puzzles), limit)):
            results = batch.solve_array(puzzles, n, limit, node_limit, threads=_cores())
        return grid_text.ONE_LINE, None, results
    pf = grid_text.parse(text, name)
    solver = _registry().create(spec)
    small = _interpreted(entrant, max((g.n for g in pf.grids), default=0), len(pf.grids), limit)
    with interpreted(small):
        results = [solver.solve(g) if limit == 1 else solver.count(g, limit) for g in pf.grids]
    return pf.format, pf.grids, results


def _cores() -> int:
    """The CPUs this process may run on (the batch path's threads)."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


@click.command()
@click.argument("puzzle", default="-")
@click.option("--solver", "-s", "spec", default="backtracking", show_default=True, help=SOLVER_HELP)
@click.option("--stats", is_flag=True, help="Print work counters and phase times on stderr.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="S", help=TIMEOUT_HELP)
def solve(puzzle: str, spec: str, stats: bool, timeout: float | None) -> None:
    """Solve PUZZLE (a file, or - for stdin) and print the solution in the
    input's format. Exit 1 with "no solution" on stderr when there is none.

    \b
    A one-line file with many puzzles gives one solution line per puzzle
    (an empty line where a puzzle has no solution); with dlx they are solved
    in one compiled call.

    \b
    Example:
      echo 4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4...... | race solve -
    """
    from formats import grid_text
    from solvers.interface import SOLVED, UNSAT
    limit_wall_time(timeout, "solve", puzzle)
    fmt, _, results = answers(puzzle, spec, 1)
    many = len(results) > 1
    text = _solution_lines(results, fmt)
    out: list[str] = []
    failed = 0
    for index, where, result in _checked(results, stats, out):
        if result.status == SOLVED:
            out.append(text[index - 1])
            continue
        failed += 1
        reason = "no solution" if result.status == UNSAT else f"no answer ({result.message})"
        click.echo(f"{where}{reason}", err=True)
        if fmt == grid_text.ONE_LINE and many:
            out.append("\n")
    click.echo("".join(out), nl=False)
    sys.exit(1 if failed else 0)


def _solution_lines(results: list, fmt: str) -> list[str]:
    """The printed solution of each result ("" where there is none); one-line
    solutions of one size are formatted vectorised."""
    import numpy as np

    from formats import grid_text
    from solvers.batch import format_one_line_many
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
@click.option("--solver", "-s", "spec", default="backtracking", show_default=True, help=SOLVER_HELP)
@click.option("--limit", "-l", type=click.IntRange(min=1), default=None,
              help="Stop counting at K solutions.")
@click.option("--stats", is_flag=True, help="Print work counters and phase times on stderr.")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="S", help=TIMEOUT_HELP)
def count(puzzle: str, spec: str, limit: int | None, stats: bool, timeout: float | None) -> None:
    """Count the solutions of PUZZLE (a file, or - for stdin).

    Prints the number (one line per puzzle), followed by "(limit reached)"
    when --limit stopped the count.

    \b
    Example:
      printf '. . . .\\n. . . .\\n. . . .\\n. . . .\\n' | race count -      # 288
    """
    from solvers.interface import SOLVED, UNSAT
    limit_wall_time(timeout, "count", puzzle)
    _, _, results = answers(puzzle, spec, limit)
    out: list[str] = []
    for _, where, result in _checked(results, stats, out):
        suffix = " (limit reached)" if result.limit_hit else ""
        if result.status not in (SOLVED, UNSAT):
            suffix = f" (incomplete: {result.message})"
        out.append(f"{result.count}{suffix}\n")
    click.echo("".join(out), nl=False)


@click.command()
@click.argument("puzzle", default="-")
def check(puzzle: str) -> None:
    """Say whether PUZZLE is solved, consistent (with E empty cells) or
    inconsistent, and where. Exit 0 when solved or consistent, 1 otherwise.

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
    click.echo(f"{where}status={result.status} {counters} {times}", err=True)


COMMANDS: list = [solve, count, check]
