"""Commands of the cover part: ``race cover`` (solve an exact cover problem in
Knuth's dlx format) and ``race example`` (print an example problem)."""

from __future__ import annotations

import sys
import time

import click

from experiments.cli import params
from formats.errors import RaceError


_JOBS_HELP = ("With --count: split the search over N threads (the options of the first item "
              "chosen, or deeper, until each thread has many pieces). The top levels are searched "
              "once, so the nodes and updates printed by --stats are the sums over the pieces and "
              "equal the one-thread counts exactly; with --limit the threads stop once the limit is "
              "reached and the counts are those of the work done.")
_HEURISTIC_HELP = ("The item to branch on: the one of fewest options (mrv, Knuth's S heuristic; "
                   "with bounds, fewest options plus one if covered enough already), the first one "
                   "(first; not with colors or bounds), or with bounds Knuth's slack-aware choice of "
                   "Algorithm M (slack: fewest options + 1 - the covers still needed, a dead end "
                   "when that is 0; the same solutions from a smaller tree; without bounds the "
                   "same as mrv).")
_LIMIT_HELP = ("Stop after K solutions. With --count the number printed is then K, and "
               "'(limit reached)' goes to stderr (there may be more).")


@click.command()
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--count", "count_only", is_flag=True, help="Print only the number of solutions.")
@click.option("--limit", "-l", type=params.Integer(min=1), default=None, metavar="K",
              help=_LIMIT_HELP)
@click.option("--heuristic", type=click.Choice(["mrv", "first", "slack"]), default="mrv",
              show_default=True, help=_HEURISTIC_HELP)
@click.option("--stats", is_flag=True,
              help="Print 'S solutions, N nodes, U updates' (Knuth's counts) and the time on stderr.")
@click.option("--jobs", "-j", type=params.Integer(min=1, max=1024), default=1, show_default=True,
              metavar="N", help=_JOBS_HELP)
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
def cover(source: str, count_only: bool, limit: int | None, heuristic: str, stats: bool, jobs: int,
          show: bool, profile: bool, trace: bool, trace_limit: int) -> None:
    """Solve the exact cover problem in FILE (Knuth's dlx format; - = stdin).

    \b
    Format: the first line names the items, primary first, then | and the
    secondary ones (covered at most once); each further line is one option,
    as item names; lines starting with | are comments. Knuth's extensions:
    a secondary item with a color in an option (x:red; options of the same
    color may share x) and bounds on a primary item (2:3|C: covered 2 to 3
    times; 3|C: exactly 3).

    \b
    Prints each solution as its chosen options (one line each, as in the
    input), solutions separated by blank lines; with --count only the number.
    Exit 1 with "no solution" on stderr when there is none (as race solve;
    with --count that is the number 0, exit 0). --trace goes to stdout, before
    the solutions or the number.

    \b
    The search runs in a C kernel compiled with the system's C compiler at
    the first use (solvers/cover_native.c; without a compiler, the numba
    kernels of solvers/algorithm_x.py and solvers/algorithm_m.py: the same
    counts, a slower start). --show, --trace and --profile use the numba ones.

    \b
    Example:
      race example queens 8 | race cover - --count --stats
      race example pentominoes 6x10 --knuth | race cover - --count -j 2 --stats
      race example queens 4 | race cover - --count --trace --trace-limit 40
      race example scott --x 23 | race cover - --count --profile
      printf 'A B C\\nA B\\nC\\nA\\nB C\\n' | race cover - --show
      printf 'A B 2:3|C | X Y\\nA B X:0 Y:0\\nA C X:1 Y:1\\nC X:0\\nB X:1\\nC Y:1\\n' | race cover -
    """
    from formats import dlx_format
    from formats.source import read_source
    if trace or show or profile:
        from formats import exact_cover

    text, name = read_source(source, what="a dlx file")
    problem = dlx_format.parse(text, name)
    if problem.extended and (trace or profile):
        raise RaceError("--trace and --profile follow plain exact cover problems "
                        "(no colors or multiplicities)")
    _check_search_options(problem, heuristic, count_only, jobs)
    if trace:
        from solvers.algorithm_x import HEURISTICS
        _print_trace(exact_cover.ExactCover.from_dlx(problem), HEURISTICS.get(heuristic, 0),
                     trace_limit, limit)
    if show:
        from solvers.dancing_links import DancingLinks, format_links
        dl = DancingLinks.from_problem(exact_cover.ExactCover.from_dlx(problem))
        click.echo(format_links(dl, max_options=None), err=True)
    _count_and_report(problem, count_only, limit, heuristic, stats, jobs)
    if profile:
        from solvers.algorithm_x import HEURISTICS
        from solvers.dancing_links import DancingLinks
        from solvers.search_profile import format_profile, level_profile
        dl = DancingLinks.from_problem(exact_cover.ExactCover.from_dlx(problem))
        _, rows = level_profile(dl, HEURISTICS.get(heuristic, 0))
        click.echo("Knuth's level profile (all solutions; nodes = options tried at each level, "
                   "the root not counted):", err=True)
        click.echo(format_profile(rows), err=True)


def _check_search_options(problem, heuristic: str, count_only: bool, jobs: int) -> None:
    if problem.extended and heuristic == "first":
        raise RaceError("colors and multiplicities are searched with the minimum-degree choice "
                        "(--heuristic mrv or slack)")
    if jobs > 1 and not count_only:
        raise RaceError("-j splits a count: use it with --count (solutions are printed from one "
                        "thread)")


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


def _count_and_report(problem, count_only: bool, limit: int | None, heuristic: str, stats: bool,
                      jobs: int) -> None:
    """Search ``problem`` (a :class:`~formats.dlx_format.DlxProblem`) and print what was asked:
    the solutions, or their number; the stats on stderr. Exit 1 when printing finds none."""
    width = max(len(problem) if problem.extended else problem.primary, 1)
    room = max(1, min(_MAX_PRINTED, _PRINT_BUFFER // (8 * width)))
    # never more rows than can be printed: a --limit of 10**12 reserved 87 TiB
    keep = 0 if count_only else min(limit, room) if limit is not None else room
    count, nodes, updates, solutions, build_s, search_s = _search(problem, heuristic, limit, keep,
                                                                  jobs)
    reached = limit is not None and count >= limit
    if count_only:
        click.echo(str(count))
        if reached and not stats:
            click.echo(f"(limit reached) the count stopped at --limit {limit}; there may be more",
                       err=True)
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
        click.echo(f"{count} solutions{' (limit reached)' if reached else ''}, {nodes} nodes, "
                   f"{updates} updates (build {1e3 * build_s:.3f} ms, search {1e3 * search_s:.3f} ms"
                   f"{f', {jobs} threads' if jobs > 1 else ''})", err=True)
    if not count_only and not count:
        sys.exit(1)                    # as race solve: 1 is "no solution"


def _search(problem, heuristic: str, limit: int | None, keep: int, jobs: int):
    """(solutions, nodes, updates, the options of the first ``keep`` solutions, build s, search s):
    the C kernel (:mod:`solvers.cover_native`, on ``jobs`` threads when counting), or the numba
    kernels when it cannot be built."""
    from solvers import cover_native
    if cover_native.library() is None:
        if jobs > 1:
            click.echo(f"race: note: -j {jobs}: no compiled kernel ({cover_native.NATIVE.why_not}); "
                       f"the numba kernel counts on one thread", err=True)
        return _search_numba(problem, heuristic, limit, keep)
    from solvers import cover_threads
    try:
        t0 = time.perf_counter()
        kernel = cover_native.CoverKernel.from_dlx(problem)
        t1 = time.perf_counter()
        code = cover_native.HEURISTICS[heuristic]
        if jobs > 1:
            found = cover_threads.count_split(kernel, jobs, code, limit or 0)
        else:
            found = cover_threads.search(kernel, code, limit or 0, keep)
        t2 = time.perf_counter()
    except MemoryError as exc:
        raise RaceError(f"{exc or 'out of memory'} ({len(problem.items)} items, {len(problem)} "
                        f"options, {len(problem.flat)} entries)") from None
    return found.count, found.nodes, found.updates, found.solutions, t1 - t0, t2 - t1


def _search_numba(problem, heuristic: str, limit: int | None, keep: int):
    """:func:`_search` on the numba kernels (the kernel loaded before anything is timed)."""
    import numpy as np

    from formats import exact_cover
    from solvers.algorithm_x import HEURISTICS, dlx_search
    from solvers.dancing_links import DancingLinks

    problem = exact_cover.ExactCover.from_dlx(problem)
    if problem.extended:
        from solvers.algorithm_m import MultiplicityProblem
        MultiplicityProblem(exact_cover.parse("A\nA\n")).search()     # load the kernel
        t0 = time.perf_counter()
        prepared = MultiplicityProblem(problem)
        t1 = time.perf_counter()
        count, nodes, updates, _, solutions = prepared.search(limit or 0, 0, keep,
                                                              slack=heuristic == "slack")
        return count, nodes, updates, solutions, t1 - t0, time.perf_counter() - t1
    links = DancingLinks.from_csr(["A"], 1, np.array([0, 1]), np.array([0])).links
    dlx_search(links, 0, 0, 0, 0, np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64))
    t0 = time.perf_counter()
    dl = DancingLinks.from_problem(problem)
    chosen = np.zeros((max(keep, 1), max(dl.primary, 1)), dtype=np.int64)
    depth = np.zeros(max(keep, 1), dtype=np.int64)
    t1 = time.perf_counter()
    count, nodes, updates, _ = dlx_search(dl.links, HEURISTICS.get(heuristic, 0), limit or 0, 0,
                                          keep, chosen, depth)
    t2 = time.perf_counter()
    solutions = [dl.option_of[chosen[s, :depth[s]]].tolist() for s in range(min(count, keep))]
    return count, nodes, updates, solutions, t1 - t0, t2 - t1


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
@click.option("--count", "count_only", is_flag=True,
              help="Count the solutions instead of printing the problem (as race cover --count).")
@click.option("--limit", "-l", type=params.Integer(min=1), default=None, metavar="K",
              help="With --count: " + _LIMIT_HELP)
@click.option("--heuristic", type=click.Choice(["mrv", "first", "slack"]), default="mrv",
              show_default=True, help="With --count: as race cover --heuristic.")
@click.option("--stats", is_flag=True, help="With --count: as race cover --stats.")
@click.option("--jobs", "-j", type=params.Integer(min=1, max=1024), default=1, show_default=True,
              metavar="N", help="With --count: as race cover -j. " + _JOBS_HELP[len("With --count: "):])
def example(name: str | None, param: str | None, list_only: bool, knuth: bool, relaxed: bool,
            x_at: str | None, omit: str, count_only: bool, limit: int | None, heuristic: str,
            stats: bool, jobs: int) -> None:
    """Print the example exact cover problem NAME [PARAM] in Knuth's dlx format,
    or with --count count its solutions.

    \b
    The problems of Knuth's "Dancing Links", the thesis and the blog posts
    (race example --list says what each is and its known answer). By default
    every solution counts, symmetric copies included; --knuth poses the
    problem as the paper does, e.g. the X pentomino restricted. --count,
    --limit, --heuristic, --stats and -j count as race cover does on the
    printed problem (race example NAME | race cover - --count).

    \b
    Example:
      race example queens 8 --count --stats
      race example pentominoes 6x10 --knuth --count -j 2
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
    if not count_only:
        given = [flag for flag, on in (("--limit", limit is not None), ("--stats", stats),
                                       ("-j", jobs != 1), ("--heuristic", heuristic != "mrv")) if on]
        if given:
            raise RaceError(f"{', '.join(given)} goes with --count (without it the problem is "
                            f"printed)")
    problem = build(name, param, knuth=knuth, relaxed=relaxed, x=x_at, omit=omit)
    if count_only:
        problem = problem.to_dlx()
        _check_search_options(problem, heuristic, count_only, jobs)
        _count_and_report(problem, True, limit, heuristic, stats, jobs)
        return
    from formats import exact_cover
    click.echo(exact_cover.format_dlx(problem, describe(name, param, knuth, relaxed, x_at, omit)),
               nl=False)


COMMANDS: list = [cover, example]
