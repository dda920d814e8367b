"""Polyiamond packing as exact cover: the twelve hexiamonds in the 6 x 6 rhombus (Knuth, "Dancing Links").

The triangular grid is cut into rhombi: rhombus (x, y) is spanned by the
lattice vectors a = (1, 0) and b = (1/2, √3/2) at the lattice point x·a + y·b,
and holds an upward triangle (x, y, 0) (corners p, p+a, p+b) and a downward
one (x, y, 1) (corners p+a, p+b, p+a+b). The n x n rhombus is every triangle
with 0 <= x, y < n. The twelve symmetries of the grid act on lattice points:
the rotation by 60° takes (i, j) to (-j, i + j), the reflection swaps i and j.

The twelve hexiamonds are enumerated (every connected set of six triangles,
up to the twelve symmetries: 1, 1, 1, 3, 4, 12 polyiamonds of 1..6
triangles). Four are named by their symmetry or shape (O'Beirne's names):
the ``hexagon`` (one orientation), the ``butterfly`` (three), the ``bar``
(three rhombi in a row) and the ``sphinx``; the paper names no other, so the
other eight are ``h1``..``h8`` in enumeration order. Items: the cells (named
``{x}{y}{u|d}``, 1-based base-36 digits), then the pieces (the restricted
sphinx first with ``knuth``); options piece by piece, orientation by
orientation, positions in (x, y) order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from formats.errors import RaceError
from formats.exact_cover import ExactCover
from generators.polyominoes import DIGITS

Triangle = tuple[int, int, int]
Shape = frozenset[Triangle]
Point = tuple[int, int]


def corners(t: Triangle) -> frozenset[Point]:
    x, y, down = t
    if down:
        return frozenset({(x + 1, y), (x, y + 1), (x + 1, y + 1)})
    return frozenset({(x, y), (x + 1, y), (x, y + 1)})


def from_corners(points: Iterable[Point]) -> Triangle:
    """The unit triangle with these three lattice corners."""
    pts = sorted(points)
    sums = sorted(i + j for i, j in pts)
    if sums[0] < sums[1]:                       # one low corner p: the upward p, p+a, p+b
        i, j = min(pts, key=lambda p: p[0] + p[1])
        return (i, j, 0)
    i, j = max(pts, key=lambda p: p[0] + p[1])  # one high corner p+a+b: the downward one
    return (i - 1, j - 1, 1)


def _rotate(p: Point) -> Point:
    return (-p[1], p[0] + p[1])


def _reflect(p: Point) -> Point:
    return (p[1], p[0])


def _symmetry(turns: int, flip: bool) -> Callable[[Point], Point]:
    def g(p: Point) -> Point:
        if flip:
            p = _reflect(p)
        for _ in range(turns):
            p = _rotate(p)
        return p
    return g


#: the twelve symmetries of the triangular grid (rotations first)
GRID_SYMMETRIES = tuple(_symmetry(k, flip) for flip in (False, True) for k in range(6))


def transform(shape: Iterable[Triangle], g: Callable[[Point], Point]) -> Shape:
    return frozenset(from_corners(g(p) for p in corners(t)) for t in shape)


def normalize(shape: Iterable[Triangle]) -> Shape:
    shape = list(shape)
    x0 = min(x for x, _, _ in shape)
    y0 = min(y for _, y, _ in shape)
    return frozenset((x - x0, y - y0, d) for x, y, d in shape)


def orientations(shape: Shape) -> list[Shape]:
    out: list[Shape] = []
    for g in GRID_SYMMETRIES:
        o = normalize(transform(shape, g))
        if o not in out:
            out.append(o)
    return out


def neighbours(t: Triangle) -> list[Triangle]:
    x, y, down = t
    if down:
        return [(x, y, 0), (x + 1, y, 0), (x, y + 1, 0)]
    return [(x, y, 1), (x - 1, y, 1), (x, y - 1, 1)]


def canonical(shape: Iterable[Triangle]) -> tuple[Triangle, ...]:
    return min(tuple(sorted(o)) for o in orientations(frozenset(shape)))


def free_polyiamonds(size: int) -> list[Shape]:
    """Every polyiamond of ``size`` triangles up to the grid's symmetries, in a fixed order."""
    shapes = {canonical([(0, 0, 0)])}
    for _ in range(size - 1):
        grown = set()
        for s in shapes:
            for t in s:
                for u in neighbours(t):
                    if u not in s:
                        grown.add(canonical(set(s) | {u}))
        shapes = grown
    return [frozenset(s) for s in sorted(shapes)]


#: the sphinx: a trapezoid of five triangles with one more on its left shoulder
SPHINX: Shape = frozenset({(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 0, 1), (2, 0, 0), (0, 1, 0)})
#: the bar: three rhombi in a row
BAR: Shape = frozenset((x, 0, d) for x in range(3) for d in (0, 1))


def hexiamonds() -> dict[str, Shape]:
    """The twelve hexiamonds by name (see the module docstring)."""
    out: dict[str, Shape] = {}
    unnamed = 0
    for shape in free_polyiamonds(6):
        turns = len(orientations(shape))
        key = tuple(sorted(shape))
        if turns == 1:
            name = "hexagon"
        elif turns == 3:
            name = "butterfly"
        elif key == canonical(BAR):
            name = "bar"
        elif key == canonical(SPHINX):
            name = "sphinx"
        else:
            unnamed += 1
            name = f"h{unnamed}"
        out[name] = shape
    return out


def rhombus(side: int) -> frozenset[Triangle]:
    return frozenset((x, y, d) for x in range(side) for y in range(side) for d in (0, 1))


def triangle_name(t: Triangle) -> str:
    """``{x}{y}{u|d}``: 1-based base-36 digits and up or down."""
    x, y, down = t
    return DIGITS[x] + DIGITS[y] + ("d" if down else "u")


def triangle_of(name: str) -> Triangle:
    """The triangle named by :func:`triangle_name`."""
    return (DIGITS.index(name[0]), DIGITS.index(name[1]), int(name[2] == "d"))


def _placements(shape: Shape, board: frozenset[Triangle], side: int) -> list[tuple[Triangle, ...]]:
    out = []
    for o in orientations(shape):
        for dy in range(side):
            for dx in range(side):
                cells = tuple(sorted((x + dx, y + dy, d) for x, y, d in o))
                if all(c in board for c in cells):
                    out.append(cells)
    return out


def hexiamond_rhombus(side: int = 6, knuth: bool = False) -> ExactCover:
    """The twelve hexiamonds in the side x side rhombus (side 6: 72 triangles;
    Torbijn and the paper: 156 tilings up to symmetry, 4 x 156 = 624 in all,
    the rhombus having four symmetries and no tiling being symmetric, since
    the sphinx has no symmetry). ``knuth``: the sphinx restricted to 3 of its
    12 orientations, one per orbit under the rhombus's symmetries, as the paper does."""
    if side * side * 2 != 72:
        raise RaceError(f"the twelve hexiamonds cover 72 triangles: the rhombus is 6 x 6, not {side}")
    board = rhombus(side)
    shapes = hexiamonds()
    keep_linear = [g for g in GRID_SYMMETRIES if normalize(transform(board, g)) == board]
    cells = sorted(board, key=lambda t: (t[1], t[0], t[2]))
    pieces = (["sphinx"] if knuth else []) + [n for n in shapes if not (knuth and n == "sphinx")]
    items = pieces[:1] * knuth + [triangle_name(t) for t in cells] + pieces[int(knuth):]
    index = {name: k for k, name in enumerate(items)}
    options = []
    for name, shape in shapes.items():
        for placed in _placements(shape, board, side):
            if knuth and name == "sphinx":
                o = tuple(sorted(normalize(placed)))
                if o != min(tuple(sorted(normalize(transform(o, g)))) for g in keep_linear):
                    continue
            options.append([index[name]] + [index[triangle_name(t)] for t in placed])
    return ExactCover.from_options(items, None, options)
