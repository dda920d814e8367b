"""The referee: every claim checked (solutions, no-solution claims, counts), liars end `wrong`
everywhere (run summary, compare, export, report, landscape), and one cell identity."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from experiments.cli.main import main
from experiments.harness import records, runs_table
from experiments.harness.messages import Measurement
from experiments.harness.referee import (
    Confirmation,
    Referee,
    Truth,
    confirm,
    confirmer_for,
    proof_refutes,
    record_disputes,
    truth_of,
)
from formats import grid_text
from formats.grid import Grid
from generators import puzzle_set
from solvers.status import Status
from tests.fake_solvers import LIARS, fake_registry, pattern_grid

ROOT = Path(__file__).resolve().parent.parent


def puzzle_file(kind: str, n: int = 2, index: int = 0, **options) -> grid_text.PuzzleFile:
    grid, meta = puzzle_set.make(kind, n, 0, index, **options)
    return grid_text.parse(grid_text.format_native(grid, meta))


def unsat_without_record() -> Grid:
    """A 4x4 whose clues are consistent (no unit repeats a value) but that has no solution:
    row 0 needs a 1 in its last two cells, which columns 2 and 3 both forbid."""
    cells = np.zeros((4, 4), dtype=np.int32)
    cells[0, 0], cells[0, 1] = 2, 3
    cells[1, 2], cells[2, 3] = 1, 1
    return Grid(2, cells)


# -- what an instance records ------------------------------------------------------------

def test_each_generated_kind_records_what_its_claims_are_checked_against():
    unique = truth_of(puzzle_file("unique"))
    assert unique.solution is not None and unique.count == 1 and not unique.unsat
    holes = truth_of(puzzle_file("holes", holes=0.6))
    assert holes.solution is not None and holes.at_least == 1 and holes.count is None
    assert "planted" in holes.evidence
    unsat = truth_of(puzzle_file("unsat"))
    assert unsat.solution is None and unsat.count == 0 and "kind=unsat" in unsat.unsat


@pytest.mark.parametrize("n,index", [(2, 0), (2, 3), (3, 1)])
def test_a_multi_puzzle_records_its_second_solution_and_a_count_of_one_is_wrong(n, index):
    """``second=`` makes "two or more" evidence: a solver claiming exactly one solution of a
    multi puzzle is caught (before, the record only proved one)."""
    puzzle = puzzle_file("multi", n, index)
    truth = truth_of(puzzle)
    assert truth.at_least == truth.proven == 2 and "two different solutions" in truth.evidence
    second = grid_text.parse_compact(puzzle.metadata["second"], n)
    assert second != truth.solution
    assert proof_refutes(1, True, None, truth) is not None
    assert proof_refutes(2, False, 2, truth) is None
    puzzle.metadata["second"] = puzzle.metadata["planted"]   # the same grid twice: no proof
    assert truth_of(puzzle).proven == 1
    puzzle.metadata["second"] = "1" * n ** 4                 # not a solution: no proof
    assert truth_of(puzzle).proven == 1 and proof_refutes(1, True, None, truth_of(puzzle)) is None


def test_a_planted_grid_that_does_not_solve_the_puzzle_is_no_evidence():
    puzzle = puzzle_file("holes", holes=0.6)
    assert truth_of(puzzle).solution is not None
    puzzle.metadata["planted"] = "1" * 16                  # not even a Sudoku grid
    assert truth_of(puzzle) == truth_of(puzzle).__class__()


@pytest.mark.parametrize("word, unsat, count, at_least", [("0", True, 0, 0), ("1", False, 1, 1),
                                                         ("many", False, None, 2)])
def test_an_imports_count_is_a_claim_not_proof(word, unsat, count, at_least):
    puzzle = grid_text.parse(grid_text.format_native(unsat_without_record()))
    truth = truth_of(puzzle, listed=word)
    assert bool(truth.unsat) is unsat and truth.count == count and truth.at_least == at_least
    assert truth.proven == 0 and truth.solution is None and f"solutions={word}" in truth.claim


def test_a_manifest_that_contradicts_its_file_is_no_evidence():
    """An edited manifest (solutions 1) over a file that records 0 made every honest "no
    solution" wrong; where the two disagree neither counts (the second method decides)."""
    puzzle = grid_text.parse("# solutions=0\n" + grid_text.format_native(unsat_without_record()))
    assert truth_of(puzzle, listed="1") == truth_of(puzzle).__class__()
    assert truth_of(puzzle, listed="0").unsat and truth_of(puzzle).unsat


# -- the verdicts ------------------------------------------------------------------------

def m(outcome: dict) -> Measurement:
    """A worker's measurement of these fields (status, solution)."""
    return Measurement(Status(outcome["status"]), solution=outcome.get("solution"))


def judge(text: str, outcome: dict, confirm_fn=None, method: str = "external"):
    referee = Referee(1.0, confirm_fn or (lambda grid, by, t: pytest.fail("no confirmation needed")))
    case = referee.case("sha", text, "p.sudoku")
    return referee, case, referee.judge(case, m(outcome), "liar", method)


def native(kind: str, **options) -> str:
    grid, meta = puzzle_set.make(kind, 2, 0, 0, **options)
    return grid_text.format_native(grid, meta)


def test_a_false_no_solution_claim_is_wrong_and_names_the_evidence():
    _, _, out = judge(native("holes", holes=0.6), {"status": "unsat", "verified": False})
    assert out.status == "wrong" and not out.verified
    assert "claimed no solution" in out.message and "planted=" in out.message


def test_a_no_solution_claim_on_an_unsat_instance_is_still_confirmed_by_a_second_method():
    """kind=unsat is the header's word: the second method confirms the claim all the same."""
    asked = []

    def fake_confirm(grid, by, timeout):
        asked.append(by)
        return Confirmation("unsat", by)
    _, _, out = judge(native("unsat"), {"status": "unsat"}, fake_confirm)
    assert out.status == "unsat" and out.referee == "no solution confirmed by sat"
    assert asked == ["sat"]


@pytest.mark.parametrize("verdict, status", [("unsat", "unsat"), ("solved", "wrong"),
                                             ("unknown", "unknown")])
def test_a_claim_nothing_records_is_confirmed_by_another_family(verdict, status):
    grid = unsat_without_record()
    asked = []

    def fake_confirm(g, by, timeout):
        asked.append(by)
        solution = Grid(2, pattern_grid(2)) if verdict == "solved" else None
        return Confirmation(verdict, by, solution, "no answer within 1 s")

    referee, case, out = judge(grid_text.format_native(grid), {"status": "unsat"}, fake_confirm,
                               method="sat")
    assert asked == ["dlx"] and out.status == status
    assert "dlx" in out.referee
    referee.judge(case, m({"status": "unsat"}), "other", "sat")
    assert asked == ["dlx"]                                 # once per instance and method


def test_the_confirmer_is_of_another_family():
    assert confirmer_for("sat") == "dlx"
    for method in ("exact-cover", "search", "external", "other"):
        assert confirmer_for(method) == "sat"


def test_a_verified_grid_of_one_entrant_refutes_a_later_no_solution_claim():
    text = grid_text.format_native(Grid(2, np.zeros((4, 4), np.int32)))
    referee = Referee(1.0, lambda *a: pytest.fail("the grid already refutes the claim"))
    case = referee.case("k", text, "empty")
    sent = grid_text.format_compact(Grid(2, pattern_grid(2)))
    first = referee.judge(case, m({"status": "solved", "verified": True, "solution": sent}), "dlx",
                          "exact-cover")
    assert first.status == "solved" and first.referee == "verified grid"
    second = referee.judge(case, m({"status": "unsat"}), "liar", "external")
    assert second.status == "wrong" and "dlx returned a verified solution" in second.message


@pytest.mark.parametrize("sent", [None, "1234", "garbage"])
def test_a_solved_claim_without_a_grid_that_verifies_is_wrong(sent):
    _, _, out = judge(native("holes", holes=0.6),
                      {"status": "solved", "verified": True, "solution": sent})
    assert out.status == "wrong" and "could not verify" in out.message


def test_the_real_confirmer_proves_and_refutes():
    unsat = confirm(unsat_without_record(), "sat", 60)
    assert unsat.status == "unsat"
    grid, _ = puzzle_set.make("holes", 2, 0, 0, holes=0.6)
    found = confirm(grid, "dlx", 60)
    assert found.status == "solved" and found.solution is not None


def test_counts_are_refuted_by_proof_and_disputed_by_claims():
    unique = truth_of(puzzle_file("unique"))
    assert proof_refutes(1, True, 2, unique) is None and record_disputes(1, True, 2, unique) is None
    assert proof_refutes(2, True, 2, unique) is None                 # one grid proves >= 1 only
    assert "kind=unique" in record_disputes(2, True, 2, unique)      # the header says exactly 1
    assert "claimed no solution" in proof_refutes(0, True, 2, unique)
    many = truth_of(grid_text.parse(grid_text.format_native(unsat_without_record())), "many")
    assert proof_refutes(1, True, None, many) is None                # a header proves nothing
    assert record_disputes(1, True, None, many) is not None          # ... but disputes exact 1
    assert record_disputes(1, False, None, many) is None             # "at least 1" agrees
    unsat = truth_of(puzzle_file("unsat"))
    assert proof_refutes(1, False, None, unsat) is None
    assert "kind=unsat" in record_disputes(1, False, None, unsat)
    assert record_disputes(3, True, None, Truth()) is None           # nothing recorded


# -- liars through the whole pipeline ------------------------------------------------------

def invoke(*args: str, code: int | None = 0):
    result = CliRunner().invoke(main, list(args), obj={"registry": fake_registry()})
    if code is not None:
        assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def liar_campaigns(tmp_path_factory):
    """The liars raced beside dlx and alone, n = 2, two families (unique and hard), 2 instances."""
    out = tmp_path_factory.mktemp("liars")
    beside = invoke("run", "--no-report", "--n", "2", "--instances", "2", "--kind", "unique,hard", "--out", str(out),
                    "--campaign", "beside", "--solvers", ",".join(("dlx", *LIARS)), "--timeout", "10")
    alone = invoke("run", "--no-report", "--n", "2", "--instances", "2", "--kind", "unique,hard", "--out", str(out),
                   "--campaign", "alone", "--solvers", ",".join(LIARS), "--timeout", "10")
    return out, beside, alone


@pytest.mark.parametrize("campaign", ["beside", "alone"])
def test_every_liar_row_is_wrong_and_the_summary_says_so(liar_campaigns, campaign):
    out, beside, alone = liar_campaigns
    rows = runs_table.read_rows(out / campaign / "runs.csv")
    liars = [r for r in rows if r["entrant"] in LIARS]
    assert len(liars) == len(LIARS) * 2 * 2
    assert {r["status"] for r in liars} == {"wrong"}
    assert all(r["verified"] in ("False", "false", "0") for r in liars)
    text = (beside if campaign == "beside" else alone).output
    for family in ("unique", "hard"):               # one block per family, each loud
        block = text.split(f"== {family}")[1]
        assert f"!!! WRONG ANSWERS: {len(liars) // 2} cell(s)" in block
    assert f"!!! {len(liars)} WRONG ANSWER(S) in this run !!!" in text
    for liar in LIARS:
        line = next(x for x in text.splitlines() if x.startswith(liar))
        assert line.split()[2] == "0/2"                  # solved count 0
    if campaign == "beside":
        assert {r["status"] for r in rows if r["entrant"] == "dlx"} == {"solved"}


def test_compare_export_and_report_agree_with_the_referee(liar_campaigns, tmp_path):
    out, _, _ = liar_campaigns
    directory = str(out / "beside")
    compared = invoke("compare", directory, "dlx", "liar-unsat")
    assert f"!!! WRONG: liar-unsat gave {2 * 2} wrong answer(s)" in compared.output
    for line in compared.output.splitlines():
        parts = line.split()
        if parts and parts[0] in ("unique", "hard") and parts[1].isdigit():
            assert parts[3] == "2" and parts[4] == "0"      # dlx faster on both, the liar never
    exported = invoke("export", directory, "-f", "csv", "-o", str(tmp_path / "e.csv"))
    assert exported.exit_code == 0
    with open(tmp_path / "e.csv") as f:
        table = list(csv.DictReader(f))
    assert {r["status"] for r in table if r["entrant"] in LIARS} == {"wrong"}
    invoke("report", directory, "--no-pdf", "--paper", "--report-dir", str(tmp_path / "rep"))
    macros = (tmp_path / "rep" / "generated" / "macros.tex").read_text()
    assert f"\\newcommand{{\\campaignWrongCount}}{{{len(LIARS) * 4}}}" in macros


def test_a_liar_in_the_landscape_is_wrong(tmp_path):
    result = invoke("landscape", "--n", "2", "--holes", "0.5", "--instances", "2", "--out",
                    str(tmp_path), "--solvers", "dlx,liar-unsat", "--no-peaks", "--timeout", "10")
    rows = runs_table.read_rows(next(d for d in tmp_path.iterdir() if d.name != "instances")
                             / "runs.csv")
    assert {r["status"] for r in rows if r["entrant"] == "liar-unsat"} == {"wrong"}
    assert "WRONG" in result.output


def test_a_false_claim_on_an_imported_set_is_wrong(tmp_path):
    grid, _ = puzzle_set.make("unique", 2, 0, 0)
    (tmp_path / "p.txt").write_text(grid_text.format_one_line(grid) + "\n")
    invoke("run", "--no-report", "--instances", str(tmp_path / "p.txt"), "--out", str(tmp_path / "r"),
           "--solvers", "liar-unsat", "--timeout", "10")
    rows = runs_table.read_rows(next(d for d in (tmp_path / "r").iterdir() if d.name != "instances")
                             / "runs.csv")
    assert [r["status"] for r in rows] == ["wrong"]
    assert "claimed no solution, but sat found a verified solution" in rows[0]["message"]


# -- a header is a claim, a verified grid is proof ----------------------------------------

def forged(tmp_path: Path, grid: Grid, name: str, **header: str) -> str:
    """``grid`` written with the header lines ``header`` (which may say anything)."""
    path = tmp_path / name
    path.write_text(grid_text.format_native(grid, header))
    return str(path)


def test_a_forged_unsat_header_neither_admits_a_false_none_nor_refuses_a_verified_grid(tmp_path):
    """A solvable puzzle whose header says kind=unsat: a program that always says "no
    solution" is refuted by the second method (exit 2; count: no 0), and an honest solver's
    verified grid is printed (exit 0) with a warning that names the file as wrong."""
    from tests.test_hostile_audit import script
    grid, _ = puzzle_set.make("unique", 2, 0, 0)
    path = forged(tmp_path, grid, "forged.sudoku", kind="unsat")
    liar = script(tmp_path, "liar.py", 'print("no solution")\n')
    for command in ("solve", "count"):
        result = invoke(command, "-s", f"cmd:path={liar}", path, code=2)
        assert "claimed no solution, but sat found a verified solution" in result.stderr
    for spec in ("dlx", "sat", "backtracking"):
        solved = invoke("solve", "-s", spec, path, code=0)
        assert grid_text.parse(solved.stdout).grids[0].empties() == 0
        assert solved.stderr.startswith(f"race: warning: {path}: the file's record is wrong: it "
                                        "says no solution (kind=unsat), but ")
        assert "returned a verified solution" in solved.stderr
        counted = invoke("count", "-s", spec, path, code=0)
        assert counted.stdout == "1\n" and "the file's record is wrong" in counted.stderr
    for header in ({"solutions": "0"}, {"kind": "unsat", "solutions": "0"}):
        other = forged(tmp_path, grid, "forged0.sudoku", **header)
        assert invoke("solve", "-s", "dlx", other, code=0).stdout
        assert invoke("solve", "-s", "liar-unsat", other, code=2)


def test_a_confirmed_none_stands_against_a_header_that_says_there_are_solutions(tmp_path):
    """The header's "one solution" (an import's count) over a puzzle without one: the honest
    "no solution" is confirmed (exit 1), the file named as wrong; the same for a count."""
    for word in ("1", "many"):
        path = forged(tmp_path, unsat_without_record(), f"none-{word}.sudoku", solutions=word)
        solved = invoke("solve", "-s", "dlx", path, code=1)
        assert "no solution" in solved.stderr and "the file's record is wrong" in solved.stderr
        assert f"solutions={word}" in solved.stderr and "sat confirmed that it has none" in solved.stderr
        counted = invoke("count", "-s", "sat", path, code=0)
        assert counted.stdout == "0\n" and "dlx confirmed that it has none" in counted.stderr


def test_a_count_the_header_disputes_is_settled_by_a_second_count(tmp_path):
    """A puzzle with two solutions whose header says kind=unique (with one of them): dlx's
    count of 2 stands, confirmed by a second count, and the file is named as wrong; a solver
    that counts 1 is wrong by that second count, never by the header."""
    grid, meta = puzzle_set.make("multi", 2, 0, 0)
    path = forged(tmp_path, grid, "not-unique.sudoku", kind="unique", solution=meta["planted"])
    counted = invoke("count", "-s", "dlx", path, code=0)
    assert counted.stdout == "2\n"
    assert "it says exactly one solution (kind=unique), but dlx and sat both counted 2" in counted.stderr
    solved = invoke("solve", "-s", "dlx", path, code=0)
    assert solved.stdout                                    # one solution is the answer of solve
    lied = invoke("count", "-s", "liar-too-few", path, code=2)
    assert "claimed 1 solution(s), but dlx counted 2" in lied.stderr


def test_the_referee_of_a_race_flags_a_record_a_verified_grid_or_the_second_method_contradicts():
    solvable = native("unique")
    referee = Referee(1.0, lambda grid, by, t: Confirmation("unsat", by))
    lie = grid_text.parse(solvable)
    lie.metadata = {"kind": "unsat"}
    case = referee.case("a", grid_text.format_native(lie.grids[0], lie.metadata), "a.sudoku")
    sent = grid_text.format_compact(truth_of(grid_text.parse(solvable)).solution)
    out = referee.judge(case, m({"status": "solved", "verified": True, "solution": sent}), "dlx",
                        "exact-cover")
    assert out.status == "solved" and out.verified
    assert "the instance's record is wrong (it says no solution (kind=unsat))" in out.referee
    assert "a.sudoku" in referee.wrong_records["a.sudoku"]
    none = grid_text.format_native(unsat_without_record(), {"solutions": "1"})
    case = referee.case("b", none, "b.sudoku")
    out = referee.judge(case, m({"status": "unsat"}), "dlx", "exact-cover")
    assert out.status == "unsat" and "confirmed by sat" in out.referee
    assert "it says exactly one solution (solutions=1)" in referee.wrong_records["b.sudoku"]


def _forge_imported(directory: Path, file: str, word: str) -> None:
    """Rewrite an imported instance's header and manifest row to say ``solutions=word``
    (and its sha256 to match, as a hand that edits both would)."""
    import hashlib
    path = directory / file
    text = path.read_text().replace("# solutions=", f"# solutions={word}\n# was=")
    path.write_text(text)
    manifest = directory / "manifest.csv"
    rows = list(csv.DictReader(open(manifest, newline="")))
    for row in rows:
        if row["file"] == file:
            row["solutions"], row["sha256"] = word, hashlib.sha256(text.encode()).hexdigest()
    with open(manifest, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def test_a_race_on_forged_records_keeps_verified_grids_and_confirms_every_none(tmp_path):
    """An imported set whose records lie both ways (a solvable puzzle said to have none, one
    without a solution said to have one): dlx's grid is solved and the record flagged; the
    liar's "none" on the solvable one is wrong even when it runs first; the true "none" is
    confirmed, not turned wrong by the header."""
    grid, _ = puzzle_set.make("unique", 2, 0, 0)
    (tmp_path / "p.txt").write_text(grid_text.format_one_line(grid) + "\n"
                                    + grid_text.format_one_line(unsat_without_record()) + "\n")
    invoke("import", str(tmp_path / "p.txt"), "-o", str(tmp_path / "set"))
    files = sorted(r["file"] for r in csv.DictReader(open(tmp_path / "set" / "manifest.csv")))
    _forge_imported(tmp_path / "set", files[0], "0")
    _forge_imported(tmp_path / "set", files[1], "1")
    result = invoke("run", "--instances", str(tmp_path / "set"), "--out", str(tmp_path / "r"),
                    "--campaign", "c", "--solvers", "liar-unsat,dlx", "--order", "fixed",
                    "--jobs", "1", "--timeout", "10")
    rows = {(r["entrant"], r["instance"]): r for r in runs_table.read_rows(tmp_path / "r" / "c" / "runs.csv")}
    assert rows["liar-unsat", files[0]]["status"] == "wrong"
    assert rows["dlx", files[0]]["status"] == "solved"
    assert "the instance's record is wrong" in rows["dlx", files[0]]["referee"]
    assert rows["dlx", files[1]]["status"] == rows["liar-unsat", files[1]]["status"] == "unsat"
    for file in files:
        assert f"race: warning: {file}: the file's record is wrong" in result.stderr


def test_an_unruled_none_is_not_made_wrong_by_a_header_alone(tmp_path):
    """Reading a campaign back: an "unsat" row the referee did not rule on is wrong only by a
    solution its instance file holds, not by the file's header (solutions=1)."""
    import hashlib

    from experiments.analysis import censored_stats
    from tests.test_summary import run as row
    from tests.test_summary import write_campaign
    data = grid_text.format_native(unsat_without_record(), {"solutions": "1"}).encode()
    (tmp_path / "instances" / "set").mkdir(parents=True)
    (tmp_path / "instances" / "set" / "u.sudoku").write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    campaign = censored_stats.load(write_campaign(tmp_path / "c", [row("a", 2, "u.sudoku", "unsat", 0.1,
                                                                 instance_sha256=sha)]))
    assert campaign.runs["status"].tolist() == ["unsat"]


# -- one cell identity ---------------------------------------------------------------------

def test_families_that_share_puzzles_are_two_families(tmp_path):
    args = ("run", "--no-report", "--n", "3", "--instances", "3", "--kind", "hard,holes", "--holes", "0.7",
            "--pattern", "balanced", "--solvers", "dlx", "--out", str(tmp_path), "--timeout", "10")
    first = invoke(*args)
    directory = next(d for d in tmp_path.iterdir() if d.name != "instances")
    rows = runs_table.read_rows(directory / "runs.csv")
    assert len(rows) == 6 and {r["family"] for r in rows} == {"hard", "holes@0.7"}
    assert "damaged" not in first.output
    assert "== hard" in first.output and "== holes" in first.output
    again = invoke(*args)
    assert "0 to run" in again.output and "damaged" not in again.output
    assert len(runs_table.read_rows(directory / "runs.csv")) == 6
    assert not (directory / records.DAMAGED_NAME).exists()


def test_rows_without_a_family_column_keep_the_key_they_had():
    old = {"entrant": "dlx", "n": "3", "instance": "a/b.sudoku", "repeat": "0", "kind": "holes",
           "holes": "0.55"}
    assert records.cell_key(old) == ("holes@0.55", "dlx", 3, "a/b.sudoku", 0)
    assert records.cell_key({**old, "kind": "hard"})[0] == "hard"
    assert records.cell_key({**old, "holes": ""})[0] == "holes"
    assert records.cell_key({**old, "family": "holes@0.55"}) == records.cell_key(old)


def test_the_committed_reference_campaigns_still_read():
    for name in ("reference-n2-10", "reference-landscape"):
        found = records.scan(ROOT / "results" / name / "runs.csv")
        assert found.rows and not found.damaged
        keys = [records.cell_key(r) for r in found.rows]
        assert len(set(keys)) == len(keys)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["# kind=imported\n", "#solutions=0\n", "# a=b=c\n", "#\n", "#x",
                                 ". 2 . 4\n", "\n", "# planted=1 2 3\n", "1 # z=1\n", "#k=v"]),
                max_size=8))
def test_the_key_lines_are_found_in_the_header_alone_when_no_other_line_has_one(parts):
    from experiments.harness.referee import _KEY_LINE, _key_lines
    text = "".join(parts)
    assert _KEY_LINE.findall(_key_lines(text)) == _KEY_LINE.findall(text)
