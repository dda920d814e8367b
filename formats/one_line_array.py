"""The plainest one-line file of 9x9 puzzles read straight into one array.

A file of P lines, each exactly 81 characters from ``0-9`` and ``.`` (``0`` and ``.`` empty) and
a line end (``\n`` or ``\r\n``, the same throughout; the last line's may be missing), is read by :func:`puzzles_9x9` with a few numpy
operations on its bytes: no decoding, no line list. Any other file (comments, blanks, CR line
ends, another size, a bad character) gives None, and the general reader
(:func:`formats.grid_text.parse_one_line_many`) reads it, with its errors; for a file both read,
both give the same puzzles (tests/test_array_answers.py).
"""

from __future__ import annotations

import numpy as np

#: cells of a 9x9 grid: the characters of a line before its end
CELLS = 81


def puzzles_9x9(data: bytes) -> np.ndarray | None:
    """The puzzles of ``data`` as a (P, 9, 9) uint8 array (0 = empty) when ``data`` is the
    plainest one-line file of 9x9 puzzles (module docstring), else None."""
    if not data:
        return None
    end = b"\r\n" if data[CELLS:CELLS + 2] == b"\r\n" else b"\n"
    if not data.endswith(end):
        data += end
    width = CELLS + len(end)
    if len(data) % width:
        return None
    raw = np.frombuffer(data, dtype=np.uint8).reshape(-1, width)
    if not (raw[:, CELLS:] == np.frombuffer(end, dtype=np.uint8)).all():
        return None
    cells = raw[:, :CELLS] - np.uint8(ord("0"))     # '.' wraps to 254, others above 9
    dots = cells == np.uint8(ord(".") - ord("0") + 256)
    if not ((cells <= 9) | dots).all():
        return None
    cells[dots] = 0
    return cells.reshape(-1, 9, 9)
