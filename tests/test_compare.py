"""``race compare``: paired outcomes, ratio, test and warnings on a small synthetic campaign."""

from __future__ import annotations

import math

import pytest
from click.testing import CliRunner

from experiments.analysis import bootstrap, censored_stats, compare
from experiments.analysis.signed_rank import SignedRank
from experiments.cli.main import main
from tests.test_analysis import run, write_campaign


def cell(entrant: str, key: str, wall: float | None, n: int = 2, family: str = "unique", repeat: int = 0,
         status: str | None = None) -> dict:
    status = status or ("timeout" if wall is None else "solved")
    return run(entrant, n, f"{family}-{key}.sudoku", status, wall, repeat=repeat, family=family,
               instance_sha256=f"sha-{family}-{n}-{key}")


#: A's and B's times per instance (None: timeout). By hand, with a 5% tie tolerance:
#: i1 B faster, i2 tie (2.05/2), i3 A faster, i4 A faster (B timed out), i5 B faster,
#: i6 tie (both timed out); i7 only A ran it (not paired).
TIMES = {"i1": (1.0, 0.5), "i2": (2.0, 2.05), "i3": (3.0, 9.0), "i4": (4.0, None), "i5": (5.0, 1.0),
         "i6": (None, None)}


@pytest.fixture
def paired(tmp_path):
    rows = [cell(e, key, t) for key, pair in TIMES.items() for e, t in zip("ab", pair)]
    rows += [cell("a", "i7", 1.0),
             cell("a", "h1", 1.0, n=3, family="hard"), cell("b", "h1", 3.0, n=3, family="hard")]
    return write_campaign(tmp_path / "pair", rows, {"entrants": ["a", "b"]})


def test_outcomes_ratio_and_test_by_hand(paired):
    result = compare.compare(censored_stats.load(paired), "a", "b", families=["unique"])
    assert len(result.rows) == 1
    row = result.rows[0]
    assert (row.family, row.n, row.pairs, row.a_wins, row.b_wins, row.ties) == ("unique", 2, 6, 2, 2, 2)
    # ratios B/A: 0.5, 1.025, 3, inf, 0.2, 1 (both censored) -> median (1 + 1.025) / 2
    assert row.ratio.estimate == pytest.approx(1.0125)
    assert row.ratio.low <= row.ratio.estimate <= row.ratio.high
    # log(B/A): i2 +0.025 (rank 1), i1 -0.69 (2), i3 +1.10 (3), i5 -1.61 (4), i4 +inf (5);
    # i6 is 0 and dropped: W+ = 9, W- = 6; exact P(W <= 6) = 13/32, two-sided 26/32
    assert (row.test.w_plus, row.test.w_minus, row.test.method) == (9, 6, "exact")
    assert row.test.p == pytest.approx(26 / 32)


def test_pairs_match_on_hash_n_and_kind(paired):
    campaign = censored_stats.load(paired)
    pairs = compare.paired_times(campaign, "a", "b")
    assert len(pairs) == 7 and "unique-i7.sudoku" not in set(pairs["instance"])
    result = compare.compare(campaign, "a", "b")
    assert [(r.family, r.n, r.pairs) for r in result.rows] == [("unique", 2, 6), ("hard", 3, 1)]
    hard = result.rows[1]
    assert (hard.a_wins, hard.b_wins, hard.ties, hard.ratio.estimate) == (1, 0, 0, 3.0)
    assert compare.compare(campaign, "a", "b", n_values=[3]).rows[0].family == "hard"


def test_tolerance_decides_ties(paired):
    wide = compare.compare(censored_stats.load(paired), "a", "b", families=["unique"], tolerance=2.5).rows[0]
    assert (wide.a_wins, wide.b_wins, wide.ties) == (1, 1, 4)   # 3 -> 9 and 5 -> 1 stay outside


def test_spread_of_repeats_warns(tmp_path):
    rows = [cell("a", "i1", t, repeat=k) for k, t in enumerate((1.0, 1.0, 1.02))]
    rows += [cell("a", "i2", t, repeat=k) for k, t in enumerate((1.0, 2.0, 1.5))]
    rows += [cell("b", key, 1.0, repeat=k) for key in ("i1", "i2") for k in range(3)]
    campaign = censored_stats.load(write_campaign(tmp_path / "r", rows, {"entrants": ["a", "b"]}))
    warnings = compare.spread_warnings(campaign, ["a", "b"])
    assert len(warnings) == 1 and warnings[0].startswith("WARNING: a: the repeats of 1 of 2 instances")
    assert "unique-i2.sudoku" in warnings[0]
    times = censored_stats.instance_times(campaign.runs).set_index(["entrant", "instance"])
    assert times.loc[("a", "unique-i2.sudoku"), "spread"] == pytest.approx(0.5 / 1.5)
    assert times.loc[("b", "unique-i1.sudoku"), "spread"] == 0.0


def test_cli_compare_prints_one_table(paired):
    result = CliRunner().invoke(main, ["compare", str(paired), "a", "b"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    unique = next(line for line in lines if line.startswith("unique"))
    assert unique.split()[:6] == ["unique", "2", "6", "2", "2", "2"]
    assert "signed-rank" in result.output and "note: 1 repeat per instance" in result.output


def test_cli_compare_errors_exit_2_on_one_line(paired, tmp_path):
    unknown = CliRunner().invoke(main, ["compare", str(paired), "a", "zzz"])
    assert unknown.exit_code == 2 and unknown.output.count("\n") == 1
    assert "entrant 'zzz' is not in campaign pair (its entrants: a, b)" in unknown.output
    none = CliRunner().invoke(main, ["compare", str(paired), "a", "b", "--n", "5"])
    assert none.exit_code == 2 and "a and b share no instance" in none.output
    rows = [cell("a", "x", 1.0), cell("b", "y", 1.0)]
    apart = write_campaign(tmp_path / "apart", rows, {"entrants": ["a", "b"]})
    disjoint = CliRunner().invoke(main, ["compare", str(apart), "a", "b"])
    assert disjoint.exit_code == 2 and "share no instance" in disjoint.output


def test_compare_on_the_reference_campaign():
    from tests.test_report import REFERENCE
    result = compare.compare(censored_stats.load(REFERENCE), "dlx", "sat")
    per_family = [*range(2, 11), None]
    assert [(r.family, r.n) for r in result.rows] == \
        [(k, n) for k in ("unique", "hard", "holes") for n in per_family]
    assert all(r.pairs == (90 if r.n is None else 10) for r in result.rows)
    assert all(r.a_wins + r.b_wins + r.ties == r.pairs for r in result.rows)
    # n = 10 at 33% holes: DLX times out on all ten, SAT answers all ten (ratio 0: only B)
    (holes10,) = [r for r in result.rows if (r.family, r.n) == ("holes", 10)]
    assert (holes10.b_wins, holes10.a_wins, holes10.ratio.estimate) == (10, 0, 0)


# -- ``race compare``'s table text and ratio formatting, exactly (survivors of the mutation pass) ------------------------------------------------------

@pytest.mark.parametrize("value, text", [(math.nan, "n/a"), (math.inf, "inf"), (0.0, "0"), (-0.0, "0"),
                                         (1.0, "1"), (1.0125, "1.01"), (1234.5, "1.23e+03")])
def test_format_ratio(value, text):
    assert compare.format_ratio(value) == text


def test_comparison_text_exactly():
    rows = [compare.PairedRow("unique", 2, 6, 2, 2, 2, bootstrap.Interval(1.0125, 0.5, math.inf),
                              SignedRank(9.0, 6.0, 5, math.nan, 26 / 32, "exact")),
            compare.PairedRow("hard", None, 1, 1, 0, 0, bootstrap.Interval(0.0, 0.0, math.nan),
                              SignedRank(0.0, 0.0, 0, math.nan, 1.0, "none"))]
    result = compare.Comparison("camp", "a", "b", 0.7, rows, ["WARNING: w1", "note: n2"])
    # columns: family <9, n >4, pairs >7, A faster >10, B faster >10, ties >6, median >12, two
    # spaces, CI <17, p >14; 100 * 0.7 = 70 (%), 26/32 = 0.8125 -> "0.81" (2 significant digits)
    assert compare.comparison_text(result).split("\n") == [
        "campaign camp: A = a, B = b (paired on identical instances: instance_sha256, n, family)",
        "family      n  pairs  A faster  B faster  ties  median B/A  95% CI            signed-rank p",
        "-" * 91,
        "unique      2      6         2         2     2        1.01  [0.5, inf]                 0.81",
        "hard      all      1         1         0     0           0  [0, n/a]                    n/a",
        "",
        "ties: times within 70% or both censored; a timeout (any censored run) loses to any answer.",
        "B/A < 1: B faster; inf: only A answered; 0: only B answered. CI: bootstrap over pairs "
        "(2000 resamples, seeded).",
        "p: two-sided Wilcoxon signed-rank test on log(B/A), censored = slowest (exact without ties, "
        "else normal approximation).",
        "WARNING: w1",
        "note: n2"]


def test_outcome_boundaries_and_ratio_censoring_rules():
    # 3.0 = (1 + 0.5) * 2.0 exactly: on the tolerance is still a tie
    assert compare.outcomes([2.0, 2.0, 1.0], [3.0, 3.0001, 0.5], 0.5).tolist() == [0, -1, 1]
    inf = math.inf
    assert compare.ratios([2.0, inf, 1.0, inf], [1.0, 1.0, inf, inf]).tolist() == [0.5, 0.0, inf, 1.0]
    assert compare.log_differences([1.0, inf, 1.0, inf], [1.0, 1.0, inf, inf]).tolist() == \
        [0.0, -inf, inf, 0.0]


def test_pairs_are_ordered_by_family_then_n(tmp_path):
    from experiments.analysis import censored_stats
    from tests.test_compare import cell, write_campaign
    # the assignment's families in their order (unique, minimal, hard), any other family after
    keys = [("zeta", 1), ("hard", 2), ("unique", 3), ("minimal", 4)]
    rows = [cell(e, "i", 1.0, n=n, family=family) for family, n in keys for e in "ab"]
    campaign = censored_stats.load(write_campaign(tmp_path / "f", rows, {"entrants": ["a", "b"]}))
    pairs = compare.paired_times(campaign, "a", "b")
    assert list(zip(pairs["family"], pairs["n"])) == [("unique", 3), ("minimal", 4), ("hard", 2), ("zeta", 1)]


def test_spread_warnings_note_and_two_repeats(tmp_path):
    from experiments.analysis import censored_stats
    from tests.test_compare import cell, write_campaign
    once = censored_stats.load(write_campaign(tmp_path / "o", [cell(e, "i1", 1.0) for e in "ab"],
                                        {"entrants": ["a", "b"]}))
    assert compare.spread_warnings(once, ["a", "b"]) == [
        "note: 1 repeat per instance, so the run-to-run spread was not measured "
        "(race run --repeats 3 measures it)"]
    rows = [cell("a", "i1", t, repeat=k) for k, t in enumerate((1.0, 3.0))]
    rows += [cell("b", "i1", 1.0, repeat=k) for k in range(2)]
    twice = censored_stats.load(write_campaign(tmp_path / "t", rows, {"entrants": ["a", "b"]}))
    warnings = compare.spread_warnings(twice, ["a", "b"])
    assert len(warnings) == 1 and warnings[0].startswith("WARNING: a: the repeats of 1 of 1 instances")


def test_instances_without_a_hash_pair_by_name_and_sort_by_family_n_name(tmp_path):
    from experiments.analysis import censored_stats
    from tests.test_analysis import run, write_campaign
    rows = [run(e, 2, name, "solved", t) for e in "ab" for name, t in (("y", 1.0), ("x", 2.0))]
    rows += [run(e, 3, "w", "solved", 1.0) for e in "ab"]
    rows[0]["instance_sha256"] = rows[2]["instance_sha256"] = "nan"   # as pandas wrote a missing one
    pairs = compare.paired_times(censored_stats.load(write_campaign(tmp_path / "h", rows, {"entrants": ["a", "b"]})),
                                 "a", "b")
    assert list(pairs.columns) == ["family", "n", "key", "instance", "time_a", "time_b"]
    assert pairs.index.tolist() == [0, 1, 2]
    assert pairs.values.tolist() == [["unique", 2, "x", "x", 2.0, 2.0], ["unique", 2, "y", "y", 1.0, 1.0],
                                     ["unique", 3, "w", "w", 1.0, 1.0]]


def test_compare_pools_two_n_of_a_family(tmp_path):
    from experiments.analysis import censored_stats
    from tests.test_compare import cell, write_campaign
    rows = [cell(e, key, t, n=n) for n in (2, 3) for key in ("i1", "i2") for e, t in (("a", 1.0), ("b", 2.0))]
    result = compare.compare(censored_stats.load(write_campaign(tmp_path / "p", rows, {"entrants": ["a", "b"]})),
                             "a", "b")
    assert (result.campaign, result.a, result.b, result.tolerance) == ("p", "a", "b", compare.TOLERANCE)
    assert [(r.family, r.n, r.pairs, r.a_wins, r.ratio.estimate) for r in result.rows] == [
        ("unique", 2, 2, 2, 2.0), ("unique", 3, 2, 2, 2.0), ("unique", None, 4, 4, 2.0)]


def test_spread_warning_text_and_limit(tmp_path):
    from experiments.analysis import censored_stats
    from experiments.analysis.censored_stats import instance_times
    from tests.test_compare import cell, write_campaign
    rows = [cell("a", "i1", t, repeat=k) for k, t in enumerate((1.0, 10.0))]
    rows += [cell("b", "i1", 1.0, repeat=k) for k in range(2)]
    campaign = censored_stats.load(write_campaign(tmp_path / "s", rows, {"entrants": ["a", "b"]}))
    spread = instance_times(campaign.runs).set_index("entrant").loc["a", "spread"]
    assert spread == pytest.approx(9.0 / math.sqrt(2.0) / 5.5)   # sample standard deviation / mean
    assert compare.spread_warnings(campaign, ["a", "b"], limit=0.7) == [
        "WARNING: a: the repeats of 1 of 1 instances vary by more than 70% (coefficient of variation "
        "up to 116%, n=2 unique-i1.sudoku); these times may not be reliable: rerun on a quiet machine "
        "or with more repeats"]
    # b's repeats are identical (spread 0): only a spread above the limit warns
    assert [w.split(":")[1] for w in compare.spread_warnings(campaign, ["a", "b"], limit=0.0)] == [" a"]
