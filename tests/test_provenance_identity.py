"""Each entrant's code identity (meta.json's ``entrant_code``): ``race compare`` pairs only
entrants of the same code (``--pair-different`` names both sides), and ``race run`` resumes
a campaign only with the code that measured its rows (``--mixed`` keeps them and records
which code measured which, ``--rerun ENTRANT`` moves them aside and runs the cells again)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from experiments.analysis import campaign_diff, censored_stats, mixed_campaign, noise
from experiments.cli.main import main
from experiments.harness import code_identity, runs_table
from tests.test_analysis import write_campaign
from tests.test_compare import cell
from tests.test_html_report import _block

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "tests" / "outside_solvers" / "backtrack_solver.py"
SPEC = "cmd:path=./mysolver.py"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def here(tmp_path, monkeypatch):
    """tmp_path as the working directory, holding the program ./mysolver.py."""
    monkeypatch.chdir(tmp_path)
    program = tmp_path / "mysolver.py"
    program.write_bytes(SOLVER.read_bytes())
    program.chmod(0o755)
    return tmp_path


def edit(program: Path) -> None:
    """Change the program's bytes (not what it does)."""
    with open(program, "a") as f:
        f.write("# edited\n")


def race(campaign: str, *extra: str, solvers: str = SPEC, instances: int = 3):
    return invoke("run", "--no-report", "-q", "--n", "2", "--instances", str(instances),
                  "--family", "unique", "--timeout", "10", "-j", "1", "--out", "res",
                  "--campaign", campaign, "--solvers", solvers, *extra)


def meta(campaign: str) -> dict:
    return json.loads((Path("res") / campaign / "meta.json").read_text())


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()[1:] if path.is_file() else []


def digest(campaign: str, spec: str = SPEC) -> str:
    return meta(campaign)["entrant_code"][spec]["digest"]


# -- race compare -------------------------------------------------------------------------

def test_compare_refuses_entrants_whose_program_differs(here):
    """Two cmd campaigns of the same spec text whose program file differs: not paired."""
    assert race("old").exit_code == 0
    edit(here / "mysolver.py")
    assert race("new").exit_code == 0
    before, after = digest("old"), digest("new")
    assert before != after
    refused = invoke("compare", "res/old", "res/new")
    assert refused.exit_code == 2, refused.output
    (line,) = refused.output.strip().splitlines()
    assert line.startswith("race: error: entrant cmd:path=./mysolver.py ran other code")
    assert f"[{before[:6]}..] vs [{after[:6]}..]" in line and "--pair-different" in line
    assert "NEW/OLD" not in refused.output                        # no table


def test_pair_different_compares_and_names_both_sides_above_the_table(here):
    assert race("old").exit_code == 0
    edit(here / "mysolver.py")
    assert race("new").exit_code == 0
    before, after = digest("old"), digest("new")
    done = invoke("compare", "res/old", "res/new", "--pair-different")
    assert done.exit_code == 0, done.output
    text = done.output.splitlines()
    named = f"code: cmd:path=./mysolver.py [{before[:6]}..] vs [{after[:6]}..]"
    assert named in text
    table = next(i for i, line in enumerate(text) if line.startswith("entrant"))
    assert text.index(named) < table
    differences = [line for line in text[:table] if line.startswith("differs: ")]
    assert any(line.startswith("differs: load: ") for line in differences), text   # two runs
    rows = [line for line in text[table + 2:] if line.startswith(SPEC)]
    assert len(rows) == 1 and rows[0].split()[3] == "3"            # n=2, its 3 pairs
    as_json = json.loads(invoke("compare", "res/old", "res/new", "--pair-different",
                                "--format", "json").output)
    assert as_json["code"] == [named.removeprefix("code: ")]


def test_the_same_program_is_paired_without_being_told(here):
    assert race("old").exit_code == 0
    assert race("new").exit_code == 0
    assert digest("old") == digest("new")
    done = invoke("compare", "res/old", "res/new")
    assert done.exit_code == 0, done.output
    assert not [line for line in done.output.splitlines() if line.startswith("code: ")]


def test_pair_different_is_for_two_campaigns(here):
    assert race("old", solvers=f"{SPEC},dlx").exit_code == 0
    result = invoke("compare", "res/old", SPEC, "dlx", "--pair-different")
    assert result.exit_code == 2 and "--pair-different compares two campaigns" in result.output


def _synthetic(root: Path, code: dict | None, provenance: dict | None = None) -> Path:
    rows = [cell("dlx", f"i{k}", 1.0 + k) for k in range(5)]
    extra: dict[str, object] = {"entrants": ["dlx"]}
    if code is not None:
        extra["entrant_code"] = {"dlx": code}
    if provenance is not None:
        extra["entrant_provenance"] = {"dlx": provenance}
    return write_campaign(root, rows, extra)


def test_code_recorded_on_one_side_only_is_paired_and_shown(tmp_path):
    """A campaign made before identities were recorded: paired, its side [unknown]."""
    old = _synthetic(tmp_path / "old", None)
    new = _synthetic(tmp_path / "new", {"kind": "source", "digest": "b" * 64})
    result = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))
    assert result.code == [f"dlx [unknown] vs [{'b' * 6}..]"]
    same = campaign_diff.diff(censored_stats.load(new), censored_stats.load(new))
    assert same.code == []


def test_a_program_sha256_recorded_before_identities_counts(tmp_path):
    """meta.json's entrant_provenance (older campaigns) gives a cmd entrant's code too."""
    old = _synthetic(tmp_path / "old", None, {"path": "/p", "sha256": "a" * 64})
    new = _synthetic(tmp_path / "new", {"kind": "program", "digest": "b" * 64})
    with pytest.raises(Exception, match=r"\[aaaaaa\.\.\] vs \[bbbbbb\.\.\]"):
        campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))


def test_mixed_code_on_one_side_is_refused_unless_told(tmp_path):
    old = _synthetic(tmp_path / "old", {"kind": "source", "digest": "b" * 64,
                                        "earlier": [{"digest": "a" * 64, "rows": 2}]})
    new = _synthetic(tmp_path / "new", {"kind": "source", "digest": "b" * 64})
    with pytest.raises(Exception, match="mixed code"):
        campaign_diff.diff(censored_stats.load(old), censored_stats.load(new))
    result = campaign_diff.diff(censored_stats.load(old), censored_stats.load(new), pair_different=True)
    assert result.code == [f"dlx [{'a' * 6}..]+[{'b' * 6}..] vs [{'b' * 6}..]"]


# -- race run: a resume with other code -----------------------------------------------------

def test_a_resume_with_changed_code_is_refused_and_nothing_moves(here):
    assert race("c").exit_code == 0
    runs = Path("res/c/runs.csv")
    rows, recorded = runs.read_bytes(), Path("res/c/meta.json").read_bytes()
    before = digest("c")
    edit(here / "mysolver.py")
    refused = race("c", instances=4)
    assert refused.exit_code == 2, refused.output
    (line,) = [x for x in refused.output.splitlines() if x.strip()]
    assert f"the code of entrant {SPEC} changed" in line
    assert f"[{before[:6]}..] -> [{code_identity.file_sha256(here / 'mysolver.py')[:6]}..]" in line
    assert "--mixed" in line and f"--rerun {SPEC}" in line
    assert runs.read_bytes() == rows and Path("res/c/meta.json").read_bytes() == recorded


def test_mixed_keeps_every_row_and_records_which_code_measured_them(here):
    assert race("c", solvers=f"{SPEC},dlx").exit_code == 0
    old_rows = lines(Path("res/c/runs.csv"))
    first = digest("c")
    edit(here / "mysolver.py")
    done = race("c", "--mixed", solvers=f"{SPEC},dlx", instances=4)
    assert done.exit_code == 0, done.output
    now = lines(Path("res/c/runs.csv"))
    assert now[:len(old_rows)] == old_rows and len(now) == 8        # kept, + 1 instance each
    entry = meta("c")["entrant_code"][SPEC]
    assert entry["digest"] == code_identity.file_sha256(here / "mysolver.py") != first
    (earlier,) = entry["earlier"]
    assert earlier["digest"] == first and earlier["rows"] == 3 and earlier["until"] == entry["since"]
    assert "earlier" not in meta("c")["entrant_code"]["dlx"]       # its code did not change
    again = race("c", solvers=f"{SPEC},dlx", instances=4)          # settled: a plain resume
    assert again.exit_code == 0, again.output
    assert lines(Path("res/c/runs.csv")) == now


def test_rerun_moves_the_entrants_rows_aside_and_runs_its_cells_again(here):
    assert race("c", solvers=f"{SPEC},dlx").exit_code == 0
    old_rows = lines(Path("res/c/runs.csv"))
    mine = [row for row in old_rows if row.startswith(f"c,{SPEC},")]
    assert len(mine) == 3
    first = digest("c")
    edit(here / "mysolver.py")
    done = race("c", "--rerun", SPEC, solvers=f"{SPEC},dlx")
    assert done.exit_code == 0, done.output
    assert lines(Path("res/c/runs.replaced.csv")) == mine           # moved, byte for byte
    rows = runs_table.read_rows(Path("res/c/runs.csv"))
    assert len(rows) == 6 and sum(r["entrant"] == SPEC for r in rows) == 3
    assert [row for row in lines(Path("res/c/runs.csv")) if not row.startswith(f"c,{SPEC},")] \
        == [row for row in old_rows if row not in mine]              # dlx's rows untouched
    assert not set(lines(Path("res/c/runs.csv"))) & set(mine)       # re-measured, not copied
    entry = meta("c")["entrant_code"][SPEC]
    (replaced,) = entry["replaced"]
    assert replaced["digest"] == first and replaced["rows"] == 3
    assert replaced["moved_to"] == "runs.replaced.csv" and entry["digest"] != first
    assert "earlier" not in entry                                    # its rows: one code


def test_rerun_of_an_unchanged_entrant_measures_it_again(here):
    assert race("c").exit_code == 0
    mine = lines(Path("res/c/runs.csv"))
    done = race("c", "--rerun", SPEC)
    assert done.exit_code == 0, done.output
    assert lines(Path("res/c/runs.replaced.csv")) == mine and len(lines(Path("res/c/runs.csv"))) == 3


def test_rerun_moves_nothing_when_the_resume_is_refused_for_another_reason(here):
    assert race("c").exit_code == 0
    rows = Path("res/c/runs.csv").read_bytes()
    refused = race("c", "--rerun", SPEC, "--seed", "1")
    assert refused.exit_code == 2 and "seed=0, not 1" in refused.output, refused.output
    assert Path("res/c/runs.csv").read_bytes() == rows
    assert not Path("res/c/runs.replaced.csv").exists()


def test_rerun_names_an_entrant_of_the_race(here):
    assert race("c").exit_code == 0
    result = race("c", "--rerun", "dlx")
    assert result.exit_code == 2
    assert "--rerun dlx: not an entrant of this race" in result.output
    assert not Path("res/c/runs.replaced.csv").exists()


# -- identities --------------------------------------------------------------------------

def test_a_modules_identity_follows_the_sources_it_imports(tmp_path, monkeypatch):
    """The digest of a solver module changes with a module it imports (and a data file it
    names beside it), not with one it does not import."""
    package = tmp_path / "mysolvers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "solver.py").write_text("from mysolvers import helper\nTABLE = 'table.csv'\n")
    (package / "helper.py").write_text("X = 1\n")
    (package / "other.py").write_text("Y = 1\n")
    (package / "table.csv").write_text("a,b\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    first = code_identity.of_module("mysolvers.solver")
    assert first["kind"] == "plugin" and first["files"] == 4       # __init__, solver, helper, csv
    (package / "other.py").write_text("Y = 2\n")
    assert code_identity.of_module("mysolvers.solver")["digest"] == first["digest"]
    (package / "helper.py").write_text("X = 2\n")
    second = code_identity.of_module("mysolvers.solver")
    assert second["digest"] != first["digest"]
    (package / "table.csv").write_text("a,c\n")
    assert code_identity.of_module("mysolvers.solver")["digest"] != second["digest"]
    sys.modules.pop("mysolvers", None)


def test_built_in_entrants_are_identified_by_their_sources():
    from experiments.harness.entrants import parse_entrants
    found = code_identity.current(parse_entrants("dlx,backtracking,dlx:heuristic=first"))
    assert {i["kind"] for i in found.values()} == {"source"}
    assert found["dlx"]["digest"] == found["dlx:heuristic=first"]["digest"]    # same code
    assert found["dlx"]["digest"] != found["backtracking"]["digest"]
    files, _ = code_identity.sources("solvers.exact_cover.dlx")
    names = {str(f.relative_to(ROOT)) for f in files}
    assert {"solvers/exact_cover/dlx.py", "solvers/interface.py", "formats/grid.py"} <= names
    assert "solvers/sat/solver.py" not in names                             # not imported by dlx
    assert found["dlx"]["kernel_sha256"] is None                     # no C kernel of its own
    _, kernels = code_identity.sources("solvers.exact_cover.batch")             # the batch path's has one
    assert [k.name for k in kernels] == ["dlx_native.c"]
    assert code_identity.of_module("solvers.exact_cover.batch")["kernel_sha256"]


# -- the report says so --------------------------------------------------------------------

def test_the_report_says_a_campaign_mixes_code(here):
    assert race("c").exit_code == 0
    edit(here / "mysolver.py")
    resumed = race("c", "--mixed", instances=4)
    assert resumed.exit_code == 0, resumed.output
    campaign = censored_stats.load(Path("res/c"))
    (line,) = [w for w in mixed_campaign.warnings(campaign) if "code" in w]
    assert line.startswith(f"{SPEC}: its rows mix code: [") and "(3 row(s) until" in line
    assert f"WARNING: {line}" in resumed.stderr.splitlines()       # the run's summary says so
    assert f"WARNING: {line}" in noise.warnings(campaign)           # race plot, the LaTeX report
    shown = invoke("report", "res/c", "--html", "-o", "page.html")
    assert shown.exit_code == 0, shown.output
    data = _block(Path("page.html").read_text(), "race-data")
    assert line in data["warnings"]
    code = meta("c")["entrant_code"][SPEC]
    assert ["entrants' code", f"{SPEC} [{code['earlier'][0]['digest'][:6]}..]"
            f"+[{code['digest'][:6]}..]"] in data["meta"]


def test_the_report_says_a_campaign_mixes_machines(tmp_path):
    rows = [cell("dlx", f"i{k}", 1.0 + k) for k in range(4)]
    for k, row in enumerate(rows):
        row["worker"] = f"{'alpha' if k < 2 else 'beta'}:{100 + k}"
    root = write_campaign(tmp_path / "c", rows, {"entrants": ["dlx"]})
    (line,) = mixed_campaign.warnings(censored_stats.load(root))
    assert line == "its rows were measured on 2 machines: alpha (2 rows), beta (2 rows)"
    one = write_campaign(tmp_path / "one", [cell("dlx", "i0", 1.0)], {"entrants": ["dlx"]})
    assert mixed_campaign.warnings(censored_stats.load(one)) == []


def test_mixed_machines_are_read_from_the_worker_column():
    frame = pd.DataFrame({"worker": ["a:1", "a:2", "b:1", "", "a:3"]})
    assert mixed_campaign.machines(frame) == {"a": 3, "b": 1}


# -- race merge ------------------------------------------------------------------------------

def _merge_source(root: Path, code: str, worker: str) -> Path:
    rows = [cell("dlx", f"i{k}", 1.0 + k) | {"worker": worker} for k in range(3)]
    return write_campaign(root, rows, {"entrants": ["dlx"], "entrant_code": {
        "dlx": {"kind": "source", "digest": code * 64, "since": "2026-01-01T00:00:00.000Z"}}})


def test_merge_refuses_sources_whose_entrant_ran_other_code(tmp_path):
    one = _merge_source(tmp_path / "one", "a", "alpha:1")
    other = _merge_source(tmp_path / "other", "b", "beta:1")
    refused = invoke("merge", str(one), str(other), "-o", str(tmp_path / "m"))
    assert refused.exit_code == 2 and "dlx's code" in refused.output, refused.output
    assert "b" * 64 in refused.output and not (tmp_path / "m").exists()


def test_merge_keeps_the_shared_code_and_says_the_rows_mix_machines(tmp_path):
    one = _merge_source(tmp_path / "one", "a", "alpha:1")
    other = _merge_source(tmp_path / "other", "a", "beta:1")
    merged = invoke("merge", str(one), str(other), "-o", str(tmp_path / "m"))
    assert merged.exit_code == 0, merged.output
    assert json.loads((tmp_path / "m" / "meta.json").read_text())["entrant_code"]["dlx"][
        "digest"] == "a" * 64
    assert mixed_campaign.warnings(censored_stats.load(tmp_path / "m")) == [
        "its rows were measured on 2 machines: alpha (3 rows), beta (3 rows)"]


# -- an entrant under its label (a cmd entrant's name=) ---------------------------------------

def test_a_labelled_entrant_is_checked_under_its_spec(here):
    """``cmd:...,name=mine`` is called mine by the analysis; its code is still recorded (and
    compared, and re-run) under its spec."""
    labelled = f"{SPEC},name=mine"
    assert race("old", solvers=labelled).exit_code == 0
    edit(here / "mysolver.py")
    assert race("new", solvers=labelled).exit_code == 0
    refused = invoke("compare", "res/old", "res/new")
    assert refused.exit_code == 2 and "entrant mine ran other code" in refused.output, \
        refused.output
    assert f"[{digest('old', labelled)[:6]}..] vs [{digest('new', labelled)[:6]}..]" \
        in refused.output
    edit(here / "mysolver.py")
    done = race("new", "--rerun", "mine", solvers=labelled)
    assert done.exit_code == 0, done.output
    assert len(lines(Path("res/new/runs.replaced.csv"))) == 3


def test_merge_claims_no_code_for_rows_a_source_did_not_record(tmp_path):
    one = _merge_source(tmp_path / "one", "a", "alpha:1")
    rows = [cell("dlx", f"i{k}", 1.0 + k) | {"worker": "beta:1"} for k in range(3)]
    older = write_campaign(tmp_path / "older", rows, {"entrants": ["dlx"]})
    merged = invoke("merge", str(one), str(older), "-o", str(tmp_path / "m"))
    assert merged.exit_code == 0, merged.output
    assert "entrant_code" not in json.loads((tmp_path / "m" / "meta.json").read_text())


def test_race_landscape_refuses_other_code_too_and_takes_mixed(here):
    args = ["landscape", "--n", "2", "--holes", "0.5", "--instances", "2", "--solvers", SPEC,
            "--timeout", "10", "-j", "1", "--out", "res", "--campaign", "l", "--no-peaks"]
    assert invoke(*args).exit_code == 0
    rows = lines(Path("res/l/runs.csv"))
    edit(here / "mysolver.py")
    refused = invoke(*args)
    assert refused.exit_code == 2 and f"the code of entrant {SPEC} changed" in refused.output
    mixed = invoke(*args, "--mixed")
    assert mixed.exit_code == 0, mixed.output
    assert lines(Path("res/l/runs.csv")) == rows and len(rows) == 2
    assert meta("l")["entrant_code"][SPEC]["earlier"][0]["rows"] == 2
