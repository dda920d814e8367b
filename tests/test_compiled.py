"""formats.compiled: kernels compiled on first call, the same answers interpreted, and
`race solve` of a few 9x9 puzzles with DLX answering without importing numba."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from formats import compiled
from formats.compiled import Kernel, interpreted, kernel

SAMPLE = Path(__file__).parent / "bench" / "data" / "sudoku17_sample.txt"


@kernel(cache=False)
def _leaf(x):
    return x * 3 + 1


@kernel(cache=False)
def _calls_leaf(a):
    total = 0
    for v in a:
        total += _leaf(v)
    return total


@kernel(cache=False)
def _factorial(k):
    if k <= 1:
        return 1
    return k * _factorial(k - 1)


@kernel(cache=False)
def _square(x):
    return x * x


@kernel(cache=False)
def _sum_of_squares(a):
    total = 0
    for v in a:
        total += _square(v)
    return total


def test_threads_racing_to_compile_the_same_kernels_all_get_the_answer():
    from concurrent.futures import ThreadPoolExecutor
    a = np.arange(10, dtype=np.int64)
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: _sum_of_squares(a), range(8)))
    assert answers == [285] * 8


def test_a_kernel_is_lazy_until_called_then_numba_compiles_it():
    fresh = Kernel(lambda x: x + 1, {"cache": False})
    assert "not compiled yet" in repr(fresh)
    assert fresh(np.int64(41)) == 42
    assert "(compiled)" in repr(fresh)
    assert type(fresh.compiled()).__module__.startswith("numba")


def test_kernels_calling_kernels_and_themselves_compile():
    a = np.arange(5, dtype=np.int64)
    assert _calls_leaf(a) == sum(3 * v + 1 for v in range(5)) == 35
    assert _factorial(10) == 3628800
    # the module globals they name are numba dispatchers now (numba types calls through them)
    assert not isinstance(globals()["_leaf"], Kernel)
    assert not isinstance(globals()["_factorial"], Kernel)


def test_interpreted_runs_the_python_function_and_nests():
    calls = []
    probe = Kernel(lambda x: calls.append(x) or x, {"cache": False})
    assert not compiled.is_interpreted()
    with interpreted():
        with interpreted(False):            # a no-op inside: still interpreted
            assert compiled.is_interpreted()
        assert probe(7) == 7
    assert calls == [7] and not compiled.is_interpreted()
    assert "not compiled yet" in repr(probe)   # interpreted calls never compiled it


def test_dlx_gives_the_same_answers_interpreted_and_compiled():
    from formats import grid_text
    from solvers import rules
    from solvers.exact_cover import batch
    n, puzzles = grid_text.parse_one_line_many("\n".join(SAMPLE.read_text().splitlines()[:40]) + "\n")
    counts, nodes, complete, solutions = batch.dlx_many(puzzles, n, limit=2)
    with interpreted():
        counts_i, nodes_i, complete_i, solutions_i = batch.dlx_many(puzzles, n, limit=2)
    assert (counts == 1).all() and complete.all()
    assert np.array_equal(counts, counts_i) and np.array_equal(nodes, nodes_i)
    assert np.array_equal(complete, complete_i) and np.array_equal(solutions, solutions_i)
    assert rules.are_solutions_of(puzzles, solutions_i, n).all()


def _race_in_fresh_interpreter(args: list[str]) -> tuple[str, bool]:
    """(stdout, whether the work ran compiled: numba loaded, or the batch path's C kernel
    (solvers.dlx_native) asked for, which happens only outside interpreted mode)."""
    code = ("import sys\nfrom experiments.cli.main import main\n"
            f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
            "native = 'solvers.dlx_native' in sys.modules and "
            "sys.modules['solvers.dlx_native'].NATIVE.tried\n"
            "print('numba' in sys.modules or native, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=Path(__file__).parents[1])
    return proc.stdout, proc.stderr.strip().splitlines()[-1] == "True"


def test_race_solve_of_a_few_9x9_with_dlx_does_not_import_numba(tmp_path):
    lines = SAMPLE.read_text().splitlines()[:3]
    path = tmp_path / "three.txt"
    path.write_text("\n".join(lines) + "\n")
    out, compiled = _race_in_fresh_interpreter(["solve", "-s", "dlx", str(path)])
    assert not compiled
    from formats.grid_text import parse
    from solvers.rules import is_solution_of
    answers = parse(out, "out").grids
    assert len(answers) == 3
    for puzzle, answer in zip(parse(path.read_text(), "in").grids, answers):
        assert is_solution_of(puzzle, answer)


@pytest.mark.parametrize("args", [["count", "-s", "dlx"], ["solve", "-s", "backtracking"]])
def test_counting_and_other_solvers_stay_compiled(tmp_path, args):
    path = tmp_path / "one.txt"
    path.write_text(SAMPLE.read_text().splitlines()[0] + "\n")
    out, compiled = _race_in_fresh_interpreter(args + [str(path)])
    assert compiled and out.strip()


def test_many_puzzles_stay_compiled(tmp_path):
    from solvers.exact_cover.dlx import DLX
    INTERPRETED_MAX_PUZZLES = DLX.INTERPRETED_MAX_PUZZLES
    path = tmp_path / "many.txt"
    path.write_text("\n".join(SAMPLE.read_text().splitlines()[:INTERPRETED_MAX_PUZZLES + 1]) + "\n")
    out, compiled = _race_in_fresh_interpreter(["solve", "-s", "dlx", str(path)])
    assert compiled and len(out.split()) == INTERPRETED_MAX_PUZZLES + 1


def _holes_puzzle_file(tmp_path, n: int, blanks: float, seed: int) -> Path:
    from formats.grid_text import format_native
    from tests.conftest import full_grid, puzzle_from
    rng = np.random.default_rng(seed)
    path = tmp_path / f"p{n}.sudoku"
    path.write_text(format_native(puzzle_from(full_grid(n, rng), blanks, rng), {}))
    return path


@pytest.mark.parametrize("spec,n", [("sat", 5), ("sat", 8), ("kissat", 8),
                                    ("sat:encoding=extended", 3)])
def test_race_solve_with_sat_at_small_n_does_not_import_numba(tmp_path, spec, n):
    """The SAT entrants build and load their formula interpreted up to their encoding's
    INTERPRETED_MAX_N_OF, and the answer is still verified against the clues."""
    from formats.grid_text import parse
    from solvers.registry import parse_spec
    from solvers.rules import is_solution_of
    from solvers.sat.solver import SAT
    assert SAT.interpreted(n, 1, 1, parse_spec(spec)[1])
    path = _holes_puzzle_file(tmp_path, n, 0.3, seed=n)
    out, compiled = _race_in_fresh_interpreter(["solve", "-s", spec, str(path)])
    assert not compiled
    (answer,) = parse(out, "out").grids
    assert is_solution_of(parse(path.read_text(), "in").grids[0], answer)


def test_race_count_with_sat_at_small_n_is_interpreted_and_exact(tmp_path):
    """An empty 4x4 has 288 solutions: the count is the SAT solver's, interpreted or not."""
    path = tmp_path / "empty.txt"
    path.write_text(". . . .\n. . . .\n. . . .\n. . . .\n")
    out, compiled = _race_in_fresh_interpreter(["count", "-s", "sat", str(path)])
    assert not compiled and out.split() == ["288"]


def test_race_solve_with_sat_beyond_the_interpreted_sizes_compiles(tmp_path):
    from formats.grid_text import parse
    from solvers.rules import is_solution_of
    from solvers.sat.solver import SAT
    n = SAT.INTERPRETED_MAX_N_OF["extended"] + 1
    assert not SAT.interpreted(n, 1, 1, {"encoding": "extended"})
    path = _holes_puzzle_file(tmp_path, n, 0.1, seed=n)
    out, compiled = _race_in_fresh_interpreter(["solve", "-s", "sat:encoding=extended",
                                                    str(path)])
    assert compiled
    (answer,) = parse(out, "out").grids
    assert is_solution_of(parse(path.read_text(), "in").grids[0], answer)


def _puzzles_for_equivalence():
    """Seeded puzzles of n = 2..8, some with a random wrong clue (contradictions)."""
    from tests.conftest import full_grid, puzzle_from
    for n, blanks, count in ((2, 0.7, 20), (3, 0.6, 20), (3, 0.8, 10), (4, 0.6, 8),
                             (5, 0.6, 4), (6, 0.45, 3), (8, 0.33, 2)):
        for seed in range(count):
            rng = np.random.default_rng([n, seed])
            grid = puzzle_from(full_grid(n, rng), blanks, rng)
            if seed % 3 == 1:
                grid.cells.flat[rng.integers(grid.cells.size)] = rng.integers(1, n * n + 1)
            yield grid


def test_the_vectorised_propagation_reaches_the_kernels_fixpoint():
    """rules.propagate interpreted (numpy rounds) and compiled (the incremental kernel):
    the same cells, candidates and contradictions."""
    from solvers import rules
    contradictions = 0
    for grid in _puzzles_for_equivalence():
        compiled_found = rules.propagate(grid.cells, grid.n)
        with interpreted():
            numpy_found = rules.propagate(grid.cells, grid.n)
        assert numpy_found.contradiction == compiled_found.contradiction
        contradictions += compiled_found.contradiction
        if not compiled_found.contradiction:
            assert numpy_found.undecided == compiled_found.undecided
            assert numpy_found.cells.dtype == compiled_found.cells.dtype
            assert np.array_equal(numpy_found.cells, compiled_found.cells)
            assert np.array_equal(numpy_found.candidates, compiled_found.candidates)
    assert contradictions >= 5


def test_the_vectorised_propagation_follows_long_chains_of_singles():
    """Puzzles that singles solve to the end one step after another (each hole made only
    while the singles still fill the grid): the incremental numpy rounds (50-150 of
    them here) reach the kernel's fixpoint, the full grid."""
    from solvers import rules
    from tests.conftest import full_grid
    for n in (4, 5, 6):
        rng = np.random.default_rng(n)
        solution = full_grid(n, rng).cells
        cells = solution.copy()
        for cell in rng.permutation(cells.size):
            cells.flat[cell] = 0
            if rules.propagate(cells, n).undecided != 0:
                cells.flat[cell] = solution.flat[cell]
        assert (cells == 0).mean() > 0.5
        with interpreted():
            found = rules.propagate(cells, n)
        assert found.undecided == 0 and np.array_equal(found.cells, solution)
        assert np.array_equal(found.candidates, rules.propagate(cells, n).candidates)


def test_the_reduced_formula_and_its_dimacs_are_the_same_interpreted():
    from formats import dimacs
    from solvers.sat import sudoku_cnf
    for grid in _puzzles_for_equivalence():
        compiled_formula = sudoku_cnf.encode_reduced(grid)
        compiled_text = dimacs.dumps(compiled_formula.nvars, compiled_formula.blocks)
        with interpreted():
            numpy_formula = sudoku_cnf.encode_reduced(grid)
            numpy_text = dimacs.dumps(numpy_formula.nvars, numpy_formula.blocks)
        assert numpy_text == compiled_text
        assert np.array_equal(numpy_formula.var_cell, compiled_formula.var_cell)
        assert np.array_equal(numpy_formula.fixed, compiled_formula.fixed)


@pytest.mark.parametrize("width", [0, 1, 2, 5])
def test_the_dimacs_text_is_the_kernels_bytes_for_any_clause_width(width):
    from formats.dimacs import format_clauses, format_clauses_text
    rng = np.random.default_rng(width)
    block = rng.integers(1, 10**6, size=(7, width)).astype(np.int32) * rng.choice([-1, 1], (7, width))
    buffer = np.empty(7 * (12 * width + 2), np.uint8)
    used = format_clauses(block.astype(np.int32), buffer)
    assert format_clauses_text(block.astype(np.int32)) == bytes(buffer[:used])


def _handler_seen(monkeypatch, kern):
    """The SIGINT handler in force while ``kern``'s compiled code runs (a Python stand-in
    for the dispatcher records it)."""
    import signal
    seen = []
    monkeypatch.setattr(Kernel, "compiled", lambda self: lambda *args: seen.append(signal.getsignal(signal.SIGINT)))
    kern(1)
    return seen[0]


def test_a_long_running_kernel_leaves_ctrl_c_its_default_action_only_when_asked(monkeypatch):
    """Compiled code never returns to the interpreter, so KeyboardInterrupt would wait for the
    end of a search: with ctrl_c_stops_kernels() (the race CLI) a long_running kernel runs with
    SIGINT's default action (the process ends) and Python's handler is back afterwards; not
    for other kernels, not without the switch (the harness's workers), and never over a
    handler of the caller's (a campaign's clean stop)."""
    import signal
    long_one = Kernel(lambda x: x, {"long_running": True})
    short_one = Kernel(lambda x: x, {})
    assert long_one.long_running and "long_running" not in long_one.options   # not numba's
    monkeypatch.setattr(compiled, "_ctrl_c_stops", False)
    assert _handler_seen(monkeypatch, long_one) is signal.default_int_handler
    compiled.ctrl_c_stops_kernels()
    assert _handler_seen(monkeypatch, long_one) == signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert _handler_seen(monkeypatch, short_one) is signal.default_int_handler

    def own(signum, frame):
        pass
    previous = signal.signal(signal.SIGINT, own)
    try:
        assert _handler_seen(monkeypatch, long_one) is own
    finally:
        signal.signal(signal.SIGINT, previous)


_SPIN = """
import sys
sys.path.insert(0, sys.argv[1])
from formats.compiled import ctrl_c_stops_kernels, kernel

@kernel(cache=False, long_running=True)
def spin(n):
    x = 0
    for i in range(n):
        x = (x * 31 + i) % 1000003
    return x

spin(10)                        # compiled before the clock starts
ctrl_c_stops_kernels()
print("spinning", flush=True)
print(spin(10 ** 13))           # hours
"""


def test_ctrl_c_ends_a_process_inside_a_long_compiled_search():
    """End to end: SIGINT stops a process inside a long_running kernel (it would otherwise run
    for hours, the interrupt pending until the kernel returned)."""
    import signal
    import time
    proc = subprocess.Popen([sys.executable, "-c", _SPIN, str(Path(__file__).parent.parent)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "spinning\n"
        time.sleep(0.3)                                  # inside the kernel by now
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGINT, proc.stderr.read()
