"""The regression gate checks correctness before any timing question, and the runs table keeps
another campaign's or a hand-made row out: each test names the finding it holds down.

R1-R4 build OLD and NEW by writing their runs.csv (the gate reads nothing else); R5 and R6 race
a fake entrant on a 4-instance set."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from tests.test_analysis import write_campaign
from tests.test_compare import cell

#: twelve instances, each answered in about 0.3 s by OLD
KEYS = [f"i{k:02d}" for k in range(12)]
TIMES = [0.3 + 0.01 * k for k in range(12)]
#: a quarter of them
QUARTER = KEYS[1::4]


def _old(root, families=("unique",)):
    rows = [cell("cmd:x", key, t, family=family) for family in families
            for key, t in zip(KEYS, TIMES)]
    return write_campaign(root / "old", rows, {"entrants": ["cmd:x"], "jobs": 1})


def _new(root, rows):
    return write_campaign(root / "new", rows, {"entrants": ["cmd:x"], "jobs": 1})


def _gate(old, new, *extra):
    return CliRunner().invoke(main, ["compare", str(old), str(new), "--fail-above", "3",
                                     "--force", *extra])


@pytest.mark.parametrize("status, words", [
    ("memout", "ran out of memory where OLD answered"),
    ("timeout", "ran out of time where OLD answered"),
    ("error", "ended in an error where OLD answered"),
])
def test_R1_unanswered_where_old_answered_fails_the_gate_named(tmp_path, status, words):
    """NEW, the same spec, runs out of memory (or time) on a quarter of the puzzles OLD
    answered in 0.3 s: the median ratio stays 1, and the gate passed. Now exit 1, one line
    naming each instance, before (and whatever) the timing."""
    old = _old(tmp_path)
    rows = [cell("cmd:x", key, None if key in QUARTER else t, status=status if key in QUARTER
                 else None) for key, t in zip(KEYS, TIMES)]
    new = _new(tmp_path, rows)
    gate = _gate(old, new)
    assert gate.exit_code == 1, gate.output
    verdict = [line for line in gate.stderr.splitlines() if words in line]
    assert len(verdict) == 1, gate.stderr
    assert f"{words} on {len(QUARTER)} instance(s)" in verdict[0]
    assert "NEW's cmd:x" in verdict[0]
    for key in QUARTER:
        assert f"unique-{key}.sudoku (unique n=2)" in verdict[0]
    assert "regression:" not in gate.stderr           # correctness, not timing
    document = json.loads(CliRunner().invoke(main, ["compare", str(old), str(new),
                                                    "-f", "json"]).output)
    listed = document["faults"][0]["unanswered"][status]
    assert sorted(c[2] for c in listed) == [f"unique-{k}.sudoku" for k in QUARTER]
    same = _gate(old, old)
    assert same.exit_code == 0 and same.stderr == "", same.output


def test_R1_a_timeout_where_old_timed_out_too_is_no_fault(tmp_path):
    """Only where OLD answered: both censored on an instance is not NEW's fault."""
    rows = [cell("cmd:x", key, None if key in QUARTER else t) for key, t in zip(KEYS, TIMES)]
    old = write_campaign(tmp_path / "old", rows, {"entrants": ["cmd:x"], "jobs": 1})
    new = _new(tmp_path, rows)
    gate = _gate(old, new)
    assert gate.exit_code == 0, gate.output
    assert "where OLD answered" not in gate.stderr


def test_R2_an_interrupted_new_fails_the_gate_naming_what_was_never_compared(tmp_path):
    """NEW stopped after 5 of its 12 cells: the gate compared 5 pairs and passed. Now each
    instance of OLD missing from NEW is named and fails it, unless --partial (which still
    names them); --allow-missing is --partial's older name."""
    old = _old(tmp_path)
    done = KEYS[:5]
    new = _new(tmp_path, [cell("cmd:x", key, t) for key, t in zip(KEYS, TIMES) if key in done])
    gate = _gate(old, new)
    assert gate.exit_code == 1, gate.output
    line = next(line for line in gate.stderr.splitlines() if "NEW lacks what OLD ran" in line)
    assert "cmd:x unique n=2: 7 of OLD's 12 instance(s)" in line
    for key in KEYS:
        assert (f"unique-{key}.sudoku" in line) == (key not in done), key
    for flag in ("--partial", "--allow-missing"):
        partial = _gate(old, new, flag)
        assert partial.exit_code == 0, partial.output
        named = [line for line in partial.stderr.splitlines() if "NEW lacks what OLD ran" in line]
        assert len(named) == 1 and "--partial" in named[0]
        assert all(f"unique-{key}.sudoku" in named[0] for key in KEYS if key not in done)
    alone = CliRunner().invoke(main, ["compare", str(old), str(new), "--partial"])
    assert alone.exit_code == 2 and "--partial goes with --fail-above" in alone.output
    helped = " ".join(CliRunner().invoke(main, ["compare", "--help"]).output.split())
    assert "--partial, --allow-missing" in helped and "a memout, a timeout" in helped


def test_R2_wrong_and_missing_are_both_named(tmp_path):
    """Correctness lines are all said at once: a wrong answer does not hide what is missing."""
    old = _old(tmp_path)
    rows = [cell("cmd:x", key, t, status="wrong" if key == "i00" else None)
            for key, t in zip(KEYS, TIMES) if key != "i11"]
    gate = _gate(old, _new(tmp_path, rows))
    assert gate.exit_code == 1, gate.output
    assert "answered WRONG on 1 instance(s): unique-i00.sudoku" in gate.stderr
    assert "cmd:x unique n=2: 1 of OLD's 12 instance(s) (unique-i11.sudoku)" in gate.stderr


def test_R3_a_family_without_a_shared_instance_is_named_and_fails(tmp_path):
    """OLD and NEW raced family hard on other instances: no pair, no row, no line, exit 0.
    Now the family and n without pairs is named, and the gate fails unless --partial."""
    old = _old(tmp_path, ("unique", "hard"))
    rows = [cell("cmd:x", key, t) for key, t in zip(KEYS, TIMES)]
    rows += [cell("cmd:x", f"other{k}", t, family="hard") for k, t in enumerate(TIMES)]
    new = _new(tmp_path, rows)
    gate = _gate(old, new)
    assert gate.exit_code == 1, gate.output
    assert "cmd:x hard n=2: no instance in both, none of OLD's 12 paired" in gate.stderr
    assert "hard-i00.sudoku" in gate.stderr
    assert "unique n=2" not in gate.stderr.split("NEW lacks what OLD ran")[1]
    partial = _gate(old, new, "--partial")
    assert partial.exit_code == 0, partial.output
    assert "cmd:x hard n=2: no instance in both" in partial.stderr


def _runs_csv_with_wrong_after_solved(campaign, keys):
    """Append, for each of ``keys``, a WRONG row of the cell already recorded as solved."""
    path = campaign / "runs.csv"
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    later = [dict(row, status="wrong", verified="False", message="not a solution")
             for row in rows if row["instance"] in {f"unique-{k}.sudoku" for k in keys}]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writerows(later)
    with open(path, "a", newline="") as handle:
        handle.write(buffer.getvalue())


def test_R4_a_wrong_row_after_a_solved_row_of_its_cell_is_never_dropped(tmp_path):
    """Each of NEW's WRONG rows written after a solved row of the same cell was "left out"
    as a duplicate and the gate passed. Now the cell is reported as conflicting, its worse
    record (the wrong answer) counts, and the gate fails naming it."""
    old = _old(tmp_path)
    new = _new(tmp_path, [cell("cmd:x", key, t) for key, t in zip(KEYS, TIMES)])
    _runs_csv_with_wrong_after_solved(new, QUARTER)
    gate = _gate(old, new)
    assert gate.exit_code == 1, gate.output
    verdict = next(line for line in gate.stderr.splitlines() if "answered WRONG" in line)
    assert f"answered WRONG on {len(QUARTER)} instance(s)" in verdict
    assert all(f"unique-{key}.sudoku" in verdict for key in QUARTER)
    assert "conflicts with" in gate.stderr and "wrong" in gate.stderr
    export = CliRunner().invoke(main, ["export", str(new), "-f", "csv"])
    exported = list(csv.DictReader(io.StringIO(export.stdout)))
    assert sorted(r["instance"] for r in exported if r["status"] == "wrong") == \
        [f"unique-{k}.sudoku" for k in QUARTER]
    assert len(exported) == len(KEYS)


def test_R4_the_worse_record_of_a_cell_counts_whichever_came_first(tmp_path):
    """records.scan on a cell recorded twice: the same outcome is a duplicate; a solved row
    before or after a wrong one is a conflict in which the wrong one counts, the other set
    aside naming both lines."""
    from experiments.harness import records
    from tests.test_analysis import run
    solved = run("dlx", 2, "a.sudoku", "solved", 1.0, instance_sha256="s")
    wrong = dict(solved, status="wrong", verified=False)
    for order in ((solved, wrong), (wrong, solved)):
        root = write_campaign(tmp_path / f"c{len(list(tmp_path.iterdir()))}",
                              [*order, dict(order[1])])
        found = records.scan(root / "runs.csv")
        assert [r["status"] for r in found.rows] == ["wrong"]
        assert found.lines == [2 + order.index(wrong)]
        reasons = {d.line: d.reason for d in found.damaged}
        assert set(reasons) == {2, 3, 4} - {2 + order.index(wrong)}
        assert "duplicate of the cell" in reasons[4] or "conflicts with" in reasons[4]
        other = 2 + order.index(solved)
        assert reasons[other].startswith("solved, conflicts with wrong on line")
