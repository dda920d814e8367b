"""The order cells go out: seeded random within each (family, n), n ascending; fixed is
entrant by entrant; the skip rule and resume hold in both."""

from __future__ import annotations

from experiments.harness.scheduling import Cell, interleave


def cells() -> list[Cell]:
    return [Cell(entrant, n, f"i{i}", r, None, family)
            for entrant in ("a", "b", "c") for family in ("unique", "hard")
            for n in (2, 3) for i in range(4) for r in range(2)]


def test_interleave_is_seeded_grouped_and_complete():
    given = cells()
    ordered = interleave(given, seed=0)
    assert sorted(ordered, key=given.index) == given                      # a permutation
    assert ordered == interleave(given, seed=0)                           # the same order again
    assert ordered != interleave(given, seed=1)
    groups = [(c.n, c.family) for c in ordered]
    assert groups == sorted(groups, key=lambda g: (g[0], ["unique", "hard"].index(g[1])))
    first = ordered[:24]                                                  # (n=2, unique)
    assert {c.entrant for c in first[:6]} == {"a", "b", "c"}              # entrants interleaved
    switches = sum(x.entrant != y.entrant for x, y in zip(first, first[1:]))
    assert switches >= 8


def test_a_resume_keeps_the_order_of_the_cells_left():
    given = cells()
    done = set(given[::3])
    left = [c for c in given if c not in done]
    assert interleave(left, 0) == [c for c in interleave(given, 0) if c not in done]
