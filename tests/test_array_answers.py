"""``race solve`` / ``race count --solver bitset`` on a one-line file of 9x9 puzzles: whole
arrays (experiments/cli/array_answers.py), printing exactly what the per-puzzle path prints,
from the click commands and from the plain start; bad input is a one-line error; a wrong
answer or a refuted "no solution" is caught."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli import array_answers
from experiments.cli.entry import plain_answer
from experiments.cli.main import main
from formats import grid_text
from formats.one_line_array import puzzles_9x9
from solvers import bitset9_native
from solvers.exact_cover import batch

pytestmark = pytest.mark.skipif(bitset9_native.library() is None,
                                reason="no C compiler: the 9x9 bit-set kernel is not built")

SEVENTEEN = Path(__file__).parent / "bench" / "data" / "sudoku17_sample.txt"
#: conflicting clues; consistent clues without a solution
NONE = ["44...............................................................................",
        "12345678.........9..............................................................."]
SEVERAL = "......8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def _file(tmp_path: Path, extra: list[str], header: str = "", end: str = "\n") -> Path:
    lines = SEVENTEEN.read_text().split()[:30]
    path = tmp_path / "many.txt"
    path.write_bytes((header + end.join(lines[:12] + extra + lines[12:]) + end).encode())
    return path


def _array_path_taken(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = array_answers.answer_file
    def noted(*a, **k):
        answer = real(*a, **k)
        calls.append(answer is not None)
        return answer
    monkeypatch.setattr(array_answers, "answer_file", noted)
    return calls


def _per_puzzle(args: list[str], monkeypatch):
    monkeypatch.setattr(batch, "batch_capable", lambda spec: False)
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize("header, end", [("", "\n"), ("# a collection\n", "\n"), ("", "\r\n")])
def test_solve_prints_what_the_per_puzzle_path_prints(tmp_path, monkeypatch, header, end):
    path = _file(tmp_path, NONE, header, end)
    taken = _array_path_taken(monkeypatch)
    fast = CliRunner().invoke(main, ["solve", "-s", "bitset", str(path)])
    assert taken == [True]
    slow = _per_puzzle(["solve", "-s", "dlx", str(path)], monkeypatch)
    assert (fast.exit_code, fast.stdout, fast.stderr) == (slow.exit_code, slow.stdout, slow.stderr)
    assert fast.exit_code == 1
    assert fast.stderr.splitlines() == ["puzzle 13: no solution", "puzzle 14: no solution"]
    assert fast.stdout.split("\n")[12:14] == ["", ""]


@pytest.mark.parametrize("limit", [None, "1", "2", "7"])
def test_count_prints_what_the_per_puzzle_path_prints(tmp_path, monkeypatch, limit):
    path = _file(tmp_path, NONE + [SEVERAL])
    options = ["-l", limit] if limit else []
    fast = CliRunner().invoke(main, ["count", "-s", "bitset", *options, str(path)])
    slow = _per_puzzle(["count", "-s", "dlx", *options, str(path)], monkeypatch)
    assert (fast.exit_code, fast.stdout, fast.stderr) == (slow.exit_code, slow.stdout, slow.stderr)
    assert fast.exit_code == 0 and fast.stdout.split("\n")[12:14] == ["0", "0"]


def test_a_puzzle_with_several_solutions_gets_a_verified_one(tmp_path):
    path = _file(tmp_path, [SEVERAL])
    done = CliRunner().invoke(main, ["solve", "-s", "bitset", str(path)])
    assert done.exit_code == 0
    solved = grid_text.parse(done.stdout.split("\n")[12]).grids[0]
    puzzle = grid_text.parse(SEVERAL).grids[0]
    assert solved.empties() == 0 and ((puzzle.cells == 0) | (puzzle.cells == solved.cells)).all()


@pytest.mark.parametrize("puzzle", [NONE[1], SEVENTEEN.read_text().split()[0]])
def test_one_puzzle_prints_what_the_per_puzzle_path_prints(tmp_path, monkeypatch, puzzle):
    path = tmp_path / "one.txt"
    path.write_text(puzzle + "\n")
    done = CliRunner().invoke(main, ["solve", "-s", "bitset", str(path)])
    slow = _per_puzzle(["solve", "-s", "dlx", str(path)], monkeypatch)
    assert (done.exit_code, done.stdout, done.stderr) == (slow.exit_code, slow.stdout, slow.stderr)
    assert done.stdout.count("\n") == (done.exit_code == 0)


def test_the_plain_reader_reads_what_the_general_reader_reads(tmp_path):
    text = SEVENTEEN.read_text()
    _, expected = grid_text.parse_one_line_many(text)
    for data in (text.encode(), text.replace("0", ".").encode(), text.rstrip("\n").encode(),
                 text.replace("\n", "\r\n").encode()):
        got = puzzles_9x9(data)
        assert got is not None and (got == expected).all()
    for other in ("# x\n" + text, text + "\n", text.replace("\n", " \n"), text[:-3] + "x0\n",
                  text.replace("\n", "\r\n", 1), "." * 16 + "\n", ""):
        assert puzzles_9x9(other.encode()) is None


ENTRY = "from experiments.cli.entry import race as run"


def _race(args: list[str], prelude: str = "") -> subprocess.CompletedProcess:
    code = (f"import sys\n{prelude}\n{ENTRY}\nimport atexit\natexit.register(lambda: "
            "print('click imported:', 'click' in sys.modules, file=sys.stderr))\n"
            f"sys.argv = ['race'] + {args!r}\nrun()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_the_plain_start_prints_what_the_click_command_prints(tmp_path):
    path = _file(tmp_path, NONE)
    quick = _race(["solve", "--solver", "bitset", str(path)])
    assert "click imported: False" in quick.stderr
    group = CliRunner().invoke(main, ["solve", "--solver", "bitset", str(path)])
    assert (quick.returncode, quick.stdout) == (group.exit_code, group.stdout)
    assert quick.stderr.replace("click imported: False\n", "") == group.stderr
    counted = _race(["count", "-s", "bitset", "--limit", "2", str(path)])
    assert counted.returncode == 0 and counted.stdout.split("\n")[:13] == ["1"] * 12 + ["0"]


@pytest.mark.parametrize("args, expected", [
    (["solve", "-s", "bitset", "f.txt"], ("solve", "f.txt", "bitset", 1)),
    (["solve", "f.txt", "--solver=bitset"], ("solve", "f.txt", "bitset", 1)),
    (["count", "--solver", "bitset", "f.txt"], ("count", "f.txt", "bitset", None)),
    (["count", "-l", "3", "-s", "bitset", "f.txt"], ("count", "f.txt", "bitset", 3)),
    (["solve", "-s", "dlx", "f.txt"], None), (["solve", "f.txt"], None),
    (["solve", "-s", "bitset", "-"], None), (["solve", "-s", "bitset", "--stats", "f.txt"], None),
    (["solve", "-s", "bitset", "-l", "2", "f.txt"], None),
    (["count", "-s", "bitset", "-l", "0", "f.txt"], None),
    (["count", "-s", "bitset", "-l", "x", "f.txt"], None),
    (["solve", "-s", "bitset", "f.txt", "g.txt"], None), (["solve", "-s", "bitset"], None),
])
def test_which_command_lines_start_plainly(args, expected):
    assert plain_answer(args) == expected


@pytest.mark.parametrize("bad, where", [
    ("1234\n", "line 13"), ("." * 80 + "x\n", "line 13, column 81"), ("\xff" * 81 + "\n", "line 13"),
])
def test_a_malformed_line_is_a_one_line_error(tmp_path, bad, where):
    path = _file(tmp_path, [bad.rstrip("\n")])
    for done in (_race(["solve", "-s", "bitset", str(path)]),
                 _race(["count", "-s", "bitset", str(path)])):
        error = done.stderr.replace("click imported: False\n", "").replace(
            "click imported: True\n", "")
        assert done.returncode == 2 and done.stdout == ""
        assert error.startswith("race: error: ") and error.count("\n") == 1
        assert str(path) in error and where in error and "Traceback" not in error


def _corrupt(monkeypatch, what: str) -> None:
    real = bitset9_native.solve_many

    def wrong(*args, **kwargs):
        counts, guesses, complete, solutions = real(*args, **kwargs)
        if what == "grid":
            solutions[1, [0, 1]] = solutions[1, [1, 0]]     # two cells swapped: not a solution
        else:
            counts[1] = 0                                   # a solvable puzzle said to have none
            solutions[1] = 0
        return counts, guesses, complete, solutions
    monkeypatch.setattr(bitset9_native, "solve_many", wrong)


@pytest.mark.parametrize("what, message", [
    ("grid", "puzzle 2: solver bitset returned a grid that is not a solution"),
    ("none", "puzzle 2: solver bitset said no solution, but dlx found one"),
])
def test_verification_catches_a_corrupted_answer(tmp_path, monkeypatch, what, message):
    path = _file(tmp_path, [])
    _corrupt(monkeypatch, what)
    done = CliRunner().invoke(main, ["solve", "-s", "bitset", str(path)])
    assert done.exit_code == 2
    assert done.stderr == f"race: error: {message}\n"
    assert done.stdout == ("" if what == "none" else done.stdout.split("\n")[0] + "\n")
    assert len(done.stdout) in (0, 82)


def test_other_entrants_and_sizes_take_the_general_path(tmp_path, monkeypatch):
    path = _file(tmp_path, [])
    assert array_answers.answer_file("solve", str(path), "dlx") is None
    four = tmp_path / "four.txt"
    four.write_text("." * 16 + "\n")
    assert array_answers.answer_file("solve", str(four), "bitset") is None
    assert array_answers.answer_file("solve", "-", "bitset") is None
