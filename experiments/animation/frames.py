"""A search as a list of board states: the steps of backtracking, DLX or SAT on N queens or a Sudoku.

A :class:`Board` is what is drawn: N queens (cells hold 1 where a queen
stands) or a Sudoku grid (cells hold values; the clues are marked). Each
solver is followed step by step until the first solution (or the step cap):

* ``backtracking``: Algorithm 1 for a Sudoku (empty cells in row-major order,
  values 1..n² tried with CanPlace from :mod:`solvers.rules`), and the same
  row-by-row search for N queens (files 0..N-1, a square attacked by an
  earlier queen is skipped);
* ``dlx``: the dance of :mod:`solvers.exact_cover.dance_trace` on Knuth's N-queens cover
  (:func:`generators.cover_problems.queens`) or the Sudoku's Task 18 matrix:
  each option tried is a placement, a return to a lower level a backtrack;
* ``sat``: PySAT exposes no trail of its CDCL search, so the frames follow a
  DPLL driven by PySAT's own unit propagation (``Solver.propagate``) on the
  same CNF (the Sudoku's ``extended`` encoding; for queens, one variable per
  square, a queen in each rank, at most one per rank, file and diagonal):
  decide a (cell, value) variable, show what propagation fixes, and on a
  conflict flip the last decision (chronological backtracking). Decisions
  take the first open cell with the fewest values left; ``seed`` breaks ties
  at random (the other solvers are deterministic).

Each step is an :class:`Event` (the cells it changes and a caption);
:func:`sample` picks at most ``max_frames`` of them evenly (always the last)
and replays the changes into full board states.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from formats.errors import RaceError
from formats.grid import Grid

SOLVERS = ("backtracking", "dlx", "sat")
MAX_SIDE = 16           # Sudoku up to 16x16, queens up to 16


@dataclass
class Board:
    problem: str                      # "queens" or "sudoku"
    side: int
    start: np.ndarray                 # (side, side) initial cells
    n: int = 0                        # Sudoku box size

    @property
    def clues(self) -> np.ndarray:
        return self.start > 0


@dataclass
class Event:
    action: str                                      # place, remove, conflict, solution, propagate
    changes: list[tuple[int, int, int]] = field(default_factory=list)   # (row, col, new value)
    caption: str = ""
    focus: tuple[int, int] | None = None             # the cell to highlight


def queens_board(n: int) -> Board:
    if not 1 <= n <= MAX_SIDE:
        raise RaceError(f"queens:N takes 1 <= N <= {MAX_SIDE}, got {n}")
    return Board("queens", n, np.zeros((n, n), dtype=np.int64))


def sudoku_board(grid: Grid) -> Board:
    if grid.side > MAX_SIDE:
        raise RaceError(f"race animate draws Sudoku up to {MAX_SIDE}x{MAX_SIDE}, not {grid.side}x{grid.side}")
    return Board("sudoku", grid.side, grid.cells.astype(np.int64).copy(), grid.n)


# -- backtracking ------------------------------------------------------------------------

def backtracking_events(board: Board) -> Iterator[Event]:
    if board.problem == "queens":
        yield from _queens_backtracking(board.side)
    else:
        yield from _sudoku_backtracking(board)


def _queens_backtracking(n: int) -> Iterator[Event]:
    files: list[int] = []

    def free(r: int, c: int) -> bool:
        return all(c != fc and abs(c - fc) != r - fr for fr, fc in enumerate(files))

    def search(r: int) -> Iterator[Event]:
        if r == n:
            yield Event("solution", caption=f"backtracking: {n} queens placed")
            return
        for c in range(n):
            if free(r, c):
                files.append(c)
                yield Event("place", [(r, c, 1)], f"backtracking: queen in rank {r + 1}, file {c + 1}", (r, c))
                yield from search(r + 1)
                files.pop()
                yield Event("remove", [(r, c, 0)], f"backtracking: rank {r + 1} file {c + 1} fails, back", (r, c))
        return

    yield from _until_solution(search(0))


def _sudoku_backtracking(board: Board) -> Iterator[Event]:
    from solvers.rules import can_place_cells

    cells = board.start.astype(np.int32).copy()
    n, side = board.n, board.side
    empty = [(i, j) for i in range(side) for j in range(side) if cells[i, j] == 0]

    def search(t: int) -> Iterator[Event]:
        if t == len(empty):
            yield Event("solution", caption="backtracking: every cell filled")
            return
        i, j = empty[t]
        for k in range(1, side + 1):
            if can_place_cells(cells, n, i, j, k):
                cells[i, j] = k
                yield Event("place", [(i, j, k)], f"backtracking: {k} in row {i + 1}, column {j + 1}", (i, j))
                yield from search(t + 1)
                cells[i, j] = 0
        yield Event("remove", [(i, j, 0)], f"backtracking: nothing fits row {i + 1}, column {j + 1}: back",
                    (i, j))

    yield from _until_solution(search(0))


def _until_solution(events: Iterator[Event]) -> Iterator[Event]:
    for event in events:
        yield event
        if event.action == "solution":
            return


# -- DLX ---------------------------------------------------------------------------------

def dlx_events(board: Board) -> Iterator[Event]:
    from generators.cover_problems import queens
    from solvers.exact_cover.dance_trace import trace
    from solvers.exact_cover.dancing_links import DancingLinks
    from solvers.exact_cover.sudoku_cover import sudoku_cover

    if board.problem == "queens":
        problem = queens(board.side)
        place = [(o // board.side, o % board.side, 1) for o in range(len(problem))]
    else:
        cover = sudoku_cover(Grid(board.n, board.start.astype(np.int32)))
        problem = cover.problem
        side = board.side
        place = [(int(t) // (side * side), int(t) // side % side, int(t) % side + 1) for t in cover.option_ids]
    stack: list[int] = []
    for step in trace(DancingLinks.from_problem(problem)):
        if step.action == "try":
            changes = []
            undone = stack[step.level:]
            for o in reversed(undone):
                r, c, _ = place[o]
                if board.start[r, c] == 0 or board.problem == "queens":
                    changes.append((r, c, 0))
            del stack[step.level:]
            assert step.option is not None                # a try names its option
            stack.append(step.option)
            r, c, v = place[step.option]
            what = "queen" if board.problem == "queens" else str(v)
            back = f" (backtracked to level {step.level})" if undone else ""
            yield Event("backtrack" if undone else "place", changes + [(r, c, v)],
                        f"dlx level {step.level}: item {step.item}, option {what} at ({r + 1}, {c + 1}){back}",
                        (r, c))
        elif step.action == "choose" and step.size == 0:
            yield Event("conflict", [], f"dlx level {step.level}: item {step.item} has no option left: back")
        elif step.action == "solution":
            yield Event("solution", [], "dlx: every item covered")
            return


# -- SAT (DPLL over PySAT's propagation) ---------------------------------------------------

def sat_events(board: Board, seed: int = 0, backend: str = "minisat22") -> Iterator[Event]:
    from solvers.sat.counting import pysat_solver

    side = board.side
    if board.problem == "queens":
        clauses = _queens_cnf(side)
        values = 1
        var = lambda r, c, v: r * side + c + 1                       # noqa: E731
    else:
        from solvers.sat.sudoku_cnf import encode
        formula = encode(Grid(board.n, board.start.astype(np.int32)), "extended")
        clauses = [c for c in formula.clauses()]
        values = side
        var = lambda r, c, v: (r * side + c) * side + v              # noqa: E731
    solver = pysat_solver(backend, [clauses])
    rng = np.random.default_rng(seed)
    decisions: list[int] = []            # literals assumed, the last one flipped on a conflict
    flipped: list[bool] = []
    shown = board.start.copy()

    def state(literals: list[int]) -> tuple[np.ndarray, set[int]]:
        true = {lit for lit in literals if lit > 0}
        cells = np.zeros((side, side), dtype=np.int64)
        false = set(-lit for lit in literals if lit < 0)
        for r in range(side):
            for c in range(side):
                for v in range(1, values + 1):
                    if var(r, c, v) in true:
                        cells[r, c] = v
        return cells, false

    def diff(new: np.ndarray) -> list[tuple[int, int, int]]:
        changed = np.argwhere(new != shown)
        out = [(int(r), int(c), int(new[r, c])) for r, c in changed]
        shown[:, :] = new
        return out

    try:
        while True:
            ok, implied = solver.propagate(assumptions=decisions)
            if not ok:
                yield Event("conflict", [], f"sat: conflict after {len(decisions)} decisions: flip the last")
                while flipped and flipped[-1]:
                    decisions.pop()
                    flipped.pop()
                if not decisions:
                    yield Event("conflict", [], "sat: no solution")
                    return
                decisions[-1] = -decisions[-1]
                flipped[-1] = True
                continue
            cells, false = state(list(decisions) + list(implied))
            changes = diff(cells)
            if changes:
                yield Event("propagate", changes, f"sat: {len(decisions)} decisions, unit propagation "
                            f"fixes {int((cells > 0).sum())} cells", changes[-1][:2])
            if board.problem == "sudoku" and (cells > 0).all() or board.problem == "queens" and \
                    (cells > 0).sum() == side:
                yield Event("solution", [], "sat: every cell decided")
                return
            # decide: an open cell with the fewest values left (ties at random, seeded)
            best, options = None, None
            for r in range(side):
                for c in range(side):
                    if cells[r, c] or (board.problem == "queens" and cells[r].any()):
                        continue
                    if board.problem == "queens":
                        left = [1] if var(r, c, 1) not in false else []
                    else:
                        left = [v for v in range(1, values + 1) if var(r, c, v) not in false]
                    if left and (options is None or len(left) < len(options)
                                 or len(left) == len(options) and rng.random() < 0.5):
                        best, options = (r, c), left
            if best is None:
                yield Event("conflict", [], "sat: no open cell can take a value")
                return
            r, c = best
            assert options is not None                    # found with best
            decisions.append(var(r, c, options[0]))
            flipped.append(False)
            yield Event("place", [], f"sat: decide {'a queen' if board.problem == 'queens' else options[0]} "
                        f"at ({r + 1}, {c + 1})", (r, c))
    finally:
        solver.delete()


def _queens_cnf(n: int) -> list[list[int]]:
    """N queens as CNF: x(r, c) = r·N + c + 1; a queen in each rank, at most one per
    rank, file and diagonal (pairwise)."""
    var = lambda r, c: r * n + c + 1                                # noqa: E731
    clauses = [[var(r, c) for c in range(n)] for r in range(n)]
    squares = [(r, c) for r in range(n) for c in range(n)]
    for a, (r1, c1) in enumerate(squares):
        for r2, c2 in squares[a + 1:]:
            if r1 == r2 or c1 == c2 or abs(r1 - r2) == abs(c1 - c2):
                clauses.append([-var(r1, c1), -var(r2, c2)])
    return clauses


# -- frames --------------------------------------------------------------------------------

@dataclass
class Frame:
    cells: np.ndarray
    event: Event
    step: int                  # 1-based index of the event


def events(board: Board, solver: str, seed: int = 0) -> Iterator[Event]:
    """The search steps of the method ``solver`` (one of :data:`SOLVERS`) on ``board``."""
    tracers = {"backtracking": lambda: backtracking_events(board),
               "dlx": lambda: dlx_events(board), "sat": lambda: sat_events(board, seed)}
    if solver not in tracers:
        raise RaceError(f"unknown solver {solver!r} (one of {', '.join(SOLVERS)})")
    return _said_at_the_end(solver, tracers[solver]())


def _said_at_the_end(solver: str, steps: Iterator[Event]) -> Iterator[Event]:
    """``steps``, and when the search ran out without a solution (not cut short: then the
    caller stops drawing first) a last step that says so, as SAT's own tracer does."""
    last = None
    for last in steps:
        yield last
    if last is None or (last.action != "solution" and not last.caption.endswith("no solution")):
        yield Event("conflict", [], f"{solver}: no solution")


def sample(board: Board, steps: Iterator[Event], max_frames: int, max_steps: int):
    """(frames, total steps, cut): at most ``max_frames`` evenly spaced states of the
    first ``max_steps`` steps, the last step always included; ``cut`` is True if the
    search went on past ``max_steps``."""
    collected: list[Event] = []
    cut = False
    for event in steps:
        if len(collected) == max_steps:
            cut = True
            break
        collected.append(event)
    total = len(collected)
    room = max_frames - 1                     # the first frame is the starting board
    if total <= room:
        keep = set(range(total))
    else:
        keep = {int(round(k * (total - 1) / (room - 1))) for k in range(room)} if room > 1 else {total - 1}
    cells = board.start.copy()
    frames = [Frame(board.start.copy(), Event("start", [], "start"), 0)]
    for k, event in enumerate(collected):
        for r, c, v in event.changes:
            cells[r, c] = v
        if k in keep:
            frames.append(Frame(cells.copy(), event, k + 1))
    return frames, total, cut
