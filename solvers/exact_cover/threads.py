"""Run the C exact cover search in threads: one, or one search split over several (``-j N``).

:func:`search` runs :meth:`solvers.cover_native.CoverKernel.search` in a thread of its own and
waits for it, so that Ctrl-C in the main thread stops the search at its next node (a ctypes call
cannot be interrupted, and compiled code never returns to the interpreter): the KeyboardInterrupt
is raised as usual, with the links restored.

:func:`count_split` splits one count over ``jobs`` threads (the C calls release the GIL, so they
run side by side, each on its own copy of the links). The splitter searches the top levels once,
counting their nodes, updates and solutions as the whole search would, and stops each branch that
reaches ``depth``: the choices made on that branch are a piece (the options chosen; with colors
or multiplicities, the number of the branch taken at each level). The depth grows from 1 until there
are at least :data:`PIECES_PER_JOB` pieces per thread (or no deeper branch is left), so that pieces
of very different sizes still even out. Each thread takes the next piece in search order, chooses
its choices (uncounted) and searches below them, counting nodes and updates from there. The
splitter's counts plus every piece's are exactly those of the search on one thread: the same
solutions, nodes and updates (tests/test_cover_native.py). With a ``limit`` the threads stop once
the pieces done found that many solutions together; the count is then the limit, and the nodes and
updates are those of the work done, which depends on the threads' timing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from solvers.cover_native import MRV, CoverKernel, Outcome, StopFlag

T = TypeVar("T")

#: pieces wanted per thread before the split stops going deeper
PIECES_PER_JOB = 64
#: the deepest split tried (each level multiplies the pieces by the options of an item)
MAX_DEPTH = 12


def _in_thread(work: Callable[[], T], stop: StopFlag, threads: list[threading.Thread]) -> T:
    """Start ``threads`` (daemons), wait for them; on Ctrl-C set ``stop``, let them end, re-raise."""
    for thread in threads:
        thread.daemon = True
        thread.start()
    try:
        for thread in threads:
            thread.join()
    except BaseException:
        stop.set()
        for thread in threads:
            thread.join()
        raise
    return work()


def search(kernel: CoverKernel, heuristic: int = MRV, limit: int = 0, keep: int = 0) -> Outcome:
    """``kernel.search(...)`` in a thread of its own (see the module docstring)."""
    stop = StopFlag()
    box: list = []

    def run() -> None:
        try:
            box.append(kernel.search(heuristic, limit, keep, stop=stop))
        except BaseException as exc:            # handed to the waiting thread
            box.append(exc)

    def result() -> Outcome:
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]
    return _in_thread(result, stop, [threading.Thread(target=run, name="cover search")])


def split(kernel: CoverKernel, jobs: int, heuristic: int = MRV) -> tuple[Outcome, list[list[int]]]:
    """The splitter's own counts and the pieces for ``jobs`` threads (see the module docstring)."""
    depth = 1
    top, pieces = kernel.split(depth, heuristic)
    while pieces and len(pieces) < PIECES_PER_JOB * jobs and depth < MAX_DEPTH:
        depth += 1
        top, pieces = kernel.split(depth, heuristic)
    return top, pieces


def count_split(kernel: CoverKernel, jobs: int, heuristic: int = MRV, limit: int = 0) -> Outcome:
    """Count the solutions on ``jobs`` threads (see the module docstring)."""
    top, pieces = split(kernel, jobs, heuristic)
    total = Outcome(top.count, top.nodes, top.updates)
    if limit and total.count >= limit:
        return Outcome(limit, total.nodes, total.updates, False)
    stop = StopFlag()
    lock = threading.Lock()
    queue = iter(range(len(pieces)))
    errors: list[BaseException] = []

    def work(copy: CoverKernel) -> None:
        try:
            while not stop.is_set():
                with lock:
                    k = next(queue, None)
                    remaining = limit - total.count if limit else 0
                if k is None:
                    return
                found = copy.search(heuristic, remaining, stop=stop, prefix=pieces[k])
                with lock:
                    total.count += found.count
                    total.nodes += found.nodes
                    total.updates += found.updates
                    total.complete &= found.complete
                    if limit and total.count >= limit:
                        stop.set()
        except BaseException as exc:
            errors.append(exc)
            stop.set()
        finally:
            copy.close()

    copies = [kernel.clone() for _ in range(min(jobs, max(len(pieces), 1)))]
    threads = [threading.Thread(target=work, args=(c,), name=f"cover piece {t}")
               for t, c in enumerate(copies)]

    def result() -> Outcome:
        if errors:
            raise errors[0]
        if limit and total.count >= limit:
            return Outcome(limit, total.nodes, total.updates, False)
        return total
    return _in_thread(result, stop, threads)
