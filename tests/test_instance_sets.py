"""`race run --instances PATH`: a campaign on user-supplied puzzles (an imported
set, a one-line file, a directory, numeric grids); puzzles with several or no
solutions are reported as such, not as solver failures; a `cmd` entrant's
program (path, sha256, --version) goes into meta.json."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from experiments.harness.instances import load_instance_set
from formats.errors import RaceError

DATA = Path(__file__).parent / "data"
COLLECTION = DATA / "sample_collection.txt"
OUTSIDE = Path(__file__).parent / "outside_solvers" / "backtrack_solver.py"


def _rows(directory: Path) -> list[dict[str, str]]:
    with open(directory / "runs.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_a_campaign_on_an_imported_one_line_dataset(tmp_path):
    imported = tmp_path / "set"
    assert CliRunner().invoke(main, ["import", str(COLLECTION), "-o", str(imported)]).exit_code == 0
    spec = f"cmd:path={OUTSIDE}"
    result = CliRunner().invoke(main, ["run", "--no-report", "--instances", str(imported), "--solvers", f"dlx,{spec}",
                                       "--timeout", "60", "--jobs", "2", "--out", str(tmp_path / "r"),
                                       "--campaign", "imported"])
    assert result.exit_code == 0, result.output
    assert "no solution 1, unique 4, several solutions 1" in result.stderr
    assert "the set's instances (n=2: 1; n=3: 5) x 1 repeats" in result.stderr   # not "x 5"
    directory = tmp_path / "r" / "imported"
    rows = _rows(directory)
    manifest = {r["file"]: r for r in csv.DictReader(open(imported / "manifest.csv", newline=""))}
    assert len(rows) == 2 * 6 and {r["instance"] for r in rows} == set(manifest)
    for row in rows:
        m = manifest[row["instance"]]
        assert (row["n"], row["instance_sha256"], row["clues"], row["family"]) == \
            (m["n"], m["sha256"], m["clues"], "imported")
        expected = "unsat" if m["solutions"] == "0" else "solved"
        assert row["status"] == expected, row        # never a failure, whatever the count
        assert row["verified"] == str(expected == "solved")
    meta = json.loads((directory / "meta.json").read_text())
    block = meta["instance_set"]
    assert block["instances"] == {"2": 1, "3": 5}
    assert block["solutions"] == {"no solution": 1, "unique": 4, "several solutions": 1}
    assert block["not_unique"] == {"sample_collection-000003.sudoku": "several solutions",
                                   "sample_collection-000004.sudoku": "no solution"}
    assert block["manifest_sha256"] == hashlib.sha256(
        (imported / "manifest.csv").read_bytes()).hexdigest()
    program = meta["entrant_provenance"][spec]
    assert program.pop("startup_s") > 0                        # its answer to an empty puzzle
    assert program == {"path": str(OUTSIDE.resolve()),
                       "sha256": hashlib.sha256(OUTSIDE.read_bytes()).hexdigest(),
                       "version": "backtrack-solver 1.0 (test fixture)"}
    assert set(meta["entrant_provenance"]) == {spec}             # dlx has no provenance()
    again = CliRunner().invoke(main, ["run", "--no-report", "--instances", str(imported), "--solvers", "dlx",
                                      "--timeout", "60", "--out", str(tmp_path / "r"),
                                      "--campaign", "imported"])
    assert again.exit_code == 0 and "0 to run" in again.stderr and len(_rows(directory)) == 12


def test_a_raw_file_is_imported_once_and_keyed_by_its_puzzles(tmp_path):
    first = load_instance_set(COLLECTION, tmp_path)
    copy = tmp_path / "copy.txt"
    copy.write_text("# the same puzzles\n" + COLLECTION.read_text())
    second = load_instance_set(copy, tmp_path)
    assert first.directory == second.directory and first.directory.parent == tmp_path / "instances"
    assert first.directory.name.startswith("dataset-")
    assert first.solutions == {f"sample_collection-{i:06d}.sudoku": w
                               for i, w in enumerate(["1", "1", "1", "many", "0", "1"])}
    assert [len(first.by_n[n]) for n in (2, 3)] == [1, 5]


def test_numeric_grids_and_directories_race_with_n_filtered(tmp_path):
    puzzles = tmp_path / "puzzles"
    puzzles.mkdir()
    (puzzles / "a.txt").write_text("4\n1 0 0 0\n0 0 3 0\n0 4 0 0\n0 0 0 2\n")
    (puzzles / "b.sudoku").write_text((DATA / "hard9.txt").read_text().split()[0] + "\n")
    result = CliRunner().invoke(main, ["run", "--no-report", "--instances", str(puzzles), "--n", "2",
                                       "--solvers", "backtracking", "--out", str(tmp_path / "r"),
                                       "--jobs", "1"])
    assert result.exit_code == 0, result.output
    campaign = next(p for p in (tmp_path / "r").iterdir() if p.name != "instances")
    rows = _rows(campaign)
    assert [(r["n"], r["status"]) for r in rows] == [("2", "solved")]
    assert "--instances" in json.loads((campaign / "meta.json").read_text())["command"]


@pytest.mark.parametrize("value, message", [
    ("0", "0 is not a positive count"),
    ("no/such/place", "neither a count nor an existing file"),
])
def test_bad_instances_values_are_one_line_errors(tmp_path, value, message):
    result = CliRunner().invoke(main, ["run", "--no-report", "--instances", value, "--out", str(tmp_path)])
    assert result.exit_code == 2 and message in result.output


def test_n_outside_the_set_is_an_error(tmp_path):
    result = CliRunner().invoke(main, ["run", "--no-report", "--instances", str(COLLECTION), "--n", "4",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "no puzzle with n in --n (the set has n = 2, 3)" in result.output


def test_a_manifest_naming_a_missing_file_is_an_error(tmp_path):
    CliRunner().invoke(main, ["import", str(COLLECTION), "-o", str(tmp_path / "set")])
    (tmp_path / "set" / "sample_collection-000002.sudoku").unlink()
    with pytest.raises(RaceError, match="instance file 'sample_collection-000002.sudoku' is missing"):
        load_instance_set(tmp_path / "set", tmp_path)


def test_a_manifest_that_lists_a_file_twice_races_it_once(tmp_path):
    """A duplicated manifest row (audit L1): a warning naming the line, the instance raced
    once, no damaged rows, and a resume that runs nothing."""
    imported = tmp_path / "set"
    assert CliRunner().invoke(main, ["import", str(COLLECTION), "-o", str(imported)]).exit_code == 0
    lines = (imported / "manifest.csv").read_text().splitlines(keepends=True)
    (imported / "manifest.csv").write_text("".join(lines + [lines[2]]))
    args = ["run", "--no-report", "--instances", str(imported), "--solvers", "dlx", "--timeout", "60",
            "--out", str(tmp_path / "r"), "--campaign", "twice"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"line {len(lines) + 1} lists" in result.stderr and "raced once" in result.stderr
    assert "damaged" not in result.stderr
    rows = _rows(tmp_path / "r" / "twice")
    assert len(rows) == len(lines) - 1 == len({r["instance"] for r in rows})
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "0 to run" in again.stderr and "damaged" not in again.stderr
    assert len(_rows(tmp_path / "r" / "twice")) == len(rows)


# -- a set reads only its own files -----------------------------------------------------

SECRET = "# secret=do-not-print\n" + ". . . .\n" * 4       # a puzzle, with a line to keep


def _set_listing(tmp_path: Path, name_for) -> Path:
    """An imported one-puzzle set whose manifest row is rewritten to name ``name_for(set)``,
    a file outside the set that holds a valid puzzle with the sha256 the row records."""
    outside = tmp_path / "outside.sudoku"
    outside.write_text(SECRET)
    source = tmp_path / "one.txt"
    source.write_text("." * 16 + "\n")
    imported = tmp_path / "set"
    assert CliRunner().invoke(main, ["import", str(source), "-o", str(imported)]).exit_code == 0
    manifest = imported / "manifest.csv"
    rows = list(csv.DictReader(open(manifest, newline="")))
    rows[0]["file"] = name_for(imported)
    rows[0]["sha256"] = hashlib.sha256(outside.read_bytes()).hexdigest()
    with open(manifest, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return imported


@pytest.mark.parametrize("how", ["absolute", "dotdot", "link"])
def test_a_manifest_row_naming_a_file_outside_the_set_is_refused(tmp_path, how):
    """A manifest row naming /etc/passwd (or ../../x, or a link out of the set) was read by
    race run --instances SET: now one line naming the manifest row, exit 2, nothing read."""
    def name_for(imported: Path) -> str:
        if how == "absolute":
            return str(tmp_path / "outside.sudoku")
        if how == "dotdot":
            return "../outside.sudoku"
        (imported / "link.sudoku").symlink_to(tmp_path / "outside.sudoku")
        return "link.sudoku"
    imported = _set_listing(tmp_path, name_for)
    result = CliRunner().invoke(main, ["run", "--instances", str(imported), "--solvers", "dlx",
                                       "--timeout", "10", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2, result.output
    line = result.stderr.strip()
    assert line.startswith(f"race: error: {imported / 'manifest.csv'}, line 2: instance file ")
    assert "resolves outside its directory" in line and len(line.splitlines()) == 1
    assert "do-not-print" not in result.output and not (tmp_path / "r").exists()


def test_an_import_refuses_a_symbolic_link_out_of_its_directory(tmp_path):
    (tmp_path / "outside.sudoku").write_text(SECRET)
    source = tmp_path / "puzzles"
    source.mkdir()
    (source / "a.sudoku").write_text(". . . .\n" * 4)
    (source / "b.sudoku").symlink_to(tmp_path / "outside.sudoku")
    result = CliRunner().invoke(main, ["import", str(source), "-o", str(tmp_path / "set")])
    assert result.exit_code == 2 and "do-not-print" not in result.output
    assert result.stderr == (f"race: error: {source / 'b.sudoku'}: a symbolic link that leads "
                             f"out of {source}; refused (copy the file into the directory to "
                             "import it)\n")
    assert not (tmp_path / "set").exists()
    (source / "b.sudoku").unlink()
    (source / "b.sudoku").symlink_to(source / "a.sudoku")       # a link within is its own file
    assert CliRunner().invoke(main, ["import", str(source), "-o", str(tmp_path / "set")]).exit_code == 0
