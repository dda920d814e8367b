"""Frames of a search drawn with matplotlib and written as GIF (pillow), MP4 (ffmpeg) or HTML.

One frame per sampled step: the board (a chessboard with queens as discs, or
a Sudoku grid with its boxes, clues in black and placed values in blue), the
cell of the step outlined (green: a placement, orange: propagation, red: a
backtrack or conflict, gold: the solution), and a caption with the step, its
number among all steps and, when the search was sampled or cut, how.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from unittest import mock

import numpy as np

from experiments.animation.frames import Board, Frame
from formats.errors import RaceError

EDGE = {"place": "#2e7d32", "propagate": "#ef6c00", "backtrack": "#c62828", "remove": "#c62828",
        "conflict": "#c62828", "solution": "#f9a825", "start": "#9e9e9e"}
FORMATS = (".gif", ".mp4", ".html")
QUEEN, PLACED = "#1a237e", "#1565c0"


def render(board: Board, frames: list[Frame], total: int, cut: bool, solver: str, out: Path,
           fps: float = 4.0) -> int:
    """Write the animation to ``out`` (its suffix picks the format); returns the frame count."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import animation

    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise RaceError(f"the output must end in {', '.join(FORMATS)}, not {out.name!r}")
    if suffix == ".mp4" and not animation.FFMpegWriter.isAvailable():
        raise RaceError("an .mp4 needs ffmpeg (apt-get install ffmpeg); .gif and .html need nothing more")
    side = board.side
    sampled = len(frames) - 1 < total
    note = (f"; sampled: {len(frames) - 1} of {total} steps shown" if sampled else "") + \
        (f"; search cut after {total} steps" if cut else "")
    fig, ax = plt.subplots(figsize=(5.2, 5.9), dpi=80)
    fig.subplots_adjust(left=0.02, right=0.98, top=0.98, bottom=0.12)

    def draw(k: int) -> None:
        frame = frames[k]
        ax.clear()
        ax.set_xlim(0, side)
        ax.set_ylim(side, 0)
        ax.set_aspect("equal")
        ax.axis("off")
        if board.problem == "queens":
            shade = (np.add.outer(np.arange(side), np.arange(side)) % 2) * 0.35 + 0.6
            ax.imshow(shade, cmap="gray", vmin=0, vmax=1, extent=(0, side, side, 0))
            rows, cols = np.nonzero(frame.cells)
            ax.scatter(cols + 0.5, rows + 0.5, s=(250 / side) ** 2, c=QUEEN, zorder=3)
        else:
            ax.imshow(np.ones((side, side)), cmap="gray", vmin=0, vmax=1, extent=(0, side, side, 0))
            for t in range(side + 1):
                width = 2.2 if t % board.n == 0 else 0.5
                ax.plot([0, side], [t, t], color="black", lw=width)
                ax.plot([t, t], [0, side], color="black", lw=width)
            size = 150 / side
            for r, c in np.argwhere(frame.cells > 0):
                clue = board.start[r, c] > 0
                ax.text(c + 0.5, r + 0.55, _symbol(int(frame.cells[r, c])), ha="center", va="center",
                        fontsize=size, color="black" if clue else PLACED,
                        fontweight="bold" if clue else "normal")
        if frame.event.focus is not None:
            r, c = frame.event.focus
            ax.add_patch(plt.Rectangle((c, r), 1, 1, fill=False, lw=3, zorder=4,
                                       edgecolor=EDGE.get(frame.event.action, "black")))
        head = f"{solver}: step {frame.step} of {total}{note}" if frame.step else \
            f"{solver}: the board before the search ({total} steps{note})"
        fig.texts.clear()
        fig.text(0.5, 0.075, head, ha="center", fontsize=8)
        fig.text(0.5, 0.03, frame.event.caption if frame.step else "", ha="center", fontsize=8,
                 color=EDGE.get(frame.event.action, "black"))

    anim = animation.FuncAnimation(fig, draw, frames=len(frames), interval=1000 / fps)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        if suffix in (".gif", ".mp4"):
            from formats.whole_file import replacing
            with replacing(out) as temporary:         # whole or not at all (a full disk)
                # matplotlib's stubs say int; both writers take a fractional rate (--fps 0.5)
                anim.save(temporary,
                          writer=animation.PillowWriter(fps=fps)  # type: ignore[arg-type]
                          if suffix == ".gif"
                          else animation.FFMpegWriter(fps=fps))  # type: ignore[arg-type]
        else:
            matplotlib.rcParams["animation.embed_limit"] = 200.0
            # matplotlib names the page's elements by a random uuid4: a fixed one keeps the
            # promise "same input, same options, same file"
            with mock.patch("matplotlib.animation.uuid.uuid4", return_value=uuid.UUID(int=0)):
                page = anim.to_jshtml(fps=fps)  # type: ignore[arg-type]  # stubs: int; 0.5 works
            from formats.whole_file import write_whole
            write_whole(out, page, sync=False)
    finally:
        plt.close(fig)
    return len(frames)


def _symbol(value: int) -> str:
    return str(value) if value < 10 else "ABCDEFG"[value - 10]
