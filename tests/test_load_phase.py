"""Fast, honest defaults: loading a solver's kernels (numba's cache, a native build, PySAT) is
the phase ``load``, never its search; `race solve` of a few 9x9 puzzles with backtracking (or
auto picking it) starts interpreted and switches to the compiled kernel when the search is long."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from formats import compiled, grid_text
from formats.compiled import interpreted
from formats.errors import RaceError
from formats.grid import Grid
from solvers import backtracking
from solvers.interface import RawAnswer, Solver
from solvers.registry import BUILTIN

ROOT = Path(__file__).resolve().parents[1]
HARD9 = (ROOT / "tests" / "data" / "hard9.txt").read_text().split()
#: a 9x9 that Algorithm 1 answers in 34 placements (Algorithm 2's unique puzzle, n = 3, seed 5)
EASY9 = ".18....29.43792..82.9..83.4.9.537...5.782496182416953..7234..16.819.6245465.8....\n"


def test_every_entrant_loads_before_its_search_and_once():
    grid = grid_text.parse(HARD9[2] + "\n").grids[0]
    for spec in ("backtracking", "dlx", "sat", "kissat", "auto"):
        solver = BUILTIN.create(spec)
        first = solver.solve(grid)
        assert "load" in first.times and first.times["load"] > 0, spec
        assert list(first.times)[0] == "load", spec          # before the check and the search
        before = compiled.load_seconds()
        again = solver.solve(grid)
        assert "load" not in again.times, spec
        assert compiled.load_seconds() == before, spec       # nothing loaded inside a search


def test_load_is_paid_once_and_warmup_is_what_it_runs():
    calls = []

    class Counted(Solver):
        name = "counted"
        counters = ("nodes",)
        phases = ("search",)

        def warmup(self) -> None:
            calls.append("warmup")
            self.solve(Grid.empty(1))                        # a warm-up may solve: no load inside

        def search(self, grid, limit, keep):
            return RawAnswer(1, [grid.cells.copy() + 1], counters={"nodes": 1})

    solver = Counted()
    assert solver.load() > 0 and solver.load() == 0.0
    assert "load" not in solver.solve(Grid.empty(1)).times and calls == ["warmup"]


def test_a_solver_that_fails_to_load_is_a_one_line_error():
    class Broken(Solver):
        name = "broken"

        def warmup(self) -> None:
            raise ImportError("no module named fastsat")

    with pytest.raises(RaceError, match="solver broken failed to load: ImportError: no module named fastsat"):
        Broken().solve(Grid.empty(2))


def test_an_interpreted_backtracking_search_that_runs_long_switches_to_compiled():
    grid = grid_text.parse(HARD9[2] + "\n").grids[0]
    whole = BUILTIN.create("backtracking").solve(grid)
    assert whole.counters["nodes"] > backtracking.INTERPRETED_NODES
    with interpreted():
        switched = BUILTIN.create("backtracking").solve(grid)
    assert switched.solution == whole.solution and switched.counters == whole.counters
    assert "interpreted" in switched.times and "search" in switched.times
    with interpreted():
        short = BUILTIN.create("backtracking").solve(grid_text.parse(EASY9).grids[0])
    assert short.counters["nodes"] < backtracking.INTERPRETED_NODES
    assert "interpreted" not in short.times


def test_a_node_limit_within_the_budget_stays_interpreted_and_is_kept():
    grid = grid_text.parse(HARD9[2] + "\n").grids[0]
    with interpreted():
        result = BUILTIN.create("backtracking:node_limit=100").solve(grid)
    assert result.status == "unknown" and result.counters["nodes"] == 100
    assert "interpreted" not in result.times


def _race(args: list[str]) -> tuple[subprocess.CompletedProcess, bool]:
    """`race ARGS` in a fresh interpreter, and whether numba was imported."""
    code = ("import sys\nfrom experiments.cli.main import main\n"
            f"try:\n    main({args!r})\nexcept SystemExit as e:\n    code = e.code\n"
            "print('numba' in sys.modules, file=sys.stderr)\nsys.exit(code)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=ROOT)
    return done, done.stderr.strip().splitlines()[-1] == "True"


def test_race_solve_of_an_easy_9x9_never_loads_numba(tmp_path):
    """auto's pick for a 9x9 with few empty cells (the committed table's: backtracking or
    bitset) answered after loading the compiled kernel (0.5 s of CPU); now in milliseconds,
    interpreted."""
    path = tmp_path / "easy.txt"
    path.write_text(EASY9)
    done, loaded = _race(["solve", "--stats", str(path)])
    assert done.returncode == 0, done.stderr
    picked = done.stderr.split("auto picked ", 1)[1].split(":", 1)[0]
    assert picked in ("backtracking", "bitset") and not loaded, done.stderr
    stats = next(line for line in done.stderr.splitlines() if line.startswith("status="))
    assert "nodes=" in stats and " load=" in stats and " search=" in stats
    assert grid_text.parse(done.stdout).grids[0].empties() == 0


def test_race_solve_stats_name_the_load_apart_from_the_search(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text(HARD9[2] + "\n")
    done, loaded = _race(["solve", "-s", "backtracking", "--stats", str(path)])
    assert done.returncode == 0 and loaded
    stats = next(line for line in done.stderr.splitlines() if line.startswith("status="))
    words = dict(word.split("=") for word in stats.split())
    assert words["nodes"] == "89343"
    assert {"load", "interpreted", "search"} <= set(words)
