"""Shared test fixtures: valid full grids and puzzles made from them; whether a process runs."""

from __future__ import annotations

import numpy as np
import pytest

from formats.grid import Grid


def pytest_configure(config) -> None:
    """Ctrl-C as on a terminal: a suite started in the background (``make test &``, nohup)
    inherits SIGINT ignored, which every process it starts would inherit too, and the tests of
    what Ctrl-C does would test nothing. Python's own handler, as an interactive shell gives it."""
    import signal
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def full_grid(n: int, rng: np.random.Generator) -> Grid:
    """A random valid solved grid: the pattern grid with rows and columns
    shuffled within bands/stacks, bands and stacks shuffled, and digits relabelled."""
    side = n * n
    i, j = np.indices((side, side))
    base = (i * n + i // n + j) % side + 1
    rows = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    cols = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    digits = np.concatenate([[0], rng.permutation(side) + 1])
    return Grid(n, digits[base[rows][:, cols]])


def puzzle_from(solution: Grid, blanks: float, rng: np.random.Generator) -> Grid:
    """``solution`` with a fraction ``blanks`` of its cells emptied at random."""
    cells = solution.cells.copy().ravel()
    drop = rng.choice(cells.size, size=int(round(blanks * cells.size)), replace=False)
    cells[drop] = 0
    return Grid(solution.n, cells.reshape(solution.cells.shape))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(12345)


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs: gone, or a zombie that nobody reaps (state Z or X in
    ``/proc/<pid>/stat``), counts as dead."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
