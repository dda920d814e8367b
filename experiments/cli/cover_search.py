"""The search behind ``race cover`` and ``race example --count``, and what it prints: the
solutions or their number, Knuth's counts on stderr. Without click, so the start path of
:mod:`experiments.cli.entry` reaches the first node without it."""

from __future__ import annotations

import sys
import time

from experiments.cli.streams import echo
from formats.errors import RaceError

#: the most threads ``-j`` takes
MAX_JOBS = 1024

def read_problem(source: str):
    """The :class:`~formats.dlx_format.DlxProblem` in the file ``source`` (``-``: stdin)."""
    from formats import dlx_format
    from formats.source import read_source
    text, name = read_source(source, what="a dlx file")
    return dlx_format.parse(text, name)


def check_search_options(problem, heuristic: str, count_only: bool, jobs: int) -> None:
    """RaceError when the options do not fit the problem or each other."""
    if problem.extended and heuristic == "first":
        raise RaceError("colors and multiplicities are searched with the minimum-degree choice "
                        "(--heuristic mrv or slack)")
    if jobs > 1 and not count_only:
        raise RaceError("-j splits a count: use it with --count (solutions are printed from one "
                        "thread)")


def count_and_report(problem, count_only: bool, limit: int | None, heuristic: str, stats: bool,
                      jobs: int) -> None:
    """Search ``problem`` (a :class:`~formats.dlx_format.DlxProblem`) and print what was asked:
    the solutions, or their number; the stats on stderr. Exit 1 when printing finds none."""
    width = max(len(problem) if problem.extended else problem.primary, 1)
    room = max(1, min(MAX_PRINTED, PRINT_BUFFER // (8 * width)))
    # never more rows than can be printed: a --limit of 10**12 reserved 87 TiB
    keep = 0 if count_only else min(limit, room) if limit is not None else room
    count, nodes, updates, solutions, build_s, search_s = search(problem, heuristic, limit, keep,
                                                                 jobs)
    reached = limit is not None and count >= limit
    if count_only:
        echo(str(count))
        if reached and not stats:
            echo(f"(limit reached) the count stopped at --limit {limit}; there may be more",
                 err=True)
    else:
        if count > keep:
            raise RaceError(f"{count} solutions, more than the {keep} that can be printed; "
                            f"use --count or --limit")
        blocks = ["\n".join(" ".join(problem.entry_names(int(o))) for o in options)
                  for options in solutions]
        if blocks:
            echo("\n\n".join(blocks))
        else:
            echo("no solution", err=True)
    if stats:
        echo(f"{count} solutions{' (limit reached)' if reached else ''}, {nodes} nodes, "
             f"{updates} updates (build {1e3 * build_s:.3f} ms, search {1e3 * search_s:.3f} ms"
             f"{f', {jobs} threads' if jobs > 1 else ''}, {_kernel()})", err=True)
    if not count_only and not count:
        sys.exit(1)                    # as race solve: 1 is "no solution"


def _kernel() -> str:
    """Which kernel searched: ``C kernel`` (solvers/cover_native.c, built with the package) or
    ``numba kernel``."""
    from solvers import cover_native
    return "C kernel" if cover_native.library() is not None else "numba kernel"


def search(problem, heuristic: str, limit: int | None, keep: int, jobs: int):
    """(solutions, nodes, updates, the options of the first ``keep`` solutions, build s, search s):
    the C kernel (:mod:`solvers.cover_native`, on ``jobs`` threads when counting), or the numba
    kernels when it cannot be built."""
    from solvers import cover_native
    if cover_native.library() is None:
        if jobs > 1:
            echo(f"race: note: -j {jobs}: no compiled kernel ({cover_native.NATIVE.why_not}); "
                 f"the numba kernel counts on one thread", err=True)
        return search_numba(problem, heuristic, limit, keep)
    from solvers.exact_cover import threads as cover_threads
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


def search_numba(problem, heuristic: str, limit: int | None, keep: int):
    """:func:`search` on the numba kernels (the kernel loaded before anything is timed)."""
    import numpy as np

    from formats import exact_cover
    from solvers.exact_cover.algorithm_x import HEURISTICS, dlx_search
    from solvers.exact_cover.dancing_links import DancingLinks

    problem = exact_cover.ExactCover.from_dlx(problem)
    if problem.extended:
        from solvers.exact_cover.algorithm_m import MultiplicityProblem
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


MAX_PRINTED = 100_000          # solutions printed without --limit ...
PRINT_BUFFER = 64 << 20        # ... as long as their option nodes fit in 64 MB
