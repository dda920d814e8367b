"""Polystick packing as generalized cover: fifteen tetrasticks in a 5 x 5 grid (Knuth, "Dancing Links").

A stick is a unit segment of the square grid: ``Hxy`` runs from (x, y) to
(x+1, y), ``Vxy`` from (x, y) to (x, y+1) (the paper's names, 0-based). The
5 x 5 grid has 60 of them, the sixteen tetrasticks 64 sticks, so one piece is
left out; Barwell found that only the five with an excess of horizontal or
vertical sticks can be (H, J, L, N, Y; the paper's Figure 11). Pieces must
not cross: as the paper does, a placement that runs straight through an
interior point (x, y) (two collinear sticks of the piece meet there, 0 < x, y
< 5) also takes the *secondary* item ``Ixy``, which two placements cannot share.

The sixteen tetrasticks are enumerated (connected sets of four sticks up to
the square's symmetries) and named from their structure by the paper's
letters: I (straight), O (square), X (plus), the welded ones (a point where
three sticks meet) T, Y, H, F, R, and the paths L, N, J (three sticks one way
and one the other) and V, U, Z, W, S (two and two). The paper lists the
sixteen as F H I J L N O P R S U V W X Y Z but calls the welded ones F H R T
X Y; the T-shaped piece (a bar of two with a stem of two) is ``T`` here.
Which of the mirror-image letters F/R and S/Z is which does not change any
count. Items: the pieces, then the sticks, then the secondary points.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from formats.errors import RaceError
from formats.exact_cover import ExactCover
from generators.polyominoes import SQUARE_SYMMETRIES

Point = tuple[int, int]
DIGITS0 = "0123456789abcdefghijklmnopqrstuvwxyz"      # the paper's stick names are 0-based
Stick = frozenset[Point]
Shape = frozenset[Stick]

#: the five tetrasticks that can be left out of the 5 x 5 grid, and their
#: solution counts up to symmetry (the paper's Figure 11 (a)-(e))
OMITTABLE = {"H": 72, "J": 382, "L": 607, "N": 530, "Y": 204}


def stick(a: Point, b: Point) -> Stick:
    return frozenset({a, b})


def stick_name(s: Stick) -> str:
    (x0, y0), (x1, y1) = sorted(s)
    return ("H" if y0 == y1 else "V") + DIGITS0[x0] + DIGITS0[y0]


def normalize(shape: Iterable[Stick]) -> Shape:
    shape = list(shape)
    x0 = min(x for s in shape for x, _ in s)
    y0 = min(y for s in shape for _, y in s)
    return frozenset(frozenset((x - x0, y - y0) for x, y in s) for s in shape)


def orientations(shape: Shape) -> list[Shape]:
    out: list[Shape] = []
    for f in SQUARE_SYMMETRIES:
        o = normalize(frozenset(f(x, y) for x, y in s) for s in shape)
        if o not in out:
            out.append(o)
    return out


def _key(shape: Shape) -> tuple:
    return tuple(sorted(tuple(sorted(s)) for s in shape))


def canonical(shape: Shape) -> tuple:
    return min(_key(o) for o in orientations(shape))


def _adjacent(s: Stick) -> list[Stick]:
    out = []
    for x, y in s:
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            t = stick((x, y), (x + dx, y + dy))
            if t != s:
                out.append(t)
    return out


def free_polysticks(size: int) -> list[Shape]:
    """Every polystick of ``size`` sticks up to the square's symmetries (2, 5, 16 for 2, 3, 4)."""
    shapes = {canonical(frozenset({stick((0, 0), (1, 0))}))}
    for _ in range(size - 1):
        grown = set()
        for key in shapes:
            s = frozenset(frozenset(p) for p in key)
            for t in s:
                for u in _adjacent(t):
                    if u not in s:
                        grown.add(canonical(s | {u}))
        shapes = grown
    return [frozenset(frozenset(p) for p in key) for key in sorted(shapes)]


def _direction(a: Point, b: Point) -> Point:
    return (b[0] - a[0], b[1] - a[1])


def letter(shape: Shape) -> str:
    """The paper's letter for a tetrastick (see the module docstring)."""
    degree = Counter(p for s in shape for p in s)
    horizontal = sum(1 for s in shape if len({y for _, y in s}) == 1)
    top = max(degree.values())
    if top == 4:
        return "X"
    if top == 3:
        p = next(q for q, d in degree.items() if d == 3)
        arms = [s for s in shape if p in s]
        (extra,) = [s for s in shape if p not in s]
        dirs = {_direction(p, next(iter(s - {p}))): s for s in arms}
        perpendicular = next(d for d in dirs if (-d[0], -d[1]) not in dirs)
        arm_dir = next(d for d, s in dirs.items() if s & extra)
        q = next(iter(dirs[arm_dir] & extra))
        ext = _direction(q, next(iter(extra - {q})))
        if ext == arm_dir:
            return "T" if arm_dir == perpendicular else "Y"
        if arm_dir == perpendicular:
            return "H"
        return "F" if ext == perpendicular else "R"
    if all(d == 2 for d in degree.values()):
        return "O"
    if horizontal in (0, 4):
        return "I"
    # a path: its moves from one end, and the turns between them
    end = next(q for q, d in degree.items() if d == 1)
    moves, at, left = [], end, set(shape)
    while left:
        s = next(t for t in left if at in t)
        nxt = next(iter(s - {at}))
        moves.append(_direction(at, nxt))
        left.remove(s)
        at = nxt
    turns = [a[0] * b[1] - a[1] * b[0] for a, b in zip(moves, moves[1:])]   # 0 straight, ±1 turn
    if horizontal in (1, 3):
        if turns.count(0) == 2:
            return "L"
        # one straight and two turns: both the same way (a hook back, J) or not (a step, N)
        first, second = [t for t in turns if t]
        return "J" if first == second else "N"
    if turns[0] == 0 and turns[2] == 0:
        return "V"
    if turns[1] == 0:
        return "U" if turns[0] == turns[2] else "Z"
    return "W" if turns[0] == turns[2] else "S"


def tetrasticks() -> dict[str, Shape]:
    """The sixteen tetrasticks by letter, in alphabetical order."""
    shapes = {letter(s): s for s in free_polysticks(4)}
    if len(shapes) != 16:
        raise AssertionError(f"tetrastick letters are not distinct: {sorted(shapes)}")
    return dict(sorted(shapes.items()))


def grid_sticks(width: int, height: int) -> list[Stick]:
    """The sticks of a width x height grid of squares: horizontal ones row by
    row (y = 0..height), then vertical ones (x = 0..width)."""
    out = [stick((x, y), (x + 1, y)) for y in range(height + 1) for x in range(width)]
    out += [stick((x, y), (x, y + 1)) for x in range(width + 1) for y in range(height)]
    return out


def straight_points(sticks: Iterable[Stick]) -> list[Point]:
    """The points where two collinear sticks of the piece meet (it runs straight through them)."""
    sticks = list(sticks)
    out = []
    for a in sticks:
        for b in sticks:
            common = a & b
            if a < b or not common or a == b:
                continue
            (p,) = common
            if _direction(p, next(iter(a - {p}))) == tuple(-v for v in _direction(p, next(iter(b - {p})))):
                out.append(p)
    return sorted(set(out))


def tetrastick_grid(omit: str = "L", knuth: bool = False, side: int = 5) -> ExactCover:
    """Fifteen tetrasticks (all but ``omit``) in the side x side grid, as the
    paper's generalized cover problem (see the module docstring). Default:
    every placement, all solutions (eight times the paper's counts: no
    solution is symmetric, the pieces being all different and some of them
    asymmetric). ``knuth``: one placement per orbit of the grid's eight
    symmetries for the first piece with no symmetric placement, so each of the
    paper's essentially different solutions comes out once."""
    shapes = tetrasticks()
    if omit not in OMITTABLE:
        raise RaceError(f"leave out one of {', '.join(OMITTABLE)} (Barwell: only those fit), not {omit!r}")
    if side != 5:
        raise RaceError(f"fifteen tetrasticks fill the 5 x 5 grid, not {side} x {side}")
    del shapes[omit]
    board = set(grid_sticks(side, side))
    symmetries = [lambda s, f=f: frozenset(_moved(f, p, side) for p in s) for f in SQUARE_SYMMETRIES]
    places: dict[str, list[tuple[Stick, ...]]] = {}
    for name, shape in shapes.items():
        found = []
        for o in orientations(shape):
            for dx in range(side + 1):
                for dy in range(side + 1):
                    moved = [frozenset((x + dx, y + dy) for x, y in s) for s in o]
                    if all(s in board for s in moved):
                        found.append(tuple(sorted(moved, key=lambda s: sorted(s))))
        places[name] = found
    restrict = None
    if knuth:
        restrict = next(name for name, found in places.items()
                        if not any(frozenset(g(s) for s in p) == frozenset(p)
                                   for p in found for g in symmetries[1:]))
        key = lambda p: sorted(sorted(s) for s in p)
        places[restrict] = [p for p in places[restrict]
                            if key(p) == min(key([g(s) for s in p]) for g in symmetries)]
    interior = [(x, y) for y in range(1, side) for x in range(1, side)]
    items = (list(shapes) + [stick_name(s) for s in grid_sticks(side, side)]
             + [f"I{DIGITS0[x]}{DIGITS0[y]}" for x, y in interior])
    index = {name: k for k, name in enumerate(items)}
    options = []
    for name, found in places.items():
        for p in found:
            points = [q for q in straight_points(p) if q in interior]
            options.append([index[name]] + [index[stick_name(s)] for s in p]
                           + [index[f"I{DIGITS0[x]}{DIGITS0[y]}"] for x, y in points])
    return ExactCover.from_options(items, len(shapes) + len(board), options)


def _moved(f, p: Point, side: int) -> Point:
    """Point p under the square symmetry f, moved back onto the side x side grid."""
    x, y = f(*p)
    corners = [f(0, 0), f(side, side), f(0, side), f(side, 0)]
    return x - min(c[0] for c in corners), y - min(c[1] for c in corners)
