"""The generator kinds (``race generate --kind``), all built on Algorithm 2 (:mod:`generators.unique`).

Words: a *kind* is what a generator makes (this module, ``race generate --kind``, the
``kind=`` line of an instance file); a campaign's *family* is a named set of instances
it races, a kind with its options (``hard`` is the kind ``holes`` at the hardness peak:
:mod:`experiments.harness.instance_families`; runs.csv's ``family`` column holds its key:
:mod:`experiments.harness.identity`).

Each kind is a function ``(n, streams, counter, **options) -> Puzzle``. Every
kind takes ``fill``, how its solved grid is made (:data:`generators.unique.FILLS`:
Algorithm 2's fill phase, or a fast fill of :mod:`generators.solved_grids`).
``streams`` holds three independent numpy Generators: ``fill`` (the fill
phase), ``remove`` (the removal order) and ``extra`` (the family's own draws).
Families that share the fill stream share the solved grid, so for one
(seed, index) the families are cut from the same solution:

``unique``   Algorithm 2 as written: unique solution, many clues.
``minimal``  Algorithm 2 carried on through the whole removal order: unique, and
             every clue is necessary (removing any one gives >= 2 solutions).
             Its clues are a subset of ``unique``'s for the same seed.
             (``unique``, ``minimal`` and the base of ``unsat``: "exactly one solution"
             is confirmed by a second method before the puzzle is returned:
             :mod:`generators.second_opinion`.)
``multi``    Algorithm 2's grid just before its last line (the restore): >= 2
             solutions, one clue short of ``unique``; a second solution, found by
             another method, is recorded as the proof (``second=``).
``unsat``    a ``unique`` (or ``minimal``, ``base=minimal``) puzzle plus one
             wrong clue: an empty cell gets a value CanPlace allows but the
             unique solution does not have there. Clues consistent, no solution.
             ``base=holes`` (the default beyond n = 6, where a unique base costs
             seconds to minutes per puzzle): a ``holes`` puzzle (``holes=0.2``) plus a wrong clue proved
             unsat, preferably one that propagation alone does not refute.
``holes``    the random solved grid of the fill with round(f·n⁴) cells
             emptied (``holes=f``); ``pattern=random`` picks them uniformly,
             ``pattern=balanced`` spreads them evenly over rows, columns and
             boxes (Ansótegui et al., "fully balanced"): hole counts per row,
             column and box differ by at most one. Uniqueness not required.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from formats.errors import RaceError
from generators import second_opinion
from generators.counting import SolutionCounter
from generators.unique import FillStats, generate_unique, solved
from solvers import rules

PATTERNS = ("random", "balanced")
UNSAT_BASES = ("unique", "minimal", "holes")
#: a holes-based unsat puzzle: wrong clues tried (in a seeded order) and the CaDiCaL
#: conflict budget that must prove each one unsat (conflicts, not seconds: the same
#: puzzle on every machine)
UNSAT_TRIES = 50
UNSAT_CONFLICTS = 20_000
#: MiniSat's budget to agree with the chosen wrong clue's unsat proof (conflicts)
SECOND_OPINION_CONFLICTS = 200_000


class Streams(NamedTuple):
    """The three random streams of one puzzle."""
    fill: np.random.Generator
    remove: np.random.Generator
    extra: np.random.Generator


@dataclass
class Puzzle:
    """A generated puzzle: its cells, the solved grid it was cut from
    (``planted``; the unique solution for unique/minimal), whether ``planted``
    is its unique solution, and family metadata, with the generation stats; ``second``: for
    ``multi``, a verified solution other than ``planted`` (the proof of "two or more")."""
    cells: np.ndarray
    planted: np.ndarray
    unique_solution: bool
    metadata: dict[str, str] = field(default_factory=dict)
    stats: dict[str, float] = field(default_factory=dict)
    second: np.ndarray | None = None


def _confirmed(r, n: int, what: str):
    """``r`` (a :class:`generators.unique.UniqueResult`) once a second method agrees that its
    puzzle has exactly one solution (:mod:`generators.second_opinion`; RaceError if not)."""
    second_opinion.confirm_unique(r.puzzle, r.solution, n, what)
    return r


def unique(n: int, streams: Streams, counter: SolutionCounter, fill: str = "algorithm2") -> Puzzle:
    """Algorithm 2: a puzzle with exactly one solution."""
    r = _confirmed(generate_unique(n, streams.fill, streams.remove, counter, fill=fill), n,
                   "unique puzzle")
    return Puzzle(r.puzzle, r.solution, True, stats=r.stats)


def minimal(n: int, streams: Streams, counter: SolutionCounter, fill: str = "algorithm2") -> Puzzle:
    """A minimal puzzle: unique, and removing any clue breaks uniqueness."""
    r = _confirmed(generate_unique(n, streams.fill, streams.remove, counter, minimal=True, fill=fill),
                   n, "minimal puzzle")
    return Puzzle(r.puzzle, r.solution, True, stats=r.stats)


def multi(n: int, streams: Streams, counter: SolutionCounter, fill: str = "algorithm2") -> Puzzle:
    """Algorithm 2 stopped before the restore: at least two solutions, the second one found
    by a second method (:func:`generators.second_opinion.another_solution`) and kept as
    the proof (``second=`` in the record)."""
    r = generate_unique(n, streams.fill, streams.remove, counter, fill=fill)
    if r.multi is None:
        raise RaceError(f"no multi-solution puzzle exists for n={n} (the empty grid has one solution)")
    other = second_opinion.another_solution(r.multi, r.solution, n)
    if other is None:
        raise RaceError(f"the generated multi puzzle (n={n}) has one solution by "
                        f"{second_opinion.SOLVER}, not two or more as the generator's counter said: "
                        "nothing was recorded")
    return Puzzle(r.multi, r.solution, False, stats=r.stats, second=other)


def unsat(n: int, streams: Streams, counter: SolutionCounter | None, base: str = "unique",
          fill: str = "algorithm2", holes: float = 0.2) -> Puzzle:
    """A ``base`` puzzle plus one clue that CanPlace allows but the planted solution
    contradicts: consistent clues, no solution. ``unique``/``minimal``: the wrong
    (cell, value) pair is uniform among all such pairs (the base has one solution, so
    any of them works). ``holes`` (any n): the ``holes`` puzzle of this fraction, and
    wrong pairs tried in a seeded random order (at most :data:`UNSAT_TRIES`): the first
    that only search refutes (CaDiCaL within :data:`UNSAT_CONFLICTS` conflicts), else
    the first that propagation refutes; RaceError when none is proved unsat."""
    if base == "holes":
        return _unsat_from_holes(n, streams, counter, fill, holes)
    if counter is None:
        raise ValueError(f"an unsat puzzle on a {base} base needs a solution counter")
    r = _confirmed(generate_unique(n, streams.fill, streams.remove, counter,
                                   minimal=base == "minimal", fill=fill), n, f"{base} base puzzle")
    pairs = wrong_clues(r.puzzle, r.solution, n)
    if not len(pairs):
        raise RaceError(f"unsat: no empty cell of the n={n} {base} puzzle accepts a wrong value "
                        f"(try base=minimal)" if base == "unique" and n > 1 else
                        f"no unsat puzzle with consistent clues exists for n={n}")
    c, v = pairs[streams.extra.integers(len(pairs))]
    cells = r.puzzle.copy()
    cells.reshape(-1)[c] = v
    return Puzzle(cells, r.solution, False, {"base": base}, r.stats)


def _unsat_from_holes(n: int, streams: Streams, counter: SolutionCounter | None, fill: str,
                      fraction: float) -> Puzzle:
    """Prefer a wrong clue that only search refutes; else the first one propagation refutes."""
    start = holes(n, streams, counter, fraction, "random", fill)
    pairs = wrong_clues(start.cells, start.planted, n)
    fallback = None
    for index in streams.extra.permutation(len(pairs))[:UNSAT_TRIES]:
        c, v = pairs[index]
        cells = start.cells.copy()
        cells.reshape(-1)[c] = v
        proof = unsat_proof(cells, n)
        if proof == "search":
            fallback = cells
            break
        if proof == "propagation" and fallback is None:
            fallback = cells
    if not len(pairs):
        raise RaceError(f"unsat: no empty cell of the n={n} holes={fraction:g} puzzle accepts a "
                        f"wrong value ({int(np.count_nonzero(start.cells == 0))} empty cells; "
                        "try more holes, or base=unique)")
    if fallback is None:
        raise RaceError(f"unsat: none of {min(len(pairs), UNSAT_TRIES)} wrong clues in the n={n} "
                        f"holes={fraction:g} puzzle was proved unsat within {UNSAT_CONFLICTS} "
                        f"conflicts (with many holes a wrong clue leaves other solutions: try "
                        "fewer holes, or base=unique)")
    # the proof rests on our propagation or CaDiCaL: MiniSat on CanPlace's candidates must
    # agree (a solution it finds is a RaceError of second_opinion)
    if not second_opinion.confirms_no_solution(fallback, n, SECOND_OPINION_CONFLICTS):
        raise RaceError(f"unsat: the n={n} holes={fraction:g} puzzle's wrong clue was proved by one "
                        f"method, but {second_opinion.SOLVER} could not confirm it within "
                        f"{SECOND_OPINION_CONFLICTS} conflicts; nothing was recorded")
    meta = {"base": "holes", "holes": format_fraction(fraction)}
    return Puzzle(fallback, start.planted, False, meta, start.stats)


def unsat_proof(cells: np.ndarray, n: int) -> str | None:
    """How ``cells`` was proved to have no solution: ``propagation`` (singles), ``search``
    (CaDiCaL on the reduced encoding within :data:`UNSAT_CONFLICTS` conflicts), or None
    (not proved: satisfiable or out of budget). The puzzle chosen still needs the second
    opinion (:func:`_unsat_from_holes`)."""
    from formats.grid import Grid
    from solvers.sat import sudoku_cnf
    from solvers.sat.counting import DEFAULT_BACKEND, pysat_solver
    if rules.propagate(cells, n).contradiction:
        return "propagation"
    formula = sudoku_cnf.encode_reduced(Grid(n, cells))
    solver = pysat_solver(DEFAULT_BACKEND, formula.blocks)
    try:
        solver.conf_budget(UNSAT_CONFLICTS)
        return "search" if solver.solve_limited() is False else None
    finally:
        solver.delete()


def wrong_clues(puzzle: np.ndarray, solution: np.ndarray, n: int) -> np.ndarray:
    """All (flat cell, value) pairs with the cell empty in ``puzzle``, the value
    allowed there by CanPlace and different from ``solution``'s, in row-major
    then value order."""
    free = rules.candidate_table(puzzle, n)                      # CanPlace, (n⁴, n²)
    free[np.arange(free.shape[0]), solution.reshape(-1) - 1] = False
    cells, values = np.nonzero(free)
    return np.stack([cells, values + 1], axis=1)


def holes(n: int, streams: Streams, counter: SolutionCounter | None, holes: float = 0.5,
          pattern: str = "random", fill: str = "algorithm2") -> Puzzle:
    """The ``fill``'s random solved grid with ``round(holes · n⁴)`` cells emptied
    (``counter`` is needed only by the ``algorithm2`` fill). Options are validated
    once, by :func:`generators.puzzle_set.identity` before any family runs."""
    side = n * n
    count = hole_count(n, holes)
    fstats = FillStats()
    calls0 = counter.calls if counter is not None else 0
    solution = solved(n, streams.fill, counter, fill, fstats)
    if pattern == "random":
        drop = streams.extra.choice(side * side, size=count, replace=False)
    else:
        drop = balanced_holes(n, count, streams.extra)
    cells = solution.copy()
    cells.reshape(-1)[drop] = 0
    calls = counter.calls - calls0 if counter is not None else 0
    stats = {"fill_seconds": fstats.seconds, "remove_seconds": 0.0, "calls": calls,
             "fill_calls": calls, "remove_calls": 0}
    return Puzzle(cells, solution, False, {"holes": format_fraction(holes), "pattern": pattern}, stats)


def hole_count(n: int, fraction: float) -> int:
    """round(fraction · n⁴), halves rounded up; fraction must lie in [0, 1]."""
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1:
        raise RaceError(f"holes: the fraction of empty cells must be a number in [0, 1], got {fraction!r}")
    return int(np.floor(fraction * n ** 4 + 0.5))


def format_fraction(fraction: float) -> str:
    """The fraction as written in metadata and file identity (shortest repr)."""
    return repr(float(fraction))


def balanced_holes(n: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` flat cells spread evenly: every row, column and box gets
    count // n² or count // n² + 1 of them.

    A random solved grid T (the canonical one with rows permuted within bands,
    bands permuted, columns and stacks likewise, and digits relabelled) has
    every digit once per row, column and box. Take the cells of q = count // n²
    digits of T, plus r = count mod n² random cells of one more digit."""
    side = n * n
    q, r = divmod(count, side)
    rows = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    cols = np.concatenate([b * n + rng.permutation(n) for b in rng.permutation(n)])
    digits = rng.permutation(side) + 1
    t = rules.pattern_solution(n)[rows][:, cols].reshape(-1)
    chosen = np.flatnonzero(np.isin(t, digits[:q]))
    if r:
        extra = np.flatnonzero(t == digits[q])
        chosen = np.concatenate([chosen, rng.choice(extra, size=r, replace=False)])
    return np.sort(chosen)


#: kind -> (function, options it accepts with defaults), the one list of the kinds (in the
#: order the CLI lists them); ``fill`` "auto" is resolved per n by
#: :func:`generators.unique.default_fill`.
GENERATORS: dict[str, tuple[Callable[..., Puzzle], dict[str, object]]] = {
    "unique": (unique, {"fill": "auto"}),
    "minimal": (minimal, {"fill": "auto"}),
    "unsat": (unsat, {"base": "auto", "fill": "auto", "holes": 0.2}),
    "multi": (multi, {"fill": "auto"}),
    "holes": (holes, {"holes": 0.5, "pattern": "random", "fill": "auto"}),
}
