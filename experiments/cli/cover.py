"""Commands of the cover part: ``race cover`` (solve an exact cover problem in
Knuth's dlx format) and ``race example`` (print an example problem)."""

from __future__ import annotations

import time

import click
import numpy as np

from formats import exact_cover
from formats.errors import RaceError


@click.command()
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--count", "count_only", is_flag=True, help="Print only the number of solutions.")
@click.option("--limit", "-l", type=click.IntRange(min=1), default=None,
              help="Stop after K solutions.")
@click.option("--heuristic", type=click.Choice(["mrv", "first"]), default="mrv", show_default=True,
              help="Choose the item of fewest options (Knuth's S heuristic) or the first one.")
@click.option("--stats", is_flag=True,
              help="Print 'S solutions, N nodes, U updates' (Knuth's counts) and the time on stderr.")
@click.option("--show", is_flag=True,
              help="First print the dancing-links matrix (items with sizes, then the options) on stderr.")
def cover(source: str, count_only: bool, limit: int | None, heuristic: str, stats: bool,
          show: bool) -> None:
    """Solve the exact cover problem in FILE (Knuth's dlx format; - = stdin).

    \b
    Format: the first line names the items, primary first, then | and the
    secondary ones (covered at most once); each further line is one option,
    as item names; lines starting with | are comments.

    \b
    Prints each solution as its chosen options (one line each, as in the
    input), solutions separated by blank lines; with --count only the number.

    \b
    Example:
      race example queens 8 | race cover - --count --stats
      printf 'A B C\\nA B\\nC\\nA\\nB C\\n' | race cover - --show
    """
    from solvers.algorithm_x import HEURISTICS, dlx_search
    from solvers.dancing_links import DancingLinks, format_links

    problem = exact_cover.read(source)
    _load_kernel(dlx_search)
    t0 = time.perf_counter()
    dl = DancingLinks.from_problem(problem)
    room = max(1, min(_MAX_PRINTED, _PRINT_BUFFER // (8 * max(dl.primary, 1))))
    keep = 0 if count_only else (limit if limit is not None else room)
    chosen = np.zeros((max(keep, 1), max(dl.primary, 1)), dtype=np.int64)
    depth = np.zeros(max(keep, 1), dtype=np.int64)
    if show:
        click.echo(format_links(dl, max_options=None), err=True)
    t1 = time.perf_counter()
    count, nodes, updates, _ = dlx_search(dl.links, HEURISTICS[heuristic], limit or 0, 0, keep,
                                          chosen, depth)
    t2 = time.perf_counter()
    if count_only:
        click.echo(str(count))
    else:
        if count > keep:
            raise RaceError(f"{count} solutions, more than the {keep} that can be printed; "
                            f"use --count or --limit")
        blocks = []
        for s in range(count):
            options = dl.option_of[chosen[s, :depth[s]]]
            blocks.append("\n".join(" ".join(problem.option_names(int(o))) for o in options))
        if blocks:
            click.echo("\n\n".join(blocks))
        else:
            click.echo("no solution", err=True)
    if stats:
        reached = " (limit reached)" if limit is not None and count >= limit else ""
        click.echo(f"{count} solutions{reached}, {nodes} nodes, {updates} updates "
                   f"(build {1e3 * (t1 - t0):.3f} ms, search {1e3 * (t2 - t1):.3f} ms)", err=True)


def _load_kernel(kernel) -> None:
    """Load (or compile) the search kernel before anything is timed."""
    from solvers.dancing_links import DancingLinks
    links = DancingLinks.from_csr(["A"], 1, np.array([0, 1]), np.array([0])).links
    kernel(links, 0, 0, 0, 0, np.zeros((1, 1), dtype=np.int64), np.zeros(1, dtype=np.int64))


_MAX_PRINTED = 100_000          # solutions printed without --limit ...
_PRINT_BUFFER = 64 << 20        # ... as long as their option nodes fit in 64 MB


@click.command()
@click.argument("kind", type=click.Choice(["queens", "latin"]))
@click.argument("size", type=click.IntRange(min=1))
def example(kind: str, size: int) -> None:
    """Print an example exact cover problem in Knuth's dlx format.

    \b
    queens N: Knuth's N queens (ranks and files primary in organ-pipe order,
              diagonals secondary); N = 8 has 92 solutions.
    latin N:  the N x N Latin squares; N = 4 has 576.

    \b
    Example:
      race example queens 8 | race cover - --count --stats
      race example latin 4 > latin4.dlx
    """
    from generators.cover_problems import latin_square, queens

    problem = queens(size) if kind == "queens" else latin_square(size)
    comment = (f"{size} queens (Knuth, Dancing Links): organ-pipe order, diagonals secondary"
               if kind == "queens" else f"{size} x {size} Latin squares: cells, row-values, column-values")
    click.echo(exact_cover.format_dlx(problem, comment), nl=False)


COMMANDS: list = [cover, example]
