"""`race run --peaks FILE`: the hard family's holes from the table it names, recorded in
meta.json and the resume command; another table on resume, or a bad file, is refused in one
line (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from experiments.cli.main import main as cli
from experiments.harness.config import Config, resume_command
from experiments.harness.entrants import parse_entrants
from formats import grid_text
from generators import hardness_peaks

#: fractions no committed peak has, so that the holes can only come from this table
MINE = "n,pattern,holes\n2,balanced,0.5\n4,balanced,0.45\n"


def race(tmp_path: Path, *extra: str) -> Result:
    return CliRunner().invoke(cli, ["run", "--n", "2", "--family", "hard", "--solvers", "dlx",
                                    "--instances", "2", "--timeout", "5", "--jobs", "1",
                                    "--out", str(tmp_path / "out"), "--campaign", "c",
                                    "--no-report", "--quiet", *extra])


def test_the_hard_familys_holes_come_from_the_table_given(tmp_path: Path) -> None:
    committed = hardness_peaks.peak_holes(2)
    assert committed != 0.5
    table = tmp_path / "mine.csv"
    table.write_text(MINE)
    result = race(tmp_path, "--peaks", str(table))
    assert result.exit_code == 0, result.output
    campaign = tmp_path / "out" / "c"
    meta = json.loads((campaign / "meta.json").read_text())
    assert meta["peaks"] == str(table.resolve())
    assert meta["families"]["hard"]["options"]["2"] == {"holes": 0.5, "pattern": "balanced"}
    assert f"--peaks {table.resolve()}" in meta["command"]
    files = sorted((tmp_path / "out" / "instances").glob("*/*.sudoku"))
    assert len(files) == 2 and all("holes0.5-balanced" in f.parent.name for f in files)
    for f in files:                                 # half of the 16 cells empty
        (grid,) = grid_text.parse(f.read_text(), str(f)).grids
        assert int((grid.cells == 0).sum()) == 8
    again = race(tmp_path, "--peaks", str(table))     # the same table: a resume
    assert again.exit_code == 0, again.output


def test_the_resume_command_names_the_table(tmp_path: Path) -> None:
    table = (tmp_path / "mine.csv").resolve()
    table.write_text(MINE)
    entrants = parse_entrants("dlx")
    with_table = Config(n_values=[2], entrants=entrants, family_labels="hard", peaks=table,
                        campaign="c")
    assert with_table.families[0].options_for(2)["holes"] == 0.5
    assert resume_command(with_table).endswith(f"--peaks {table}")
    assert "--peaks" not in resume_command(with_table.with_(peaks=None, families=[]))


@pytest.mark.parametrize("second", ["other", "none"])
def test_a_resume_with_another_table_is_refused(tmp_path: Path, second: str) -> None:
    table, other = tmp_path / "mine.csv", tmp_path / "other.csv"
    table.write_text(MINE)
    other.write_text(MINE)                      # the same peaks, but another table
    assert race(tmp_path, "--peaks", str(table)).exit_code == 0
    result = race(tmp_path, *(["--peaks", str(other)] if second == "other" else []))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert str(tmp_path / "out" / "c" / "meta.json") in lines[0]
    assert f"--peaks {table.resolve()}" in lines[0]
    assert (f"--peaks {other.resolve()}" if second == "other" else "the committed peak table") \
        in lines[0]


@pytest.mark.parametrize("content, said", [
    (None, "no such file"),
    ("n,pattern,holes\nx,balanced,0.5\n", "line 2: expected the columns"),
    ("n,pattern,holes\n3,random,0.6\n", "no hardness peak for pattern 'balanced'"),
    ("n,pattern,holes\n3,balanced,1.5\n", "holes must be a fraction"),
])
def test_a_bad_table_is_one_line_naming_it(tmp_path: Path, content: str | None, said: str) -> None:
    table = tmp_path / "peaks.csv"
    if content is not None:
        table.write_text(content)
    result = race(tmp_path, "--peaks", str(table))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(table) in lines[0] and said in lines[0], lines
    assert not (tmp_path / "out" / "c").exists()


def test_peaks_goes_with_the_hard_family_only(tmp_path: Path) -> None:
    table = tmp_path / "mine.csv"
    table.write_text(MINE)
    result = CliRunner().invoke(cli, ["run", "--n", "2", "--family", "unique", "--peaks",
                                      str(table), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "only the hard family" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
