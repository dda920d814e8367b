"""formats.datasets and ``race import``: collections in, a normalised instance set out."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from experiments.cli.main import main
from formats import datasets, grid_text
from formats.errors import RaceError
from formats.grid import Grid

SAMPLE = Path(__file__).parent / "data" / "sample_collection.txt"
HARD9 = Path(__file__).parent / "data" / "hard9.txt"


def test_one_line_collection_with_header_csv_and_comments():
    puzzles = datasets.read_dataset(SAMPLE)
    assert [p.line for p in puzzles] == [2, 3, 4, 6, 8, 10]
    assert [p.grid.n for p in puzzles] == [3, 3, 3, 3, 3, 2]
    assert [p.grid.clues() for p in puzzles] == [17, 17, 17, 16, 9, 5]
    assert puzzles[0].grid == grid_text.read(HARD9).grids[0]
    assert puzzles[5].grid.cells.tolist() == [[1, 0, 0, 0], [2, 0, 3, 0], [0, 0, 0, 4], [0, 1, 0, 0]]
    assert {p.source for p in puzzles} == {str(SAMPLE)}


def _numeric(grid: Grid, header: str | None) -> str:
    rows = [" ".join(str(v) for v in row) for row in grid.cells.tolist()]
    return "\n".join(([header] if header else []) + rows) + "\n"


@pytest.mark.parametrize("header", [None, "3", "9", "9 9"])
def test_numeric_grids_with_or_without_header(tmp_path, header):
    grids = grid_text.read(HARD9).grids[:2]
    path = tmp_path / "grids.txt"
    path.write_text("# two grids\n" + "\n".join(_numeric(g, header) for g in grids))
    puzzles = datasets.read_dataset(path)
    assert [p.grid for p in puzzles] == grids
    first_row = 3 if header else 2
    assert [p.line for p in puzzles] == [first_row, first_row + 9 + (2 if header else 1)]


def test_large_numeric_grid_with_three_digit_tokens(tmp_path):
    n, side = 10, 100                     # a 100x100 pattern grid: tokens up to 3 digits
    i, j = np.indices((side, side))
    cells = (i * n + i // n + j) % side + 1
    cells[::3, ::7] = 0
    path = tmp_path / "big.txt"
    path.write_text(_numeric(Grid(n, cells), str(n)))
    [puzzle] = datasets.read_dataset(path)
    assert puzzle.grid.n == 10 and np.array_equal(puzzle.grid.cells, cells)


def test_directory_reads_every_file_in_path_order(tmp_path):
    grids = grid_text.read(HARD9).grids
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "one.sudoku").write_text(grid_text.format_native(grids[1], {"kind": "x"}))
    (tmp_path / "a.txt").write_text(HARD9.read_text())
    (tmp_path / ".hidden").write_text("junk")
    (tmp_path / "manifest.csv").write_text("file\n")
    puzzles = datasets.read_dataset(tmp_path)
    assert [p.grid for p in puzzles] == [*grids, grids[1]]
    assert [Path(p.source).name for p in puzzles] == ["a.txt"] * 4 + ["one.sudoku"]


@pytest.mark.parametrize("text, message", [
    ("4....\n", r"line 1: 5 characters, expected n⁴"),
    ("1234" + "." * 12 + "\n12?4" + "." * 12 + "\n", r"line 2, column 3: bad character '\?'"),
    ("5\n1 2 3 4\n", r"line 1: header 5 says side 5 or 25, but the next row has 4 cells"),
    ("1 2 3 4\n1 2 3 4\n", r"line 1: the grid starting here has 2 rows, expected 4"),
    ("1 2 3 4\n. . . .\n. 1000 . .\n. . . .\n", r"line 3: bad cell '1000' \(cell 2\)"),
    ("1 2 3\n. . .\n. . .\n", r"line 1: a row of 3 cells, expected n² cells"),
    ("# only a comment\n", "no puzzle found"),
])
def test_malformed_collections_name_the_place(tmp_path, text, message):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(RaceError, match=message) as info:
        datasets.read_dataset(path)
    assert str(path) in str(info.value)


def test_empty_directory_is_an_error(tmp_path):
    with pytest.raises(RaceError, match="no puzzle files"):
        datasets.read_dataset(tmp_path)


def test_race_import_writes_files_and_manifest(tmp_path):
    out = tmp_path / "set"
    result = CliRunner().invoke(main, ["import", str(SAMPLE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        f"imported 6 puzzles (n=2: 1, n=3: 5) from {SAMPLE} into {out}",
        "  unique: 4, several solutions: 1, no solution: 1"]
    with open(out / "manifest.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["solutions"] for r in rows] == ["1", "1", "1", "many", "0", "1"]
    assert [r["line"] for r in rows] == ["2", "3", "4", "6", "8", "10"]
    assert [r["clues"] for r in rows] == ["17", "17", "17", "16", "9", "5"]
    originals = datasets.read_dataset(SAMPLE)
    for row, original in zip(rows, originals):
        data = (out / row["file"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == row["sha256"]
        parsed = grid_text.parse(data.decode())
        assert parsed.grids[0] == original.grid
        assert parsed.metadata["source"] == str(SAMPLE) and parsed.metadata["line"] == row["line"]
        assert (row["kind"], row["n"], row["source"]) == ("imported", str(original.grid.n), str(SAMPLE))


def test_race_import_of_a_bad_file_is_a_one_line_error(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1234" + "." * 12 + "\n12?4" + "." * 12 + "\n")
    result = CliRunner().invoke(main, ["import", str(bad), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.output == f"race: error: {bad}, line 2, column 3: bad character '?', " \
                            "expected '.', '0', 1-9 or A-Z\n"


@pytest.mark.parametrize("first", ["0" * 80, "\ufeff" + "0" * 81, "1" * 82])
def test_a_malformed_first_puzzle_is_an_error_not_a_skipped_header(tmp_path, first):
    """Only words (no digit, no '.') make a header: a first puzzle a cell short, or behind a
    BOM, was dropped in silence as if it were one."""
    path = tmp_path / "set.txt"
    path.write_text(first + "\n" + "0" * 81 + "\n", encoding="utf-8")
    with pytest.raises(RaceError, match="line 1"):
        datasets.read_dataset(path)
    path.write_text("quizzes,solutions\n" + "0" * 81 + "," + "1" * 81 + "\n")
    assert len(datasets.read_dataset(path)) == 1
