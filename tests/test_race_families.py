"""Families in one campaign, the hard family, the skip rule and the hardness landscape."""

from __future__ import annotations

import csv
import hashlib
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from experiments.analysis import censored_stats, landscape
from experiments.cli.landscape import parse_fractions
from experiments.harness import records, runs_table, schema
from experiments.harness.instance_families import HARD, Family, parse_families
from formats import grid_text
from formats.errors import RaceError
from generators import hardness_peaks
from tests.fake_solvers import fake_registry
from tests.test_harness import race, race_with, write_instances


def _committed_peaks() -> dict[int, float]:
    with open(hardness_peaks.PEAKS_PATH, newline="") as fh:
        return {int(r["n"]): float(r["holes"]) for r in csv.DictReader(fh)
                if r["pattern"] == "balanced"}


# -- the hard family ---------------------------------------------------------------------
def test_hard_family_reads_the_committed_peak_table():
    table = _committed_peaks()
    assert table, "the committed table generators/hardness_peaks.csv has balanced rows"
    (hard,) = parse_families("hard", {})
    for n in range(1, 13):
        nearest = min(table, key=lambda m: (abs(m - n), m))
        assert hard.options_for(n) == {"holes": table[nearest], "pattern": "balanced"}
    assert (hard.label, hard.kind, hard.key) == (HARD, "holes", HARD)


def test_peak_table_update_keeps_other_rows_and_nearest_rule(tmp_path):
    path = tmp_path / "peaks.csv"
    hardness_peaks.write_peaks([{"n": 3, "pattern": "balanced", "holes": 0.5},
                                {"n": 5, "pattern": "balanced", "holes": 0.6},
                                {"n": 4, "pattern": "random", "holes": 0.7}], path)
    hardness_peaks.write_peaks([{"n": 5, "pattern": "balanced", "holes": 0.55}], path)
    assert {n: float(r["holes"]) for n, r in hardness_peaks.read_peaks(path).items()} == \
        {3: 0.5, 5: 0.55}
    assert hardness_peaks.peak_holes(4, path) == 0.5            # tie: the smaller n
    assert hardness_peaks.peak_holes(9, path) == 0.55
    assert hardness_peaks.peak_holes(4, path, "random") == 0.7
    (hard,) = parse_families("hard", {}, peaks=path)
    assert hard.options_for(2) == {"holes": 0.5, "pattern": "balanced"}
    with pytest.raises(RaceError, match="race landscape"):
        parse_families("hard", {}, peaks=tmp_path / "none.csv")
    (tmp_path / "bad.csv").write_text("n,pattern,holes\nx,balanced,0.5\n")
    with pytest.raises(RaceError, match="line 2"):
        hardness_peaks.read_peaks(tmp_path / "bad.csv")


@pytest.mark.parametrize("kind, given, needle", [
    ("unique", {"holes": "0.5"}, "--holes goes with --family unsat or holes"),
    ("unique,hard", {"pattern": "random"}, "hard fixes its holes and pattern"),
    ("unique,minimal", {"base": "minimal"}, "--base goes with --family unsat"),
    ("unique,nosuch", {}, "unknown family 'nosuch'"),
    ("holes", {"holes": "2"}, "[0, 1]"),
])
def test_family_options_go_to_the_families_that_take_them(kind, given, needle):
    with pytest.raises(RaceError) as err:
        parse_families(kind, given)
    assert needle in str(err.value)


def test_family_options_reach_each_family_in_canonical_form():
    unique, holes, unsat = parse_families("unique, holes,unsat,unique",
                                          {"holes": "0.55", "pattern": "balanced", "base": "holes"})
    assert unique == Family("unique", "unique")
    assert holes.options == (("holes", 0.55), ("pattern", "balanced")) and holes.key == "holes@0.55"
    assert unsat.options_for(3) == {"base": "holes", "holes": 0.55}     # unsat on a holes base


# -- several families in one campaign -------------------------------------------------------
def test_one_campaign_races_several_families_and_resumes(tmp_path):
    r = race(tmp_path, "--n", "2", "--family", "unique,hard", "--solvers", "backtracking",
             "--instances", "2", "--timeout", "30")
    assert r.exit_code == 0, r.output
    name = "race-n2-unique+hard-s0-i2-t30"
    rows = runs_table.read_rows(tmp_path / name / "runs.csv")
    assert sorted((row["family"], row["holes"]) for row in rows) == [
        ("hard", f"{hardness_peaks.peak_holes(2):.9g}")] * 2 + [("unique", "")] * 2
    assert len({row["instance"] for row in rows}) == 4
    assert all(row["status"] == "solved" for row in rows)
    for row in rows:
        if row["family"] == "hard":
            meta = grid_text.read(tmp_path / "instances" / row["instance"]).metadata
            assert (float(meta["holes"]), meta["pattern"]) == (hardness_peaks.peak_holes(2),
                                                               "balanced")
    assert "== unique" in r.output and "== hard (n=2:" in r.output
    again = race(tmp_path, "--n", "2", "--kind", "unique,hard", "--solvers", "backtracking",
                 "--instances", "2", "--timeout", "30")
    assert again.exit_code == 0, again.output
    assert runs_table.read_rows(tmp_path / name / "runs.csv") == rows


def test_a_resume_may_add_a_family_but_not_drop_one(tmp_path):
    args = ("--n", "2", "--solvers", "backtracking", "--instances", "1", "--timeout", "30",
            "--campaign", "grow")
    assert race(tmp_path, "--kind", "hard", *args).exit_code == 0
    rows = runs_table.read_rows(tmp_path / "grow" / "runs.csv")
    grown = race(tmp_path, "--kind", "unique,hard", *args)
    assert grown.exit_code == 0, grown.output
    after = runs_table.read_rows(tmp_path / "grow" / "runs.csv")
    assert after[:len(rows)] == rows                       # the hard row is kept, not re-run
    assert sorted(row["family"] for row in after) == ["hard", "unique"]
    meta = json.loads((tmp_path / "grow" / "meta.json").read_text())
    assert meta["family_labels"] == "unique,hard" and set(meta["families"]) == {"hard", "unique"}
    assert [c["command"].split(" --family ")[1].split()[0] for c in meta["commands"]] == \
        ["hard", "unique,hard"]                            # how each part was made
    assert all(c["n_values"] == [2] for c in meta["commands"])
    dropped = race(tmp_path, "--kind", "unique", *args)
    assert dropped.exit_code == 2
    assert "--family 'unique,hard'" in dropped.stderr and "not drop" in dropped.stderr
    assert runs_table.read_rows(tmp_path / "grow" / "runs.csv") == after


def test_an_older_runs_csv_gets_the_new_header_and_keeps_its_rows(tmp_path):
    old_columns = [c for c in schema.COLUMNS if c != "holes"]
    path = tmp_path / "runs.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=old_columns, lineterminator="\n")
        writer.writeheader()
        writer.writerow({c: "" for c in old_columns} | {"entrant": "dlx", "n": "3", "instance": "a",
                                                        "repeat": "0", "status": "solved",
                                                        "message": ""})
    runs_table.set_aside(path)
    assert path.read_text().splitlines()[0].split(",") == list(schema.COLUMNS)
    (row,) = runs_table.read_rows(path)
    assert (row["entrant"], row["n"], row["holes"], row["status"]) == ("dlx", "3", "", "solved")


# -- the skip rule ------------------------------------------------------------------------
def test_slow_entrant_is_skipped_at_larger_n_as_soon_as_its_median_is_censored(tmp_path):
    for n in (2, 3, 4):
        write_instances(tmp_path, n, 3)
    r = race_with(fake_registry(), tmp_path, "--n", "2..4", "--solvers", "slow:delay=5,backtracking",
                  "--instances", "3", "--timeout", "0.5", "--jobs", "1", "--campaign", "skip")
    assert r.exit_code == 0, r.output
    rows = runs_table.read_rows(tmp_path / "skip" / "runs.csv")
    slow = [(int(row["n"]), row["status"]) for row in rows if row["entrant"] == "slow:delay=5"]
    # two timeouts out of three censor the median at n=2: n=3 and 4 are skipped before
    # the third n=2 cell runs (one worker, so the order of the rows is the order of events)
    assert slow == [(2, "timeout")] * 2 + [(3, "skipped")] * 3 + [(4, "skipped")] * 3 \
        + [(2, "timeout")], [(row["n"], row["status"], row["message"]) for row in rows]
    assert all("median" in row["message"] for row in rows if row["status"] == "skipped")
    assert all(row["status"] == "solved" for row in rows if row["entrant"] == "backtracking")
    table = censored_stats.summary(censored_stats.load(tmp_path / "skip"))
    skipped = table[(table["entrant"] == "slow:delay=5") & (table["n"] == 4)].iloc[0]
    assert math.isinf(skipped["median_s"]) and skipped["solved"] == 0 and skipped["total"] == 3


# -- the landscape --------------------------------------------------------------------------
def test_a_peak_measured_on_less_does_not_overwrite_the_recorded_one(tmp_path):
    """A quick landscape (fewer instances, or a shorter limit) keeps the recorded row and says
    so; as many instances and as long a limit (or more) replace it; other rows are untouched."""
    path = tmp_path / "peaks.csv"
    recorded = {"pattern": "balanced", "holes": 0.6, "instances": 5, "timeout_s": 10}
    hardness_peaks.write_peaks([{"n": 4, **recorded}, {"n": 5, **recorded}], path)
    quick = {"pattern": "balanced", "holes": 0.5, "instances": 3, "timeout_s": 10}
    short = {"pattern": "balanced", "holes": 0.5, "instances": 9, "timeout_s": 2}
    assert hardness_peaks.write_peaks([{"n": 4, **quick}, {"n": 5, **short}], path) == \
        [("balanced", 4), ("balanced", 5)]
    assert {n: float(r["holes"]) for n, r in hardness_peaks.read_peaks(path).items()} == {4: 0.6, 5: 0.6}
    better = {"pattern": "balanced", "holes": 0.55, "instances": 5, "timeout_s": 20}
    assert hardness_peaks.write_peaks([{"n": 4, **better}], path) == []
    assert {n: float(r["holes"]) for n, r in hardness_peaks.read_peaks(path).items()} == {4: 0.55, 5: 0.6}


def test_landscape_campaign_has_the_hole_axis_resumes_and_writes_the_peak(tmp_path):
    peaks = tmp_path / "peaks.csv"
    args = ["landscape", "--n", "2", "--solvers", "backtracking", "--instances", "2",
            "--timeout", "30", "--out", str(tmp_path), "--peaks", str(peaks), "--campaign", "land"]
    from click.testing import CliRunner

    from experiments.cli.main import main
    r = CliRunner().invoke(main, [*args, "--holes", "0.4,0.6"])
    assert r.exit_code == 0, r.output
    rows = runs_table.read_rows(tmp_path / "land" / "runs.csv")
    assert sorted(float(row["holes"]) for row in rows) == [0.4, 0.4, 0.6, 0.6]
    for row in rows:
        meta = grid_text.read(tmp_path / "instances" / row["instance"]).metadata
        assert float(meta["holes"]) == float(row["holes"]) and meta["pattern"] == "balanced"
        assert int(row["clues"]) == 16 - round(16 * float(row["holes"]))
    (peak,) = hardness_peaks.read_peaks(peaks).values()
    assert peak["n"] == "2" and float(peak["holes"]) in (0.4, 0.6) and peak["entrant"] == "backtracking"
    assert "peak n=2:" in r.output and (tmp_path / "land" / "landscape.png").stat().st_size > 0
    r = CliRunner().invoke(main, [*args, "--holes", "0.4..0.6:0.1"])
    assert r.exit_code == 0, r.output
    grown = runs_table.read_rows(tmp_path / "land" / "runs.csv")
    assert grown[:4] == rows and sorted(float(row["holes"]) for row in grown[4:]) == [0.5, 0.5]
    before = peaks.read_bytes()                  # a quicker landscape leaves the table alone
    quick = ["landscape", "--n", "2", "--solvers", "backtracking", "--instances", "1", "--timeout",
             "30", "--out", str(tmp_path), "--peaks", str(peaks), "--campaign", "quick"]
    r = CliRunner().invoke(main, [*quick, "--holes", "0.4,0.6"])
    assert r.exit_code == 0, r.output
    assert "peaks of n=2 not written" in r.output and peaks.read_bytes() == before


def _instances(times: dict[float, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"entrant": "e", "n": 4, "holes": h, "index": i, "time": t, "work": t}
                         for h, ts in times.items() for i, t in enumerate(ts)])


def test_peak_is_the_largest_censored_median_of_the_best_entrant():
    inf = math.inf
    found = landscape.peak(_instances({0.4: [1, 1, 1], 0.5: [5, 6, 7], 0.6: [inf, 2, 2]}), 4, 10)
    assert found["holes"] == 0.5 and found["entrant"] == "e" and found["instances"] == 3
    assert 0.4 <= found["low"] <= 0.5 <= found["high"] <= 0.6
    found = landscape.peak(_instances({0.4: [1, 1, 1], 0.5: [5, 6, 7], 0.6: [inf, inf, 2]}), 4, 10)
    assert found["holes"] == 0.6                           # censored median beats any time
    tie = landscape.peak(_instances({0.4: [inf, inf, 1], 0.5: [inf, inf, 2]}), 4, 10)
    assert tie["holes"] == 0.5                             # same median: larger PAR-2 (2 > 1)
    other = _instances({0.4: [9, 9, 9], 0.5: [1, 1, 1]}).assign(entrant="slow")
    mixed = pd.concat([_instances({0.4: [1, 1, 1], 0.5: [2, 2, 2]}), other])
    assert landscape.peak(mixed, 4, 10) == {"n": 4, "holes": 0.5, "low": 0.5, "high": 0.5,
                                            "entrant": "e", "measure": "work", "instances": 3}
    # work, not time, when the best entrant counts its work: the encoding's time is no hardness
    encoding = _instances({0.4: [1, 1, 1], 0.5: [2, 2, 2]})
    encoding["work"] = np.where(encoding["holes"] == 0.4, 50.0, 0.0)
    assert landscape.peak(encoding, 4, 10)["holes"] == 0.4
    assert landscape.peak(encoding.assign(work=np.nan), 4, 10)["holes"] == 0.5


@given(st.integers(0, 50), st.integers(1, 20), st.integers(0, 10))
def test_parse_fractions_ranges_include_both_ends(lo, step, count):
    hi = lo + step * count
    if hi > 100:
        return
    values = parse_fractions(f"{lo / 100}..{hi / 100}:{step / 100}")
    assert values == [round((lo + k * step) / 100, 6) for k in range(count + 1)]


@pytest.mark.parametrize("text", ["0.8..0.3:0.1", "0.3..0.8:0", "lots", "0.5,1.5"])
def test_parse_fractions_refuses_bad_ranges(text):
    with pytest.raises(RaceError, match="--holes"):
        parse_fractions(text)


def test_landscape_table_censors_work_with_time():
    runs = pd.DataFrame([
        {"entrant": "dlx", "n": 3, "holes": 0.5, "instance": f"d/holes-n3-s0-000{i}.sudoku",
         "status": s, "verified": s == "solved", "wall_s": w, "nodes": k, "conflicts": np.nan,
         "decisions": np.nan, "propagations": np.nan, "repeat": 0, "timeout_s": 10.0}
        for i, (s, w, k) in enumerate([("solved", 1.0, 100), ("timeout", 10.0, np.nan),
                                       ("solved", 3.0, 300)])])
    campaign = censored_stats.Campaign(Path("."), runs, {"timeout_s": 10.0, "entrants": ["dlx"]})
    (row,) = landscape.landscape_table(campaign).to_dict("records")
    assert row["median_s"] == 3.0 and row["median_work"] == 300 and row["counter"] == "nodes"
    assert row["solved_frac"] == pytest.approx(2 / 3) and row["par2_s"] == pytest.approx(8.0)


def test_landscape_legend_names_every_entrant_even_those_absent_from_the_last_panel(tmp_path):
    """The committed landscape: sat and kissat at n = 3..7, backtracking and dlx only at
    n = 3..5; the legend (under the panels) still names all four."""
    from experiments.analysis import censored_stats, landscape
    campaign = censored_stats.load(Path(__file__).parents[1] / "results" / "reference-landscape")
    assert campaign.n_values == [3, 4, 5, 6, 7]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    captured = []
    real = plt.close
    plt.close = lambda fig=None: captured.append(fig)
    try:
        landscape.landscape_figure(campaign, tmp_path)
    finally:
        plt.close = real
    (fig,) = captured
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert sorted(labels[:4]) == ["backtracking", "dlx", "kissat", "sat"]
    assert (tmp_path / "landscape.png").stat().st_size > 0


# -- one word per idea: the family column -----------------------------------------------
REFERENCE = Path(__file__).resolve().parent.parent / "results" / "reference-n2-10"


def test_a_runs_csv_with_the_old_kind_column_reads_and_resumes_as_today(tmp_path):
    # rows of the reference campaign as it was written before the column was renamed: one per
    # family, entrant and n, with its header (kind, no cores, referee or extra)
    old = Path(__file__).resolve().parent / "data" / "runs-kind-column.csv"
    header = old.read_text().split("\n", 1)[0].split(",")
    assert "kind" in header and "family" not in header      # written before the rename
    rows = runs_table.read_rows(old)
    assert {row["family"] for row in rows} == {"unique", "hard", "holes@0.33"}
    assert all("kind" not in row for row in rows)
    campaign_dir = tmp_path / "reference"
    campaign_dir.mkdir()
    (campaign_dir / "runs.csv").write_bytes(old.read_bytes())
    (campaign_dir / "meta.json").write_bytes((REFERENCE / "meta.json").read_bytes())
    campaign = censored_stats.load(campaign_dir)
    assert campaign.families == ["unique", "hard", "holes"]   # no two share a label: named by it
    assert set(campaign.runs["family_key"]) == {"unique", "hard", "holes@0.33"}
    assert len(campaign.runs) == len(rows)
    copy = tmp_path / "runs.csv"
    copy.write_bytes(old.read_bytes())
    cells = runs_table.done_keys(copy)
    runs_table.set_aside(copy)                                  # what a resume does first
    assert copy.read_text().split("\n", 1)[0] == ",".join(schema.COLUMNS)
    assert runs_table.done_keys(copy) == cells and len(cells) == len(rows)


def test_families_sharing_a_label_are_told_apart_by_their_key(tmp_path):
    from tests.test_analysis import run, write_campaign
    rows = [run(e, 2, f"i{k}", "solved", (1 + k) * (2 if e == "b" else 1) * (10 if share == 0.5 else 1),
                family=f"holes@{share}", holes=share, instance_sha256=f"{share}-{k}")
            for share in (0.3, 0.5) for e in "ab" for k in range(3)]
    campaign = censored_stats.load(write_campaign(tmp_path / "c", rows, {"family_labels": "holes"}))
    assert campaign.families == ["holes@0.3", "holes@0.5"]
    table = censored_stats.summary(campaign)
    medians = {(r.family, r.entrant): r.median_s for r in table.itertuples()}
    assert medians == {("holes@0.3", "a"): 2.0, ("holes@0.3", "b"): 4.0,
                       ("holes@0.5", "a"): 20.0, ("holes@0.5", "b"): 40.0}
    from experiments.analysis import compare
    both = compare.compare(campaign, "a", "b", families=["holes"])        # a label takes both
    assert [(r.family, r.pairs) for r in both.rows if r.n is not None] == [("holes@0.3", 3),
                                                                          ("holes@0.5", 3)]
    one = compare.compare(campaign, "a", "b", families=["holes@0.5"])
    assert {r.family for r in one.rows} == {"holes@0.5"}


@pytest.mark.parametrize("given, expected", [({"peaks": "none"}, ["--no-peaks"]),
                                             ({"peaks": "/tmp/my peaks.csv"},
                                              ["--peaks", "/tmp/my peaks.csv"]),
                                             ({}, [])])
def test_the_landscape_resume_command_keeps_the_peak_table_and_the_jobs(given, expected):
    """Following the printed resume command must not write the committed peak table when the
    interrupted run was told --no-peaks or --peaks FILE."""
    import shlex

    from experiments.harness.config import Config, Invocation, resume_command
    config = Config(n_values=[2], entrants=[], family_labels="holes", campaign="land",
                    generator_options={"pattern": "balanced"},
                    asked=Invocation(n_text="2", solvers_text="dlx", jobs_given=1,
                                     landscape={"holes": "0.4,0.6", "pattern": "balanced", **given}))
    words = shlex.split(resume_command(config))
    assert words[:2] == ["race", "landscape"] and words[words.index("--jobs") + 1] == "1"
    tail = words[words.index("--jobs") + 2:]
    assert tail == expected


def test_landscape_refuses_a_peak_table_that_is_no_regular_file(tmp_path):
    from click.testing import CliRunner

    from experiments.cli.main import main
    r = CliRunner().invoke(main, ["landscape", "--n", "2", "--holes", "0.4", "--solvers", "dlx",
                                  "--instances", "1", "--out", str(tmp_path), "--peaks", "/dev/full"])
    assert r.exit_code == 2 and "/dev/full" in r.output and "regular file" in r.output
    assert not any(tmp_path.iterdir())


def test_the_holes_family_at_its_default_fraction_records_it(tmp_path):
    """runs.csv's holes column holds the fraction of empty cells (README); at the generator's
    default (no --holes) it was left blank."""
    r = race(tmp_path, "--n", "2", "--kind", "holes", "--instances", "1", "--solvers", "dlx")
    assert r.exit_code == 0, r.output
    (row,) = runs_table.read_rows(next(tmp_path.glob("race-*")) / "runs.csv")
    assert row["family"] == "holes" and float(row["holes"]) == 0.5 and int(row["clues"]) == 8


def test_a_new_hard_campaign_names_its_instance_files_hard(tmp_path):
    r = race(tmp_path, "--n", "2", "--kind", "hard", "--solvers", "backtracking",
             "--instances", "2", "--timeout", "30", "--campaign", "fresh")
    assert r.exit_code == 0, r.output
    peak = hardness_peaks.peak_holes(2)
    folder = f"hard-n2-s0-holes{peak:g}-balanced"
    rows = runs_table.read_rows(tmp_path / "fresh" / "runs.csv")
    assert sorted(row["instance"] for row in rows) == [f"{folder}/hard-n2-s0-{i:04d}.sudoku"
                                                       for i in range(2)]
    assert all(row["status"] == "solved" for row in rows)
    assert sorted(p.name for p in (tmp_path / "instances").iterdir()) == [folder]
    assert sorted(p.name for p in (tmp_path / "instances" / folder).iterdir()) == \
        ["hard-n2-s0-0000.sudoku", "hard-n2-s0-0001.sudoku", "manifest.csv"]
    meta = json.loads((tmp_path / "fresh" / "meta.json").read_text())
    assert meta["instance_names"] == "family"
    assert f"in {tmp_path / 'instances' / folder}" in r.output
    # the puzzles are the generator's holes puzzles at the peak, whatever the files' names
    puzzle = grid_text.read(tmp_path / "instances" / folder / "hard-n2-s0-0000.sudoku").metadata
    assert (puzzle["kind"], float(puzzle["holes"])) == ("holes", peak)
    again = race(tmp_path, "--n", "2", "--kind", "hard", "--solvers", "backtracking",
                 "--instances", "2", "--timeout", "30", "--campaign", "fresh")
    assert again.exit_code == 0 and "2 already recorded, 0 to run" in again.output, again.output
    assert runs_table.read_rows(tmp_path / "fresh" / "runs.csv") == rows
    assert not (tmp_path / "fresh" / records.DAMAGED_NAME).exists()
    # without the cache, the report regenerates each hard-... file from its generator identity
    from experiments.report.instance_grids import campaign_grids
    shutil.rmtree(tmp_path / "instances")
    grids, missing = campaign_grids(censored_stats.load(tmp_path / "fresh"))
    assert missing == {} and sorted(grids) == sorted(row["instance"] for row in rows)
    assert {g.source for g in grids.values()} == {"regenerated"}


def test_a_committed_hard_campaign_keeps_its_holes_files_and_resumes_with_nothing_to_run(tmp_path):
    """A campaign made before the files were named after the family (its meta.json does not
    say how they are named; its rows name holes-... files) resumes with nothing to run and
    nothing set aside, and its files keep their names."""
    source = Path(__file__).resolve().parent.parent / "results" / "reference-hard-n6-config"
    shutil.copytree(source, tmp_path / source.name)
    meta = json.loads((source / "meta.json").read_text())
    assert "instance_names" not in meta
    before = runs_table.read_rows(source / "runs.csv")
    assert all(row["instance"].startswith("holes-n6-s0-holes0.5-balanced/holes-n6-s0-")
               for row in before)
    r = race(tmp_path, "--kind", "hard", "--n", "6", "--solvers", "sat:config=sat", "--instances",
             "10", "--timeout", "60", "--seed", "0", "--campaign", source.name, "-j", "1")
    assert r.exit_code == 0, r.output
    assert "10 already recorded, 0 to run" in r.output
    assert "set aside" not in r.output
    assert not (tmp_path / source.name / records.DAMAGED_NAME).exists()
    assert sorted(p.name for p in (tmp_path / "instances").iterdir()) == ["holes-n6-s0-holes0.5-balanced"]
    after = runs_table.read_rows(tmp_path / source.name / "runs.csv")
    assert [(row["instance"], row["instance_sha256"], row["status"], row["wall_s"]) for row in after] \
        == [(row["instance"], row["instance_sha256"], row["status"], row["wall_s"]) for row in before]
    # the files the rows name are there, with the sha256 the rows recorded
    for row in after:
        data = (tmp_path / "instances" / row["instance"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["instance_sha256"]
    resumed = json.loads((tmp_path / source.name / "meta.json").read_text())
    assert "instance_names" not in resumed
    assert (resumed["campaign"], resumed["families"], resumed["seed"]) == \
        (meta["campaign"], meta["families"], meta["seed"])


def test_landscape_by_default_writes_its_peaks_to_the_current_directory_not_the_package(
        tmp_path, monkeypatch):
    """Without --peaks the peak table is ./hardness_peaks.csv, named in the output; the
    installed generators/hardness_peaks.csv (the one the hard family reads) is left as it was."""
    from click.testing import CliRunner

    from experiments.cli.main import main
    committed = hardness_peaks.PEAKS_PATH
    before = (committed.read_bytes(), committed.stat().st_mtime_ns)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["landscape", "--n", "2", "--holes", "0.4,0.6", "--solvers",
                                  "backtracking", "--instances", "1", "--timeout", "30", "-j", "1",
                                  "--out", "res", "--campaign", "land"])
    assert r.exit_code == 0, r.output
    assert (committed.read_bytes(), committed.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hardness_peaks.csv", "res"]
    assert "peaks of n=2 written to hardness_peaks.csv" in r.output
    (peak,) = hardness_peaks.read_peaks(tmp_path / "hardness_peaks.csv").values()
    assert peak["n"] == "2" and peak["campaign"] == "land" and float(peak["holes"]) in (0.4, 0.6)
