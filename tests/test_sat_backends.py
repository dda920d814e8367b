"""SAT entrant end to end: encode -> backend (PySAT or binary) -> decode, limits, errors."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import full_grid, puzzle_from

from experiments.cli.main import main
from formats import dimacs, grid_text, sat_output
from formats.errors import RaceError
from formats.grid import Grid
from solvers import registry, rules
from solvers.sat import backends as sat_backends
from solvers.sat import sudoku_cnf

BLANKS = {2: 0.7, 3: 0.6, 4: 0.5, 5: 0.4}
ROOT = Path(__file__).resolve().parent.parent


def race_command() -> list[str]:
    """The `race` console script of the interpreter running the tests (its module if none)."""
    script = Path(sys.executable).with_name("race")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from experiments.cli.main import main; main()"]


def _puzzle(n: int, seed: int, blanks: float | None = None) -> Grid:
    rng = np.random.default_rng(seed)
    return puzzle_from(full_grid(n, rng), BLANKS[n] if blanks is None else blanks, rng)


def _unsat(n: int) -> Grid:
    """Consistent clues without a solution: row 1 holds 2..n² after an empty
    first cell, which must then be 1, but column 1 already has a 1 (below its box)."""
    cells = np.zeros((n * n, n * n), np.int32)
    cells[0, 1:] = np.arange(2, n * n + 1)
    cells[n, 0] = 1
    return Grid(n, cells)


def test_kissat_is_found_without_setup(monkeypatch):
    monkeypatch.delenv("KISSAT", raising=False)
    path = sat_backends.find_kissat()
    assert os.access(path, os.X_OK)
    assert subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip()


def test_missing_binaries_say_where_they_looked(monkeypatch, tmp_path):
    monkeypatch.setenv("KISSAT", str(tmp_path / "nope"))
    with pytest.raises(RaceError, match=r"\$KISSAT=.*nope"):
        registry.create("kissat")
    with pytest.raises(RaceError, match="PySAT's solver names and PATH"):
        registry.create("sat:backend=no-such-solver")
    with pytest.raises(RaceError, match="no executable file at that path"):
        registry.create(f"sat:backend={tmp_path}/solver")
    with pytest.raises(RaceError, match="backend=kissat"):
        registry.create("sat:backend=kissat404")


def test_kissat_lookup_order_and_message(monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "kissat"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.delenv("KISSAT", raising=False)
    monkeypatch.setenv("PATH", str(fake.parent))
    assert sat_backends.find_kissat() == str(fake)                 # PATH before the wheel
    monkeypatch.setenv("KISSAT", str(fake))
    assert sat_backends.find_kissat() == str(fake)
    monkeypatch.delenv("KISSAT")
    monkeypatch.setenv("PATH", str(tmp_path))                      # nothing there
    import importlib.metadata

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)
    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(RaceError) as info:
        sat_backends.find_kissat()
    message = str(info.value)
    assert "$KISSAT (unset)" in message and "PATH" in message and "passagemath-kissat" in message
    assert "\n" not in message


def test_external_solver_dies_with_its_worker(tmp_path):
    pidfile = tmp_path / "solver.pid"
    script = tmp_path / "slowsat"
    script.write_text(f"#!/bin/sh\necho $$ > {pidfile}\nexec sleep 60\n")
    script.chmod(0o755)
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); from solvers import registry; "
            "from formats.grid import Grid; "
            f"registry.create('sat:backend={script}').solve(Grid.empty(2))")
    worker = subprocess.Popen([sys.executable, "-c", code])
    for _ in range(300):
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.05)
    child = int(pidfile.read_text())
    worker.kill()                                                   # the harness kills the worker
    worker.wait()
    for _ in range(40):
        state = subprocess.run(["ps", "-o", "stat=", "-p", str(child)], capture_output=True,
                               text=True).stdout.strip()
        if state in ("", "Z"):
            break
        time.sleep(0.05)
    assert state in ("", "Z")


@pytest.mark.parametrize("n", [2, 3, 4, 5])
@pytest.mark.parametrize("backend", ["kissat", "cadical195"])
def test_encode_solve_decode_gives_verified_grids(n, backend, tmp_path):
    puzzle = _puzzle(n, seed=n)
    for encoding in ("extended", "reduced") + (("minimal",) if n <= 3 else ()):
        formula = sudoku_cnf.encode(puzzle, encoding)
        found = sat_backends.backend(backend).enumerate(formula, 1)
        assert found.complete and found.count == 1
        assert rules.is_solution_of(puzzle, sudoku_cnf.decode(formula, found.models[0]))


@pytest.mark.parametrize("n", [4, 5])
def test_minimal_encoding_with_few_blanks(n):
    puzzle = _puzzle(n, seed=9, blanks=0.15)
    for backend in ("kissat", "cadical195"):
        result = registry.create(f"sat:backend={backend},encoding=minimal").solve(puzzle)
        assert result.status == "solved" and result.verified
        assert result.counters["clauses"] == 4 * n ** 4 + (n ** 8 - n ** 6) // 2 + puzzle.clues()


def test_kissat_binary_through_dimacs_files(tmp_path):
    """The assignment's route: DIMACS file -> kissat process -> output text -> grid."""
    puzzle = _puzzle(3, seed=11)
    formula = sudoku_cnf.encode(puzzle, "minimal")
    cnf = tmp_path / "p.cnf"
    dimacs.write_formula(cnf, formula)
    run = subprocess.run([sat_backends.find_kissat(), str(cnf)], capture_output=True, text=True)
    assert run.returncode == 10
    answer = sat_output.parse(run.stdout, "kissat", formula.nvars, run.returncode)
    assert rules.is_solution_of(puzzle, sudoku_cnf.decode(formula, answer.model))


BACKENDS = ["cadical195", "glucose4", "minisat22", "kissat", "cadical", "minisat"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_unsat_puzzle_is_unsat_on_every_backend(backend):
    puzzle = _unsat(3)
    assert rules.is_consistent(puzzle)
    assert registry.create("backtracking").solve(puzzle).status == "unsat"
    for encoding in sudoku_cnf.ENCODINGS:
        result = registry.create(f"sat:backend={backend},encoding={encoding}").solve(puzzle)
        assert result.status == "unsat" and result.count == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_backend_solves_and_reports_counters(backend):
    puzzle = grid_text.read("tests/data/hard9.txt").grids[0]
    result = registry.create(f"sat:backend={backend},encoding=extended").solve(puzzle)
    assert result.status == "solved" and result.verified
    assert result.counters["vars"] == 729 and result.counters["clauses"] == 11988 + puzzle.clues()
    assert {"conflicts", "decisions", "propagations"} <= set(result.counters)
    assert result.counters["propagations"] > 0
    assert {"encode", "search", "decode"} <= set(result.times)
    assert ("write" in result.times) == (backend in ("kissat", "cadical", "minisat"))


@pytest.mark.parametrize("spec", ["sat", "sat:encoding=extended", "sat:encoding=minimal",
                                  "sat:backend=glucose4"])
def test_counting_288_on_the_empty_4x4(spec):
    result = registry.create(spec).count(Grid.empty(2))
    assert result.count == 288 and result.status == "solved"
    assert registry.create(spec).count(Grid.empty(2), limit=5).limit_hit


@pytest.mark.parametrize("spec", ["kissat:encoding=extended", "sat:backend=minisat"])
def test_counting_through_a_binary_reruns_with_blocking_clauses(spec):
    puzzle = _puzzle(2, seed=4, blanks=0.75)
    expected = registry.create("backtracking").count(puzzle).count
    assert expected > 1
    assert registry.create(spec).count(puzzle).count == expected


def test_timeouts_give_unknown_not_a_wrong_answer():
    hard = _puzzle(4, seed=3, blanks=0.6)    # minimal encoding: pigeonhole-hard (>1e6 conflicts)
    for spec in ("sat:encoding=minimal,timeout=1.5", "kissat:encoding=minimal,timeout=1.5",
                 "sat:backend=glucose4,encoding=minimal,timeout=1.5"):
        result = registry.create(spec).solve(hard)
        assert result.status == "unknown" and result.verified
        assert result.count == 0 and not result.solutions
        # it gave up at the limit, not before: the search phase lasted the whole limit
        # (how much search fits in it depends on the machine's load, so no count of
        # conflicts is asserted: under load CaDiCaL may still be preprocessing)
        assert result.times["search"] >= 1.5 * 0.95, (spec, result.counters, result.times)


def test_hard_kill_takes_the_whole_process_group(tmp_path):
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "slowsat"
    script.write_text(f"#!/bin/sh\nsleep 60 &\necho $! > {pidfile}\nwait\n")
    script.chmod(0o755)
    t0 = time.perf_counter()
    result = registry.create(f"sat:backend={script},timeout=0.2").solve(_puzzle(2, seed=1))
    assert result.status == "unknown"
    assert time.perf_counter() - t0 < 30
    child = int(pidfile.read_text())
    time.sleep(0.2)
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(child)], capture_output=True, text=True)
    assert state.stdout.strip()[:1] in ("", "Z")        # gone, or a zombie awaiting init (ZN under nice)


def test_garbage_from_a_binary_is_an_error_not_a_grid(tmp_path):
    script = tmp_path / "liar"
    script.write_text("#!/bin/sh\necho 's SATISFIABLE'\necho 'v 1 2 3'\nexit 10\n")
    script.chmod(0o755)
    with pytest.raises(RaceError, match="not terminated by 0"):
        registry.create(f"sat:backend={script}").solve(_puzzle(2, seed=1))


# -- CLI ------------------------------------------------------------------------------

def test_cli_encode_kissat_decode(tmp_path):
    puzzle_path = tmp_path / "p.sudoku"
    puzzle_path.write_text(open("tests/data/hard9.txt").readline())
    runner = CliRunner()
    for encoding in sudoku_cnf.ENCODINGS:
        cnf = tmp_path / f"{encoding}.cnf"
        assert runner.invoke(main, ["encode", str(puzzle_path), "-e", encoding, "-o", str(cnf)]
                             ).exit_code == 0
        run = subprocess.run([sat_backends.find_kissat(), str(cnf)], capture_output=True, text=True)
        out = tmp_path / "out.txt"
        out.write_text(run.stdout)
        result = runner.invoke(main, ["decode", str(puzzle_path), str(out)])
        assert result.exit_code == 0, result.output
        puzzle = grid_text.read(puzzle_path).grids[0]
        assert rules.is_solution_of(puzzle, grid_text.parse(result.output).grids[0])
        out.write_text(run.stdout[: len(run.stdout) // 2])          # truncated
        result = runner.invoke(main, ["decode", str(puzzle_path), str(out)])
        assert result.exit_code == 2 and "race: error" in result.output


def test_cli_encode_to_stdout_and_decode_mismatch(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["encode", "tests/data/empty4.sudoku", "-e", "minimal"])
    assert result.exit_code == 0
    parsed = dimacs.parse(result.output)
    assert parsed.nvars == 64 and parsed.nclauses == 4 * 16 + (256 - 64) // 2
    wrong = tmp_path / "wrong.txt"
    wrong.write_text("s SATISFIABLE\nv 1 2 0\n")
    result = runner.invoke(main, ["decode", "tests/data/empty4.sudoku", str(wrong)])
    assert result.exit_code == 2 and "variables" in result.output
    unsat = tmp_path / "unsat.txt"
    unsat.write_text("s UNSATISFIABLE\n")
    result = runner.invoke(main, ["decode", "tests/data/empty4.sudoku", str(unsat)])
    assert result.exit_code == 2 and "dlx found a verified solution" in result.output  # refuted
    from formats import grid_text
    from tests.test_referee import unsat_without_record
    none = tmp_path / "none.sudoku"
    none.write_text(grid_text.format_native(unsat_without_record()))
    result = runner.invoke(main, ["decode", str(none), str(unsat)])
    assert result.exit_code == 1 and "no solution" in result.output


def test_race_solve_with_kissat_subprocess():
    hard9 = ROOT / "tests" / "data" / "hard9.txt"
    run = subprocess.run([*race_command(), "solve", "--solver", "kissat", str(hard9)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.split()
    puzzles = grid_text.read(hard9).grids
    assert len(lines) == len(puzzles)
    for puzzle, line in zip(puzzles, lines):
        assert rules.is_solution_of(puzzle, grid_text.parse(line).grids[0])


def test_negative_phase_reaches_each_backend():
    from solvers.sat import backends as sat_backends
    kissat = sat_backends.backend("kissat", negative_phase=True)
    assert "--phase=false" in kissat.command("f.cnf", "r.txt", 0)
    assert "--phase=false" not in sat_backends.backend("kissat").command("f.cnf", "r.txt", 0)
    assert sat_backends.backend("cadical195", negative_phase=True).negative_phase


def test_fallback_takes_over_after_presolve_and_answers_are_verified(tmp_path):
    """``sat:fallback=...``: the in-process solver first; when it has not answered within
    ``presolve`` seconds the fallback solves the same formula, and its answer is checked
    like any other (a lying fallback is an error, never a grid)."""
    easy = _puzzle(3, seed=2)
    result = registry.create("sat:fallback=kissat").solve(easy)
    assert result.status == "solved" and result.verified and result.counters["handed_over"] == 0
    # one conflict is not enough here (CaDiCaL needs 40): kissat answers, and its grid is verified
    result = registry.create("sat:fallback=kissat,presolve=1").solve(_puzzle(4, seed=0, blanks=0.6))
    assert result.status == "solved" and result.verified and result.counters["handed_over"] == 1
    assert "write" in result.times                      # kissat read a DIMACS file
    counted = registry.create("sat:fallback=kissat,presolve=1").count(_puzzle(2, seed=4, blanks=0.75))
    assert counted.count == registry.create("backtracking").count(_puzzle(2, seed=4, blanks=0.75)).count
    # neither answers the pigeonhole-hard formula: unknown at the limit, both ran
    hard = _puzzle(4, seed=3, blanks=0.6)
    result = registry.create("sat:encoding=minimal,fallback=kissat,presolve=300,timeout=1.5").solve(hard)
    assert result.status == "unknown" and result.counters["handed_over"] == 1
    assert result.times["search"] >= 1.5 * 0.9
    liar = tmp_path / "liar"
    liar.write_text("#!/bin/sh\necho 's SATISFIABLE'\necho 'v 1 2 3'\nexit 10\n")
    liar.chmod(0o755)
    with pytest.raises(RaceError, match="not terminated by 0"):
        registry.create(f"sat:fallback={liar},presolve=1").solve(_puzzle(4, seed=0, blanks=0.6))


@pytest.mark.parametrize("spec, message", [("sat:fallback=kissat,presolve=0", "presolve in 1.."),
                                           ("sat:fallback=kissat,presolve=99999999999", "presolve in 1.."),
                                           ("kissat:fallback=kissat", "needs an in-process backend"),
                                           ("sat:fallback=no-such-solver-binary", "no-such-solver")])
def test_a_bad_fallback_is_an_error_at_creation(spec, message):
    with pytest.raises(RaceError, match=message):
        registry.create(spec)


def test_solve_until_stops_at_its_conflict_bound_with_or_without_a_deadline():
    """A conflict bound alone is one budgeted call; with a deadline too, the slices stop once
    the bound is spent, long before the deadline (pigeonhole 8: ~10^5 conflicts)."""
    from pysat.examples.genhard import PHP

    from solvers.sat.counting import pysat_solver
    for deadline in (None, time.perf_counter() + 60):
        solver = pysat_solver("cadical195", [PHP(8).clauses])
        t0 = time.perf_counter()
        assert sat_backends.solve_until(solver, [], deadline, conflicts=300) is None
        assert time.perf_counter() - t0 < 30
        assert solver.accum_stats()["conflicts"] <= 2 * 300
        solver.delete()
    easy = pysat_solver("cadical195", [[[1, 2]]])
    assert sat_backends.solve_until(easy, [], None, conflicts=1) is True
    easy.delete()


@pytest.mark.parametrize("config", ["default", "sat", "unsat"])
def test_each_cadical_configuration_reaches_the_solver_and_answers_are_verified(config, monkeypatch):
    """sat:config=NAME configures the in-process CaDiCaL before its clauses (the options of
    CaDiCaL's --sat/--unsat), solves, counts and proves unsat like the default."""
    from solvers.sat import counting as sat_counting
    seen = []
    real = sat_counting.pysat_solver

    def spy(name, clauses=None):
        solver = real(name, clauses)
        configure = solver.configure
        solver.configure = lambda options: (seen.append(dict(options)), configure(options))[1]
        return solver
    monkeypatch.setattr(sat_backends, "pysat_solver", spy)
    puzzle = grid_text.read("tests/data/hard9.txt").grids[0]
    result = registry.create(f"sat:config={config}").solve(puzzle)
    assert result.status == "solved" and result.verified
    assert registry.create(f"sat:config={config}").solve(_unsat(3)).status == "unsat"
    assert registry.create(f"sat:config={config}").count(Grid.empty(2)).count == 288
    expected = sat_backends.CADICAL_CONFIGS[config]
    assert all(options == expected for options in seen) and bool(seen) == bool(expected)


@pytest.mark.parametrize("spec, message", [("sat:config=fast", "is not one of default, sat, unsat"),
                                           ("sat:backend=minisat22,config=sat", "needs backend=cadical195"),
                                           ("sat:backend=glucose4,config=unsat", "needs backend=cadical195"),
                                           ("sat:backend=glucose4,seed=3", "seed=3 needs backend"),
                                           ("kissat:seed=2147483648", r"seed=2147483648 must be in 0\.\.")])
def test_a_configuration_or_seed_for_another_backend_is_an_error(spec, message):
    with pytest.raises(RaceError, match=message):
        registry.create(spec)


def test_kissat_takes_its_configuration_and_seed_on_its_command_line():
    backend = registry.create("kissat:config=sat,seed=7").backend
    command = backend.command("f.cnf", "r.txt", 0.0)
    assert "--sat" in command and "--seed=7" in command and command[-1] == "f.cnf"
    assert not {"--sat", "--unsat"} & set(registry.create("kissat").backend.command("f", "r", 0.0))
    assert "--unsat" in registry.create("kissat:config=unsat").backend.command("f", "r", 0.0)


@pytest.mark.parametrize("spec", ["kissat:config=sat,seed=3", "sat:config=sat,seed=3"])
def test_a_seeded_solver_answers_and_is_verified(spec):
    puzzle = puzzle_from(full_grid(3, np.random.default_rng(3)), 0.6, np.random.default_rng(4))
    result = registry.create(spec).solve(puzzle)
    assert result.status == "solved" and rules.is_solution_of(puzzle, result.solution)


def test_the_seed_reaches_cadical_in_process():
    assert registry.create("sat:seed=5").backend.options == {"seed": 5}
    assert registry.create("sat:config=sat,seed=5").backend.options == \
        dict(sat_backends.CADICAL_CONFIGS["sat"], seed=5)
    assert registry.create("sat").backend.options == {}
