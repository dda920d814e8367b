"""The 9x9 puzzle sets bench_batch.py ships (tests/bench/data/minimal9.txt and hard9.txt) and how
they are made: run ``.venv/bin/python tests/bench/batch_data.py`` to make them again (the same
bytes: every choice is seeded).

* minimal9.txt: minimal 9x9 puzzles (every clue necessary, one solution) from the project's
  generator (``race generate --kind minimal --n 3``, :func:`generators.puzzle_set.make`).
* hard9.txt: hard minimal 9x9 puzzles found by a seeded hill climb. It starts from a minimal
  puzzle of the generator and keeps its solution; each step takes away a few clues, adds clues
  of the solution at random until the puzzle has one solution again (counted up to two by the
  bit-set kernel), then takes away every clue it can while the solution stays unique, and keeps
  the result when the bit-set kernel needs at least as many guesses to count its solutions:
  the set is chosen hard for the kernel bench_batch.py measures (a handicap for it, not a help).

:func:`symmetric_copies` makes a large workload of a small set: each copy a puzzle relabelled and
shuffled by the symmetries of Sudoku (digits, rows in a band, bands, columns in a stack, stacks,
transposition), which keep its clue count and its number of solutions.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DATA = ROOT / "tests" / "bench" / "data"
MINIMAL = DATA / "minimal9.txt"
HARD = DATA / "hard9.txt"
SEED = 49


def read(path: Path) -> np.ndarray:
    """The puzzles of a one-line 9x9 file as a (P, 9, 9) int32 array."""
    from formats import grid_text
    parsed = grid_text.parse_one_line_many(path.read_text(), str(path))
    assert parsed is not None, path
    n, puzzles = parsed
    assert n == 3, path
    return puzzles


def lines(puzzles: np.ndarray) -> str:
    """``puzzles`` as the text of a one-line file ('.' for an empty cell)."""
    alphabet = np.array(list(".123456789"))
    return "".join("".join(alphabet[p.ravel()]) + "\n" for p in puzzles)


def symmetric_copies(puzzles: np.ndarray, count: int, seed: int) -> np.ndarray:
    """``count`` puzzles: ``puzzles`` first, then symmetric copies of them in turn (seeded)."""
    rng = np.random.default_rng(seed)
    out = np.empty((count, 9, 9), dtype=puzzles.dtype)
    for i in range(count):
        cells = puzzles[i % len(puzzles)]
        if i >= len(puzzles):
            rows = np.concatenate([b * 3 + rng.permutation(3) for b in rng.permutation(3)])
            cols = np.concatenate([b * 3 + rng.permutation(3) for b in rng.permutation(3)])
            digits = np.concatenate([[0], rng.permutation(9) + 1]).astype(cells.dtype)
            cells = digits[cells[rows][:, cols]]
            cells = cells.T if rng.random() < 0.5 else cells
        out[i] = cells
    return out


def minimal_puzzles(count: int, seed: int = SEED) -> np.ndarray:
    """``count`` minimal 9x9 puzzles of the project's generator (set ``seed``)."""
    from generators.puzzle_set import CounterPool, make
    with CounterPool() as pool:
        return np.stack([make("minimal", 3, seed, i, pool=pool)[0].cells for i in range(count)])


def _unique(puzzles: np.ndarray) -> np.ndarray:
    from solvers import bitset9_native
    counts, _, _, _ = bitset9_native.solve_many(puzzles, limit=2)
    return counts == 1


def _minimal(puzzle: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``puzzle`` (unique) with clues taken away in random order while it stays unique."""
    puzzle = puzzle.copy().ravel()
    for cell in rng.permutation(np.flatnonzero(puzzle)):
        value = puzzle[cell]
        puzzle[cell] = 0
        if not _unique(puzzle[None])[0]:
            puzzle[cell] = value
    return puzzle.reshape(9, 9)


def _hardness(puzzle: np.ndarray) -> int:
    """The guesses of the bit-set kernel's whole search (counting solutions up to two)."""
    from solvers import bitset9_native
    _, guesses, _, _ = bitset9_native.solve_many(puzzle[None], limit=2)
    return int(guesses[0])


def hard_puzzle(start: np.ndarray, solution: np.ndarray, rng: np.random.Generator,
                steps: int) -> np.ndarray:
    """The hill climb of the module docstring from the minimal puzzle ``start``."""
    best, score = start, _hardness(start)
    for _ in range(steps):
        puzzle = best.copy().ravel()
        clues = np.flatnonzero(puzzle)
        puzzle[rng.choice(clues, size=min(3, len(clues)), replace=False)] = 0
        empty = rng.permutation(np.flatnonzero(puzzle == 0))
        for cell in empty:
            if _unique(puzzle.reshape(1, 9, 9))[0]:
                break
            puzzle[cell] = solution.ravel()[cell]
        candidate = _minimal(puzzle.reshape(9, 9), rng)
        nodes = _hardness(candidate)
        if nodes >= score:
            best, score = candidate, nodes
    return best


def hard_puzzles(count: int, seed: int = SEED, steps: int = 3000) -> np.ndarray:
    """``count`` hard minimal 9x9 puzzles (module docstring), ``steps`` climb steps each."""
    from solvers import bitset9_native
    rng = np.random.default_rng(seed)
    starts = minimal_puzzles(count, seed + 1)
    _, _, _, solutions = bitset9_native.solve_many(starts, limit=1)
    return np.stack([hard_puzzle(starts[i], solutions[i].reshape(9, 9), rng, steps)
                     for i in range(count)])


def main() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    MINIMAL.write_text(lines(minimal_puzzles(300)))
    print(f"wrote {MINIMAL}", flush=True)
    HARD.write_text(lines(hard_puzzles(50)))
    print(f"wrote {HARD}", flush=True)


if __name__ == "__main__":
    main()
