"""Analysis of a campaign: numbers checked by hand on a small synthetic runs.csv."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.analysis import censored_stats, growth
from experiments.cli.main import main
from experiments.harness import schema
from formats.errors import RaceError

LIMIT = 10.0


def write_campaign(root: Path, rows: list[dict], meta: dict | None = None) -> Path:
    """A campaign dir with ``rows`` (missing columns left empty) and a meta.json."""
    root.mkdir(parents=True, exist_ok=True)
    base = {"campaign": root.name, "entrants": sorted({r["entrant"] for r in rows}, reverse=True),
            "timeout_s": LIMIT, "instances": 4, "seed": 0, "family_labels": "unique",
            "repeats": max([int(r.get("repeat") or 0) + 1 for r in rows] + [1])}
    base |= meta or {}
    with open(root / "runs.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, schema.COLUMNS)
        writer.writeheader()
        for row in rows:
            unknown = set(row) - set(schema.COLUMNS)
            assert not unknown, f"not a runs.csv column: {unknown}"   # never dropped silently
            if row.get("campaign") == "t":           # run()'s: the campaign's own row
                row = row | {"campaign": base["campaign"]}
            writer.writerow({c: row.get(c, "") for c in schema.COLUMNS})
    (root / "meta.json").write_text(json.dumps(base))
    return root


def run(entrant: str, n: int, instance: str, status: str, wall: float | None, repeat: int = 0, **extra) -> dict:
    if status in ("timeout", "memout"):
        wall = LIMIT  # the contract: censored rows hold the limit in the time columns
    return {"campaign": "t", "entrant": entrant, "solver": entrant, "params": "{}", "n": n,
            "instance": instance, "repeat": repeat, "status": status,
            "verified": status == "solved", "wall_s": "" if wall is None else wall,
            "cpu_s": "" if wall is None else wall, "timeout_s": LIMIT, "iterations": 1, **extra}


@pytest.fixture
def campaign(tmp_path: Path) -> censored_stats.Campaign:
    rows = [
        # a, n=2: four solved instances 1, 2, 3, 4 s
        *[run("a", 2, f"i{k}", "solved", float(k), nodes=10 * k) for k in (1, 2, 3, 4)],
        # a, n=3: 1 s and 3 s solved, two timeouts -> median censored
        run("a", 3, "i1", "solved", 1.0), run("a", 3, "i2", "solved", 3.0),
        run("a", 3, "i3", "timeout", None), run("a", 3, "i4", "timeout", None),
        # b, n=2: 0.1, 0.2 solved, one memout
        run("b", 2, "i1", "solved", 0.1, t_encode=0.05, t_search=0.04),
        run("b", 2, "i2", "solved", 0.2, t_encode=0.1, t_search=0.08),
        run("b", 2, "i3", "memout", None),
        # b, n=3: one wrong answer between two solved; one skipped
        run("b", 3, "i1", "solved", 1.0), run("b", 3, "i2", "wrong", 0.5),
        run("b", 3, "i3", "solved", 2.0), run("b", 3, "i4", "skipped", None),
    ]
    return censored_stats.load(write_campaign(tmp_path / "camp", rows))


def row(table, entrant: str, n: int):
    sel = table[(table["entrant"] == entrant) & (table["n"] == n)]
    assert len(sel) == 1
    return sel.iloc[0]


def test_solved_median_iqr_par2_by_hand(campaign):
    table = censored_stats.summary(campaign)
    r = row(table, "a", 2)
    assert (r["solved"], r["total"], r["solved_frac"]) == (4, 4, 1.0)
    assert r["median_s"] == pytest.approx(2.5)
    assert (r["q25_s"], r["q75_s"]) == (pytest.approx(1.75), pytest.approx(3.25))
    assert r["par2_s"] == pytest.approx(2.5)
    assert r["nodes"] == pytest.approx(25.0)


def test_timeouts_are_censored_never_averaged(campaign):
    r = row(censored_stats.summary(campaign), "a", 3)
    assert (r["solved"], r["total"]) == (2, 4)
    assert math.isinf(r["median_s"])          # sorted [1, 3, inf, inf]: the median straddles inf
    assert r["q25_s"] == pytest.approx(2.5)   # position 0.75 between 1 and 3
    assert math.isinf(r["q75_s"])
    assert r["par2_s"] == pytest.approx((1 + 3 + 20 + 20) / 4)
    assert r["timeout"] == 2
    assert censored_stats.format_seconds(r["median_s"], r["limit_s"]) == "> 10 s"


def test_memout_wrong_and_skipped_are_unsolved(campaign):
    table = censored_stats.summary(campaign)
    b2 = row(table, "b", 2)
    assert (b2["solved"], b2["memout"]) == (2, 1)
    assert b2["median_s"] == pytest.approx(0.2)
    assert b2["par2_s"] == pytest.approx((0.1 + 0.2 + 20) / 3)
    assert b2["t_encode"] == pytest.approx(0.075)
    b3 = row(table, "b", 3)
    assert (b3["solved"], b3["total"], b3["wrong"], b3["skipped"]) == (2, 4, 1, 1)
    # sorted [1, 2, inf, inf]: a wrong answer's 0.5 s is not a measurement
    assert math.isinf(b3["median_s"]) and b3["q25_s"] == pytest.approx(1.75)
    assert len(censored_stats.wrong_runs(campaign)) == 1


def test_entrants_in_campaign_order(campaign):
    assert campaign.entrants == ["b", "a"]          # meta.json order, not alphabetical
    assert list(censored_stats.summary(campaign)["entrant"].unique()) == ["b", "a"]


def test_repeats_collapse_to_the_instance_median(tmp_path):
    rows = [run("a", 2, "i1", "solved", t, repeat=k) for k, t in enumerate([1.0, 3.0, 2.0])]
    rows += [run("a", 2, "i2", "solved", 5.0), run("a", 2, "i2", "timeout", None, repeat=1),
             run("a", 2, "i2", "timeout", None, repeat=2)]
    c = censored_stats.load(write_campaign(tmp_path / "c", rows))
    times = censored_stats.instance_times(c.runs).set_index("instance")["time"]
    assert times["i1"] == pytest.approx(2.0) and math.isinf(times["i2"])
    r = row(censored_stats.summary(c), "a", 2)
    assert (r["solved"], r["total"], r["runs"]) == (1, 2, 6)


def test_growth_fits_the_slope_of_log_time(tmp_path):
    rows = [run("a", n, f"i{k}", "solved", t * f) for n, t in ((2, 0.01), (3, 0.1), (4, 1.0))
            for k, f in enumerate((0.5, 1.0, 2.0))]
    rows += [run("a", 5, f"i{k}", "timeout", None) for k in range(3)]
    c = censored_stats.load(write_campaign(tmp_path / "g", rows))
    g = growth.growth(censored_stats.summary(c), "a")
    assert g.n_values == [2, 3, 4]                  # the censored n = 5 is not fitted
    assert g.slope == pytest.approx(1.0) and g.factor == pytest.approx(10.0)
    assert g.ratios == {3: pytest.approx(10.0), 4: pytest.approx(10.0)}
    gt = growth.growth_table(c)
    assert gt.iloc[0]["n_to"] == 4 and gt.iloc[0]["points"] == 3


def test_growth_stops_at_the_first_censored_n(tmp_path):
    rows = [run("a", 2, "i", "solved", 0.01), run("a", 3, "i", "solved", 0.1),
            run("a", 4, "i", "timeout", None), run("a", 5, "i", "solved", 0.001)]
    c = censored_stats.load(write_campaign(tmp_path / "g", rows))
    g = growth.growth(censored_stats.summary(c), "a")
    assert g.n_values == [2, 3] and g.factor == pytest.approx(10.0)


def test_growth_needs_two_points(campaign):
    g = growth.growth(censored_stats.summary(campaign), "a")
    assert g.n_values == [2] and math.isnan(g.slope)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=30), st.sampled_from([0.25, 0.5, 0.75]))
def test_censored_quantile_matches_numpy_without_censoring(values, q):
    assert censored_stats.censored_quantile(values, q) == pytest.approx(float(np.quantile(values, q)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(1e-6, 1e3), min_size=1, max_size=20), st.integers(1, 20))
def test_censoring_is_infinite_exactly_when_half_or_more_unsolved(values, unsolved):
    data = values + [math.inf] * unsolved
    median = censored_stats.censored_quantile(data, 0.5)
    # sorted: len(values) finite times, then the infs; the median uses index ceil((N-1)/2)
    assert math.isinf(median) == (math.ceil((len(data) - 1) / 2) >= len(values))
    assert censored_stats.par2(data, 1e3) == pytest.approx((sum(values) + 2e3 * unsolved) / len(data))


def test_format_seconds():
    assert censored_stats.format_seconds(0.0123) == "12.3 ms"
    assert censored_stats.format_seconds(2.5e-5) == "25 µs"
    assert censored_stats.format_seconds(3.0) == "3 s"
    # rounding to three digits may reach the next unit: never an exponent
    assert censored_stats.format_seconds(0.00099964) == "1 ms"
    assert censored_stats.format_seconds(0.99981) == "1 s"
    assert censored_stats.format_seconds(9.9996e-7) == "1 µs"
    assert censored_stats.format_seconds(4.2e-9) == "0.0042 µs"
    assert censored_stats.format_seconds(3600.4) == "3600 s" and censored_stats.format_seconds(123456.0) == "123456 s"
    assert censored_stats.format_seconds(0.000999) == "999 µs"
    assert censored_stats.format_seconds(math.inf, 20.0) == "> 20 s"
    assert censored_stats.format_seconds(math.nan) == "n/a"


# ---------------------------------------------------------------- bad input

def test_missing_directory(tmp_path):
    with pytest.raises(RaceError, match="not a campaign directory"):
        censored_stats.load(tmp_path / "nope")


def test_missing_runs_csv(tmp_path):
    (tmp_path / "c").mkdir()
    with pytest.raises(RaceError, match="runs.csv: missing"):
        censored_stats.load(tmp_path / "c")


def test_missing_columns(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "runs.csv").write_text("entrant,n,status\ndlx,2,solved\n")
    (root / "meta.json").write_text("{}")
    with pytest.raises(RaceError, match="missing column.*instance.*wall_s"):
        censored_stats.load(root)


def test_bad_status_is_left_out_and_bad_meta_is_an_error(tmp_path, campaign, capsys):
    text = (campaign.path / "runs.csv").read_text().replace(",solved,", ",fine,", 1)
    (campaign.path / "runs.csv").write_text(text)
    loaded = censored_stats.load(campaign.path)        # the damaged row (a, n=2, i1) is not counted
    assert len(loaded.runs) == len(campaign.runs) - 1
    assert row(censored_stats.summary(loaded), "a", 2)["total"] == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2 (unknown status 'fine')" in err
    root = write_campaign(tmp_path / "m", [run("a", 2, "i1", "solved", 1.0)])
    (root / "meta.json").write_text("{not json")
    with pytest.raises(RaceError, match="malformed JSON"):
        censored_stats.load(root)
    (root / "meta.json").unlink()
    with pytest.raises(RaceError, match="meta.json: missing"):
        censored_stats.load(root)


def test_empty_runs(tmp_path):
    root = write_campaign(tmp_path / "e", [])
    with pytest.raises(RaceError, match="no runs"):
        censored_stats.load(root)


def test_cli_plot_bad_dir_exits_2_with_one_line(tmp_path):
    result = CliRunner().invoke(main, ["plot", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "not a campaign directory" in result.output


def test_solved_without_verified_true_is_censored(tmp_path):
    """Only verified = True makes a solved run a measured time: a blank or false one is censored."""
    rows = [run("a", 2, "i1", "solved", 1.0), run("a", 2, "i2", "solved", 2.0, verified=""),
            run("a", 2, "i3", "solved", 3.0, verified=False), run("a", 2, "i4", "unsat", 4.0)]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows))
    times = censored_stats.instance_times(campaign.runs).set_index("instance")["time"]
    assert times.to_dict() == {"i1": 1.0, "i2": math.inf, "i3": math.inf, "i4": 4.0}
    r = row(censored_stats.summary(campaign), "a", 2)
    assert (r["solved"], r["total"]) == (2, 4)
    assert r["par2_s"] == (1.0 + 4.0 + 2 * 2 * LIMIT) / 4
