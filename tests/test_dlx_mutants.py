"""Dancing links, Algorithm X and the dlx solver: behaviour the mutation pass found unchecked."""

from __future__ import annotations

import numpy as np
import pytest

from generators.cover_problems import queens
from solvers.algorithm_x import cover
from solvers.compiled import interpreted
from solvers.dancing_links import DancingLinks, format_links

# queens(4): primary items R2 F2 R1 F1 R3 F3 R0 F0 (organ-pipe order, headers 1..8), then the
# secondary diagonals A1..A5, B1..B5 (Ad: i + j = d, Bd: 3 - i + j = d; the corner diagonals
# 0 and 6 have one square and are left out). Option 4i + j + 1 is the queen on (i, j).
QUEENS4_ITEMS = ("items: R2(4) F2(4) R1(4) F1(4) R3(4) F3(4) R0(4) F0(4) | "
                 "A1(2) A2(3) A3(4) A4(3) A5(2) B1(2) B2(3) B3(4) B4(3) B5(2)")


def test_print_with_secondary_items_and_a_cut():
    dl = DancingLinks.from_problem(queens(4))
    lines = format_links(dl).split("\n")
    # column R2 lists the queens of row 2, then F2 those of file 2 not printed yet, ...
    assert lines[:8] == [QUEENS4_ITEMS, "option 9: R2 F0 A2 B1", "option 10: R2 F1 A3 B2",
                         "option 11: R2 F2 A4 B3", "option 12: R2 F3 A5 B4", "option 3: F2 A2 B5 R0",
                         "option 7: F2 A3 B4 R1", "option 15: F2 A5 B2 R3"]
    assert len(lines) == 17 and sorted(int(x.split()[1][:-1]) for x in lines[1:]) == list(range(1, 17))
    assert format_links(dl, 5).split("\n") == lines[:6] + ["... 11 more options"]
    assert format_links(dl, 16) == format_links(dl, None) == "\n".join(lines)
    big = format_links(DancingLinks.from_problem(queens(8))).split("\n")    # 64 options, 50 shown
    assert len(big) == 52 and big[-1] == "... 14 more options"


def test_print_after_covering_rows_2_and_3():
    dl = DancingLinks.from_problem(queens(4))
    with interpreted():
        for header in (1, 5):                       # R2, R3: the queens of rows 2 and 3 go
            cover(dl.L, dl.R, dl.U, dl.D, dl.C, dl.S, header)
    # A5 = {(2,3), (3,2)} and B1 = {(2,0), (3,1)} are empty now and not listed
    assert format_links(dl).split("\n") == [
        "items: F2(2) R1(4) F1(2) F3(2) R0(4) F0(2) | A1(2) A2(2) A3(2) A4(1) B2(1) B3(2) B4(2) B5(2)",
        "option 3: F2 A2 B5 R0", "option 7: F2 A3 B4 R1", "option 5: R1 F0 A1 B2", "option 6: R1 F1 A2 B3",
        "option 8: R1 F3 A4 B5", "option 2: F1 A1 B4 R0", "option 4: F3 A3 R0", "option 1: R0 F0 B3"]


def test_the_root_has_no_column_name():
    dl = DancingLinks.from_problem(queens(4))
    with pytest.raises(ValueError, match="^the root h belongs to no column$"):
        dl.column_name(0)


def test_copy_is_independent():
    dl = DancingLinks.from_problem(queens(4))
    twin = dl.copy()
    assert np.array_equal(twin.links, dl.links) and twin.links is not dl.links
    assert twin.option_of is dl.option_of and twin.names == dl.names and twin.primary == dl.primary == 8
    twin.links[:, :] = 0
    assert format_links(dl).split("\n")[0] == QUEENS4_ITEMS
