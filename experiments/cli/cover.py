"""Commands of the cover part: ``race cover`` (solve an exact cover problem in
Knuth's dlx format) and ``race example`` (print an example problem)."""

from __future__ import annotations

import click

from experiments.cli import cover_search, params
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
@click.option("--jobs", "-j", type=params.Integer(min=1, max=cover_search.MAX_JOBS), default=1, show_default=True,
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
    The search runs in a C kernel built with the package
    (solvers/cover_native.c; installed without a compiler, the numba
    kernels of solvers/exact_cover/algorithm_x.py and algorithm_m.py:
    the same counts, a slower start). --show, --trace and --profile use
    the numba ones.

    \b
    Example:
      race example queens 8 | race cover - --count --stats
      race example pentominoes 6x10 --knuth | race cover - --count -j 2 --stats
      race example queens 4 | race cover - --count --trace --trace-limit 40
      race example scott --x 23 | race cover - --count --profile
      printf 'A B C\\nA B\\nC\\nA\\nB C\\n' | race cover - --show
      printf '%s\\n' 'A B 2:3|C | X Y' 'A B X:0 Y:0' 'A C X:1 Y:1' \\
          'C X:0' 'B X:1' 'C Y:1' | race cover -
    """
    if trace or show or profile:
        from formats import exact_cover

    problem = cover_search.read_problem(source)
    if problem.extended and (trace or profile):
        raise RaceError("--trace and --profile follow plain exact cover problems "
                        "(no colors or multiplicities)")
    cover_search.check_search_options(problem, heuristic, count_only, jobs)
    if trace:
        from solvers.exact_cover.algorithm_x import HEURISTICS
        _print_trace(exact_cover.ExactCover.from_dlx(problem), HEURISTICS.get(heuristic, 0),
                     trace_limit, limit)
    if show:
        from solvers.exact_cover.dancing_links import DancingLinks, format_links
        dl = DancingLinks.from_problem(exact_cover.ExactCover.from_dlx(problem))
        click.echo(format_links(dl, max_options=None), err=True)
    cover_search.count_and_report(problem, count_only, limit, heuristic, stats, jobs)
    if profile:
        from solvers.exact_cover.algorithm_x import HEURISTICS
        from solvers.exact_cover.dancing_links import DancingLinks
        from solvers.exact_cover.search_profile import format_profile, level_profile
        dl = DancingLinks.from_problem(exact_cover.ExactCover.from_dlx(problem))
        _, rows = level_profile(dl, HEURISTICS.get(heuristic, 0))
        click.echo("Knuth's level profile (all solutions; nodes = options tried at each level, "
                   "the root not counted):", err=True)
        click.echo(format_profile(rows), err=True)


def _print_trace(problem, heuristic: int, trace_limit: int, limit: int | None = None) -> None:
    """The first ``trace_limit`` steps of the dance (solvers/exact_cover/dance_trace.py) on stdout, up to
    the search's end: its ``limit``-th solution when a --limit is given (the search stops there)."""
    from solvers.exact_cover.dance_trace import trace
    from solvers.exact_cover.dancing_links import DancingLinks

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
@click.option("--jobs", "-j", type=params.Integer(min=1, max=cover_search.MAX_JOBS), default=1, show_default=True,
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
        dlx = problem.to_dlx()
        cover_search.check_search_options(dlx, heuristic, count_only, jobs)
        cover_search.count_and_report(dlx, True, limit, heuristic, stats, jobs)
        return
    from formats import exact_cover
    click.echo(exact_cover.format_dlx(problem, describe(name, param, knuth, relaxed, x_at, omit)),
               nl=False)


COMMANDS: list = [cover, example]
