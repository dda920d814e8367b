"""Commands of the cover part: ``race cover`` (solve an exact cover problem in
Knuth's dlx format) and ``race example`` (print an example problem)."""

from __future__ import annotations

import sys
import time

import click
import numpy as np

from experiments.cli import params
from formats import exact_cover
from formats.errors import RaceError


@click.command()
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--count", "count_only", is_flag=True, help="Print only the number of solutions.")
@click.option("--limit", "-l", type=params.Integer(min=1), default=None,
              help="Stop after K solutions.")
@click.option("--heuristic", type=click.Choice(["mrv", "first"]), default="mrv", show_default=True,
              help="Choose the item of fewest options (Knuth's S heuristic) or the first one.")
@click.option("--stats", is_flag=True,
              help="Print 'S solutions, N nodes, U updates' (Knuth's counts) and the time on stderr.")
@click.option("--show", is_flag=True,
              help="First print the dancing-links matrix (items with sizes, then the options) on stderr.")
@click.option("--profile", is_flag=True,
              help="Also print Knuth's level profile on stderr: the options tried (nodes) and the "
                   "updates at each level of the search tree, as the paper's tables.")
@click.option("--trace", is_flag=True,
              help="First print the dance step by step: each choose (level, item, its size), cover, "
                   "option tried, solution and uncover.")
@click.option("--trace-limit", type=params.Integer(min=1), default=1000, show_default=True,
              metavar="K", help="With --trace: stop the trace after K steps (the search still runs to the end).")
def cover(source: str, count_only: bool, limit: int | None, heuristic: str, stats: bool,
          show: bool, profile: bool, trace: bool, trace_limit: int) -> None:
    """Solve the exact cover problem in FILE (Knuth's dlx format; - = stdin).

    \b
    Format: the first line names the items, primary first, then | and the
    secondary ones (covered at most once); each further line is one option,
    as item names; lines starting with | are comments. Knuth's extensions:
    a secondary item with a color in an option (x:red; options of the same
    color may share x) and bounds on a primary item (2:3|C: covered 2 to 3
    times; 3|C: exactly 3), searched by solvers/algorithm_m.py.

    \b
    Prints each solution as its chosen options (one line each, as in the
    input), solutions separated by blank lines; with --count only the number.
    Exit 1 with "no solution" on stderr when there is none (as race solve;
    with --count that is the number 0, exit 0). --trace goes to stdout, before
    the solutions or the number.

    \b
    Example:
      race example queens 8 | race cover - --count --stats
      race example queens 4 | race cover - --count --trace --trace-limit 40
      race example scott --x 23 | race cover - --count --profile
      printf 'A B C\\nA B\\nC\\nA\\nB C\\n' | race cover - --show
      printf 'A B 2:3|C | X Y\\nA B X:0 Y:0\\nA C X:1 Y:1\\nC X:0\\nB X:1\\nC Y:1\\n' | race cover -
    """
    from solvers.algorithm_x import HEURISTICS, dlx_search
    from solvers.dancing_links import DancingLinks, format_links

    problem = exact_cover.read(source)
    if problem.extended:
        if trace or profile:
            raise RaceError("--trace and --profile follow plain exact cover problems "
                            "(no colors or multiplicities)")
        _cover_extended(problem, count_only, limit, heuristic, stats, show)
        return
    if trace:
        _print_trace(problem, HEURISTICS[heuristic], trace_limit, limit)
    _load_kernel(dlx_search)
    t0 = time.perf_counter()
    dl = DancingLinks.from_problem(problem)
    room = max(1, min(_MAX_PRINTED, _PRINT_BUFFER // (8 * max(dl.primary, 1))))
    # never more rows than can be printed: a --limit of 10**12 reserved 87 TiB
    keep = 0 if count_only else min(limit, room) if limit is not None else room
    chosen = np.zeros((max(keep, 1), max(dl.primary, 1)), dtype=np.int64)
    depth = np.zeros(max(keep, 1), dtype=np.int64)
    if show:
        click.echo(format_links(dl, max_options=None), err=True)
    t1 = time.perf_counter()
    count, nodes, updates, _ = dlx_search(dl.links, HEURISTICS[heuristic], limit or 0, 0, keep,
                                          chosen, depth)
    t2 = time.perf_counter()
    solutions = [dl.option_of[chosen[s, :depth[s]]].tolist() for s in range(min(count, keep))]
    _report(problem, solutions, count, keep, count_only, limit, stats, nodes, updates, t1 - t0, t2 - t1)
    if profile:
        from solvers.search_profile import format_profile, level_profile
        _, rows = level_profile(dl, HEURISTICS[heuristic])
        click.echo("Knuth's level profile (all solutions; nodes = options tried at each level, "
                   "the root not counted):", err=True)
        click.echo(format_profile(rows), err=True)


def _print_trace(problem, heuristic: int, trace_limit: int, limit: int | None = None) -> None:
    """The first ``trace_limit`` steps of the dance (solvers/dance_trace.py) on stdout, up to
    the search's end: its ``limit``-th solution when a --limit is given (the search stops there)."""
    from solvers.dance_trace import trace
    from solvers.dancing_links import DancingLinks

    dl = DancingLinks.from_problem(problem)
    shown = found = 0
    for step in trace(dl, heuristic):
        if shown == trace_limit:
            click.echo(f"... trace stopped after {trace_limit} steps (--trace-limit)")
            break
        click.echo(step.describe(option_names=problem.option_names))
        shown += 1
        found += step.action == "solution"
        if limit is not None and found == limit:
            click.echo(f"... the search stops at solution {limit} (--limit)")
            break


def _cover_extended(problem, count_only: bool, limit: int | None, heuristic: str, stats: bool,
                    show: bool) -> None:
    """A problem with colors or multiplicities: :mod:`solvers.algorithm_m`."""
    from solvers.algorithm_m import MultiplicityProblem
    from solvers.dancing_links import format_links

    if heuristic != "mrv":
        raise RaceError("colors and multiplicities are searched with the minimum-degree choice only "
                        "(--heuristic mrv)")
    MultiplicityProblem(exact_cover.parse("A\nA\n")).search()       # load the kernel before timing
    t0 = time.perf_counter()
    prepared = MultiplicityProblem(problem)
    if show:
        click.echo(format_links(prepared.dl, max_options=None), err=True)
    room = max(1, min(_MAX_PRINTED, _PRINT_BUFFER // (8 * max(len(problem), 1))))
    # never more rows than can be printed: a --limit of 10**12 reserved 87 TiB
    keep = 0 if count_only else min(limit, room) if limit is not None else room
    t1 = time.perf_counter()
    count, nodes, updates, _, solutions = prepared.search(limit or 0, 0, keep)
    t2 = time.perf_counter()
    _report(problem, solutions, count, keep, count_only, limit, stats, nodes, updates,
            t1 - t0, t2 - t1)


def _report(problem, solutions, count, keep, count_only, limit, stats, nodes, updates,
            build_s: float, search_s: float) -> None:
    if count_only:
        click.echo(str(count))
    else:
        if count > keep:
            raise RaceError(f"{count} solutions, more than the {keep} that can be printed; "
                            f"use --count or --limit")
        blocks = ["\n".join(" ".join(problem.entry_names(int(o))) for o in options)
                  for options in solutions]
        if blocks:
            click.echo("\n\n".join(blocks))
        else:
            click.echo("no solution", err=True)
    if stats:
        reached = " (limit reached)" if limit is not None and count >= limit else ""
        click.echo(f"{count} solutions{reached}, {nodes} nodes, {updates} updates "
                   f"(build {1e3 * build_s:.3f} ms, search {1e3 * search_s:.3f} ms)", err=True)
    if not count_only and not count:
        sys.exit(1)                    # as race solve: 1 is "no solution"


def _load_kernel(kernel) -> None:
    """Load (or compile) the search kernel before anything is timed."""
    from solvers.dancing_links import DancingLinks
    links = DancingLinks.from_csr(["A"], 1, np.array([0, 1]), np.array([0])).links
    kernel(links, 0, 0, 0, 0, np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64))


_MAX_PRINTED = 100_000          # solutions printed without --limit ...
_PRINT_BUFFER = 64 << 20        # ... as long as their option nodes fit in 64 MB


@click.command()
@click.argument("name", required=False)
@click.argument("param", required=False)
@click.option("--list", "list_only", is_flag=True,
              help="List the problems: what each is, its parameter and its known answer.")
@click.option("--knuth", is_flag=True,
              help="Pose it as the paper does (a piece restricted) so that its 'essentially "
                   "different' count comes out.")
@click.option("--relaxed", is_flag=True, help="windowed-sudoku: windows only, no row/column items.")
@click.option("--x", "x_at", type=click.Choice(["23", "24", "33"]), default=None,
              help="scott: only the paper's subproblem with the X centred there (rank, file).")
@click.option("--omit", type=click.Choice(["H", "J", "L", "N", "Y"]), default="L", show_default=True,
              help="tetrasticks: the piece left out (the paper's Figure 11).")
def example(name: str | None, param: str | None, list_only: bool, knuth: bool, relaxed: bool,
            x_at: str | None, omit: str) -> None:
    """Print the example exact cover problem NAME [PARAM] in Knuth's dlx format.

    \b
    The problems of Knuth's "Dancing Links", the thesis and the blog posts
    (race example --list says what each is and its known answer). By default
    every solution counts, symmetric copies included; --knuth poses the
    problem as the paper does, e.g. the X pentomino restricted.

    \b
    Example:
      race example queens 8 | race cover - --count --stats
      race example queens 4 | race cover - --count --trace --trace-limit 40
      race example scott --x 23 | race cover - --count --profile
      race example pentominoes 6x10 --knuth | race cover - --count --stats
      race example scott --knuth --x 23 | race cover - --count --stats
      race example windowed-sudoku --relaxed --knuth | race cover - --count
      race example --list
    """
    from generators.cover_examples import EXAMPLES, build, describe

    if list_only:
        for e in EXAMPLES.values():
            head = e.name + (f" {e.param}" if e.param else "") + \
                (f" (default {e.default})" if e.default else "")
            click.echo(f"{head}\n    {e.what}\n    known: {e.answer}")
            if e.knuth:
                click.echo(f"    --knuth: {e.knuth}")
        return
    if name is None:
        raise RaceError("name a problem (race example --list names them)")
    problem = build(name, param, knuth=knuth, relaxed=relaxed, x=x_at, omit=omit)
    click.echo(exact_cover.format_dlx(problem, describe(name, param, knuth, relaxed, x_at, omit)),
               nl=False)


COMMANDS: list = [cover, example]
