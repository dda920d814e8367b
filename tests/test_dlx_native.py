"""solvers.dlx_native: the C port of the batch DLX kernel gives, puzzle by puzzle, the numba
kernel's counts, node counts, completeness and first solutions; it leaves the links as it
found them; without a compiler the batch path falls back to numba with the same answers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from formats import grid_text
from formats.compiled import interpreted
from solvers import dlx_native
from solvers.exact_cover import batch
from solvers.exact_cover.dlx import full_links

ROOT = Path(__file__).resolve().parents[1]
HARD9 = Path(__file__).parent / "data" / "hard9.txt"
SAMPLE17 = Path(__file__).parent / "bench" / "data" / "sudoku17_sample.txt"

needs_native = pytest.mark.skipif(dlx_native.library() is None,
                                  reason=f"the C kernel could not be built: {dlx_native.NATIVE.why_not}")


def _puzzles(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """Puzzles of box size n from random full grids with random holes (from few to many
    solutions), some with a clue changed (often no solution: a conflict or a dead end)."""
    from tests.conftest import full_grid
    side = n * n
    out = []
    for i in range(count):
        cells = full_grid(n, rng).cells.copy()
        cells[rng.random((side, side)) < rng.uniform(0.3, 0.9)] = 0
        if i % 4 == 3:
            where = tuple(rng.integers(0, side, 2))
            cells[where] = rng.integers(1, side + 1)
        out.append(cells)
    return np.stack(out).astype(np.int32)


def _both(puzzles: np.ndarray, n: int, limit: int, node_limit: int):
    """(numba kernel's answers, C kernel's answers) on the same puzzles."""
    def run(search):
        links = full_links(n).copy()
        count = len(puzzles)
        solutions = np.zeros_like(puzzles)
        counts = np.zeros(count, np.int64)
        nodes = np.zeros(count, np.int64)
        complete = np.zeros(count, np.bool_)
        search(links, puzzles, n, limit, node_limit, solutions, counts, nodes, complete)
        assert np.array_equal(links, full_links(n)), "the kernel left the links changed"
        solutions[counts == 0] = 0                 # undefined where there is none
        return counts, nodes, complete, solutions
    return run(batch._dlx_kernel), run(dlx_native.count_many)


@needs_native
def test_the_c_kernel_gives_the_numba_kernels_answers():
    """Puzzle by puzzle, for n = 2, 3, 4 and several limits and budgets: the same counts, node
    counts, completeness and first solutions; every outcome (none, one, several, stopped by
    the budget) occurs among the cases."""
    outcomes = set()
    for n in (2, 3, 4):
        for limit, node_limit in ((1, 0), (2, 0), (0, 0), (1, 25), (3, 200)):
            rng = np.random.default_rng([n, limit, node_limit])
            puzzles = _puzzles(n, {2: 60, 3: 40, 4: 12}[n], rng)
            if limit == 0:             # counting all: few enough solutions to count them
                puzzles = puzzles[(puzzles > 0).mean(axis=(1, 2)) > {2: 0.1, 3: 0.4, 4: 0.5}[n]]
            numba_answers, c_answers = _both(puzzles, n, limit, node_limit)
            for a, b in zip(numba_answers, c_answers):
                assert np.array_equal(a, b), (n, limit, node_limit)
            counts, _, complete, _ = numba_answers
            outcomes |= {min(int(c), 2) for c in counts[complete]}
            outcomes |= {"stopped"} if not complete.all() else set()
    assert outcomes == {0, 1, 2, "stopped"}


@needs_native
def test_the_c_kernel_on_17_clue_and_hard_puzzles():
    _, sample = grid_text.parse_one_line_many(SAMPLE17.read_text(), str(SAMPLE17))
    _, hard = grid_text.parse_one_line_many(HARD9.read_text(), str(HARD9))
    puzzles = np.ascontiguousarray(np.concatenate([sample, hard]), dtype=np.int32)
    numba_answers, c_answers = _both(puzzles, 3, 2, 0)
    for a, b in zip(numba_answers, c_answers):
        assert np.array_equal(a, b)
    assert (numba_answers[0] == 1).all()


@needs_native
def test_the_batch_path_uses_the_c_kernel_without_importing_numba(tmp_path):
    """`race solve` over a one-line file: the answers verified, numba never imported."""
    path = tmp_path / "many.txt"
    path.write_text(SAMPLE17.read_text())
    code = ("import sys; from experiments.cli.main import main; sys.argv = ['race', 'solve', '-s', 'dlx', "
            f"{str(path)!r}]\ntry:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
            "print('numba' in sys.modules, code, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stderr.strip().splitlines()[-1] == "False 0"
    lines = done.stdout.split()
    assert len(lines) == len(SAMPLE17.read_text().split())
    _, solved = grid_text.parse_one_line_many("\n".join(lines) + "\n")
    _, given = grid_text.parse_one_line_many(SAMPLE17.read_text())
    assert ((solved == given) | (given == 0)).all() and (solved > 0).all()


@pytest.fixture
def private_native(tmp_path, monkeypatch):
    """dlx_native's library built at run time (as in a checkout whose source was edited after
    the package's build) in tmp/a, then tmp/b only; forgotten after."""
    monkeypatch.setattr(dlx_native.NATIVE, "cache_dirs", lambda: [tmp_path / "a", tmp_path / "b"])
    monkeypatch.setattr(dlx_native.NATIVE, "built", lambda: tmp_path / "not-built.so")
    dlx_native.NATIVE.forget()
    yield dlx_native.NATIVE
    dlx_native.NATIVE.forget()


def test_without_a_compiler_the_batch_path_falls_back_to_numba(tmp_path, monkeypatch, private_native):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert dlx_native.library() is None
    assert "no C compiler" in private_native.why_not and str(tmp_path / "a") in private_native.why_not
    n, puzzles = grid_text.parse_one_line_many(HARD9.read_text())
    counts, nodes, complete, solutions = batch.dlx_many(puzzles, n, limit=2)
    assert (counts == 1).all() and complete.all() and (nodes > 1).all()
    with interpreted():
        ref = batch.dlx_many(puzzles, n, limit=2)
    assert all(np.array_equal(a, b) for a, b in zip((counts, nodes, complete, solutions), ref))


@needs_native
def test_a_corrupt_library_in_the_first_place_is_built_again(tmp_path, private_native, capsys):
    """A truncated library (a full disk mid-build, say) in the first cache folder does not have
    the digest recorded at its build: it is not loaded but built again there, and the batch
    path answers."""
    (tmp_path / "a").mkdir(mode=0o700)
    target = tmp_path / "a" / private_native.name(private_native.source.read_bytes())
    target.write_bytes(b"\x7fELF" + b"\0" * 60)
    assert dlx_native.library() is not None and private_native.path == target
    assert target.stat().st_size > 64 and "not loading" in capsys.readouterr().err
    n, puzzles = grid_text.parse_one_line_many(HARD9.read_text())
    assert (batch.dlx_many(puzzles, n)[0] == 1).all()
