"""The virtual best solver and "who wins where" (experiments.analysis.virtual_best)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from experiments.analysis import censored_stats, virtual_best
from experiments.analysis.summary import summary_text
from tests.test_analysis import LIMIT, run, write_campaign


@pytest.fixture
def race(tmp_path) -> censored_stats.Campaign:
    rows = [
        # n=2: a wins i1, i2; b wins i3 (a timed out), i4 nobody answered
        run("a", 2, "i1", "solved", 1.0), run("b", 2, "i1", "solved", 2.0),
        run("a", 2, "i2", "solved", 3.0), run("b", 2, "i2", "wrong", 0.5),
        run("a", 2, "i3", "timeout", None), run("b", 2, "i3", "solved", 4.0),
        run("a", 2, "i4", "timeout", None), run("b", 2, "i4", "memout", None),
        # n=3: b answers everything fast, a only i1; an exact tie goes to a (declared first)
        run("a", 3, "i1", "solved", 0.5), run("b", 3, "i1", "solved", 0.5),
        run("a", 3, "i2", "timeout", None), run("b", 3, "i2", "solved", 0.6),
        run("a", 3, "i3", "skipped", None), run("b", 3, "i3", "solved", 0.7),
    ]
    return censored_stats.load(write_campaign(tmp_path / "vbs", rows, {"entrants": ["a", "b"]}))


def test_best_times_take_the_fastest_answer_and_censor_the_unanswered(race):
    best = virtual_best.best_times(censored_stats.instance_times(race.runs), race.entrants)
    got = {(r.n, r.instance): (r.time, r.winner) for r in best.itertuples()}
    assert got == {(2, "i1"): (1.0, "a"), (2, "i2"): (3.0, "a"), (2, "i3"): (4.0, "b"),
                   (2, "i4"): (math.inf, ""), (3, "i1"): (0.5, "a"), (3, "i2"): (0.6, "b"),
                   (3, "i3"): (0.7, "b")}


def test_vbs_summary_rows_are_censored_statistics_of_the_best_times(race):
    rows = virtual_best.summary(race).set_index("n")
    assert list(rows["entrant"]) == [virtual_best.NAME] * 2
    assert rows.loc[2, "solved"] == 3 and rows.loc[2, "total"] == 4
    assert rows.loc[2, "median_s"] == pytest.approx(3.5)          # 1, 3, 4, inf
    assert math.isinf(rows.loc[2, "q75_s"])
    assert rows.loc[2, "par2_s"] == pytest.approx((1 + 3 + 4 + 2 * LIMIT) / 4)
    assert rows.loc[3, "median_s"] == pytest.approx(0.6) and rows.loc[3, "solved_frac"] == 1.0
    assert rows.loc[3, "median_lo"] == pytest.approx(0.5) and rows.loc[3, "median_hi"] == pytest.approx(0.7)


def test_wins_count_fastest_answers_and_the_speedup_is_over_the_best_single(race):
    wins = virtual_best.wins(race).set_index("n")
    assert wins.loc[2, ["wins_a", "wins_b", "unanswered", "instances"]].tolist() == [2, 1, 1, 4]
    assert wins.loc[3, ["wins_a", "wins_b", "unanswered"]].tolist() == [1, 2, 0]
    # n=2: a's median is censored (1, 3, inf, inf), b's too (2, 4, inf, inf): PAR-2 ties, a declared first
    assert wins.loc[2, "best_single"] == "a" and math.isinf(wins.loc[2, "speedup"])
    # n=3: b (0.5, 0.6, 0.7) is the best single and equals the VBS: x1 exactly
    assert wins.loc[3, "best_single"] == "b"
    assert (wins.loc[3, "speedup"], wins.loc[3, "speedup_lo"], wins.loc[3, "speedup_hi"]) == (1.0, 1.0, 1.0)


def test_speedup_interval_is_paired_over_instances():
    single = np.array([2.0, 4.0, 6.0, np.inf])
    vbs = np.array([1.0, 2.0, 3.0, 5.0])
    interval = virtual_best.speedup_interval(single, vbs)
    assert interval.estimate == pytest.approx(5.0 / 2.5)      # medians 5 and 2.5
    assert interval.low <= 2.0 <= interval.high
    # halving every time of the VBS doubles the speed-up exactly, resample by resample
    twice = virtual_best.speedup_interval(single, vbs / 2)
    assert (twice.low, twice.high) == pytest.approx((2 * interval.low, 2 * interval.high))
    both = virtual_best.speedup_interval(np.array([np.inf, np.inf]), np.array([np.inf, 1.0]))
    assert math.isnan(both.estimate)


def test_one_entrant_has_no_vbs(tmp_path):
    campaign = censored_stats.load(write_campaign(tmp_path / "one", [run("a", 2, "i1", "solved", 1.0)]))
    assert not virtual_best.applies(campaign)
    assert "who wins" not in summary_text(campaign)


def test_format_speedup():
    assert virtual_best.format_speedup(2.0, 1.5, math.inf) == "x2 [1.5, inf]"
    assert virtual_best.format_speedup(math.nan, math.nan, math.nan) == "n/a (all censored)"
