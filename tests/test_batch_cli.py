"""`race solve` / `race count` over a one-line file of many puzzles: the batch path
(solvers.exact_cover.batch, one compiled call) prints exactly what the per-puzzle path prints."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import grid_text
from solvers.exact_cover import batch

DATA = Path(__file__).parent / "data"
SEVENTEEN = Path(__file__).parent / "bench" / "data" / "sudoku17_sample.txt"
#: several solutions, conflicting clues, consistent clues without a solution
ODD = ["......8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
       "44...............................................................................",
       "12345678.........9..............................................................."]


def _file(tmp_path: Path) -> Path:
    lines = SEVENTEEN.read_text().split()[:30]
    path = tmp_path / "many.txt"
    path.write_text("# a collection\n" + "\n".join(lines[:12] + ODD + lines[12:]) + "\n")
    return path


def _both_ways(monkeypatch, args: list[str]):
    calls = []
    real = batch.solve_array

    def counted(*a, **k):
        calls.append(1)
        return real(*a, **k)
    monkeypatch.setattr(batch, "solve_array", counted)
    fast = CliRunner().invoke(main, args)
    assert calls, "the batch path was not taken"
    monkeypatch.setattr(batch, "batch_capable", lambda spec: False)
    slow = CliRunner().invoke(main, args)
    assert len(calls) == 1, "the per-puzzle path called the batch kernel"
    return fast, slow


@pytest.mark.parametrize("spec", ["dlx", "dlx:node_limit=100000"])
def test_solve_prints_the_same_both_ways(tmp_path, monkeypatch, spec):
    path = _file(tmp_path)
    fast, slow = _both_ways(monkeypatch, ["solve", "-s", spec, str(path)])
    assert (fast.exit_code, fast.stdout, fast.stderr) == (slow.exit_code, slow.stdout, slow.stderr)
    assert fast.exit_code == 1                                  # two puzzles have no solution
    lines = fast.stdout.split("\n")
    assert len(lines) == 34 and lines[13] == lines[14] == "" and lines[-1] == ""
    assert fast.stderr.splitlines() == ["puzzle 14: no solution", "puzzle 15: no solution"]
    puzzles = grid_text.read(path).grids
    for puzzle, line in zip(puzzles, lines):
        if line:
            solved = grid_text.parse(line).grids[0]
            assert solved.empties() == 0
            assert ((puzzle.cells == 0) | (puzzle.cells == solved.cells)).all()


@pytest.mark.parametrize("limit", [None, "1", "2", "7"])
def test_count_prints_the_same_both_ways(tmp_path, monkeypatch, limit):
    path = _file(tmp_path)
    args = ["count", "-s", "dlx", str(path)] + (["--limit", limit] if limit else [])
    fast, slow = _both_ways(monkeypatch, args)
    assert (fast.exit_code, fast.stdout, fast.stderr) == (slow.exit_code, slow.stdout, slow.stderr)
    lines = fast.stdout.splitlines()
    assert lines[13:15] == ["0", "0"] and len(lines) == 33
    unique = "1 (limit reached)" if limit == "1" else "1"
    assert lines[0] == unique and lines[-1] == unique
    several = lines[12]
    if limit in ("1", "2"):
        assert several == f"{limit} (limit reached)"
    else:
        assert int(several.split()[0]) >= 2


def test_a_bad_line_is_reported_like_the_per_puzzle_reader(tmp_path, monkeypatch):
    path = tmp_path / "bad.txt"
    path.write_text(ODD[0] + "\n" + ODD[0][:40] + "x" + ODD[0][41:] + "\n")
    fast, slow = _both_ways_error(monkeypatch, ["solve", "-s", "dlx", str(path)])
    assert fast.exit_code == slow.exit_code == 2
    assert fast.stderr == slow.stderr and "line 2" in fast.stderr and "column 41" in fast.stderr


def _both_ways_error(monkeypatch, args):
    fast = CliRunner().invoke(main, args)
    monkeypatch.setattr(batch, "batch_capable", lambda spec: False)
    return fast, CliRunner().invoke(main, args)


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_line_endings_read_as_the_per_puzzle_reader_reads_them(tmp_path, monkeypatch, newline):
    path = tmp_path / "crlf.txt"
    path.write_bytes(newline.join(SEVENTEEN.read_text().split()[:3]).encode() + b"\n")
    fast, slow = _both_ways_error(monkeypatch, ["solve", "-s", "dlx", str(path)])
    assert (fast.exit_code, fast.stdout, fast.stderr) == (slow.exit_code, slow.stdout, slow.stderr)
    assert fast.exit_code == (0 if newline == "\r\n" else 2)


def test_a_count_the_node_budget_cut_short_is_at_least_on_the_batch_path(tmp_path):
    """The batch path dropped "incomplete": 12 of the empty 4x4's 288 printed as exact."""
    one_line = tmp_path / "empty.txt"
    one_line.write_text("." * 16 + "\n")
    native = tmp_path / "empty.sudoku"
    native.write_text(". . . .\n" * 4)
    for path in (one_line, native):
        cut = CliRunner().invoke(main, ["count", "-s", "dlx:node_limit=100", str(path)])
        assert cut.exit_code == 0 and cut.output.startswith("at least "), cut.output
        assert 0 < int(cut.output.split()[2]) < 288
        whole = CliRunner().invoke(main, ["count", "-s", "dlx", str(path)])
        assert whole.output == "288\n"
        capped = CliRunner().invoke(main, ["count", "-s", "dlx", "-l", "5", str(path)])
        assert capped.output == "5 (limit reached)\n"
    (result,) = batch.solve_array(grid_text.parse(one_line.read_text()).grids[0].cells[None], 2,
                                  None, node_limit=100)
    assert not result.complete and result.count > 0


def test_a_count_without_an_answer_exits_3_as_solve_does(tmp_path):
    """A node budget spent before the first solution: "0 (incomplete: ...)" is printed, but
    the exit status is 3 (no answer), as race solve's, never 0; on both paths, and for a
    file of several puzzles where one got no answer."""
    puzzle = SEVENTEEN.read_text().split()[0]
    one_line = tmp_path / "one.txt"
    one_line.write_text(puzzle + "\n")
    native = tmp_path / "one.sudoku"
    native.write_text(grid_text.format_native(grid_text.parse(puzzle + "\n").grids[0]))
    for path in (one_line, native):
        cut = CliRunner().invoke(main, ["count", "-s", "dlx:node_limit=1", str(path)])
        assert cut.exit_code == 3 and cut.stdout.startswith("0 (incomplete: "), cut.output
        solve = CliRunner().invoke(main, ["solve", "-s", "dlx:node_limit=1", str(path)])
        assert solve.exit_code == 3
    two = tmp_path / "two.txt"
    two.write_text(puzzle + "\n" + "." * 16 + "\n")
    mixed = CliRunner().invoke(main, ["count", "-s", "dlx:node_limit=30", str(two)])
    assert mixed.exit_code == 3 and mixed.stdout.splitlines()[0].startswith("0 (incomplete")
    whole = CliRunner().invoke(main, ["count", "-s", "dlx", str(one_line)])
    assert (whole.exit_code, whole.stdout) == (0, "1\n")


def test_a_no_solution_claim_of_the_batch_kernel_is_confirmed_by_the_second_method(tmp_path, monkeypatch):
    """The batch path believed its kernel's "no solution". Now, as on the per-puzzle path,
    clues that conflict settle it (the rules core says so) and any other is confirmed by SAT:
    a kernel that answers "none" to every puzzle is refuted where a puzzle has a solution."""
    import numpy as np
    path = tmp_path / "three.txt"
    path.write_text("\n".join([SEVENTEEN.read_text().split()[0]] + ODD[1:]) + "\n")
    honest = CliRunner().invoke(main, ["solve", "-s", "dlx", "--stats", str(path)])
    assert honest.exit_code == 1
    assert "puzzle 2: status=unsat" in honest.stderr and "(the clues conflict)" in honest.stderr
    assert "puzzle 3: status=unsat" in honest.stderr and "(confirmed by sat)" in honest.stderr

    def nothing(puzzles, n, limit=1, node_limit=0, threads=1):
        count = len(puzzles)
        return (np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64),
                np.ones(count, dtype=bool), np.zeros_like(puzzles))
    monkeypatch.setattr(batch, "dlx_many", nothing)
    for command in ("solve", "count"):
        lied = CliRunner().invoke(main, [command, "-s", "dlx", str(path)])
        assert lied.exit_code == 2, (command, lied.output)
        assert "claimed no solution, but sat found a verified solution" in lied.stderr
