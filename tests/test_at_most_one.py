"""At-most-one / exactly-one encodings: with the auxiliaries existentially quantified,
the clauses admit exactly the assignments of the originals with at most (exactly) one true."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pysat.solvers import Solver

from formats.errors import RaceError
from solvers.sat import at_most_one as amo_mod
from solvers.sat.at_most_one import (
    VARIANTS,
    amo,
    at_most_one,
    exactly_one,
    flat_clauses,
)


def admits(blocks, assumptions) -> bool:
    with Solver(name="cadical195", bootstrap_with=[c for b in blocks for c in b.tolist()]) as s:
        s.add_clause([1, -1])          # makes an empty formula still know variable 1
        return s.solve(assumptions=assumptions)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("exactly", [False, True])
def test_every_assignment_of_one_group(name, exactly):
    for k in range(1, 9):
        blocks, top = amo(name, np.arange(1, k + 1).reshape(1, k), k + 1, exactly)
        clauses = [c for b in blocks for c in b.tolist()]
        assert all(0 < abs(v) < top for c in clauses for v in c)
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            s.add_clause([1, -1])
            for values in itertools.product([False, True], repeat=k):
                lits = [v if on else -v for v, on in zip(range(1, k + 1), values)]
                want = sum(values) == 1 if exactly else sum(values) <= 1
                assert s.solve(assumptions=lits) == want, (name, k, values)


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_many_groups_of_varying_width(name, data):
    widths = data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=5))
    starts = np.concatenate([[1], 1 + np.cumsum(widths)])
    groups = [list(range(starts[i], starts[i + 1])) for i in range(len(widths))]
    nvars = int(starts[-1]) - 1
    blocks, top = at_most_one(groups, nvars + 1, name)
    assert top >= nvars + 1
    values = data.draw(st.lists(st.booleans(), min_size=nvars, max_size=nvars))
    lits = [v if on else -v for v, on in zip(range(1, nvars + 1), values)]
    want = all(sum(values[v - 1] for v in g) <= 1 for g in groups)
    assert admits(blocks, lits) == want


def test_array_groups_get_disjoint_auxiliaries():
    blocks, top = at_most_one(np.arange(1, 13).reshape(3, 4), 13, "sequential")
    assert top == 13 + 3 * 3                 # k-1 auxiliaries per group
    assert sum(b.shape[0] for b in blocks) == 3 * (3 * 4 - 4)
    aux = np.unique(np.abs(np.concatenate([b.ravel() for b in blocks])))
    assert set(aux[aux > 12].tolist()) == set(range(13, top))


def test_pairwise_and_exactly_one_counts():
    blocks, top = exactly_one(np.arange(1, 11).reshape(2, 5), 11, "pairwise")
    assert top == 11
    assert [b.shape for b in blocks] == [(2, 5), (20, 2)]


def test_flat_clauses_terminates_each_clause():
    flat = flat_clauses([np.array([[1, 2], [3, 4]], np.int32), np.array([[-5]], np.int32)])
    assert flat.tolist() == [1, 2, 0, 3, 4, 0, -5, 0]


def test_auto_is_pairwise_for_narrow_groups():
    narrow, _ = amo_mod.template("auto", amo_mod.AUTO_PAIRWISE_MAX)
    assert narrow[0][1].shape == (amo_mod.AUTO_PAIRWISE_MAX * (amo_mod.AUTO_PAIRWISE_MAX - 1) // 2, 2)


def test_unknown_name_is_a_user_error():
    with pytest.raises(RaceError, match="unknown at-most-one encoding 'ladderx'"):
        at_most_one(np.arange(1, 4).reshape(1, 3), 4, "ladderx")
