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
from solvers import batch, dlx_native
from solvers.dlx import full_links

ROOT = Path(__file__).resolve().parents[1]
HARD9 = Path(__file__).parent / "data" / "hard9.txt"
SAMPLE17 = Path(__file__).parent / "bench" / "data" / "sudoku17_sample.txt"

needs_native = pytest.mark.skipif(dlx_native.library() is None,
                                  reason=f"the C kernel could not be built: {dlx_native.why_not}")


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
    code = ("import sys; from experiments.cli import main; sys.argv = ['race', 'solve', '-s', 'dlx', "
            f"{str(path)!r}]\ntry:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
            "print('numba' in sys.modules, code, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stderr.strip().splitlines()[-1] == "False 0"
    lines = done.stdout.split()
    assert len(lines) == len(SAMPLE17.read_text().split())
    _, solved = grid_text.parse_one_line_many("\n".join(lines) + "\n")
    _, given = grid_text.parse_one_line_many(SAMPLE17.read_text())
    assert ((solved == given) | (given == 0)).all() and (solved > 0).all()


def test_without_a_compiler_the_batch_path_falls_back_to_numba(tmp_path, monkeypatch):
    monkeypatch.setattr(dlx_native, "_cache_dirs", lambda: [tmp_path / "a", tmp_path / "b"])
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    dlx_native.library.cache_clear()
    try:
        assert dlx_native.library() is None
        assert "no C compiler" in dlx_native.why_not and str(tmp_path / "a") in dlx_native.why_not
        n, puzzles = grid_text.parse_one_line_many(HARD9.read_text())
        counts, nodes, complete, solutions = batch.dlx_many(puzzles, n, limit=2)
        assert (counts == 1).all() and complete.all() and (nodes > 1).all()
        with interpreted():
            ref = batch.dlx_many(puzzles, n, limit=2)
        assert all(np.array_equal(a, b) for a, b in zip((counts, nodes, complete, solutions), ref))
    finally:
        dlx_native.library.cache_clear()


def test_a_failing_compiler_and_race_native_0_are_named(tmp_path, monkeypatch):
    monkeypatch.setattr(dlx_native, "_cache_dirs", lambda: [tmp_path / "a"])
    bad = tmp_path / "badcc"
    bad.write_text("#!/bin/sh\necho 'boom: broken compiler' >&2\nexit 1\n")
    bad.chmod(0o755)
    monkeypatch.setenv("CC", str(bad))
    dlx_native.library.cache_clear()
    try:
        assert dlx_native.library() is None and "boom: broken compiler" in dlx_native.why_not
        assert not list((tmp_path / "a").glob("*.so"))           # no half-built library left
        monkeypatch.setenv("RACE_NATIVE", "0")
        dlx_native.library.cache_clear()
        assert dlx_native.library() is None and "RACE_NATIVE=0" in dlx_native.why_not
    finally:
        dlx_native.library.cache_clear()


@needs_native
def test_an_edited_source_is_built_again(tmp_path, monkeypatch):
    """The library's name carries the source's hash: a changed source never loads a stale build."""
    source = tmp_path / "dlx_native.c"
    source.write_text(dlx_native.SOURCE.read_text())
    monkeypatch.setattr(dlx_native, "SOURCE", source)
    monkeypatch.setattr(dlx_native, "_cache_dirs", lambda: [tmp_path / "cache"])
    dlx_native.library.cache_clear()
    try:
        assert dlx_native.library() is not None
        source.write_text(source.read_text() + "\n/* edited */\n")
        dlx_native.library.cache_clear()
        assert dlx_native.library() is not None
        assert len(list((tmp_path / "cache").glob("dlx_native-*.so"))) == 2
    finally:
        dlx_native.library.cache_clear()


@needs_native
def test_a_corrupt_library_in_the_first_place_is_passed_over(tmp_path, monkeypatch):
    """A truncated library (a full disk mid-build, say) in the first cache folder: the second
    folder gets a good build, and the batch path answers."""
    source = tmp_path / "dlx_native.c"
    source.write_text(dlx_native.SOURCE.read_text() + "\n/* a source never loaded before */\n")
    monkeypatch.setattr(dlx_native, "SOURCE", source)
    monkeypatch.setattr(dlx_native, "_cache_dirs", lambda: [tmp_path / "a", tmp_path / "b"])
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / dlx_native.library_name(source.read_bytes())).write_bytes(b"\x7fELF" + b"\0" * 60)
    dlx_native.library.cache_clear()
    try:
        assert dlx_native.library() is not None
        assert list((tmp_path / "b").glob("dlx_native-*.so"))
        n, puzzles = grid_text.parse_one_line_many(HARD9.read_text())
        assert (batch.dlx_many(puzzles, n)[0] == 1).all()
    finally:
        dlx_native.library.cache_clear()
