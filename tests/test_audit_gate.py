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
from experiments.harness import conditions, records
from tests.fake_solvers import fake_registry
from tests.test_analysis import write_campaign
from tests.test_compare import cell
from tests.test_harness import write_instances

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
    ("unknown", "gave no answer (unknown) where OLD answered"),
    ("skipped", "was skipped where OLD answered"),
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
    plain = CliRunner().invoke(main, ["compare", str(old), str(new)])
    assert plain.exit_code == 0, plain.output
    assert "not compared: cmd:x unique n=2: 7 of OLD's 12 instance(s), not in NEW" in \
        plain.stdout.splitlines()
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
    plain = CliRunner().invoke(main, ["compare", str(old), str(new)])
    assert plain.exit_code == 0, plain.output
    assert "not compared: cmd:x hard n=2: no instance in both (OLD ran 12, NEW 12)" in \
        plain.stdout.splitlines()
    assert not any(line.startswith("cmd:x") and " hard " in line for line in plain.stdout.splitlines())


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


def _race(out, campaign="c", solvers="slow:delay=0.01"):
    return CliRunner().invoke(main, ["run", "--no-report", "--out", str(out), "--family", "unique",
                                     "--n", "2", "--timeout", "20", "--solvers", solvers,
                                     "--instances", "4", "--jobs", "1", "--campaign", campaign],
                              obj={"registry": fake_registry()})


@pytest.fixture
def raced(tmp_path, monkeypatch):
    """A campaign of one fake entrant on 4 instances (the calibration is not what is tested)."""
    monkeypatch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
    write_instances(tmp_path, 2, 4)
    first = _race(tmp_path)
    assert first.exit_code == 0, first.output
    return tmp_path


def _csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_R6_a_hand_added_row_naming_a_path_is_set_aside_and_never_counted(raced):
    """Two hand-added rows whose instance is a path (zzz/unique-n2-s0-0001.sudoku,
    ../../../tmp/unique-n2-s0-0002.sudoku) with a made-up sha256 passed the foreign-row check
    (only the last part of the name was checked, and no file was found to compare the sha256
    with): the resume said "4 already recorded" and export counted 6 answers. Now an instance
    is a file name of the set: both rows go to runs.damaged.csv, export has the 4."""
    campaign = raced / "c"
    rows = _csv(campaign / "runs.csv")
    assert len(rows) == 4
    added = [dict(rows[0], instance=name, instance_sha256="ab" * 32)
             for name in ("zzz/unique-n2-s0-0001.sudoku", "../../../tmp/unique-n2-s0-0002.sudoku")]
    buffer = io.StringIO()
    csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n").writerows(added)
    with open(campaign / "runs.csv", "a", newline="") as handle:
        handle.write(buffer.getvalue())
    export = CliRunner().invoke(main, ["export", str(campaign), "-f", "csv"])
    assert export.exit_code == 0, export.output
    assert "2 row(s) not this campaign's: 2 outside the plan" in export.stderr
    assert len(list(csv.DictReader(io.StringIO(export.stdout)))) == 4
    resumed = _race(raced)
    assert resumed.exit_code == 0, resumed.output
    assert "set aside 2 row(s) not this campaign's" in resumed.stderr
    aside = _csv(campaign / records.DAMAGED_NAME)
    assert sorted(r["reason"] for r in aside) == [
        f"not this campaign's: outside the plan (instance {name}: not a file name of the set "
        "(a path))" if name.startswith("..") else
        f"not this campaign's: outside the plan (instance {name}: not in the set's directory)"
        for name in sorted(r["instance"] for r in added)]
    assert [r["instance"] for r in _csv(campaign / "runs.csv")] == [r["instance"] for r in rows]
    again = CliRunner().invoke(main, ["export", str(campaign), "-f", "csv"])
    assert again.stderr == "" and len(list(csv.DictReader(io.StringIO(again.stdout)))) == 4


def test_R6_the_sha256_of_a_file_name_of_the_set_is_compared(raced):
    """A row naming an instance file of the set under a made-up sha256 is set aside too."""
    campaign = raced / "c"
    rows = _csv(campaign / "runs.csv")
    with open(campaign / "runs.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows([dict(rows[0], instance_sha256="ab" * 32), *rows[1:]])
    export = CliRunner().invoke(main, ["export", str(campaign), "-f", "csv"])
    assert "1 sha256 not that of the instance file" in export.stderr
    assert len(list(csv.DictReader(io.StringIO(export.stdout)))) == 3


def test_R5_a_campaign_name_with_a_non_printable_character_is_refused_at_the_start(raced):
    """`race run --campaign 'a<NBSP>b'` wrote its rows under the escaped name, so each run
    took its own rows for another campaign's: exit 2 "no runs of this campaign recorded",
    and the resume set its own rows aside and ran them again. Now refused at the start, in
    one line naming it, and nothing is written."""
    before = sorted(p.name for p in raced.iterdir())
    for _ in range(2):
        refused = _race(raced, campaign="a\xa0b")
        assert refused.exit_code == 2, refused.output
        lines = refused.output.strip().splitlines()
        assert len(lines) == 1 and "--campaign 'a\\xa0b'" in lines[0], refused.output
        assert "not printable" in lines[0]
    assert sorted(p.name for p in raced.iterdir()) == before


def test_R5_an_entrant_spec_with_a_non_printable_character_is_refused_at_the_start(raced):
    """The same for an entrant spec (here a `cmd:` program whose file name holds a no-break
    space): refused in one line before anything is raced."""
    import shutil
    from pathlib import Path
    program = raced / "solver\xa0one.py"
    shutil.copy(Path(__file__).parent / "outside_solvers" / "backtrack_solver.py", program)
    program.chmod(0o755)
    for _ in range(2):
        refused = _race(raced, campaign="p", solvers=f"cmd:path={program}")
        assert refused.exit_code == 2, refused.output
        lines = refused.output.strip().splitlines()
        assert len(lines) == 1 and "\\xa0" in lines[0] and "not printable" in lines[0], \
            refused.output
    assert not (raced / "p").exists()


#: a `cmd:` program: backtracking; a puzzle whose text the file beside it (faults.json) lists
#: under "slow" sleeps 30 s, one it lists under "hog" takes 700 MB first (one program, its
#: code the same in OLD and NEW: what it does is in the file)
PROGRAM = """#!{python}
import json, os, sys, time
sys.path.insert(0, {solvers!r})
from backtrack_solver import read, search
faults = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "faults.json")))
text = open(sys.argv[1]).read()
if str(read(text)) in faults["slow"]:
    time.sleep(30)
if str(read(text)) in faults["hog"]:
    hog = b"x" * (700 << 20)
found = []
search(read(text), round(len(read(text)) ** 0.5), 1, found)
print("\\n".join(" ".join(map(str, row)) for row in found[0]))
"""


def _faults(directory, slow=(), hog=()):
    (directory / "faults.json").write_text(json.dumps({"slow": sorted(slow), "hog": sorted(hog)}))


@pytest.fixture(scope="module")
def raced_cmd(tmp_path_factory):
    """OLD: the program answering 12 puzzles of n=2; NEW (the same spec, the program edited)
    sleeping 30 s on a quarter of them (timeout), or taking 700 MB under --memory 400."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).parent / "outside_solvers"))
    from backtrack_solver import read
    root = tmp_path_factory.mktemp("cmd")
    program = root / "solver.py"

    def race(name, timeout=2):
        result = CliRunner().invoke(main, [
            "run", "--no-report", "--family", "unique", "--n", "2", "--instances", "12",
            "--solvers", f"cmd:path={program}", "--timeout", str(timeout), "--memory", "400",
            "-j", "2",
            "--out", str(root / name), "--campaign", "c"])
        assert result.exit_code == 0, result.output
        return root / name / "c"

    program.write_text(PROGRAM.format(python=sys.executable,
                                      solvers=str(Path(__file__).parent / "outside_solvers")))
    program.chmod(0o755)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(conditions, "_calibrate_on", lambda cpu, samples=None: None)
        _faults(root)
        old = race("old")
        files = sorted((root / "old" / "instances").glob("*/*.sudoku"))
        chosen = files[1::4]
        texts = {str(read(f.read_text())) for f in chosen}
        _faults(root, slow=texts)
        slow = race("slow")
        _faults(root, hog=texts)
        hog = race("hog", timeout=20)            # the memory limit first, on a busy machine too
    return old, {"timeout": slow, "memout": hog}, [f.name for f in chosen]


@pytest.mark.parametrize("status, words", [("timeout", "ran out of time"),
                                           ("memout", "ran out of memory")])
def test_R1_a_cmd_program_out_of_time_or_memory_where_old_answered_fails(raced_cmd, status,
                                                                         words):
    old, new, names = raced_cmd
    gate = _gate(old, new[status])
    assert gate.exit_code == 1, gate.output
    verdict = next(line for line in gate.stderr.splitlines() if words in line)
    assert f"{words} where OLD answered on {len(names)} instance(s)" in verdict
    assert all(name in verdict for name in names)


@pytest.mark.parametrize("name, words", [("a\xa0b", "not printable"),
                                         ("../elsewhere", "expected a plain directory name")])
def test_R5_race_landscape_refuses_such_a_campaign_name_too(tmp_path, name, words):
    refused = CliRunner().invoke(main, ["landscape", "--n", "2", "--holes", "0.5", "--solvers",
                                        "dlx", "--instances", "1", "--out", str(tmp_path),
                                        "--campaign", name])
    assert refused.exit_code == 2, refused.output
    lines = refused.output.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "--campaign" in lines[0]
    assert list(tmp_path.iterdir()) == []


def test_R2_partial_still_names_what_is_missing_when_a_wrong_answer_fails_the_gate(tmp_path):
    old = _old(tmp_path)
    rows = [cell("cmd:x", key, t, status="wrong" if key == "i00" else None)
            for key, t in zip(KEYS, TIMES) if key != "i11"]
    gate = _gate(old, _new(tmp_path, rows), "--partial")
    assert gate.exit_code == 1, gate.output
    assert "answered WRONG on 1 instance(s): unique-i00.sudoku" in gate.stderr
    assert "1 of OLD's 12 instance(s) (unique-i11.sudoku)" in gate.stderr


def test_R5_a_campaign_name_with_spaces_around_it_is_refused_and_read_stripped(raced):
    """`--campaign 'a '` had the same fault (its rows are read stripped: 'a'): refused at the
    start; a campaign already named so reads its rows as its own."""
    refused = _race(raced, campaign="a ")
    assert refused.exit_code == 2 and "--campaign 'a ': expected a plain directory name" in \
        refused.output, refused.output
    assert not (raced / "a ").exists()
    meta = json.loads((raced / "c" / "meta.json").read_text())
    (raced / "c" / "meta.json").write_text(json.dumps(dict(meta, campaign="c ")))
    export = CliRunner().invoke(main, ["export", str(raced / "c"), "-f", "csv"])
    assert export.exit_code == 0 and export.stderr == "", export.output
    assert len(list(csv.DictReader(io.StringIO(export.stdout)))) == 4
