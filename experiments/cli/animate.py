"""The command ``race animate``: draw a search on its board, frame by frame."""

from __future__ import annotations

import re
from pathlib import Path

import click

from experiments.cli import params
from formats.errors import RaceError


@click.command()
@click.argument("puzzle")
@click.option("--solver", "-s", type=click.Choice(["backtracking", "dlx", "sat"]), default="dlx",
              show_default=True, help="The search to draw.")
@click.option("--out", "-o", "out", required=True, type=click.Path(dir_okay=False),
              help="The file to write: .gif, .mp4 (needs ffmpeg) or .html.")
@click.option("--max-frames", type=params.Integer(min=2, max=2000), default=120, show_default=True,
              help="At most this many frames; a longer search is sampled evenly (the caption says so).")
@click.option("--max-steps", type=params.Integer(min=1), default=200_000, show_default=True,
              help="Follow the search for at most this many steps (the caption says if it was cut).")
@click.option("--fps", type=params.Number(0.1, max=60), default=4.0, show_default=True,
              help="Frames per second.")
@click.option("--seed", type=params.Integer(min=0), default=0, show_default=True,
              help="Breaks the SAT search's ties between decision cells (the other searches are deterministic).")
def animate(puzzle: str, solver: str, out: str, max_frames: int, max_steps: int, fps: float,
            seed: int) -> None:
    """Draw the search for PUZZLE on its board, frame by frame.

    \b
    PUZZLE is queens:N (N queens, N <= 16) or a Sudoku file (either grid
    format, up to 16x16; - = stdin). Each frame is one step of the search
    until the first solution: a placement, a backtrack, and for sat the
    cells unit propagation fixes after each decision (a DPLL over PySAT's
    propagate: PySAT shows no trail of its own search). A long search is
    sampled evenly to --max-frames; the caption says so. Same input, same
    options, same file.

    \b
    Example:
      race animate queens:8 --solver backtracking -o queens8.gif
      race animate tests/data/empty4.sudoku -s dlx -o sudoku4.html
      race animate puzzle.sudoku -s sat --seed 1 -o sat.gif --max-frames 60
    """
    from experiments.animation.drawing import render
    from experiments.animation.frames import events, queens_board, sample, sudoku_board

    m = re.fullmatch(r"queens:([0-9]{1,3})", puzzle)
    if m:
        board = queens_board(int(m.group(1)))
    elif puzzle.startswith("queens:") and not Path(puzzle).exists():
        from experiments.animation.frames import MAX_SIDE
        raise RaceError(f"queens:N takes a whole number 1 <= N <= {MAX_SIDE}, got {puzzle[7:]!r}")
    else:
        from formats import grid_text
        grids = grid_text.read(puzzle).grids
        if len(grids) != 1:
            raise RaceError(f"expected one puzzle, found {len(grids)}", source=puzzle)
        board = sudoku_board(grids[0])
    frames, total, cut = sample(board, events(board, solver, seed), max_frames, max_steps)
    try:
        count = render(board, frames, total, cut, solver, Path(out), fps)
    except OSError as exc:                              # a full disk: the file is named
        from formats.errors import write_reason
        raise RaceError(f"cannot write: {write_reason(exc)}", source=out) from None
    how = "sampled from" if count - 1 < total else "for"
    ending = " (search cut at --max-steps)" if cut else \
        ": no solution" if frames[-1].event.caption.endswith("no solution") else ""
    click.echo(f"{out}: {count} frames {how} {total} steps{ending}")


COMMANDS: list = [animate]
