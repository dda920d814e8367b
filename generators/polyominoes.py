"""Polyomino packing as exact cover: the pentomino problems of Knuth's "Dancing Links".

A *board* is a set of cells (row, column), 0-based; a *piece* a set of cells
up to translation. Each placement of a piece on the board is one option:
the piece's item (primary: every piece is used once) followed by the five (or
four) cells it covers. Cells are named by their row and column, 1-based, one
base-36 digit each (``1``-``9`` then ``a``-``z``), row first: on the chessboard
that is Knuth's "two digits ij for rank i and file j" (``23`` = rank 2, file 3).

Items are listed pieces first (in the order given, Golomb's ``F I L P N T U V
W X Y Z`` for the pentominoes), then the cells row by row; options piece by
piece, each piece's orientations in a fixed order and each orientation's
positions row-major. Only the item order matters to the search's node and
update counts (Choose takes the first item of minimal size).

Symmetry: :func:`board_symmetries` gives the rotations/reflections that map
the board to itself. :func:`canonical_placements` keeps, of a piece's
placements, one per orbit under them (the lexicographically least cells), the
standard way to count "essentially different" solutions when that piece has
no placement fixed by a symmetry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from formats.errors import RaceError
from formats.exact_cover import ExactCover

Cell = tuple[int, int]
Shape = frozenset[Cell]

DIGITS = "123456789abcdefghijklmnopqrstuvwxyz"


def _shape(picture: str) -> Shape:
    """Cells of a picture: rows separated by '/', 'x' = a cell."""
    return frozenset((r, c) for r, row in enumerate(picture.split("/"))
                     for c, ch in enumerate(row) if ch == "x")


#: the twelve pentominoes with Golomb's names, in the paper's column order F I L P N T U V W X Y Z
PENTOMINOES: dict[str, Shape] = {
    "F": _shape(".xx/xx./.x."), "I": _shape("xxxxx"), "L": _shape("x/x/x/xx"),
    "P": _shape("xx/xx/x."), "N": _shape("xx../.xxx"), "T": _shape("xxx/.x./.x."),
    "U": _shape("x.x/xxx"), "V": _shape("x../x../xxx"), "W": _shape("x../xx./.xx"),
    "X": _shape(".x./xxx/.x."), "Y": _shape(".x/xx/.x/.x"), "Z": _shape("xx./.x./.xx"),
}
#: the square tetromino of Dudeney's problem
SQUARE: Shape = _shape("xx/xx")

#: the eight symmetries of the square, as maps of (r, c); the first four are the rotations
SQUARE_SYMMETRIES: tuple[Callable[[int, int], Cell], ...] = (
    lambda r, c: (r, c), lambda r, c: (c, -r), lambda r, c: (-r, -c), lambda r, c: (-c, r),
    lambda r, c: (r, -c), lambda r, c: (c, r), lambda r, c: (-r, c), lambda r, c: (-c, -r),
)


def cell_name(r: int, c: int) -> str:
    """Knuth-style cell name: 1-based row then column, one base-36 digit each."""
    if not (0 <= r < len(DIGITS) and 0 <= c < len(DIGITS)):
        raise RaceError(f"a board side is at most {len(DIGITS)} cells")
    return DIGITS[r] + DIGITS[c]


def normalize(cells: Iterable[Cell]) -> Shape:
    """The cells translated so that the least row and the least column are 0."""
    cells = list(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def orientations(shape: Shape, one_sided: bool = False) -> list[Shape]:
    """The distinct orientations of a piece (rotations only if ``one_sided``),
    in the order of :data:`SQUARE_SYMMETRIES`."""
    out: list[Shape] = []
    for f in SQUARE_SYMMETRIES[:4] if one_sided else SQUARE_SYMMETRIES:
        o = normalize(f(r, c) for r, c in shape)
        if o not in out:
            out.append(o)
    return out


def mirror(shape: Shape) -> Shape:
    """The piece turned over (left-right reflection)."""
    return normalize((r, -c) for r, c in shape)


def placements(shape: Shape, board: frozenset[Cell], one_sided: bool = False) -> list[tuple[Cell, ...]]:
    """Every placement of the piece inside the board, as sorted cell tuples:
    orientation by orientation, positions row-major."""
    rows = max(r for r, _ in board) + 1
    cols = max(c for _, c in board) + 1
    out = []
    for o in orientations(shape, one_sided):
        for dr in range(rows):
            for dc in range(cols):
                cells = tuple(sorted((r + dr, c + dc) for r, c in o))
                if all(cell in board for cell in cells):
                    out.append(cells)
    return out


def board_symmetries(board: frozenset[Cell]) -> list[Callable[[Cell], Cell]]:
    """The symmetries of the square that map the board onto itself (identity first)."""
    out = []
    for f in SQUARE_SYMMETRIES:
        image = [f(r, c) for r, c in board]
        shift = (min(r for r, _ in image), min(c for _, c in image))
        g = _moved(f, shift)
        if {g(cell) for cell in board} == board:
            out.append(g)
    return out


def _moved(f: Callable[[int, int], Cell], shift: Cell) -> Callable[[Cell], Cell]:
    def g(cell: Cell) -> Cell:
        r, c = f(*cell)
        return r - shift[0], c - shift[1]
    return g


def image(cells: Sequence[Cell], g: Callable[[Cell], Cell]) -> tuple[Cell, ...]:
    """The placement ``cells`` moved by the symmetry g (sorted)."""
    return tuple(sorted(g(cell) for cell in cells))


def canonical_placements(cells_list: Sequence[tuple[Cell, ...]],
                         symmetries: Sequence[Callable[[Cell], Cell]]) -> list[tuple[Cell, ...]]:
    """The placements that are the least (as sorted cell tuples) of their orbit."""
    return [cells for cells in cells_list if cells == min(image(cells, g) for g in symmetries)]


def has_fixed_placement(cells_list: Sequence[tuple[Cell, ...]],
                        symmetries: Sequence[Callable[[Cell], Cell]]) -> bool:
    """True if some placement is mapped onto itself by a symmetry other than the identity."""
    return any(image(cells, g) == cells for cells in cells_list for g in symmetries[1:])


#: one option of a packing: the piece, the cells it covers, and secondary items it also takes
Placement = tuple[str, tuple[Cell, ...], tuple[str, ...]]


def packing(board: frozenset[Cell], pieces: Sequence[str], options: Iterable[Placement],
            secondary: Sequence[str] = (), first: Sequence[str] = ()) -> ExactCover:
    """The exact cover problem: primary items the pieces named in ``first``,
    then the board's cells (row-major), then the other pieces, in the given
    order, then the ``secondary`` items; one option per placement: its piece,
    its cells, then its secondary items.

    This item order is the paper's: with it (the restricted X first) the
    search reproduces Knuth's update counts for Scott's problem and the 6 x 10
    rectangle exactly, with and without the S heuristic."""
    cells = [cell_name(r, c) for r, c in sorted(board)]
    items = ([p for p in pieces if p in first] + cells + [p for p in pieces if p not in first]
             + list(secondary))
    index = {name: t for t, name in enumerate(items)}
    rows = [[index[piece]] + [index[cell_name(r, c)] for r, c in cells] + [index[x] for x in extra]
            for piece, cells, extra in options]
    return ExactCover.from_options(items, len(items) - len(secondary), rows)


def rectangle(rows: int, cols: int) -> frozenset[Cell]:
    """The cells of a rows x cols board."""
    return frozenset((r, c) for r in range(rows) for c in range(cols))


def free_packing(board: frozenset[Cell], shapes: dict[str, Shape], one_sided: bool = False,
                 restrict: str | None = None) -> ExactCover:
    """Pack every piece of ``shapes`` once into the board. ``restrict`` names a
    piece kept to one placement per orbit of the board's symmetries
    (:func:`canonical_placements`): then each essentially different solution
    comes out once, provided that piece has no placement a symmetry fixes
    (RaceError otherwise)."""
    options: list[Placement] = []
    symmetries = board_symmetries(board)
    for name, shape in shapes.items():
        places = placements(shape, board, one_sided)
        if name == restrict:
            if has_fixed_placement(places, symmetries):
                raise RaceError(f"piece {name} has a placement fixed by a symmetry of the board, "
                                f"so restricting it does not give essentially different solutions")
            places = canonical_placements(places, symmetries)
        options += [(name, cells, ()) for cells in places]
    return packing(board, list(shapes), options, first=(restrict,) if restrict else ())


# -- the paper's problems --------------------------------------------------------------

def chessboard_minus_centre() -> frozenset[Cell]:
    """Scott's board: the 8 x 8 chessboard without its centre 2 x 2 (ranks and files 4-5)."""
    return frozenset(cell for cell in rectangle(8, 8) if not (cell[0] in (3, 4) and cell[1] in (3, 4)))


#: Scott's three essentially different positions of the X, by its centre (rank, file, 1-based)
SCOTT_X = ("23", "24", "33")


def _x_centred(centre: str) -> tuple[Cell, ...]:
    r, c = DIGITS.index(centre[0]), DIGITS.index(centre[1])
    return tuple(sorted([(r - 1, c), (r, c - 1), (r, c), (r, c + 1), (r + 1, c)]))


def scott(knuth: bool = False, x: str | None = None) -> ExactCover:
    """Dana Scott's problem: the twelve pentominoes on the chessboard minus its centre.

    Default: every placement (1568 options, 520 solutions, symmetric copies
    included). ``knuth``: posed as the paper does, the X only at its three
    essentially different positions (centred at 23, 24, 33) and the P not
    turned over when the X is at 33, so each of the 65 essentially different
    solutions comes out once (the flipped P's and the X at 33 share a secondary
    item ``P'X33``). ``x`` (one of 23, 24, 33) poses only that one of the
    paper's three subproblems (19, 20 and 26 solutions)."""
    board = chessboard_minus_centre()
    if x is not None and x not in SCOTT_X:
        raise RaceError(f"Scott's X is at 23, 24 or 33 (its centre: rank, file), got {x!r}")
    if x is not None:
        knuth = True
    options: list[Placement] = []
    unflipped = orientations(PENTOMINOES["P"], one_sided=True)
    x_places = {_x_centred(centre): centre for centre in SCOTT_X}
    for name, shape in PENTOMINOES.items():
        for cells in placements(shape, board):
            extra: tuple[str, ...] = ()
            if knuth and name == "X":
                centre = x_places.get(cells)
                if centre is None or x not in (None, centre):
                    continue
                if centre == "33" and x is None:
                    extra = ("P'X33",)
            if knuth and name == "P" and normalize(cells) not in unflipped:
                if x == "33":
                    continue
                if x is None:
                    extra = ("P'X33",)
            options.append((name, cells, extra))
    secondary = ("P'X33",) if knuth and x is None else ()
    return packing(board, list(PENTOMINOES), options, secondary, first=("X",) if knuth else ())


def pentomino_rectangle(rows: int, cols: int, knuth: bool = False) -> ExactCover:
    """The twelve pentominoes in a rows x cols rectangle (60 cells: 6x10,
    5x12, 4x15, 3x20, and their transposes; the paper's 6 x 10 has 6 rows of 10). ``knuth`` restricts the X as the
    paper does for 6 x 10 ("limit the X pentomino to the upper left quarter"):
    one X placement per orbit of the board's symmetries; on a board where some
    X placement is symmetric (an odd side) the F is restricted instead."""
    if rows * cols != 60:
        raise RaceError(f"the twelve pentominoes cover 60 cells, not {rows}x{cols} = {rows * cols}")
    board = rectangle(rows, cols)
    restrict = None
    if knuth:
        x_places = placements(PENTOMINOES["X"], board)
        restrict = "F" if has_fixed_placement(x_places, board_symmetries(board)) else "X"
    return free_packing(board, PENTOMINOES, restrict=restrict)


def dudeney(knuth: bool = False) -> ExactCover:
    """Dudeney's chessboard: the twelve pentominoes and the square tetromino
    ``O`` anywhere on the 8 x 8 board. ``knuth``: one F placement per orbit of
    the board's eight symmetries (the F has no symmetric placement), so each
    essentially different dissection comes out once (the paper: 16,146)."""
    shapes = dict(PENTOMINOES, O=SQUARE)
    return free_packing(rectangle(8, 8), shapes, restrict="F" if knuth else None)


def y_pentominoes(side: int = 15) -> ExactCover:
    """Pack side²/5 Y pentominoes into a side x side square (the paper: 45 in
    15 x 15, 212 solutions up to symmetry; all placements give 8 x 212 = 1696).
    The pieces are alike, so the items are only the cells."""
    if side < 1 or side * side % 5:
        raise RaceError(f"Y pentominoes cover a multiple of 5 cells; {side}x{side} is not")
    board = rectangle(side, side)
    items = [cell_name(r, c) for r, c in sorted(board)]
    index = {name: t for t, name in enumerate(items)}
    options = [[index[cell_name(r, c)] for r, c in cells]
               for cells in placements(PENTOMINOES["Y"], board)]
    return ExactCover.from_options(items, None, options)


def chiral(shape: Shape) -> bool:
    """True if turning the piece over gives a shape no rotation gives."""
    return mirror(shape) not in orientations(shape, one_sided=True)


def one_sided_pieces() -> dict[str, Shape]:
    """The eighteen one-sided pentominoes: the twelve, and the six that change
    when turned over (F L N P Y Z) in their mirror image, named with a prime."""
    shapes = dict(PENTOMINOES)
    for name, shape in PENTOMINOES.items():
        if chiral(shape):
            shapes[name + "'"] = mirror(shape)
    return shapes


def one_sided_rectangle(rows: int, cols: int, knuth: bool = False) -> ExactCover:
    """The eighteen one-sided pentominoes (rotated, never turned over) in a
    rows x cols rectangle of 90 cells (the paper: 3 x 30 has 46 packings up
    to symmetry). A reflection of a packing is a packing (each chiral piece
    turns into its mirror piece), so ``knuth`` keeps one placement per orbit
    of the board's symmetries for the first piece that is its own mirror image
    and has no symmetric placement (on 3 x 30 the V)."""
    if rows * cols != 90:
        raise RaceError(f"the one-sided pentominoes cover 90 cells, not {rows}x{cols} = {rows * cols}")
    board = rectangle(rows, cols)
    shapes = one_sided_pieces()
    symmetries = board_symmetries(board)
    places = {name: placements(shape, board, one_sided=True) for name, shape in shapes.items()}
    restrict = None
    if knuth:
        restrict = next((name for name, shape in shapes.items() if not chiral(shape)
                         and not has_fixed_placement(places[name], symmetries)), None)
        if restrict is None:
            raise RaceError(f"no piece can be restricted on {rows}x{cols} (each has a symmetric placement)")
        places[restrict] = canonical_placements(places[restrict], symmetries)
    options = [(name, cells, ()) for name, found in places.items() for cells in found]
    return packing(board, list(shapes), options, first=(restrict,) if restrict else ())
