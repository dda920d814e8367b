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


def test_kissat_args_reach_kissat(tmp_path):
    """--kissat-args goes to the binary: its --quiet drops the statistics lines, an option it
    does not know is its own error; a word that is not an option, or another backend, is ours."""
    cnf = tmp_path / "e.cnf"
    assert run("encode", str(ROOT / "tests" / "data" / "empty4.sudoku"), "-o", str(cnf)).exit_code == 0
    plain = run("sat-solve", "--backend", "kissat", str(cnf))
    quiet = run("sat-solve", "--backend", "kissat", "--kissat-args", "--seed=7 --quiet", str(cnf))
    assert plain.exit_code == quiet.exit_code == 10
    assert "c conflicts" in plain.output and "c conflicts" not in quiet.output
    assert quiet.output.startswith("s SATISFIABLE")
    r = run("sat-solve", "--backend", "kissat", "--kissat-args", "--nosuch", str(cnf))
    assert r.exit_code == 2 and "invalid long option '--nosuch'" in r.output
    r = run("sat-solve", "--backend", "kissat", "--kissat-args", "nosuch.cnf", str(cnf))
    assert r.exit_code == 2 and "'nosuch.cnf' is not an option" in r.output
    r = run("sat-solve", "--backend", "glucose4", "--kissat-args", "--quiet", str(cnf))
    assert r.exit_code == 2 and "--kissat-args goes with --backend kissat" in r.output


def test_race_solvers_says_where_each_sat_program_is(monkeypatch, tmp_path):
    """kissat from the wheel (or $KISSAT, or PATH) with its version; a program missing from
    the PATH is said missing with how to install it."""
    from solvers.sat.binaries import locate
    from solvers.sat.programs import find_kissat
    monkeypatch.delenv("KISSAT", raising=False)
    r = run("solvers")
    assert r.exit_code == 0
    kissat = locate("kissat")
    programs = r.output.split("SAT programs")[1].splitlines()
    line = next(line for line in programs if line.startswith("  kissat "))
    assert kissat.path == find_kissat() and kissat.path in line and kissat.version
    assert kissat.version in line
    if "sage_wheels" in kissat.path:
        assert "(the passagemath-kissat wheel)" in line
    monkeypatch.setenv("PATH", str(tmp_path))           # nothing on it
    missing = locate("cadical")
    assert missing.path is None and "apt-get install cadical" in missing.line()


def test_race_import_says_which_puzzles_it_did_not_count(tmp_path, monkeypatch):
    """A puzzle whose count ran out of the node budget is not a zero in the tally: a line
    says how many were not counted, at which n, and why."""
    from experiments.harness import instances
    sample = ROOT / "tests" / "data" / "sample_collection.txt"
    r = run("import", str(sample), "-o", str(tmp_path / "all"))
    assert r.exit_code == 0 and "not counted" not in r.output
    monkeypatch.setattr(instances, "COUNT_NODE_LIMIT", 5)    # too few nodes for a 17-clue 9x9
    r = run("import", str(sample), "-o", str(tmp_path / "few"))
    assert r.exit_code == 0, r.output
    manifest = (tmp_path / "few" / "manifest.csv").read_text()
    unchecked = manifest.count(",unchecked")
    assert unchecked >= 1
    assert f"not counted: {unchecked} (n=" in r.output
    assert "budget of 5 DLX nodes per puzzle" in r.output
    r = run("import", str(sample), "-o", str(tmp_path / "none"), "--no-count")
    assert r.exit_code == 0 and "solutions not counted (--no-count)" in r.output
