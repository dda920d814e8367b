"""The catalogue of example exact cover problems behind ``race example``.

Each :class:`Example` names a problem of the source documents, the parameter
it takes, how it is posed by default (every solution, symmetric copies
included) and with ``knuth`` (as the paper poses it, so that its "essentially
different" counts come out), its known answers and where they come from.
:func:`build` turns a name, a parameter and the switches into an
:class:`~formats.exact_cover.ExactCover`; bad parameters raise RaceError.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from formats.errors import RaceError
from formats.exact_cover import ExactCover
from generators import cover_problems, polyiamonds, polyominoes, polysticks


@dataclass(frozen=True)
class Example:
    name: str
    param: str | None          # metavar of the parameter, None if it takes none
    default: str | None        # the parameter when omitted (None: required)
    what: str                  # one line: the problem
    answer: str                # its known answers and their source
    knuth: str                 # what --knuth changes ("" if nothing)


EXAMPLES: dict[str, Example] = {e.name: e for e in [
    Example("queens", "N", None, "N queens, Knuth's generalized cover (ranks/files primary in "
            "organ-pipe order, diagonals secondary)",
            "N=8: 92 solutions, 1049 nodes, 16680 updates (Knuth's table, N=1..18)", ""),
    Example("toroidal-queens", "N", None, "N queens on the torus (the thesis): diagonals wrap around",
            "solutions only when N is prime to 6 (Polya): N=5: 10, 7: 28, 11: 88, 13: 4524 "
            "(OEIS A051906)", ""),
    Example("rooks", "N", None, "N non-attacking rooks (the blog): ranks and files", "N! solutions", ""),
    Example("latin", "N", None, "N x N Latin squares: cell, row-value and column-value items",
            "N=2: 2 (the thesis works it by hand), N=4: 576", ""),
    Example("pentominoes", "RxC", "6x10", "the twelve pentominoes in an R x C rectangle (R rows of C)",
            "6x10: 9356 (2339 essentially different, the paper), 5x12: 4040 (1010), "
            "4x15: 1472 (368), 3x20: 8 (2)",
            "the X kept to one placement per symmetry orbit (6x10: the upper left quarter, as the "
            "paper); where an X placement is symmetric (odd side) the F instead"),
    Example("scott", None, None, "Dana Scott's problem: the pentominoes on the chessboard minus its "
            "centre 2x2 (1568 options)",
            "520 solutions; 65 essentially different = 19 (X at 23) + 20 (X at 24) + 26 (X at 33)",
            "the X only centred at 23, 24, 33 and the P not turned over when it is at 33; "
            "--x 23|24|33 poses one of the paper's three subproblems"),
    Example("dudeney", None, None, "Dudeney's chessboard: the pentominoes and the square tetromino "
            "anywhere on 8x8", "16,146 essentially different (the paper), so 8 x 16,146 = 129,168 in all",
            "the F kept to one placement per symmetry orbit"),
    Example("y-pentominoes", "N", "15", "N*N/5 Y pentominoes in an N x N square",
            "15: 1696 in all = 8 x 212 (the paper's 212, by corner class 92 + 100 + 20 + 0, are up to "
            "symmetry; 24.5 billion updates)", ""),
    Example("hexiamonds", None, None, "the twelve hexiamonds in the 6x6 rhombus",
            "624 tilings; 156 up to symmetry (Torbijn; the paper)",
            "the sphinx kept to 3 of its 12 orientations, one per symmetry orbit (as the paper)"),
    Example("one-sided", "RxC", "3x30", "the eighteen one-sided pentominoes in an R x C rectangle",
            "3x30: 46 up to symmetry (Leech; the paper), 184 in all",
            "the I kept to one placement per symmetry orbit"),
    Example("tetrasticks", None, None, "fifteen tetrasticks (all but --omit H|J|L|N|Y, default L) "
            "in the 5x5 grid; crossing points are secondary items",
            "up to symmetry (the paper, Figure 11): omit H 72, J 382, L 607, N 530, Y 204; "
            "eight times as many in all",
            "the first piece with no symmetric placement kept to one placement per orbit"),
    Example("plus-noise", "N", "5", "the blog's plus noise: every toroidal plus of an N x N grid "
            "holds 1..5", "5x5: 240 (the blog); any multiple of 5 the same 240, else none", ""),
    Example("windowed-sudoku", None, None, "the blog's generalized Sudoku: rows, columns and every "
            "3x3 window of the 9x9 torus hold 1..9 (--relaxed: the windows only)",
            "none (the blog); --relaxed: 48,567,133,440 = 9! x 133,838 (the blog stopped at 49,536)",
            "the first window fixed to 1..9 (a relabelling of the values maps solutions one to one)"),
    Example("sudoku", "FILE", None, "the Sudoku puzzle in FILE as exact cover (the assignment's "
            "Task 18 matrix)", "the puzzle's solutions (1 for a proper puzzle)", ""),
]}


#: the largest parameter of each sized example: about a million options at most (the
#: problem is built in memory and printed as text; latin 300 took 6 GB and printed nothing)
LARGEST = {"queens": 1000, "toroidal-queens": 1000, "rooks": 1000, "latin": 100,
           "plus-noise": 200, "y-pentominoes": 35}
#: the largest area R x C of a rectangle for the pentomino examples
LARGEST_AREA = 2500


def _int(param: str, example: Example) -> int:
    most = LARGEST[example.name]
    if not re.fullmatch(r"[0-9]{1,4}", param) or not 1 <= int(param) <= most:
        raise RaceError(f"{example.name} takes {example.param}, a whole number from 1 to {most} "
                        f"(larger ones do not fit in memory as text), not {param!r}")
    return int(param)


def _dims(param: str, example: Example) -> tuple[int, int]:
    m = re.fullmatch(r"([0-9]{1,4})x([0-9]{1,4})", param)
    if not m or not 1 <= int(m.group(1)) * int(m.group(2)) <= LARGEST_AREA:
        raise RaceError(f"{example.name} takes {example.param} such as {example.default}, of area "
                        f"1 to {LARGEST_AREA}, not {param!r}")
    return int(m.group(1)), int(m.group(2))


def build(name: str, param: str | None = None, knuth: bool = False, relaxed: bool = False,
          x: str | None = None, omit: str = "L") -> ExactCover:
    """The example problem ``name`` (see :data:`EXAMPLES`) with its parameter."""
    example = EXAMPLES.get(name)
    if example is None:
        raise RaceError(f"unknown example {name!r}; race example --list names them")
    if param is None:
        param = example.default
    if example.param is None and param is not None:
        raise RaceError(f"{name} takes no parameter, got {param!r}")
    if example.param is not None and param is None:
        raise RaceError(f"{name} needs its parameter {example.param}")
    if relaxed and name != "windowed-sudoku":
        raise RaceError("--relaxed applies to windowed-sudoku only")
    if x is not None and name != "scott":
        raise RaceError("--x applies to scott only")
    arg = "" if param is None else param         # checked above for those that take one
    makers: dict[str, Callable[[], ExactCover]] = {
        "queens": lambda: cover_problems.queens(_int(arg, example)),
        "toroidal-queens": lambda: cover_problems.toroidal_queens(_int(arg, example)),
        "rooks": lambda: cover_problems.rooks(_int(arg, example)),
        "latin": lambda: cover_problems.latin_square(_int(arg, example)),
        "pentominoes": lambda: polyominoes.pentomino_rectangle(*_dims(arg, example), knuth=knuth),
        "scott": lambda: polyominoes.scott(knuth=knuth, x=x),
        "dudeney": lambda: polyominoes.dudeney(knuth=knuth),
        "y-pentominoes": lambda: polyominoes.y_pentominoes(_int(arg, example)),
        "hexiamonds": lambda: polyiamonds.hexiamond_rhombus(knuth=knuth),
        "one-sided": lambda: polyominoes.one_sided_rectangle(*_dims(arg, example), knuth=knuth),
        "tetrasticks": lambda: polysticks.tetrastick_grid(omit=omit, knuth=knuth),
        "plus-noise": lambda: cover_problems.plus_noise(_int(arg, example)),
        "windowed-sudoku": lambda: cover_problems.windowed_sudoku(relaxed=relaxed, knuth=knuth),
        "sudoku": lambda: cover_problems.sudoku_file(arg),
    }
    if knuth and not example.knuth:
        raise RaceError(f"{name} has no --knuth form (it is posed as the source poses it)")
    return makers[name]()


def describe(name: str, param: str | None, knuth: bool, relaxed: bool, x: str | None, omit: str) -> str:
    """The comment line written above the problem."""
    example = EXAMPLES[name]
    shown = param if param is not None else example.default
    words = [name] + ([shown] if shown else []) + (["--knuth"] if knuth else []) \
        + (["--relaxed"] if relaxed else []) + ([f"--x {x}"] if x else []) \
        + ([f"--omit {omit}"] if name == "tetrasticks" else [])
    return f"race example {' '.join(words)}: {example.what}\nknown: {example.answer}"
