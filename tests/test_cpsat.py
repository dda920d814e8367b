"""The constraint-programming entrant (cpsat, OR-Tools CP-SAT): answers, counts, the stop
mechanism, bad parameters, and what happens on a machine without OR-Tools."""

from __future__ import annotations

import importlib.util
import signal
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import grid_text
from formats.errors import RaceError
from formats.grid import Grid
from solvers import rules
from solvers.interface import SOLVED, UNSAT, Stop
from solvers.registry import BUILTIN, Unavailable
from solvers.sat import cpsat
from tests.conftest import full_grid, puzzle_from

PUZZLE9 = (Path(__file__).parent / "data" / "hard9.txt").read_text().splitlines()[2]
#: consistent clues, but the top-left cell can take no value (1..3 in its row, 4 in its column)
NO_SOLUTION = "1 2 3 .\n. . . .\n. . . 4\n. . . .\n"


@pytest.mark.parametrize("model", cpsat.MODELS)
def test_each_model_solves_a_hard_9x9_and_reports_its_counters(model):
    (puzzle,) = grid_text.parse(PUZZLE9).grids
    result = BUILTIN.create(f"cpsat:model={model}").solve(puzzle)
    assert result.status == SOLVED and result.verified
    assert rules.is_solution_of(puzzle, result.solution)
    assert result.counters["vars"] > 0 and result.counters["constraints"] > 0
    assert {"conflicts", "branches", "booleans", "restarts"} <= set(result.counters)
    assert {"build", "search", "decode"} <= set(result.times)


@pytest.mark.parametrize("model", cpsat.MODELS)
def test_each_model_answers_no_solution_for_a_puzzle_without_one(model):
    (puzzle,) = grid_text.parse(NO_SOLUTION).grids
    assert rules.is_consistent(puzzle)              # so the search itself must find it out
    result = BUILTIN.create(f"cpsat:model={model}").solve(puzzle)
    assert result.status == UNSAT and result.complete


@pytest.mark.parametrize("model", cpsat.MODELS)
def test_counting_enumerates_every_solution_as_dlx_does(model, rng):
    puzzle = puzzle_from(full_grid(2, rng), 0.75, rng)
    expected = BUILTIN.create("dlx").count(puzzle)
    found = BUILTIN.create(f"cpsat:model={model}").count(puzzle, keep=100)
    assert found.count == expected.count > 1 and found.complete
    assert len({g.cells.tobytes() for g in found.solutions}) == found.count
    assert all(rules.is_solution_of(puzzle, g) for g in found.solutions)


def test_counting_stops_at_the_limit():
    found = BUILTIN.create("cpsat").count(Grid.empty(2), limit=5)
    assert found.count == 5 and found.limit_hit and found.complete


def test_its_own_timeout_gives_an_incomplete_count():
    # the empty 9x9 has 6.67e21 solutions: no enumeration ends before the 0.2 s limit
    found = BUILTIN.create("cpsat:timeout=0.2").count(Grid.empty(3))
    assert not found.complete and found.count >= 0 and not found.limit_hit


def test_a_stop_raised_while_it_searches_ends_the_search():
    """race solve --timeout stops the work with a Stop raised by a signal handler: it must
    reach a CP-SAT search (C++ in a thread of its own) and leave no search running."""
    previous = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(Stop()))
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(Stop):
            BUILTIN.create("cpsat").count(Grid.empty(3))     # would run for ages
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not [t for t in threading.enumerate() if t.name == "cpsat-search" and t.is_alive()]


def test_seeds_and_workers_are_parameters_and_all_answers_are_verified(rng):
    puzzle = puzzle_from(full_grid(3, rng), 0.6, rng)
    for spec in ("cpsat:seed=7", "cpsat:workers=2,model=onehot"):
        result = BUILTIN.create(spec).solve(puzzle)
        assert result.status == SOLVED and rules.is_solution_of(puzzle, result.solution)


@pytest.mark.parametrize("spec, words", [("cpsat:workers=0", "workers=0 must be in 1..1024"),
                                         ("cpsat:model=mip", "model='mip' is not one of int, onehot"),
                                         ("cpsat:seed=-1", "must be an integer"),
                                         ("cpsat:seed=4294967296", "must be below 2")])
def test_bad_parameters_are_one_line_errors(spec, words):
    with pytest.raises(RaceError, match=words):
        BUILTIN.create(spec)


def test_the_method_and_its_counters_are_declared():
    cls = BUILTIN.solver_class("cpsat")
    assert cls.method == "cp" and "conflicts" in cls.counters and "branches" in cls.counters


# -- a machine without OR-Tools ----------------------------------------------------------------

@pytest.fixture
def no_ortools(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name.split(".")[0] == "ortools" else real(name, *a))


def test_without_ortools_creating_it_names_the_install_line(no_ortools):
    with pytest.raises(Unavailable, match=r"pip install 'sudoku-race\[cp\]'"):
        BUILTIN.create("cpsat")


def test_without_ortools_race_solvers_lists_it_as_unavailable_with_the_install_line(no_ortools):
    r = CliRunner().invoke(main, ["solvers"])
    assert r.exit_code == 0
    (line,) = [x for x in r.output.splitlines() if x.startswith("cpsat")]
    assert "unavailable" in line and "pip install 'sudoku-race[cp]'" in line


def test_without_ortools_race_solve_is_a_one_line_error_exit_2(no_ortools):
    r = CliRunner().invoke(main, ["solve", "-s", "cpsat", "-"], input=PUZZLE9 + "\n")
    assert r.exit_code == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "pip install 'sudoku-race[cp]'" in r.stderr


def test_without_ortools_a_parallel_member_cpsat_is_a_one_line_error(no_ortools):
    r = CliRunner().invoke(main, ["solve", "-s", "parallel:members=sat+cpsat", "-"],
                           input=PUZZLE9 + "\n")
    assert r.exit_code == 2
    (line,) = r.stderr.strip().splitlines()
    assert "member 'cpsat'" in line and "pip install 'sudoku-race[cp]'" in line


def test_without_ortools_race_run_leaves_it_out_with_a_note(no_ortools, tmp_path):
    r = CliRunner().invoke(main, ["run", "--n", "2", "--family", "unique", "--solvers", "dlx,cpsat",
                                  "--instances", "2", "--out", str(tmp_path), "--jobs", "1"])
    assert r.exit_code == 0, r.output
    assert "race: note: cpsat is left out of this race" in r.stderr
    assert "pip install 'sudoku-race[cp]'" in r.stderr
    runs = next(tmp_path.glob("*/runs.csv")).read_text()
    assert ",dlx," in runs and "cpsat" not in runs


def test_without_ortools_a_race_of_only_cpsat_is_an_error(no_ortools, tmp_path):
    r = CliRunner().invoke(main, ["run", "--n", "2", "--solvers", "cpsat", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "no entrant can run here" in r.stderr


def test_meta_json_records_the_ortools_version():
    import importlib.metadata

    from experiments.harness.system_info import packages
    assert packages()["ortools"] == importlib.metadata.version("ortools")
