"""race report --frontier: the section "Where the methods stop" (table_frontier.tex and its
macros) from frontier campaigns written here with the project's record writer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.analysis import censored_stats, frontier
from experiments.analysis import growth as growth_fit
from experiments.cli.main import main
from experiments.harness import runs_table
from experiments.harness.provenance import save_meta
from experiments.harness.rows import Row
from experiments.report import build as report
from experiments.report import frontier as report_frontier
from experiments.report.macros import campaign_macros

LIMIT = 60.0
SAT, KISSAT, CPSAT = "sat:config=sat", "kissat:config=sat", "cpsat:model=int"
PARALLEL = "parallel:members=sat:config=sat+kissat:config=sat"
#: per entrant, the wall time of each answered puzzle (puzzles 0..4; absent: a timeout)
ANSWERS = {SAT: {0: 10.0, 1: 20.0, 2: 30.0}, KISSAT: {3: 40.0}, PARALLEL: {0: 5.0, 1: 6.0, 2: 7.0, 3: 8.0},
           CPSAT: {}}
CORES = {PARALLEL: 2}


def frontier_campaign(root: Path, n: int = 6, name: str = "hard-n6", answers=ANSWERS) -> Path:
    """A hard-family campaign at ``n`` with 5 puzzles (half the cells empty) and the entrants
    of ``answers``: an answered puzzle is solved and verified in its time (CPU time: the
    time on each core held), every other cell a timeout recorded at the limit (CPU: the
    limit on each core). Puzzle 4 nobody answers; cpsat also returns an unverified grid on
    puzzle 0 in 1 s, which is no answer."""
    root.mkdir(parents=True, exist_ok=True)
    with runs_table.RunsWriter(root / "runs.csv") as writer:
        for entrant, answered in answers.items():
            cores = CORES.get(entrant, 1)
            for k in range(5):
                row = {"campaign": name, "entrant": entrant, "solver": entrant.split(":")[0], "params": "{}",
                       "n": n, "family": "hard", "holes": 0.5, "seed": 0,
                       "instance": f"holes-n{n}-s0-{k:04d}.sudoku", "instance_sha256": f"{n}{k}" * 8,
                       "clues": n ** 4 // 2, "repeat": 0, "cores": cores, "timeout_s": LIMIT}
                if k in answered:
                    row.update(status="solved", verified=True, wall_s=answered[k], cpu_s=cores * answered[k])
                elif entrant == CPSAT and k == 0:
                    row.update(status="solved", verified=False, wall_s=1.0, cpu_s=1.0)
                else:
                    row.update(status="timeout", verified=False, wall_s=LIMIT, cpu_s=cores * LIMIT)
                writer.write(Row(**row))
    save_meta(root / "meta.json", {
        "campaign": name, "command": f"race run --family hard --n {n} --instances 5 --timeout 60",
        "created_at": "2026-11-24T10:00:00.000Z", "n_values": [n], "entrants": list(answers),
        "family_labels": "hard", "seed": 0, "instances": 5, "repeats": 1, "timeout_s": LIMIT,
        "memory_mb": 4096.0, "jobs": 1, "executor": "local"})
    return root


@pytest.fixture(scope="module")
def campaigns(tmp_path_factory) -> tuple[Path, Path]:
    """(a main campaign: the same design at n = 5, a frontier campaign at n = 6)."""
    root = tmp_path_factory.mktemp("frontier")
    return (frontier_campaign(root / "main", n=5, name="main"), frontier_campaign(root / "hard-n6"))


def _rows(directory: Path):
    loaded = [censored_stats.load(directory)]
    entrants = frontier.entrant_rows(loaded)
    return frontier.group_rows(loaded, entrants), entrants.set_index("entrant")


def test_frontier_rows_count_answers_and_never_average_a_timeout(campaigns):
    groups, rows = _rows(campaigns[1])
    assert list(rows.index) == [SAT, KISSAT, PARALLEL, CPSAT]
    assert rows["answered"].to_dict() == {SAT: 3, KISSAT: 1, PARALLEL: 4, CPSAT: 0}
    assert set(rows["total"]) == {5}
    # over all puzzles a timeout is "beyond the limit": SAT's median is its third answer (30 s, not
    # 30 s averaged with anything), kissat's (4 timeouts) is only known to exceed the limit
    assert rows.loc[SAT, "median_s"] == 30.0 and rows.loc[KISSAT, "median_s"] == float("inf")
    assert rows.loc[CPSAT, "median_s"] == float("inf")
    # of the answered alone: the timeouts recorded at 60 s do not enter (with them: 30 s, 45 s)
    assert rows.loc[SAT, "answered_median_s"] == 20.0 and rows.loc[KISSAT, "answered_median_s"] == 40.0
    assert rows.loc[PARALLEL, "answered_median_s"] == 6.5
    assert rows["cores"].to_dict() == {SAT: 1, KISSAT: 1, PARALLEL: 2, CPSAT: 1}
    assert rows.loc[PARALLEL, "cpu_answered_median_s"] == 13.0       # both members' CPU time
    # cpsat's unverified grid is no answer: no time of its own
    assert rows.loc[CPSAT, "answered_median_s"] != rows.loc[CPSAT, "answered_median_s"]   # nan
    g = groups.iloc[0]
    assert (g["n"], g["family"], g["holes"], g["limit_s"], g["puzzles"]) == (6, "hard", 0.5, LIMIT, 5)
    assert (g["anyone"], g["nobody"]) == (4, 1)
    assert (g["best"], g["best_answered"], g["best_cores"]) == (PARALLEL, 4, 2)
    assert g["median_s"] == 7.0          # fastest answer per puzzle: 5, 6, 7, 8 and one beyond the limit


def test_best_entrant_ties_go_to_the_smaller_par2(tmp_path):
    tied = frontier_campaign(tmp_path / "tied", answers={SAT: {0: 50.0, 1: 50.0}, KISSAT: {2: 1.0, 3: 2.0}})
    groups, _ = _rows(tied)
    assert (groups.iloc[0]["best"], groups.iloc[0]["best_answered"]) == (KISSAT, 2)


def test_frontier_table_rows_match_the_data(campaigns, tmp_path):
    result = _report(str(campaigns[0]), "--report-dir", str(tmp_path), "--no-pdf", "--paper", "--frontier", str(campaigns[1]))
    assert result.exit_code == 0, result.output
    table = (tmp_path / "generated" / "table_frontier.tex").read_text()
    assert (r"\multicolumn{6}{l}{$n=6$ ($36\times36$), hard, 50\,\% empty, limit 60\,s, 5 puzzles "
            r"(\texttt{hard-\allowbreak{}n6})} \\") in table
    cells = {re.sub(r"\\allowbreak\{\}|\\texttt\{|\}$", "", line.split(" & ")[0]): line.split(" & ")[1:]
             for line in table.splitlines() if line.count(" & ") == 5}
    strip = [c.removesuffix(r" \\") for c in cells[SAT]]
    assert strip == ["1", "3/5", r"30\,s", r"20\,s", "--"]
    assert [c.removesuffix(r" \\") for c in cells[KISSAT]] == ["1", "1/5", r"$>$\,60\,s", r"40\,s", "--"]
    assert [c.removesuffix(r" \\") for c in cells[PARALLEL]] == ["2", "4/5", r"7\,s", r"6.5\,s", r"13\,s"]
    assert [c.removesuffix(r" \\") for c in cells[CPSAT]] == ["1", "0/5", r"$>$\,60\,s", "--", "--"]
    assert [c.removesuffix(r" \\") for c in cells["any entrant"]] == ["", "4/5", r"7\,s", r"6.5\,s", ""]
    macros = (tmp_path / "generated" / "macros.tex").read_text()
    assert r"\hasFrontiertrue" in macros and r"\hasFrontierCorestrue" in macros
    defined = dict(re.findall(r"^\\newcommand\{\\(frontier[A-Za-z]+)\}\{(.*)\}$", macros, flags=re.M))
    assert defined["frontierPuzzles"] == "5" and defined["frontierUnanswered"] == "1"
    assert defined["frontierSizes"] == "$n=6$" and defined["frontierLimits"] == r"60\,s"
    assert defined["frontierBest"] == (r"at $n=6$, \texttt{parallel:\allowbreak{}members=\allowbreak{}sat:"
                                       r"\allowbreak{}config=\allowbreak{}sat+\allowbreak{}kissat:\allowbreak{}"
                                       r"config=\allowbreak{}sat} on 2 cores (4 of 5 puzzles; median of those "
                                       r"6.5\,s)")
    # the main campaign (n = 5, same family): some median is measured up to n = 5
    assert r"\hasFrontierMaintrue" in macros and defined["frontierMainLargestN"] == "5"


def test_a_report_without_frontier_has_no_frontier_section(campaigns):
    campaign = censored_stats.load(campaigns[0])
    table = censored_stats.summary(campaign)
    macros = campaign_macros(campaign, table, growth_fit.growth_table(campaign, table)).text()
    assert r"\hasFrontierfalse" in macros and r"\hasFrontierCoresfalse" in macros
    assert r"\hasFrontierMainfalse" in macros and r"\newcommand{\frontierBest}{n/a}" in macros
    empty = frontier.group_rows([]), frontier.entrant_rows([])
    assert "\\multicolumn" not in report_frontier.frontier_tabular(*empty)
    # report.tex puts the whole section, heading, text and table, under the flag
    source = (report.REPORT_DIR / "report.tex").read_text()
    guarded = source.split(r"\ifhasFrontier" + "\n", 1)[1].split("\n\\fi\n", 1)[0]
    assert r"\subsection{Where the methods stop}" in guarded and "table_frontier.tex" in guarded
    outside = re.sub(r"\\ifhasFrontier\n.*?\n\\fi\n", "", source, count=1, flags=re.S)
    assert "frontier" not in outside.lower() and "Where the methods stop" not in outside


def test_the_same_frontier_twice_is_one_campaign(campaigns):
    assert len(frontier.load([campaigns[1], campaigns[1] / "."])) == 1


def _report(*args: str):
    return CliRunner().invoke(main, ["report", *args])


def test_a_missing_frontier_dir_is_one_line_exit_2(campaigns, tmp_path):
    missing = tmp_path / "no-such-campaign"
    result = _report(str(campaigns[0]), "--report-dir", str(tmp_path / "r"), "--no-pdf",
                     "--frontier", str(campaigns[1]), "--frontier", str(missing))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"--frontier {missing}" in lines[0] and "not a campaign directory" in lines[0]
    assert not (tmp_path / "r" / "generated").exists()        # read before anything is written


@pytest.mark.parametrize("damage", ["meta", "runs"])
def test_a_malformed_frontier_dir_is_one_line_exit_2_naming_it(campaigns, tmp_path, damage):
    bad = frontier_campaign(tmp_path / "bad")
    if damage == "meta":
        (bad / "meta.json").write_text('{"campaign": "bad", "timeout_s": ')
    else:
        (bad / "runs.csv").write_text("not,a,runs,table\n1,2,3,4\n")
    result = _report(str(campaigns[0]), "--report-dir", str(tmp_path / "r"), "--no-pdf", "--frontier", str(bad))
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and f"--frontier {bad}" in lines[0]
    assert str(bad / ("meta.json" if damage == "meta" else "runs.csv")) in lines[0]


def test_report_help_documents_frontier():
    text = " ".join(_report("--help").output.split())
    assert "--frontier DIR" in text and "Where the methods stop" in text and "Repeatable" in text


def test_the_html_page_tables_the_frontier_and_only_when_given(campaigns, tmp_path):
    from tests.test_html_report import _block
    page = tmp_path / "page.html"
    result = _report(str(campaigns[0]), "--html", "--no-grids", "-o", str(page), "--frontier", str(campaigns[1]))
    assert result.exit_code == 0, result.output
    data = _block(page.read_text(encoding="utf-8"), "race-data")
    rows = {row[6]: row for row in data["frontier"]}
    assert data["frontier_columns"][6] == "entrant" and list(rows) == [SAT, KISSAT, PARALLEL, CPSAT, "any entrant"]
    assert rows[SAT] == ["hard-n6", "hard", "6", "50%", "60 s", "5", SAT, "1", "3/5", "30 s", "20 s", "-"]
    assert rows[KISSAT][8:] == ["1/5", "> 60 s", "40 s", "-"]
    assert rows[PARALLEL][7:] == ["2", "4/5", "7 s", "6.5 s", "13 s"]
    assert rows[CPSAT][8:] == ["0/5", "> 60 s", "-", "-"]
    assert rows["any entrant"][7:] == ["", "4/5", "7 s", "6.5 s", ""]
    bare = tmp_path / "bare.html"
    assert _report(str(campaigns[0]), "--html", "--no-grids", "-o", str(bare)).exit_code == 0
    assert _block(bare.read_text(encoding="utf-8"), "race-data")["frontier"] == []
    missing = _report(str(campaigns[0]), "--html", "--no-grids", "-o", str(tmp_path / "x.html"),
                      "--frontier", str(tmp_path / "none"))
    assert missing.exit_code == 2 and f"--frontier {tmp_path / 'none'}" in missing.output
    assert not (tmp_path / "x.html").exists()
