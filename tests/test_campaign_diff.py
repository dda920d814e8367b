"""``race compare OLD NEW``: campaign against campaign (pairing, ratios, regression gate,
metadata, normalisation, markdown) and ``race merge``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from experiments.analysis import campaign_diff, censored_stats
from experiments.cli.main import main
from tests.test_analysis import write_campaign
from tests.test_compare import cell

KEYS = [f"i{k}" for k in range(10)]


def calibration(score: float) -> dict:
    reading = {"dlx": {"seconds": score}, "sat": {"seconds": score}, "score_s": score}
    return {"start": reading, "end": reading}


def campaign(root, times: dict[str, list[float]], meta: dict | None = None, n: int = 2):
    """A campaign with each entrant's times on instances i0..i9 (None = timeout)."""
    rows = [cell(entrant, key, t, n=n) for entrant, values in times.items()
            for key, t in zip(KEYS, values)]
    base = {"entrants": list(times), "git_commit": "aaa", "machine": {"hostname": "one"},
            "python": "3.11.2", "packages": {"numpy": "2.0"}, "jobs": 1}
    meta = dict(meta or {})
    if "families" in meta:     # the rows' family is the campaign's too (no kind: its
        meta["families"] = {"unique": {"label": "unique", "options": {}},   # instance names
                            **meta["families"]}                          # are not generated)
    return write_campaign(root, rows, base | meta)


BASE = [1.0, 2.0, 3.0, 4.0, 5.0, 1.5, 2.5, 3.5, 4.5, 5.5]


def test_same_times_are_ties_and_no_regression(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE, "sat": BASE})
    new = campaign(tmp_path / "new", {"dlx": BASE, "sat": BASE})
    result = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))
    assert [(r.entrant, r.family, r.n, r.pairs, r.ties) for r in result.rows] == \
        [("dlx", "unique", 2, 10, 10), ("sat", "unique", 2, 10, 10)]
    assert all(r.ratio.estimate == 1.0 and r.test.p == 1.0 for r in result.rows)
    assert campaign_diff.regressions(result, 1.2) == []
    assert result.differences == []


def test_a_slower_entrant_is_a_regression(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE, "sat": BASE}, {"git_commit": "aaa"})
    new = campaign(tmp_path / "new", {"dlx": [1.5 * t for t in BASE], "sat": BASE},
                   {"git_commit": "bbb", "packages": {"numpy": "2.1"}})
    result = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))
    dlx, sat = result.rows
    assert (dlx.old_wins, dlx.new_wins, dlx.ties) == (10, 0, 0)
    assert dlx.ratio.estimate == pytest.approx(1.5) and dlx.ratio.low == pytest.approx(1.5)
    assert dlx.test.p < 0.01
    assert campaign_diff.regressions(result, 1.2) == [dlx]
    assert campaign_diff.regressions(result, 1.6) == []           # slower, but not above 1.6
    assert ("commit", "aaa", "bbb") in result.differences
    assert ("numpy", "2.0", "2.1") in result.differences
    text = campaign_diff.diff_text(result, 1.2)
    assert text.splitlines()[1] == "differs: commit: aaa -> bbb"
    assert "REGRESSION (> 1.2)" in next(line for line in text.splitlines() if line.startswith("dlx"))


def test_an_interval_reaching_below_one_is_no_regression(tmp_path):
    noisy = [t * f for t, f in zip(BASE, [3, 3, 3, 3, 3, 3, 0.5, 0.5, 0.5, 0.5])]
    old = campaign(tmp_path / "old", {"dlx": BASE})
    new = campaign(tmp_path / "new", {"dlx": noisy})
    (row,) = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new)).rows
    assert row.ratio.estimate == 3.0 and row.ratio.low < 1.0
    assert not row.regression(1.2)


def test_renamed_entrants_and_selection(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE, "sat": BASE})
    new = campaign(tmp_path / "new", {"dlx:heuristic=first": [2 * t for t in BASE], "sat": BASE})
    result = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new),
                                renames={"dlx": "dlx:heuristic=first"})
    assert [r.entrant for r in result.rows] == ["dlx=dlx:heuristic=first", "sat"]
    assert result.rows[0].ratio.estimate == pytest.approx(2.0)
    only = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new), ["sat"])
    assert [r.entrant for r in only.rows] == ["sat"]
    with pytest.raises(campaign_diff.RaceError, match="'dlx' is not in campaign new"):
        campaign_diff.diff(censored_stats.load(old), censored_stats.load(new), ["dlx"])
    with pytest.raises(campaign_diff.RaceError, match="expected OLD_ENTRANT=NEW_ENTRANT"):
        campaign_diff.parse_renames(["dlx"])


def test_pairs_need_the_same_instance_hash_family_and_n(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE}, n=2)
    new = campaign(tmp_path / "new", {"dlx": BASE}, n=3)
    with pytest.raises(campaign_diff.RaceError, match="share no instance"):
        campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))


def test_normalise_divides_by_the_calibration(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE}, {"calibration": calibration(0.01),
                                                     "machine": {"hostname": "laptop"}})
    new = campaign(tmp_path / "new", {"dlx": [2 * t for t in BASE]},
                   {"calibration": calibration(0.02), "machine": {"hostname": "server"}})
    raw = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))
    assert raw.rows[0].ratio.estimate == pytest.approx(2.0)
    assert ("machine", "laptop", "server") in raw.differences
    assert ("calibration_s", 0.01, 0.02) in raw.differences
    fair = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new), normalise=True)
    assert fair.factor == pytest.approx(0.5) and fair.rows[0].ratio.estimate == pytest.approx(1.0)
    assert fair.rows[0].ties == 10
    bare = campaign(tmp_path / "bare", {"dlx": BASE})
    with pytest.raises(campaign_diff.RaceError, match="has no calibration"):
        campaign_diff.diff(censored_stats.load(old), censored_stats.load(bare), normalise=True)


def busy_meta() -> dict:
    busy = {"load_avg": [3.5, 2.0, 1.0], "usable_cpus": [0, 1], "others_busy_cores": 1.4,
            "busiest": [{"pid": 9, "name": "yes", "cpu_percent": 99.0}]}
    quiet = calibration(0.01)
    return {"machine_state": {"start": busy, "end": busy}, "jobs": 2,
            "calibration": {"start": quiet["start"],
                            "end": {"dlx": {"seconds": 0.013}, "sat": {"seconds": 0.01}, "score_s": 0.0114}}}


def test_cli_names_the_busy_campaign_and_gates(tmp_path):
    old = campaign(tmp_path / "quiet", {"dlx": BASE}, {"calibration": calibration(0.01)})
    new = campaign(tmp_path / "busy", {"dlx": [1.5 * t for t in BASE]}, busy_meta())
    runner = CliRunner()
    gate = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2", "--force"])
    assert gate.exit_code == 1, gate.output
    assert "regression: NEW slower than 1.2x OLD" in gate.output
    warnings = [line for line in gate.output.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 2 and all("NEW busy" in w for w in warnings)
    assert "load average 3.5" in warnings[0] and "(yes 99%)" in warnings[0]
    assert "calibration drifted" in warnings[1] and "dlx +30%" in warnings[1]
    fine = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.6", "--force"])
    assert fine.exit_code == 0, fine.output
    back = runner.invoke(main, ["compare", str(new), str(old), "--fail-above", "1.2", "--force"])
    assert back.exit_code == 0 and "REGRESSION" not in back.output      # faster is fine
    plain = runner.invoke(main, ["compare", str(old), str(old)])
    assert plain.exit_code == 0 and "WARNING" not in plain.output


def test_cli_markdown_and_errors(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE})
    new = campaign(tmp_path / "new", {"dlx": [1.5 * t for t in BASE]}, {"git_commit": "bbb"})
    md = CliRunner().invoke(main, ["compare", str(old), str(new), "--markdown", "--fail-above", "1.2"])
    assert md.exit_code == 1
    lines = md.output.splitlines()
    assert "- differs: commit: aaa -> bbb" in lines
    row = next(line for line in lines if line.startswith("| dlx"))
    assert row.split(" | ")[8] == "**1.5**"
    bad = CliRunner().invoke(main, ["compare", str(old), "dlx", "sat", "--fail-above", "1.2"])
    assert bad.exit_code == 2 and "--fail-above compares two campaigns" in bad.output
    few = CliRunner().invoke(main, ["compare", str(old), "dlx"])
    assert few.exit_code == 2 and "dlx: no such directory" in few.output    # the one not a campaign
    rename = CliRunner().invoke(main, ["compare", str(old), str(new), "--as", "zz=dlx"])
    assert rename.exit_code == 2 and "'zz' is not an entrant of old" in rename.output


def test_merge_keeps_each_machine(tmp_path):
    laptop = campaign(tmp_path / "laptop", {"dlx": BASE}, {"machine": {"hostname": "laptop"}})
    server = campaign(tmp_path / "server", {"dlx": [t / 2 for t in BASE], "sat": BASE},
                      {"machine": {"hostname": "server"}, "machine_state": busy_meta()["machine_state"],
                       "jobs": 2})
    out = tmp_path / "both"
    result = CliRunner().invoke(main, ["merge", str(laptop), str(server), "-o", str(out)])
    assert result.exit_code == 0, result.output
    merged = censored_stats.load(out)
    assert len(merged.runs) == 30 and set(merged.entrants) == {"dlx", "sat"}
    dlx = merged.runs[merged.runs["entrant"] == "dlx"]
    assert sorted(dlx["repeat"].unique()) == [0, 1]                # two machines = two repeats
    meta = json.loads((out / "meta.json").read_text())
    assert [m["hostname"] for m in meta["machines"]] == ["laptop", "server"]
    assert [m["campaign"] for m in meta["merged_from"]] == ["laptop", "server"]
    from experiments.analysis import noise
    assert any("server" in w and "busy" in w for w in noise.machine_warnings(merged))
    again = CliRunner().invoke(main, ["merge", str(laptop), str(server), "-o", str(out)])
    assert again.exit_code == 2 and "already exists" in again.output


def test_merge_refuses_other_instances_or_limits(tmp_path):
    one = campaign(tmp_path / "one", {"dlx": BASE})
    other = campaign(tmp_path / "other", {"dlx": BASE})
    rows = (other / "runs.csv").read_text().replace("sha-unique-2-i3", "sha-different")
    (other / "runs.csv").write_text(rows)
    refused = CliRunner().invoke(main, ["merge", str(one), str(other), "-o", str(tmp_path / "m")])
    assert refused.exit_code == 2 and "not the same instances" in refused.output
    assert not (tmp_path / "m").exists()
    slow = campaign(tmp_path / "slow", {"dlx": BASE}, {"timeout_s": 99})
    limit = CliRunner().invoke(main, ["merge", str(one), str(slow), "-o", str(tmp_path / "m")])
    assert limit.exit_code == 2 and "timeout_s=99" in limit.output


def _with_params(root, params: str):
    """Rewrite every row's params column (what the worker recorded of the entrant's parameters)."""
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO((root / "runs.csv").read_text())))
    for row in rows:
        row["params"] = params
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (root / "runs.csv").write_text(buffer.getvalue())
    return root


HOLES = {"hard": {"label": "hard", "kind": "holes",
                  "options": {"2": {"holes": 0.7, "pattern": "balanced"}}}}


@pytest.mark.parametrize("meta_a, meta_b, params_b, named", [
    ({"memory_mb": 4096.0}, {"memory_mb": 60.0}, None, "memory_mb=60.0"),
    ({"memory_mb": 4096.0}, {"memory_mb": None}, None, "memory_mb=None"),
    ({"seed": 0}, {"seed": 1}, None, "seed=1"),
    ({}, {"generator_options": {"holes": 0.5}}, None, "generator_options"),
    ({"families": HOLES}, {"families": {"hard": {**HOLES["hard"], "options": {
        "2": {"holes": 0.6, "pattern": "balanced"}}}}}, None, "hard family options at n=2"),
    ({"entrant_provenance": {"dlx": {"sha256": "a" * 64}}},
     {"entrant_provenance": {"dlx": {"sha256": "b" * 64}}}, None, "dlx's program (sha256)"),
    ({}, {}, '{"node_limit": 3}', "dlx's parameters"),
])
def test_merge_refuses_campaigns_raced_under_other_conditions(tmp_path, meta_a, meta_b, params_b,
                                                              named):
    """A memory limit of 60 MB beside one of 4096 merged: the memouts of one posed as the
    other's results and meta.json kept only 4096. Every condition that changes an outcome is
    checked as the seed and the time limit are; nothing is written."""
    one = campaign(tmp_path / "one", {"dlx": BASE}, meta_a)
    other = campaign(tmp_path / "other", {"dlx": BASE}, meta_b)
    if params_b:
        _with_params(other, params_b)
    refused = CliRunner().invoke(main, ["merge", str(one), str(other), "-o", str(tmp_path / "m")])
    assert refused.exit_code == 2 and named in refused.output, refused.output
    assert f"but {one} has" in refused.output and not (tmp_path / "m").exists()


def test_merge_takes_campaigns_that_differ_only_in_what_does_not_change_outcomes(tmp_path):
    """Machines, jobs, repeats and a family or entrant only one of them ran do not stop it."""
    one = campaign(tmp_path / "one", {"dlx": BASE}, {"memory_mb": 4096.0, "repeats": 1,
                                                     "families": HOLES})
    other = campaign(tmp_path / "other", {"dlx": BASE, "sat": BASE},
                     {"memory_mb": 4096.0, "repeats": 3, "jobs": 2, "machine": {"hostname": "b"},
                      "entrant_provenance": {"sat": {"sha256": "c" * 64}}})
    merged = CliRunner().invoke(main, ["merge", str(one), str(other), "-o", str(tmp_path / "m")])
    assert merged.exit_code == 0, merged.output


def test_compare_names_the_memory_limit_among_the_differences(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE}, {"memory_mb": 4096.0})
    new = campaign(tmp_path / "new", {"dlx": BASE}, {"memory_mb": 60.0})
    result = CliRunner().invoke(main, ["compare", str(old), str(new)])
    assert result.exit_code == 0 and "differs: memory_mb: 4096.0 -> 60.0" in result.output


def test_the_gate_on_noisy_campaigns_is_inconclusive_and_names_the_warnings(tmp_path):
    """Two runs of one commit under load gave 1.2-3.2x "regressions" with p around 1e-6, and
    --fail-above failed. A busy machine or a drifted calibration in either campaign makes the
    gate inconclusive: its own exit status (4), whatever the ratios, unless --force."""
    quiet = campaign(tmp_path / "quiet", {"dlx": BASE}, {"calibration": calibration(0.01)})
    busy = campaign(tmp_path / "busy", {"dlx": [1.5 * t for t in BASE]}, busy_meta())
    same = campaign(tmp_path / "same", {"dlx": BASE}, busy_meta())
    runner = CliRunner()
    for old, new in ((quiet, busy), (busy, quiet), (quiet, same)):
        gate = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2"])
        assert gate.exit_code == 4, gate.output
        line = gate.stderr.splitlines()[-1]
        assert line.startswith("race compare: inconclusive: the measurements are noisy (")
        assert "the machine was busy" in line and "the calibration drifted" in line
        assert "--force" in line and "regression:" not in gate.stderr
    forced = runner.invoke(main, ["compare", str(quiet), str(same), "--fail-above", "1.2", "--force"])
    assert forced.exit_code == 0, forced.output
    calm = runner.invoke(main, ["compare", str(quiet), str(quiet), "--fail-above", "1.2"])
    assert calm.exit_code == 0 and calm.stderr == ""
    alone = runner.invoke(main, ["compare", str(quiet), str(busy), "--force"])
    assert alone.exit_code == 2 and "--force goes with --fail-above" in alone.output
    helped = runner.invoke(main, ["compare", "--help"])
    assert "4 inconclusive" in " ".join(helped.output.split())


@pytest.mark.parametrize("dlx_n, dlx_family, with_sat, lacking", [
    (2, "unique", False, "entrant sat"),
    (2, "hard", True, "dlx on family unique"),
    (3, "unique", True, "dlx unique n=2"),
])
def test_the_gate_fails_on_what_old_ran_and_new_lacks_unless_allowed(tmp_path, dlx_n, dlx_family,
                                                                     with_sat, lacking):
    """An entrant of OLD missing from NEW was a "not compared" note and exit 0: the gate passed
    on what it never compared. Now an entrant, a family or an n of OLD that NEW lacks fails it
    (1), named, unless --allow-missing."""
    old = campaign(tmp_path / "old", {"dlx": BASE, "sat": BASE})
    rows = [cell("dlx", key, t, n=dlx_n, family=dlx_family) for key, t in zip(KEYS, BASE)]
    rows += [cell("sat", key, t) for key, t in zip(KEYS, BASE)] if with_sat else []
    new = write_campaign(tmp_path / "new", rows, {"entrants": ["dlx", "sat"][:1 + with_sat]})
    runner = CliRunner()
    gate = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2"])
    assert gate.exit_code == 1, gate.output
    assert "NEW lacks what OLD ran" in gate.stderr and lacking in gate.stderr
    if with_sat:
        allowed = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2",
                                       "--allow-missing"])
        assert allowed.exit_code == 0, allowed.output
    else:
        named = runner.invoke(main, ["compare", str(old), str(new), "dlx", "--fail-above", "1.2"])
        assert named.exit_code == 0, named.output     # only dlx asked for: nothing missing
        allowed = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2",
                                       "--allow-missing"])
        assert allowed.exit_code == 0 and "not compared: sat" in allowed.output


def test_the_gate_checks_the_n_within_its_filter(tmp_path):
    rows = [cell("dlx", key, t, n=n) for n in (2, 3) for key, t in zip(KEYS, BASE)]
    old = write_campaign(tmp_path / "old", rows, {"entrants": ["dlx"]})
    new = campaign(tmp_path / "new", {"dlx": BASE})
    runner = CliRunner()
    gate = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2"])
    assert gate.exit_code == 1 and "dlx unique n=3" in gate.stderr
    within = runner.invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2", "--n", "2"])
    assert within.exit_code == 0, within.output


def test_a_run_out_directory_names_its_one_campaign(tmp_path):
    """`race run --out A` writes A/<campaign>/: `race compare A B`, export and plot take A
    (its one campaign); a directory holding two campaigns is refused, naming both."""
    old = campaign(tmp_path / "a" / "race-x", {"dlx": BASE})
    campaign(tmp_path / "b" / "race-x", {"dlx": [1.5 * t for t in BASE]})
    runner = CliRunner()
    gate = runner.invoke(main, ["compare", str(tmp_path / "a"), str(tmp_path / "b"),
                                "--fail-above", "1.2"])
    assert gate.exit_code == 1 and "regression: NEW slower than 1.2x OLD" in gate.output
    assert censored_stats.campaign_root(tmp_path / "a") == old
    exported = runner.invoke(main, ["export", str(tmp_path / "a"), "-f", "markdown"])
    assert exported.exit_code == 0 and "| dlx" in exported.output
    plotted = runner.invoke(main, ["plot", str(tmp_path / "a")])
    assert plotted.exit_code == 0, plotted.output
    assert (old / "plots").is_dir() and not (tmp_path / "a" / "plots").exists()
    campaign(tmp_path / "a" / "race-y", {"dlx": BASE})
    two = runner.invoke(main, ["compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert two.exit_code == 2 and "holds 2 campaigns (race-x, race-y); name one" in two.output
    assert "Traceback" not in two.output


def _stamped(root, worker: str, times=BASE):
    """A campaign whose rows say where and when they ran (as race run writes them)."""
    path = campaign(root, {"dlx": times})
    lines = (path / "runs.csv").read_text().splitlines()
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO("\n".join(lines) + "\n")))
    for k, row in enumerate(rows):
        row["worker"], row["started_at"] = worker, f"2026-11-25T10:00:{k:02d}.000Z"
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (path / "runs.csv").write_text(buffer.getvalue())
    return path


def test_merge_refuses_a_campaign_twice_or_with_its_copy(tmp_path):
    """The same measurements twice would pose as repeats (a spread of zero, a doubled count)."""
    import shutil
    one = _stamped(tmp_path / "one", "laptop:1")
    twice = CliRunner().invoke(main, ["merge", str(one), str(one), "-o", str(tmp_path / "m")])
    assert twice.exit_code == 2 and "given twice" in twice.output
    copy = tmp_path / "copy"
    shutil.copytree(one, copy)
    copied = CliRunner().invoke(main, ["merge", str(one), str(copy), "-o", str(tmp_path / "m")])
    assert copied.exit_code == 2 and "same measurement" in copied.output
    assert not (tmp_path / "m").exists()
    other = _stamped(tmp_path / "other", "server:7")
    fine = CliRunner().invoke(main, ["merge", str(one), str(other), "-o", str(tmp_path / "m")])
    assert fine.exit_code == 0, fine.output
    assert len(censored_stats.load(tmp_path / "m").runs) == 20


@pytest.mark.parametrize("damage", ["header", "binary", "empty", "list-meta"])
def test_merge_refuses_an_unreadable_source_and_writes_nothing(tmp_path, damage):
    one = campaign(tmp_path / "one", {"dlx": BASE})
    bad = campaign(tmp_path / "bad", {"dlx": BASE})
    runs = bad / "runs.csv"
    if damage == "header":
        runs.write_text(runs.read_text().replace("wall_s", "wallsecs", 1))
    elif damage == "binary":
        runs.write_bytes(bytes(range(256)) * 40)
    elif damage == "empty":
        runs.write_bytes(b"")
    else:
        (bad / "meta.json").write_text("[1, 2]")
    result = CliRunner().invoke(main, ["merge", str(bad), str(one), "-o", str(tmp_path / "m")])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert str(bad) in result.output
    assert not (tmp_path / "m").exists()


def test_merge_keeps_a_sources_damaged_rows_aside_not_lost(tmp_path):
    one = campaign(tmp_path / "one", {"dlx": BASE})
    cut = campaign(tmp_path / "cut", {"sat": BASE})
    data = (cut / "runs.csv").read_bytes()
    (cut / "runs.csv").write_bytes(data[:-20])          # the last row cut short
    out = tmp_path / "m"
    result = CliRunner().invoke(main, ["merge", str(one), str(cut), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 damaged row(s)" in result.output and "runs.damaged.csv" in result.output
    assert len(censored_stats.load(out).runs) == 19
    aside = (out / "runs.damaged.csv").read_text()
    assert "cut short" in aside and str(cut / "runs.csv") in aside


def test_a_merge_that_fails_to_write_leaves_nothing_and_can_be_retried(tmp_path, monkeypatch):
    from experiments.harness import campaign_merge
    one = campaign(tmp_path / "one", {"dlx": BASE})
    two = campaign(tmp_path / "two", {"sat": BASE})
    out = tmp_path / "m"
    real = campaign_merge.json.dumps

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(campaign_merge.json, "dumps", full_disk)
    failed = CliRunner().invoke(main, ["merge", str(one), str(two), "-o", str(out)])
    assert failed.exit_code == 2 and "No space left" in failed.output and str(out) in failed.output
    assert sorted(tmp_path.iterdir()) == sorted([one, two])      # no half-written campaign
    monkeypatch.setattr(campaign_merge.json, "dumps", real)
    again = CliRunner().invoke(main, ["merge", str(one), str(two), "-o", str(out)])
    assert again.exit_code == 0, again.output


def test_compare_refuses_a_rename_to_nothing_and_a_gate_of_nan(tmp_path):
    """--as dlx=nosuch dropped dlx from the comparison (a CI gate then passed on a dlx
    regression); --fail-above nan could never fail."""
    old = campaign(tmp_path / "old", {"dlx": BASE, "sat": BASE})
    new = campaign(tmp_path / "new", {"dlx": [3 * t for t in BASE], "sat": BASE})
    renamed = CliRunner().invoke(main, ["compare", str(old), str(new), "--as", "dlx=nosuch",
                                        "--fail-above", "1.2"])
    assert renamed.exit_code == 2 and "'nosuch' is not an entrant of new" in renamed.output
    for bad in ("nan", "inf", "-1", "0"):
        gate = CliRunner().invoke(main, ["compare", str(old), str(new), "--fail-above", bad])
        assert gate.exit_code == 2, (bad, gate.output)
    gate = CliRunner().invoke(main, ["compare", str(old), str(new), "--fail-above", "1.2"])
    assert gate.exit_code == 1 and "regression" in gate.output


def test_compare_names_the_entrants_only_one_campaign_ran(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE, "backtracking": BASE})
    new = campaign(tmp_path / "new", {"dlx": BASE, "sat": BASE})
    result = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))
    assert [r.entrant for r in result.rows] == ["dlx"]
    notes = " ".join(result.warnings)
    assert "not compared: backtracking (only OLD old" in notes and "not compared: sat (only NEW new" in notes
    shown = CliRunner().invoke(main, ["compare", str(old), str(new)])
    assert shown.exit_code == 0 and "not compared: sat" in shown.output


def test_compare_names_an_unknown_family_and_a_directory_without_a_campaign(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE, "sat": BASE})
    new = campaign(tmp_path / "new", {"dlx": BASE, "sat": BASE})
    for args in ([str(old), "dlx", "sat"], [str(old), str(new)]):
        result = CliRunner().invoke(main, ["compare", *args, "--family", "nope"])
        assert result.exit_code == 2 and "--family nope: not a family" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["compare", str(old), str(empty)])
    assert result.exit_code == 2 and f"{empty}: a directory, but no campaign" in result.output


def test_cli_json_of_two_campaigns_is_one_document_with_the_gate(tmp_path):
    old = campaign(tmp_path / "old", {"dlx": BASE, "sat": BASE})
    new = campaign(tmp_path / "new", {"dlx": [1.5 * t for t in BASE], "sat": [None] * 10},
                   {"git_commit": "bbb"})
    out = CliRunner().invoke(main, ["compare", str(old), str(new), "-f", "json", "--fail-above", "1.2"])
    assert out.exit_code == 1                                   # the gate still decides
    document = json.loads(out.stdout)
    dlx, sat = document["rows"]
    assert (dlx["entrant"], dlx["pairs"], dlx["old_faster"], dlx["regression"]) == ("dlx", 10, 10, True)
    assert dlx["ratio_new_over_old"]["estimate"] == pytest.approx(1.5)
    assert sat["ratio_new_over_old"]["estimate"] == "inf"      # only OLD answered: JSON has no inf
    assert {"what": "commit", "old": "aaa", "new": "bbb"} in document["differences"]
    assert document["fail_above"] == 1.2


def test_cli_json_and_markdown_of_two_entrants(tmp_path):
    root = campaign(tmp_path / "one", {"dlx": BASE, "sat": [2 * t for t in BASE]})
    out = CliRunner().invoke(main, ["compare", str(root), "dlx", "sat", "--format", "json"])
    assert out.exit_code == 0, out.output
    document = json.loads(out.stdout)
    assert (document["a"], document["b"]) == ("dlx", "sat")
    first = document["rows"][0]
    assert (first["family"], first["n"], first["a_faster"], first["b_faster"]) == ("unique", 2, 10, 0)
    assert first["ratio_b_over_a"]["estimate"] == pytest.approx(2.0)
    md = CliRunner().invoke(main, ["compare", str(root), "dlx", "sat", "-f", "markdown"])
    assert md.exit_code == 0 and "| unique | 2 | 10 | 10 | 0 | 0 | 2 |" in md.stdout
