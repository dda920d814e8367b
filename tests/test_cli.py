import subprocess
import sys
from pathlib import Path

import numpy as np
from click.testing import CliRunner

from experiments.cli.main import main
from formats import grid_text
from solvers import rules
from tests.conftest import full_grid, puzzle_from

HARD9 = Path(__file__).parent / "data" / "hard9.txt"
PUZZLE9 = HARD9.read_text().splitlines()[2]


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_solve_one_line_from_stdin():
    r = run("solve", "-", input=PUZZLE9 + "\n")
    assert r.exit_code == 0, r.output
    (solution,) = grid_text.parse(r.stdout).grids
    (puzzle,) = grid_text.parse(PUZZLE9).grids
    assert len(r.stdout.strip()) == 81 and rules.is_solution_of(puzzle, solution)


def test_solve_many_one_line_puzzles(tmp_path):
    lines = HARD9.read_text().splitlines()[2:4]
    unsat = "11" + "." * 79
    f = tmp_path / "many.txt"
    f.write_text("\n".join([lines[0], unsat, lines[1]]) + "\n")
    r = run("solve", str(f))
    assert r.exit_code == 1
    out = r.stdout.split("\n")
    assert len(out[0]) == 81 and out[1] == "" and len(out[2]) == 81
    assert "puzzle 2: no solution" in r.stderr


def test_solve_native_keeps_native_format(tmp_path, rng):
    p = puzzle_from(full_grid(2, rng), 0.5, rng)
    f = tmp_path / "p.sudoku"
    f.write_text(grid_text.format_native(p))
    r = run("solve", str(f), "--stats")
    assert r.exit_code == 0
    pf = grid_text.parse(r.stdout)
    assert pf.format == grid_text.NATIVE and rules.is_solution_of(p, pf.grids[0])
    assert "nodes=" in r.stderr and "status=solved" in r.stderr


def test_solve_no_solution_exit_1(tmp_path):
    f = tmp_path / "u.sudoku"
    f.write_text("1 2 3 .\n. . . .\n. . . 4\n. . . .\n")
    r = run("solve", str(f))
    assert r.exit_code == 1 and r.stdout == "" and "no solution" in r.stderr


def test_count_empty_4x4_is_288():
    r = run("count", "-", input=". . . .\n" * 4)
    assert r.exit_code == 0 and r.stdout == "288\n"
    r = run("count", "-", "--limit", "10", input=". . . .\n" * 4)
    assert r.stdout == "10 (limit reached)\n"
    r = run("count", "-", "--limit", "0", input=". . . .\n" * 4)
    assert r.exit_code == 2


def test_check_states(tmp_path, rng):
    g = full_grid(3, rng)
    cases = {"solved": (g, 0, "solved"),
             "consistent": (puzzle_from(g, 0.5, rng), 0, "consistent, 40 empty cells"),
             }
    bad = g.copy()
    bad.cells[0, 0], bad.cells[0, 1] = bad.cells[0, 1], bad.cells[0, 1]
    cases["inconsistent"] = (bad, 1, "inconsistent: row 1 has 2 copies")
    for name, (grid, code, text) in cases.items():
        f = tmp_path / f"{name}.sudoku"
        f.write_text(str(grid))
        r = run("check", str(f))
        assert r.exit_code == code and text in r.stdout, (name, r.output)


def test_unknown_solver_exit_2():
    r = run("solve", "--solver", "nosuch", "-", input=PUZZLE9)
    assert r.exit_code == 2 and "unknown solver 'nosuch'" in r.stderr


def test_solvers_lists_backtracking():
    r = run("solvers")
    assert r.exit_code == 0 and r.stdout.startswith("backtracking")


def test_every_command_has_help_with_example():
    for name in main.commands:
        r = run(name, "--help")
        assert r.exit_code == 0, name
        assert "Example" in r.stdout, f"`race {name} --help` has no example"


def test_console_script_one_line_error(tmp_path):
    f = tmp_path / "bad.sudoku"
    f.write_text(". . .\n")
    race = Path(sys.executable).parent / "race"
    p = subprocess.run([str(race), "solve", str(f)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "Traceback" not in p.stderr


def _interrupted_in(exc):
    def make(*args, **kwargs):
        raise exc
    return make


def test_ctrl_c_inside_a_pysat_solver_is_an_interrupt_not_a_traceback(monkeypatch):
    """PySAT's C solvers catch SIGINT themselves and raise pysolvers.error("Caught keyboard
    interrupt"), not KeyboardInterrupt: the CLI says 'race: interrupted', exit 130 (never 1,
    which `race solve` uses for "no solution"); any other pysolvers.error is not swallowed."""
    import pysolvers

    from experiments.cli import generate
    for exc in (KeyboardInterrupt(), pysolvers.error("Caught keyboard interrupt")):
        monkeypatch.setattr(generate, "make", _interrupted_in(exc))
        r = run("generate", "--n", "2")
        assert r.exit_code == 130, r.output
        assert r.stderr.strip() == "race: interrupted" and "Traceback" not in r.output
    monkeypatch.setattr(generate, "make", _interrupted_in(pysolvers.error("something else")))
    r = run("generate", "--n", "2")
    assert r.exit_code not in (0, 130) and isinstance(r.exception, pysolvers.error)


def test_ctrl_c_inside_a_solver_is_an_interrupt_not_its_failure(monkeypatch):
    """The solver interface turns a plugin's exception into 'solver X failed' (exit 2), but
    PySAT's report of Ctrl-C is the user's interrupt: exit 130, 'race: interrupted'."""
    import pysolvers

    from solvers.exact_cover.dlx import DLX

    def interrupted(self, grid, limit, keep):
        raise pysolvers.error("Caught keyboard interrupt")
    monkeypatch.setattr(DLX, "search", interrupted)
    text = grid_text.format_native(puzzle_from(full_grid(4, np.random.default_rng(1)), 0.5,
                                               np.random.default_rng(2)))
    r = run("solve", "-s", "dlx", "-", input=text)
    assert r.exit_code == 130 and r.stderr.strip() == "race: interrupted", r.output
    from formats import compiled  # the CLI's Ctrl-C switch is for its command only
    assert compiled._ctrl_c_stops is False


def test_no_answer_is_exit_3_and_no_solution_exit_1(tmp_path):
    """A node budget that runs out is "no answer" (3, as --timeout), never "no solution" (1)."""
    from tests.test_referee import unsat_without_record
    hard = Path(__file__).parent / "data" / "hard9.txt"
    first = tmp_path / "h1.txt"
    first.write_text(hard.read_text().splitlines()[0] + "\n")
    cut = CliRunner().invoke(main, ["solve", "-s", "dlx:node_limit=5", str(first)])
    assert cut.exit_code == 3 and "no answer" in cut.output
    none = tmp_path / "none.sudoku"
    none.write_text(grid_text.format_native(unsat_without_record()))
    assert CliRunner().invoke(main, ["solve", "-s", "dlx", str(none)]).exit_code == 1
    unknown = tmp_path / "out.txt"
    unknown.write_text("s UNKNOWN\n")
    decoded = CliRunner().invoke(main, ["decode", str(first), str(unknown)])
    assert decoded.exit_code == 3 and "no answer" in decoded.output
