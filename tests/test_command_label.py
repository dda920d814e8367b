"""A ``cmd`` entrant's ``name=`` label, and its program's start-up noted under the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.analysis.campaign_data import entrant_labels
from experiments.cli.main import main
from experiments.harness.entrants import parse_entrants
from formats.errors import RaceError
from solvers.command import Command, startup_seconds
from solvers.registry import entrant_label

OUTSIDE = Path(__file__).resolve().parent / "outside_solvers"
PROGRAM = OUTSIDE / "backtrack_solver.py"


def test_a_label_is_short_and_names_one_entrant():
    assert Command(path=str(PROGRAM), name="mine-1.0").params["name"] == "mine-1.0"
    for bad in ("my solver", "-x", "a" * 25, "x/y"):
        with pytest.raises(RaceError, match="expected a short label"):
            Command(path=str(PROGRAM), name=bad)
    assert entrant_label(f"cmd:path={PROGRAM},name=mine") == "mine"
    assert entrant_label("dlx:heuristic=first") == "dlx:heuristic=first"
    assert [e.spec for e in parse_entrants(f"dlx,cmd:path={PROGRAM},name=mine")] == \
        ["dlx", f"cmd:path={PROGRAM},name=mine"]
    for clash in (f"dlx,cmd:path={PROGRAM},name=dlx",
                  f"cmd:path={PROGRAM},name=a,cmd:path={PROGRAM},input=stdin,name=a"):
        with pytest.raises(RaceError, match="are both called"):
            parse_entrants(clash)
    # in a campaign read back, a label two specs share stays their specs
    two = [f"cmd:path={PROGRAM},name=a", f"cmd:path={PROGRAM},input=stdin,name=a", "dlx"]
    assert entrant_labels(two) == {}
    assert entrant_labels(two[:1] + two[2:]) == {two[0]: "a"}


def test_the_start_up_is_a_verified_answer_to_an_empty_puzzle():
    startup = startup_seconds(Command(path=str(PROGRAM)))
    assert startup is not None and 0 < startup < 10
    assert startup_seconds(Command(path=str(OUTSIDE / "wrong_solver.py"))) is None
    assert startup_seconds(Command(path="/bin/true")) is None      # no answer at all
    assert Command(path=str(PROGRAM)).provenance()["startup_s"] > 0


def test_a_race_calls_the_entrant_by_its_label_and_notes_its_start(tmp_path):
    spec = f"cmd:path={PROGRAM},name=mine"
    r = CliRunner().invoke(main, ["run", "--n", "2", "--family", "unique", "--instances", "2",
                                  "--solvers", f"dlx,{spec}", "--timeout", "10", "-j", "1",
                                  "--out", str(tmp_path), "--campaign", "c", "--no-report"])
    assert r.exit_code == 0, r.output
    rows = [line.split() for line in r.stdout.splitlines()]
    assert any(row[:2] == ["mine", "2"] for row in rows if row)
    assert spec not in r.stdout.split("results:")[0]
    notes = [line for line in r.stdout.splitlines() if line.startswith("note: mine")]
    assert len(notes) == 1 and "each of its times includes its start" in notes[0]
    meta = json.loads((tmp_path / "c" / "meta.json").read_text())
    assert meta["entrant_provenance"][spec]["startup_s"] > 0
    assert spec in (tmp_path / "c" / "runs.csv").read_text()     # the record keeps the spec
    versus = CliRunner().invoke(main, ["compare", str(tmp_path / "c"), "dlx", "mine"])
    assert versus.exit_code == 0 and "B = mine" in versus.output
