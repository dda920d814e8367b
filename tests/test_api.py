"""The Python API (``sudoku_race``): each function against the command line it stands for, and
every Python example of docs/api.md and README.md run as written (doctest, in order, from a
working directory like the shell examples')."""

from __future__ import annotations

import doctest
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sudoku_race as race
from formats import grid_text
from solvers import rules
from tests.doc_examples import ROOT, fenced_blocks, workdir

PUZZLE9 = (ROOT / "tests" / "data" / "hard9.txt").read_text().splitlines()[0]
EMPTY4 = ROOT / "tests" / "data" / "empty4.sudoku"
#: the documents whose ``python`` blocks are run (a block without ``>>>`` shows code only)
PYTHON_DOCUMENTS = (ROOT / "docs" / "api.md", ROOT / "README.md")


def python_examples(path: Path) -> list[tuple[int, str]]:
    """(line, text) of each ``python`` block of ``path`` written as an interactive session."""
    return [(line, "\n".join(body) + "\n")
            for line, lang, body, _ in fenced_blocks(path.read_text(encoding="utf-8"))
            if lang == "python" and any(text.startswith(">>> ") for text in body)]


@pytest.mark.parametrize("path", PYTHON_DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_example_runs_and_prints_what_it_shows(path, tmp_path, monkeypatch):
    """Each block's session runs after the ones before it (one namespace per document), in a
    working directory holding the fixtures the shell examples get."""
    blocks = python_examples(path)
    if path.name == "api.md":
        assert len(blocks) >= 6
    monkeypatch.chdir(workdir(tmp_path / "work"))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    namespace: dict = {}
    for line, text in blocks:
        test = parser.get_doctest(text, namespace, f"{path.name}:{line}", str(path), line)
        runner.run(test, clear_globs=False)
        namespace.update(test.globs)               # DocTest works on a copy of the namespace
    assert runner.failures == 0, f"{runner.failures} example(s) of {path.name} failed (above)"
    assert runner.tries >= (20 if path.name == "api.md" else 0)


def test_the_package_docstring_example_runs():
    found = doctest.testmod(race, optionflags=doctest.ELLIPSIS)
    assert found.attempted >= 3 and found.failed == 0


def test_the_namespace_imports_from_anywhere_without_the_heavy_modules(tmp_path):
    """``import sudoku_race`` works outside the repository (the installed package) and
    imports neither numba, pandas nor matplotlib until a function needs them."""
    code = ("import sys, sudoku_race; "
            "print(sudoku_race.__file__); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'pandas', 'matplotlib'}))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=True)
    where, heavy = done.stdout.splitlines()
    assert Path(where).parent.name == "sudoku_race" and heavy == "[]"


def test_a_puzzle_from_every_form_is_the_same_grid(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(PUZZLE9 + "\n")
    grid = race.puzzle(PUZZLE9)
    native = grid_text.format_native(grid)
    for source in (grid, str(path), path, native, grid.cells, grid.cells.tolist(),
                   grid_text.parse(PUZZLE9)):
        assert race.puzzle(source) == grid
    with pytest.raises(race.RaceError, match="holds 4 puzzles, one expected"):
        race.puzzle(ROOT / "tests" / "data" / "hard9.txt")
    for bad, why in (([[1, 2, 3]], "shape"), (np.zeros((5, 5), dtype=int), "square"),
                     (np.full((4, 4), 0.5), "integers"), ("12x", "puzzle text.*3 characters")):
        with pytest.raises(race.RaceError, match=why):
            race.puzzle(bad)


def test_solve_and_count_answer_as_the_command_line_does():
    result = race.solve(PUZZLE9)
    assert result.status == "solved" and rules.is_solution_of(race.puzzle(PUZZLE9), result.solution)
    for spec in ("dlx", "backtracking", "sat", "kissat", "bitset"):
        assert race.solve(PUZZLE9, spec).solution == result.solution        # unique solution
    assert race.count(EMPTY4).count == 288 and race.count(EMPTY4).complete
    capped = race.count(EMPTY4, limit=5)
    assert capped.count == 5 and capped.limit_hit
    conflict = np.zeros((4, 4), dtype=int)
    conflict[0, :2] = 1
    assert race.solve(conflict).status == "unsat"
    with pytest.raises(race.RaceError, match="limit must be >= 1"):
        race.count(EMPTY4, limit=0)
    with pytest.raises(race.RaceError, match="did you mean dlx"):
        race.solve(PUZZLE9, "dxl")


def test_a_no_solution_claim_is_confirmed_by_a_second_method(monkeypatch):
    """A solver that claims "no solution" on a solvable puzzle is caught (status wrong), as
    ``race solve`` catches it: the API never returns an unchecked claim."""
    from solvers.interface import RawAnswer
    from sudoku_race import answers
    lying = answers._solver("dlx")
    monkeypatch.setattr(lying, "search", lambda grid, limit, keep: RawAnswer(0, [], complete=True))
    assert race.solve(PUZZLE9, "dlx").status == "wrong"


def test_generate_makes_the_puzzles_race_generate_makes():
    out = subprocess.run([str(Path(sys.executable).parent / "race"), "generate", "--n", "3",
                          "--family", "hard", "--instances", "2", "--seed", "4"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    cli = [grid_text.parse(block).grids[0] for block in out.split("\n\n") if block.strip()]
    assert race.generate(3, "hard", count=2, seed=4) == cli
    assert race.generate(3, count=2, seed=4) != cli
    with pytest.raises(race.RaceError, match="unknown family"):
        race.generate(3, "hardest")
    with pytest.raises(race.RaceError, match="--holes goes with"):
        race.generate(3, "unique", holes=0.5)
    with pytest.raises(race.RaceError, match="count must be an integer >= 1"):
        race.generate(3, count=0)


def test_run_reports_progress_resumes_and_compares(tmp_path):
    calls: list[tuple[int, int, str]] = []
    results = race.run([2], ["dlx", "backtracking"], family="unique", instances=2, timeout=5,
                       jobs=1, out=tmp_path, campaign="api",
                       progress=lambda done, total, row: calls.append((done, total, row["entrant"])))
    assert [c[:2] for c in calls] == [(k, 4) for k in range(1, 5)]
    assert sorted(c[2] for c in calls) == ["backtracking"] * 2 + ["dlx"] * 2
    assert results.path == tmp_path / "api" and len(results.runs) == 4
    assert set(results.summary["entrant"]) == {"dlx", "backtracking"}
    assert (results.summary["solved"] == 2).all() and "virtual best" in str(results)
    again = race.run([2], ["dlx", "backtracking"], family="unique", instances=2, timeout=5,
                     jobs=1, out=tmp_path, campaign="api", progress=lambda *a: calls.append(a))
    assert len(calls) == 4 and len(again.runs) == 4            # resumed: nothing ran again
    versus = race.compare(again, "dlx", "backtracking", n=2)
    assert versus.table["pairs"].tolist() == [2] and "A = dlx, B = backtracking" in str(versus)
    with pytest.raises(race.RaceError, match="did you mean dlx"):
        race.compare(tmp_path / "api", "dlxx", "backtracking")
    with pytest.raises(race.RaceError, match="n = 1 is a 1x1 grid"):
        race.run(1, "dlx", out=tmp_path)
    with pytest.raises(race.RaceError, match="instances must be an integer"):
        race.run(2, "dlx", instances=0, out=tmp_path)


def test_a_stopped_run_raises_and_gives_the_caller_its_ctrl_c_back(tmp_path):
    """Ctrl-C in a notebook stops the campaign cleanly (KeyboardInterrupt, the rows kept) and
    the kernel's SIGINT handler is back afterwards, so the next Ctrl-C still works."""
    code = f"""
import os, signal, threading
import sudoku_race as race
before = signal.getsignal(signal.SIGINT)
def stop(done, total, row):
    if done == 1:
        os.kill(os.getpid(), signal.SIGINT)
try:
    race.run(2, "dlx", family="unique", instances=6, timeout=5, jobs=1, out={str(tmp_path)!r},
             campaign="stop", progress=stop)
    print("not stopped")
except KeyboardInterrupt as exc:
    print("stopped:", exc)
print("handler back:", signal.getsignal(signal.SIGINT) is before)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert "stopped: campaign stop stopped" in done.stdout, done.stdout + done.stderr
    assert "handler back: True" in done.stdout
    rows = (tmp_path / "stop" / "runs.csv").read_text().splitlines()
    assert 2 <= len(rows) < 7                                  # header + the finished cells
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_solver_given_a_puzzle_file_says_what_it_takes():
    """``registry.create("dlx").solve(grid_text.read(path))`` ended in an AttributeError
    ('PuzzleFile' object has no attribute 'cells'); now one line names what it got and where
    a Grid comes from."""
    from solvers.registry import create
    with pytest.raises(race.RaceError, match="expected a formats.grid.Grid, got PuzzleFile "
                       r"\(sudoku_race.puzzle reads one"):
        create("dlx").solve(grid_text.read(EMPTY4))
    assert create("dlx").solve(race.puzzle(grid_text.read(EMPTY4))).status == "solved"
