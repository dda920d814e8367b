"""`race animate`: the search drawn frame by frame; the GIFs of a 4x4 Sudoku and 8 queens inspected."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image, ImageSequence

from experiments.animation.drawing import PLACED, QUEEN
from experiments.animation.frames import events, queens_board, sample, sudoku_board
from experiments.cli.main import main
from formats import grid_text


def frames_of(path) -> list[np.ndarray]:
    with Image.open(path) as im:
        return [np.asarray(f.convert("RGB"), dtype=np.int64) for f in ImageSequence.Iterator(im)]


def pixels_near(frame: np.ndarray, color: str, tolerance: int = 40) -> int:
    rgb = np.array([int(color[k:k + 2], 16) for k in (1, 3, 5)])
    return int((np.abs(frame - rgb).sum(axis=2) < tolerance).sum())


def first_solution_steps(n: int) -> int:
    """Placements + removals of the row-by-row queens search until its first solution,
    counted here independently of the animation code."""
    steps = 0

    def search(files):
        nonlocal steps
        if len(files) == n:
            return True
        r = len(files)
        for c in range(n):
            if all(c != f and abs(c - f) != r - q for q, f in enumerate(files)):
                steps += 1
                if search(files + [c]):
                    return True
                steps += 1
        return False

    search([])
    return steps + 1            # and the solution step


def test_eight_queens_gif_frames(tmp_path):
    out = tmp_path / "q8.gif"
    result = CliRunner().invoke(main, ["animate", "queens:8", "--solver", "backtracking", "-o", str(out),
                                       "--max-frames", "60"])
    assert result.exit_code == 0, result.output
    total = first_solution_steps(8)
    assert total == 219 and f"60 frames sampled from {total} steps" in result.output
    frames = frames_of(out)
    assert len(frames) == 60 and len({f.shape for f in frames}) == 1
    one_queen = pixels_near(frames[1], QUEEN)           # the first step: one queen on the board
    assert pixels_near(frames[0], QUEEN) == 0 and one_queen > 100
    assert pixels_near(frames[-1], QUEEN) / one_queen == pytest.approx(8, rel=0.08)    # 8 queens at the end
    assert all(not np.array_equal(a, b) for a, b in zip(frames, frames[1:]))


def test_four_by_four_sudoku_gif_frames(tmp_path):
    puzzle = tmp_path / "p4.sudoku"
    puzzle.write_text("1 . . .\n. . 3 .\n. 4 . .\n. . . 2\n")
    for solver in ("backtracking", "dlx", "sat"):
        out = tmp_path / f"s4-{solver}.gif"
        result = CliRunner().invoke(main, ["animate", str(puzzle), "-s", solver, "-o", str(out)])
        assert result.exit_code == 0, result.output
        board = sudoku_board(grid_text.read(str(puzzle)).grids[0])
        expected, total, cut = sample(board, events(board, solver), 120, 200_000)
        frames = frames_of(out)
        assert len(frames) == len(expected) == total + 1 and not cut
        assert pixels_near(frames[0], PLACED) == 0            # only the clues (in black) at first
        assert pixels_near(frames[-1], PLACED) > pixels_near(frames[len(frames) // 2], PLACED) > 0
        assert (expected[-1].cells > 0).all() and expected[-1].event.action == "solution"


def test_same_input_same_file(tmp_path):
    a, b = tmp_path / "a.gif", tmp_path / "b.gif"
    for out in (a, b):
        assert CliRunner().invoke(main, ["animate", "queens:6", "-s", "sat", "--seed", "3",
                                         "-o", str(out)]).exit_code == 0
    assert a.read_bytes() == b.read_bytes()


def test_long_search_is_sampled_and_cut():
    board = queens_board(12)
    frames, total, cut = sample(board, events(board, "backtracking"), 10, 50)
    assert cut and total == 50 and len(frames) == 10 and frames[-1].step == 50


def test_html_output_and_errors(tmp_path):
    out = tmp_path / "q5.html"
    assert CliRunner().invoke(main, ["animate", "queens:5", "-o", str(out)]).exit_code == 0
    assert "<script" in out.read_text()
    again = tmp_path / "again.html"          # "same input, same options, same file"
    assert CliRunner().invoke(main, ["animate", "queens:5", "-o", str(again)]).exit_code == 0
    assert again.read_bytes() == out.read_bytes()
    for args, message in [(["queens:20", "-o", str(tmp_path / "x.gif")], "queens:N takes"),
                          (["queens:5", "-o", str(tmp_path / "x.png")], "must end in"),
                          (["nosuch.sudoku", "-o", str(tmp_path / "x.gif")], "nosuch")]:
        result = CliRunner().invoke(main, ["animate", *args])
        assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("solver", ["dlx", "backtracking", "sat"])
def test_every_method_says_when_there_is_no_solution(solver, tmp_path):
    """Only SAT's tracer ended on "no solution"; DLX and Algorithm 1 ended on a "back" step."""
    from experiments.animation.frames import events, queens_board, sample
    frames, _, cut = sample(queens_board(3), events(queens_board(3), solver), 50, 10_000)
    assert not cut and frames[-1].event.caption == f"{solver}: no solution"
    solved, _, _ = sample(queens_board(4), events(queens_board(4), solver), 50, 10_000)
    assert solved[-1].event.action == "solution"
    result = CliRunner().invoke(main, ["animate", "queens:3", "-s", solver, "-o", str(tmp_path / "q.gif")])
    assert result.exit_code == 0 and result.output.rstrip().endswith(": no solution")
