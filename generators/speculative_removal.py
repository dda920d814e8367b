"""The removal phase's expensive tail on several cores, with the same answers as one core.

A minimal n = 5 puzzle costs ~270 SAT questions near the end of the removal phase (one
witness per kept clue, tens of ms each, some over a second), asked one after the other:
the question for the cell at position j of the removal order is asked of the grid in which
every earlier cell holds its decided state (a removed clue empty, a kept one filled).

Here worker processes ask about the next positions *before* the earlier ones are decided,
on a premise about each undecided earlier cell: it still holds its clue (filled), or it
will be emptied (empty: when its own answer is a "remove" waiting for confirmation, or when
at least :data:`EMPTY_PREMISE` of the :data:`RECENT` last decisions, the sequential loop's
before the workers' first ones, were removals). Whether
the answer holds for the real grid at position j follows from what the answer is:

* "keep" (a second solution, differing from the known one at j): it also solves the real
  grid without j unless a cell assumed empty is in fact kept and the solution puts another
  value there. So it holds at once when it agrees with the known solution on every cell
  assumed empty, and otherwise waits for those cells to be emptied.
* "remove" (the grid without j is still unique): the real grid must have every clue of the
  premise, so the answer waits for the cells assumed filled to be kept.

An answer whose condition fails is asked again on the new premise.

So the decisions, and the puzzle, are exactly those of :func:`generators.unique.remove_clues`
on one core; only the wall time changes. Tested at n = 2-4 with workers answering in
shuffled order, on an abstract removal problem with a known answer (unavoidable sets), and
on a scripted case where a witness must be refused. The workers are forked from the caller
(the counter, its compiled kernels and its state are inherited, nothing is compiled twice),
each keeps its own SAT window solver, and a worker dies with its parent (``PR_SET_PDEATHSIG``).

Measured (minimal n = 5, idle 2-core machine, two workers): seeds 1, 3, 4 took 8.6, 14.7,
26.8 s with the first version (``make bench``), against 13.1, 24.1, 38.2 s on one core; with
the kept clues as units (:meth:`generators.counting.WindowSAT.settle`) and the guessed
premises, 6.1, 11.6 and 22.0-26.8 s (three runs of seed 4), and on a quieter day 6.3, 11.4,
17.7 s (in the whole ``make bench`` 6.5, 11.6, 19.7 s); the same puzzles byte for byte. Not 2x: each worker's window solver sees only part of the
questions on its window and learns less from one to the next (replayed on one core,
alternating two counters costs 1.3x: 11.6 -> 14.9 s on seed 1), and ~7 % of the questions
are asked again (with only "filled" premises they cost 3-5 s of CPU on seed 4; with the
guessed ones 1.9-3.7 s). Handing each worker a block of 32 positions instead (its solver
sees every question of its window) made 5x more answers lose their premise: no faster;
blocks of 16 whose window also holds the other worker's undecided cells (so it survives
their decisions): 18.0-21.0 s against 18.6-20.1 s over five runs each (noise). Both workers
on every question instead (simulated on replayed questions, the first answer wins): the same
question with different phases or seeds, ~23 s; its values split between them, ~21 s: both
slower than two questions at once. The guess "empty" once counted only the workers' own
decisions, so their first 16 questions assumed every undecided cell filled, just after the
sequential loop's removal-dense stretch: counting its decisions too, seeds 3 and 4 asked
5-11 questions again instead of 17-30 (seed 4: 1.6-2.3 s of CPU wasted instead of 2.8-4.4 s).
"""

from __future__ import annotations

import bisect
import os
import signal
import time

import numpy as np

from formats.errors import RaceError
from solvers.processes.control import die_with_parent, fork_context

#: a removal phase goes over to workers after its first question that took this long
#: (seconds): at n <= 4 no question does, and a fork costs more than it saves
SPECULATE_AFTER_S = 0.02
#: most worker processes used (never more than the cores this process may run on)
MAX_WORKERS = 8
#: an undecided earlier cell is assumed empty (not filled) in a question when at least this
#: share of the :data:`RECENT` last decided positions were removals (module docstring)
EMPTY_PREMISE = 0.4
RECENT = 16


def default_workers() -> int:
    """Workers for the removal phase: the cores this process may run on (at most
    :data:`MAX_WORKERS`); 1 means no workers (the plain sequential loop)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):   # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def _serve(conn, n: int, counter, solution: np.ndarray, still_unique) -> None:
    """A worker: answer (position, cells, cell, value, ahead, settled) questions with
    ``still_unique`` (:func:`generators.unique.still_unique`) until told to stop, then send
    the counter's work."""
    die_with_parent()
    # Ctrl-C reaches the whole process group: the parent stops and kills its workers, which
    # must not be interrupted inside the SAT solver first (PySAT's handler leaves it unusable,
    # and CaDiCaL then aborts with its own message on the next call)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    calls0, decided0, seconds0 = counter.calls, counter.decided, counter.seconds
    backend0 = dict(counter.by_backend)
    try:
        while True:
            try:
                msg = conn.recv()
            except EOFError:
                return
            if msg is None:
                break
            position, cells, c, k, ahead, settled = msg
            try:
                t_ask = time.perf_counter()
                unique = still_unique(cells, c, k, n, counter, solution, ahead, settled)
                took = time.perf_counter() - t_ask
            except Exception as exc:   # a solver bug: the parent raises it, one line
                text = str(exc).strip()
                conn.send(("error", position, f"{type(exc).__name__}: "
                           f"{text.splitlines()[0] if text else 'no message'}", 0.0))
                return
            witness = None if unique else counter.witness
            conn.send(("ok", position, (bool(unique), witness), took))
        work = {"calls": counter.calls - calls0, "decided": counter.decided - decided0,
                "seconds": counter.seconds - seconds0,
                "by_backend": {k: v - backend0.get(k, 0) for k, v in counter.by_backend.items()}}
        conn.send(("work", -1, work, 0.0))
    finally:
        counter.close()
        conn.close()


def sudoku_witness(n: int, solution: np.ndarray):
    """The check of a "keep" answer's witness for box size n: a solved grid that keeps every
    clue of the question (IsSolved, via :func:`solvers.rules.is_solution_of`) and differs from
    ``solution`` at the cell asked about."""
    from formats.grid import Grid
    from solvers import rules
    side = n * n
    known = np.asarray(solution).reshape(-1)

    def check(question: np.ndarray, c: int, witness: np.ndarray) -> bool:
        found = np.asarray(witness).reshape(-1)
        return (found.size == side * side and int(found[c]) != int(known[c])
                and rules.is_solution_of(Grid(n, np.asarray(question).reshape(side, side)),
                                         Grid(n, found.reshape(side, side).astype(np.int32))))
    return check


def _death(exitcode: int | None) -> str:
    """How a worker process ended, in words (``exitcode`` of multiprocessing)."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"


class SpeculativeRemoval:
    """Decide positions ``start..`` of ``order`` (the removal order) of ``cells``, whose
    positions before ``start`` are decided already, with ``workers`` forked processes that
    answer with ``question`` (:func:`generators.unique.still_unique`).

    :meth:`run` returns one bool per remaining position (True: the clue is kept) and
    leaves ``cells`` in its final state; ``asked`` counts questions sent (``repeated`` of
    them asked again because their premise failed, ``wasted`` the seconds those answers took)."""

    def __init__(self, cells: np.ndarray, solution: np.ndarray, order: np.ndarray, start: int,
                 n: int, counter, workers: int, question, check=None) -> None:
        self.question = question
        #: (question's cells, flat cell asked about, witness) -> is the witness a second
        #: solution of the question? Never trust a solver: a witness decides whether answers
        #: on other premises hold, so each is checked here (default: sudoku_witness)
        self.check = check if check is not None else sudoku_witness(n, solution)
        self.cells = cells
        self.flat = cells.reshape(-1)
        self.solution = solution
        self.order = np.asarray(order)
        self.start = start
        self.n = n
        self.counter = counter
        self.workers = max(1, workers)
        self.asked = 0
        self.repeated = 0
        self.wasted = 0.0                 # seconds spent on answers asked again

    def run(self) -> list[bool]:
        import multiprocessing
        from multiprocessing.connection import Connection, wait
        context = fork_context()
        order, start = self.order, self.start
        total = order.size - start
        keep: list[bool | None] = [None] * total       # decided: True kept, False removed
        # answers waiting on earlier positions: position -> (its answer: kept?, the undecided
        # positions its premise needs decided a given way; see answered())
        held: dict[int, tuple[bool, set[int]]] = {}
        queue = list(range(total))                     # positions to ask (ascending)
        flight: dict[Connection, int] = {}             # connection -> position asked
        filled: dict[int, set[int]] = {}               # position -> undecided cells assumed filled
        emptied: dict[int, set[int]] = {}              # position -> undecided cells assumed empty
        took: dict[int, float] = {}                    # position -> seconds its last answer took
        asked: dict[int, np.ndarray] = {}              # position -> the cells of its last question
        before = order[:start][self.flat[order[:start]] != 0]   # kept before the workers began
        prefix = (self.flat[order[:start]] != 0)[::-1].tolist()  # its decisions, latest first
        values = self.solution.reshape(-1)
        pipes: list[Connection] = []
        procs: list[multiprocessing.context.ForkProcess] = []
        finished = False

        def again(p: int) -> None:
            self.repeated += 1
            self.wasted += took.get(p, 0.0)
            queue.insert(bisect.bisect_left(queue, p), p)

        def decide(p: int, kept: bool) -> None:
            keep[p] = kept
            if not kept:
                self.flat[order[start + p]] = 0
            for q in sorted(held):                     # answers that waited on p
                if q not in held or p not in held[q][1]:
                    continue
                answer, waiting = held[q]
                # a "remove" waits for its filled cells to be kept, a "keep" for its emptied
                # cells to be removed: p went the other way, the question is asked again
                if kept == answer:
                    del held[q]
                    again(q)
                    continue
                waiting.discard(p)
                if not waiting:
                    del held[q]
                    decide(q, answer)

        def answered(p: int, kept: bool, witness: np.ndarray | None) -> None:
            c = int(order[start + p])
            if kept and witness is not None and not self.check(asked[p], c, witness):
                raise RaceError(f"a removal-phase worker's second solution for cell {c} (position "
                                f"{start + p} of the removal order) does not solve its question: "
                                "a solver bug; no puzzle was made")
            if kept:   # a second solution: it holds where the cells assumed empty are empty,
                # or hold in it the clue they have (then the premise did not matter)
                need = {q for q in emptied[p] if witness is None
                        or witness[order[start + q]] != values[order[start + q]]}
            else:      # still unique: holds where the cells assumed filled keep their clues
                need = set(filled[p])
            if any(keep[q] == kept for q in need):
                again(p)
                return
            waiting = {q for q in need if keep[q] is None}
            if waiting:
                held[p] = (kept, waiting)
            else:
                decide(p, kept)

        def likely_removed(q: int, p: int) -> bool:
            """The premise for undecided q when asking about p: empty when q's own answer is
            a held "remove", or when most of the last decided positions were removed."""
            if q in held:
                return not held[q][0]
            recent = [keep[r] for r in range(p - 1, -1, -1) if keep[r] is not None][:RECENT]
            recent += prefix[:RECENT - len(recent)]     # then the sequential loop's, latest first
            return len(recent) == RECENT and recent.count(False) >= EMPTY_PREMISE * RECENT

        def ask(conn: Connection, p: int) -> None:
            undecided = [q for q in range(p) if keep[q] is None]
            gone = {q for q in undecided if likely_removed(q, p)}
            emptied[p], filled[p] = gone, set(undecided) - gone
            question = self.flat.copy()
            question[order[start + np.asarray(sorted(gone), dtype=np.int64)]] = 0
            c = int(order[start + p])
            question[c] = 0
            # the worker's window: the undecided earlier cells (one of them decided later must
            # not void its window solver, whose base would hold it), then what follows
            ahead = np.concatenate([order[start + np.asarray(undecided, dtype=np.int64)],
                                    order[start + p + 1:]])
            kept = [q for q in range(p) if keep[q]]        # decided: kept for good
            settled = np.concatenate([before, order[start + np.asarray(kept, dtype=np.int64)]])
            asked[p] = question
            conn.send((p, question.reshape(self.cells.shape), c, int(values[c]), ahead, settled))
            flight[conn] = p
            self.asked += 1

        try:
            for _ in range(min(self.workers, total)):
                parent, child = context.Pipe()
                proc = context.Process(target=_serve, daemon=True,
                                       args=(child, self.n, self.counter, self.solution, self.question))
                proc.start()
                child.close()
                pipes.append(parent)
                procs.append(proc)
            idle = list(pipes)
            while any(k is None for k in keep):
                while idle and queue:
                    ask(idle.pop(), queue.pop(0))
                if not flight:   # pragma: no cover - nothing asked, nothing decided
                    raise AssertionError("speculative removal: no question in flight")
                for conn in wait(list(flight)):
                    assert isinstance(conn, Connection)         # wait() gives back what it got
                    try:
                        status, p, answer, seconds = conn.recv()
                    except EOFError:
                        proc = procs[pipes.index(conn)]
                        proc.join(timeout=5)
                        raise RaceError(f"a removal-phase worker died ({_death(proc.exitcode)}) "
                                        f"at position {start + flight[conn]} of the removal "
                                        "order; no puzzle was made") from None
                    if status == "error":
                        raise RaceError(f"a removal-phase worker failed at position {start + p} "
                                        f"of the removal order: {answer}")
                    del flight[conn]
                    idle.append(conn)
                    took[p] = seconds
                    unique, witness = answer
                    answered(p, not unique, witness)
            for conn in pipes:
                conn.send(None)
            for conn in pipes:
                status, _, work, _ = conn.recv()
                if status == "work":
                    self._add_work(work)
            finished = True
        finally:
            for conn in pipes:
                conn.close()
            for proc in procs:
                if not finished:      # an error or an interrupt: no answer is awaited
                    proc.kill()
                proc.join(timeout=5)
                if proc.is_alive():   # pragma: no cover - a stuck worker
                    proc.kill()
                    proc.join()
        return [bool(k) for k in keep]

    def _add_work(self, work: dict) -> None:
        """Count the workers' solver calls in the caller's counter (its stats stay whole)."""
        self.counter.calls += work["calls"]
        self.counter.decided += work["decided"]
        self.counter.seconds += work["seconds"]
        for k, v in work["by_backend"].items():
            if v:
                self.counter.by_backend[k] += v


def finish(cells: np.ndarray, solution: np.ndarray, order: np.ndarray, start: int, n: int,
           counter, workers: int, question) -> tuple[list[bool], dict[str, float]]:
    """Decide positions ``start..`` of the removal ``order`` with ``workers`` processes
    (see :class:`SpeculativeRemoval`), each answering with ``question``
    (:func:`generators.unique.still_unique`): (kept or not per position, the run's figures:
    where it started, questions asked, asked again and the seconds those cost, workers)."""
    runner = SpeculativeRemoval(cells, solution, order, start, n, counter, workers, question)
    kept = runner.run()
    return kept, {"speculated_from": start, "speculated_questions": runner.asked,
                  "asked_again": runner.repeated, "asked_again_seconds": round(runner.wasted, 3),
                  "workers": runner.workers}
