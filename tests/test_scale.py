"""A campaign of many runs: the columnar reader, the per-instance statistics without a loop,
the order-statistic interval, the repetition floor, the summary's columns at any size, the
synthetic campaign writer, and every analysis command at 200,000 rows in bounded memory."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.analysis import bootstrap, censored_stats
from experiments.harness import records, records_columnar, schema, synthetic_campaign
from experiments.harness.runs_table import RunsTable
from experiments.harness.worker import MIN_TIME, repetition_floor
from formats import grid_text

#: the race command, run by this Python
RACE = [sys.executable, "-c", "from experiments.cli.entry import race; race()"]
ROOT = Path(__file__).resolve().parent.parent


def reference_instance_times(runs: pd.DataFrame) -> pd.DataFrame:
    """The per-instance table computed the plain way: one group at a time."""
    frame = runs.copy()
    frame["time"] = np.where(censored_stats.answered(frame) & frame["wall_s"].notna(), frame["wall_s"], np.inf)
    rank = {s: i for i, s in enumerate(schema.SEVERITY)}
    rows = []
    for (entrant, family, n, instance), group in frame.groupby(["entrant", "family", "n", "instance"],
                                                               sort=False):
        times = group["time"].to_numpy(float)
        t = censored_stats.censored_quantile(times, 0.5)
        worst = max(group["status"], key=lambda s: rank.get(s, 0))
        spread = (float(np.std(times, ddof=1) / np.mean(times))
                  if len(times) > 1 and np.isfinite(times).all() and np.mean(times) > 0 else math.nan)
        rows.append({"entrant": entrant, "family": family, "n": int(n), "instance": instance,
                     "time": t, "status": group["status"].iloc[0] if math.isfinite(t) else worst,
                     "repeats": len(group), "spread": spread})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("seed", range(6))
def test_instance_times_match_the_group_by_group_definition(seed):
    rng = np.random.default_rng(seed)
    size = 400
    statuses = rng.choice(["solved", "solved", "solved", "unsat", "timeout", "error", "wrong", "skipped"], size)
    runs = pd.DataFrame({
        "entrant": rng.choice(["a", "b:x=1"], size), "family": rng.choice(["unique", "hard"], size),
        "n": rng.choice([2, 3], size), "instance": rng.choice([f"i{k}" for k in range(30)], size),
        "instance_sha256": "", "status": statuses,
        "verified": rng.choice(["True", "False", np.nan], size, p=[0.8, 0.1, 0.1]),
        "wall_s": np.where(rng.random(size) < 0.05, np.nan, rng.lognormal(0, 1, size))})
    got = censored_stats.instance_times(runs).drop(columns="instance_sha256")
    want = reference_instance_times(runs)
    assert list(got["instance"]) == list(want["instance"])              # first-seen order
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want[got.columns].reset_index(drop=True),
                                  check_dtype=False)


def binomial_below(size: int, k: int) -> float:
    return sum(math.comb(size, j) for j in range(k)) / 2 ** size


@pytest.mark.parametrize("size", [1, 5, 6, 9, 10, 17, 100, 2001, 5000])
def test_order_statistic_ranks_are_the_largest_that_keep_the_coverage(size):
    low, high = bootstrap.order_statistic_ranks(size)
    k = low + 1
    assert high == size - k
    if size >= 6:
        assert binomial_below(size, k) <= 0.025 < binomial_below(size, k + 1)
    else:                                      # too few values for 95 %: the whole range
        assert (low, high) == (0, size - 1)


def test_order_statistic_interval_of_many_instances():
    rng = np.random.default_rng(3)
    times = rng.lognormal(0, 1, 10_001)
    interval = bootstrap.median_interval(times)        # above EXACT_ABOVE: no resampling
    ordered = np.sort(times)
    low, high = bootstrap.order_statistic_ranks(times.size)
    assert (interval.estimate, interval.low, interval.high) == (ordered[5000], ordered[low], ordered[high])
    assert ordered[low] < np.median(times) < ordered[high]
    censored = np.concatenate([times[:4000], np.full(6001, np.inf)])
    more = bootstrap.median_interval(censored)           # more than half censored: "> limit"
    assert (more.estimate, more.high) == (math.inf, math.inf)
    near = bootstrap.median_interval(np.concatenate([times[:5050], np.full(4951, np.inf)]))
    assert math.isfinite(near.estimate) and math.isinf(near.high)


def test_chunked_resampling_draws_what_one_array_draws(monkeypatch):
    times = np.random.default_rng(1).lognormal(0, 1, 300)
    whole = bootstrap.resample_medians(times, np.random.default_rng(9), 500)
    monkeypatch.setattr(bootstrap, "CHUNK", 7 * 300)    # 7 resamples at a time
    assert np.array_equal(whole, bootstrap.resample_medians(times, np.random.default_rng(9), 500))


def test_columnar_reader_gives_the_rows_scan_gives_and_steps_aside_for_damage(tmp_path):
    root = synthetic_campaign.write(tmp_path, 300, ("dlx", "backtracking"), repeats=3)
    path = root / "runs.csv"
    frame = records_columnar.read_valid(path)
    rows = records.scan(path).rows
    assert frame is not None and len(frame) == len(rows) == 300
    for column in ("entrant", "instance", "status", "repeat", "family"):
        assert frame[column].astype(str).tolist() == [r[column] for r in rows]
    assert np.allclose(frame["wall_s"].to_numpy(float), [float(r["wall_s"]) for r in rows])
    assert set(RunsTable(path).keys()) == {records.cell_key(r) for r in rows}
    text = path.read_text()
    lines = text.splitlines(keepends=True)
    damaged = {"cut": text[:-5], "extra field": text + lines[1].replace("\n", ",x\n"),
               "duplicate": text + lines[1], "bad status": text + lines[1].replace(",solved,", ",fine,"),
               "bad n": text + lines[1].replace(",3,", ",0,", 1), "nan": text.replace(",200,", ",nan,", 1),
               "negative": text.replace(",200,", ",-1,", 1), "quote": text + '"open,' + lines[1]}
    for why, body in damaged.items():
        path.write_text(body)
        assert records_columnar.read_valid(path) is None, why
    path.write_text(text.replace(",200,", ",nan,", 1))
    campaign = censored_stats.load(root)                      # the row-by-row reader leaves it out
    assert len(campaign.runs) == 299


def test_summary_columns_never_run_together():
    long_name = "parallel:members=" + "+".join(f"sat:config=sat\\,seed={k}" for k in range(14))
    assert len(long_name) > 250
    table = pd.DataFrame([{"family": "unique", "entrant": e, "n": n, "total": total, "solved": total,
                           "runs": total, "median_s": 1e-4, "median_lo": 9e-5, "median_hi": 2e-4,
                           "q25_s": 8e-5, "q75_s": 3e-4, "limit_s": 10.0, "par2_s": 1e-4,
                           **{s: 0 for s in schema.FAILURES}, "wrong": 0}
                          for e, n, total in (("dlx", 3, 1_000_000), (long_name, 12, 49_151))])
    import experiments.analysis.summary as summary
    lines = [summary._row_text(row, max(26, len(long_name) + 2), summary._widths(table))
             for row in table.itertuples()]
    for line, (entrant, n, total) in zip(lines, (("dlx", 3, 1_000_000), (long_name, 12, 49_151))):
        words = line.split()
        assert words[:3] == [entrant, str(n), f"{total}/{total}"], line


def test_repetition_floor_fits_the_campaign():
    assert repetition_floor(640) == MIN_TIME             # the default race keeps the full floor
    assert repetition_floor(49_151) == pytest.approx(60.0 / 49_151)
    assert repetition_floor(49_151) * 49_151 <= 60.0 + 1e-9
    assert repetition_floor(0) == MIN_TIME


def test_synthetic_campaign_is_a_valid_campaign(tmp_path):
    root = synthetic_campaign.write(tmp_path, 40, ("dlx", "backtracking"), repeats=2)
    campaign = censored_stats.load(root)
    assert len(campaign.runs) == 40 and campaign.entrants == ["dlx", "backtracking"]
    import hashlib

    from solvers.rules import is_solution_of
    for row in campaign.runs.drop_duplicates("instance").itertuples():
        data = (tmp_path / "instances" / "synthetic" / row.instance).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row.instance_sha256
        found = grid_text.parse(data.decode())
        solution = grid_text.parse_compact(found.metadata["solution"], 3)
        assert is_solution_of(found.grids[0], solution)
        assert found.grids[0].clues() == row.clues
    assert censored_stats.summary(campaign)["total"].tolist() == [10, 10]


def run_measured(args: list[str], cwd: Path) -> tuple[int, str, float]:
    """(exit code, output, peak RSS in MB) of ``race ARGS`` in a process of its own."""
    proc = subprocess.Popen([*RACE, *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.stdout is not None                 # stdout=PIPE
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, output, usage.ru_maxrss / 1024.0


#: rows of the campaigns the analysis commands read: 2 entrants x 10 repeats x 10,000 puzzles, the
#: shape of ``make bench``'s 1,000,000 rows (2 x 10 x 50,000)
ROWS = 200_000
REPEATS = 10
#: peak RSS (MB) every analysis command stays under at :data:`ROWS` rows (the rows alone are 70 MB
#: of CSV; 460-640 MB measured, ``race compare`` of two campaigns the most), ``race merge``
#: included (it reads its sources in columns, as text: about 570 MB measured)
ROWS_MB = 800


@pytest.mark.slow
def test_every_analysis_command_at_200k_rows_in_bounded_memory(tmp_path):
    root = synthetic_campaign.write(tmp_path / "out", ROWS, ("dlx", "backtracking"), repeats=REPEATS)
    other = synthetic_campaign.write(tmp_path / "other", ROWS, ("dlx", "backtracking"), repeats=REPEATS,
                                     campaign="synthetic", host="another")
    instances = str(tmp_path / "out" / "instances" / "synthetic")
    commands = {
        "resume (the run's summary)": ["run", "--instances", instances, "--solvers", "dlx,backtracking",
                                       "--n", "3", "--repeats", str(REPEATS), "--campaign", "synthetic",
                                       "--out", str(tmp_path / "out"), "--no-report"],
        "plot": ["plot", str(root)],
        "report --html": ["report", "--html", str(root)],
        "export": ["export", str(root), "-f", "markdown"],
        "compare": ["compare", str(root), str(other)],
        "merge": ["merge", str(root), str(other), "-o", str(tmp_path / "merged")],
        "portfolio": ["portfolio", str(root), "-o", str(tmp_path / "rule.csv")],
    }
    peaks = {}
    for what, args in commands.items():
        code, output, peak = run_measured(args, ROOT)
        assert code == 0, f"{what}: {output[-2000:]}"
        peaks[what] = peak
    print({k: round(v) for k, v in peaks.items()})
    assert max(peaks.values()) <= ROWS_MB, peaks


def test_html_grids_of_a_set_imported_anywhere(tmp_path):
    from experiments.report.instance_grids import campaign_grids
    root = synthetic_campaign.write(tmp_path / "results", 12, ("dlx",))
    campaign = censored_stats.load(root)
    elsewhere = tmp_path / "elsewhere" / "my-set"                # not under <out>/instances/
    (tmp_path / "results" / "instances" / "synthetic").rename(elsewhere.parent.mkdir() or elsewhere)
    campaign.meta["instance_set"]["directory"] = str(elsewhere)
    found, missing = campaign_grids(campaign)
    assert missing == {} and len(found) == 12
    assert {g.source for g in found.values()} == {"file"}


def test_a_slow_analysis_step_says_it_runs_and_a_quick_one_says_nothing():
    import io
    import time

    from experiments.cli.run_progress import slow_step
    quiet = io.StringIO()
    with slow_step("reading the campaign", after=5.0, stream=quiet):
        pass
    assert quiet.getvalue() == ""
    told = io.StringIO()
    with slow_step("drawing the figures", after=0.05, stream=told):
        time.sleep(0.3)
    first, last = told.getvalue().splitlines()
    assert first == "race: drawing the figures ..."
    assert last.startswith("race: drawing the figures: ") and last.endswith(" s")
    small = io.StringIO()                  # a small campaign: the same output on any machine
    with slow_step("drawing the figures", after=0.05, stream=small, shown=False):
        time.sleep(0.2)
    assert small.getvalue() == ""


def test_only_a_large_campaign_s_steps_may_speak(tmp_path, monkeypatch):
    from experiments.cli import run_progress
    root = synthetic_campaign.write(tmp_path, 30)
    assert not run_progress.large(root) and not run_progress.large(tmp_path / "nowhere")
    monkeypatch.setattr(run_progress, "LARGE_BYTES", (root / "runs.csv").stat().st_size)
    assert run_progress.large(tmp_path / "nowhere", root) and run_progress.large(tmp_path)


def test_merge_keeps_each_row_as_written_and_shifts_the_later_source_s_repeats(tmp_path):
    import csv

    from click.testing import CliRunner

    from experiments.cli.main import main
    a = synthetic_campaign.write(tmp_path / "a", 40, ("dlx", "backtracking"), repeats=2)
    b = synthetic_campaign.write(tmp_path / "b", 40, ("dlx", "backtracking"), repeats=2, host="other")
    out = tmp_path / "merged"
    result = CliRunner().invoke(main, ["merge", str(a), str(b), "-o", str(out)])
    assert result.exit_code == 0, result.output

    def rows(path):
        with open(path / "runs.csv", newline="") as handle:
            return list(csv.DictReader(handle))
    first, second, merged = rows(a), rows(b), rows(out)
    assert merged == first + [dict(r, repeat=str(int(r["repeat"]) + 2)) for r in second]
    assert (out / "runs.csv").read_text().splitlines()[0] == ",".join(schema.COLUMNS)
    assert len(censored_stats.load(out).runs) == 80
