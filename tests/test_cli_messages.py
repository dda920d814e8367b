"""What the command line says where a reader could be misled: the argument it names, the
choices it offers, the puzzles it did not count."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from experiments.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "results" / "reference-n2-10"


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_compare_names_the_missing_folder_not_the_argument_count(tmp_path):
    missing = tmp_path / "nosuch-dir"
    for args in ((str(REFERENCE), str(missing)), (str(missing), str(REFERENCE))):
        r = run("compare", *args)
        assert r.exit_code == 2
        assert f"{missing}: no such directory" in r.output and "argument(s)" not in r.output
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run("compare", str(REFERENCE), str(empty))
    assert r.exit_code == 2 and f"{empty}: a directory, but no campaign in it" in r.output


def test_a_race_of_1x1_grids_is_refused_in_one_line(tmp_path):
    """n = 1 is one cell with its one value: nothing to race, said before any work."""
    import pytest

    from experiments.harness.config import parse_n
    from formats.errors import RaceError
    for text in ("1..3", "1", "3,1"):
        with pytest.raises(RaceError, match="n = 1 is a 1x1 grid"):
            parse_n(text)
    assert parse_n("2..3") == [2, 3]
    r = run("run", "--n", "1..3", "--solvers", "dlx", "--out", str(tmp_path))
    assert r.exit_code == 2 and "n = 1 is a 1x1 grid" in r.output
    assert len(r.output.strip().splitlines()) == 1 and not any(tmp_path.iterdir())


def test_a_misspelt_parameter_value_gets_a_did_you_mean(tmp_path):
    """Every entrant parameter with a closed set of choices (and the SAT backends, the
    parameter names) names the nearest choice; a value near none gets no guess."""
    puzzle = tmp_path / "p.sudoku"
    puzzle.write_text("1 . . .\n. . 1 .\n. 1 . .\n. . . 1\n")
    for spec, meant in (("sat:backend=kisat", "kissat"), ("sat:backend=glucos4", "glucose4"),
                        ("sat:encoding=minimall", "minimal"), ("dlx:heuristic=mvr", "mrv"),
                        ("sat:config=unsta", "unsat"), ("cmd:path=/bin/true,input=stdn", "stdin"),
                        ("sat:encodng=minimal", "encoding"), ("bitset:rules=single", "singles")):
        r = run("solve", "-s", spec, str(puzzle))
        assert r.exit_code == 2 and f"(did you mean {meant}?)" in r.output, (spec, r.output)
        assert len(r.output.strip().splitlines()) == 1
    r = run("solve", "-s", "sat:backend=zzzqqq", str(puzzle))
    assert r.exit_code == 2 and "zzzqqq" in r.output and "did you mean" not in r.output


def test_did_you_mean_offers_only_a_near_choice():
    from formats.suggestions import closest, did_you_mean
    assert closest("KISAT", ["kissat", "minisat22"]) == "kissat"
    assert did_you_mean("first", ["mrv", "first"]) == ""          # the choice itself: no guess
    assert did_you_mean("qqq", ["mrv", "first"]) == ""
