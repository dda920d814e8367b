"""Only this campaign's cells: a runs.csv row of another campaign, of a cell outside the plan, or
whose sha256 is not its instance file's is set aside on resume (runs.damaged.csv, one line
naming how many and why) and left out, with that line, by every reader (export, report,
compare, merge)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness import conditions, records
from tests.fake_solvers import fake_registry
from tests.test_harness import write_instances

NOTE = ("3 row(s) not this campaign's: 1 of another campaign, 1 outside the plan, "
        "1 sha256 not that of the instance file")


def race(out):
    return CliRunner().invoke(main, ["run", "--no-report", "--out", str(out), "--kind", "unique",
                                     "--n", "2", "--timeout", "20", "--solvers", "slow:delay=0.01",
                                     "--instances", "2", "--jobs", "1", "--campaign", "c"],
                              obj={"registry": fake_registry()})


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _stray(campaign):
    """Append a row of another campaign and one of an instance outside the plan, and give
    one row another sha256; returns the rows as the campaign recorded them."""
    path = campaign / "runs.csv"
    rows = _rows(path)
    other = dict(rows[0], campaign="other", entrant="intruder", timeout_s="99")
    outside = dict(rows[0], instance="unique-n2-s0-0007.sudoku", instance_sha256="ab" * 32)
    forged = dict(rows[1], instance_sha256="cd" * 32, wall_s="9.5")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows([rows[0], forged, other, outside])
    path.write_text(buffer.getvalue())
    return rows


@pytest.fixture
def strayed(tmp_path, monkeypatch):
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    for out in ("a", "b"):
        write_instances(tmp_path / out, 2, 2)
        assert race(tmp_path / out).exit_code == 0
    rows = _stray(tmp_path / "a" / "c")
    return tmp_path, rows


def test_every_reader_leaves_the_strays_out_and_says_so(strayed):
    root, rows = strayed
    campaign = str(root / "a" / "c")
    runner = CliRunner()
    export = runner.invoke(main, ["export", campaign, "-f", "csv"])
    assert export.exit_code == 0, export.output
    assert NOTE in export.stderr
    exported = list(csv.DictReader(io.StringIO(export.stdout)))
    assert [(r["instance"], r["instance_sha256"]) for r in exported] == \
        [(rows[0]["instance"], rows[0]["instance_sha256"])]
    page = root / "page.html"
    report = runner.invoke(main, ["report", campaign, "--html", "-o", str(page)])
    assert report.exit_code == 0 and NOTE in report.stderr, report.output
    compare = runner.invoke(main, ["compare", str(root / "b" / "c"), campaign])
    assert compare.exit_code == 0 and NOTE in compare.stderr, compare.output
    assert " 1 " in next(line for line in compare.stdout.splitlines() if line.startswith("slow"))
    merged = root / "merged"
    merge = runner.invoke(main, ["merge", str(root / "b" / "c"), campaign, "-o", str(merged)])
    assert merge.exit_code == 0 and NOTE in merge.stderr, merge.output
    assert len(_rows(merged / "runs.csv")) == 3                  # 2 of b, 1 of a
    aside = _rows(merged / records.DAMAGED_NAME)
    assert len(aside) == 3 and all("not this campaign's" in r["reason"] for r in aside)
    assert runner.invoke(main, ["export", str(merged), "-f", "csv"]).stderr == ""


def test_a_resume_sets_the_strays_aside_and_runs_the_forged_cell_again(strayed, monkeypatch):
    root, rows = strayed
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    resumed = race(root / "a")
    assert resumed.exit_code == 0, resumed.output
    assert f"set aside {NOTE}" in resumed.stderr
    campaign = root / "a" / "c"
    kept = _rows(campaign / "runs.csv")
    assert sorted((r["instance"], r["instance_sha256"]) for r in kept) == \
        sorted((r["instance"], r["instance_sha256"]) for r in rows)
    aside = _rows(campaign / records.DAMAGED_NAME)
    assert sorted(r["reason"] for r in aside) == [
        "not this campaign's: of campaign 'other'",
        "not this campaign's: outside the plan (instance unique-n2-s0-0007.sudoku)",
        f"not this campaign's: sha256 not that of the instance file {rows[1]['instance']}"]
    again = race(root / "a")
    assert again.exit_code == 0 and "not this campaign's" not in again.stderr
    meta = json.loads((campaign / "meta.json").read_text())
    assert meta["runs_conditions"][-1]["cells"] == 0


def test_an_imported_set_s_manifest_vouches_only_for_files_it_lists_unchanged(tmp_path, capsys):
    """The rows of a campaign raced on an imported set: a file is not hashed when the set's
    manifest.csv (the one meta.json recorded) lists it with the row's sha256 and it was not
    modified since; a forged sha256, or a file rewritten after the manifest, is still a stray."""
    import os

    from experiments.analysis import campaign_data
    from experiments.harness import synthetic_campaign
    root = synthetic_campaign.write(tmp_path, 6)
    assert len(campaign_data.load(root).runs) == 6 and capsys.readouterr().err == ""
    rows = _rows(root / "runs.csv")
    forged, edited = rows[1]["instance"], rows[4]["instance"]
    rows[1]["instance_sha256"] = "0" * 64
    with open(root / "runs.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    instances = tmp_path / "instances" / "synthetic"
    path = instances / edited
    path.write_text(path.read_text().replace("# line=5", "# line=50"))
    later = os.stat(instances / "manifest.csv").st_mtime_ns + 10 ** 9
    os.utime(path, ns=(later, later))
    kept = campaign_data.load(root).runs
    assert sorted(set(r["instance"] for r in rows) - set(kept["instance"])) == sorted([forged, edited])
    assert "2 sha256 not that of the instance file" in capsys.readouterr().err
