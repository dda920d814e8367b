"""What README.md and the docs say about the committed campaigns is what those campaigns hold:
each sentence that quotes a number or compares methods is rebuilt here from results/ (the
summary `race export` prints) and must appear word for word; and the list of methods is one
truth, solvers/methods.py, wherever the project names its methods."""

from __future__ import annotations

import csv
import functools
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from experiments.analysis import censored_stats
from experiments.cli.main import main
from solvers import methods, registry

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


def flat(path: Path) -> str:
    """The file's text with every run of white space one space."""
    return re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))


@functools.cache
def summary(name: str):
    return censored_stats.summary(censored_stats.load(RESULTS / name))


def row(name: str, family: str, entrant: str, n: int):
    table = summary(name)
    hit = table[(table["family"] == family) & (table["entrant"] == entrant) & (table["n"] == n)]
    assert len(hit) == 1, (name, family, entrant, n)
    return hit.iloc[0]


def every_solved_up_to(name: str, family: str, entrant: str) -> int:
    """The largest n up to which ``entrant`` answered every puzzle (at every smaller n too)."""
    table = summary(name)
    rows = table[(table["family"] == family) & (table["entrant"] == entrant)].sort_values("n")
    best = 0
    for r in rows.itertuples():
        if r.solved != r.total:
            break
        best = r.n
    return best


def grid(n: int) -> str:
    return f"{n * n}×{n * n}"


def seconds(value: float) -> str:
    return censored_stats.format_seconds(value)


def answered(name: str) -> dict[str, set[str]]:
    """Per entrant of campaign ``name``, the instances it answered."""
    runs = censored_stats.load(RESULTS / name).runs
    ok = runs[censored_stats.answered(runs)]
    return {e: set(ok.loc[ok["entrant"] == e, "instance"]) for e in runs["entrant"].unique()}


# ---------------------------------------------------------------- one list of methods

def test_every_builtin_entrant_has_its_method_in_the_one_list():
    """A new built-in entrant that is a method of its own needs its line in solvers/methods.py."""
    for name in registry.SOLVERS:
        if name not in methods.OTHERS:
            assert methods.of_entrant(name) is not None, f"entrant {name}: no method in solvers/methods.py"
    assert [m.name for m in methods.of_entrants(["kissat", "dlx", "sat:backend=glucose4", "cmd:path=x"])] \
        == ["dancing links", "SAT"]


def test_readme_docs_help_and_site_name_the_same_methods():
    sentence = (f"{methods.count_word().capitalize()} methods share one rules core: "
                f"{methods.join([m.phrase for m in methods.METHODS])}")
    assert sentence in flat(ROOT / "README.md")
    assert sentence in flat(ROOT / "docs" / "index.md")
    words = "|".join(methods._WORDS[2:])
    for path in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        for match in re.finditer(rf"\b({words}) methods\b", flat(path), flags=re.I):
            assert match.group(1).lower() == methods.count_word(), f"{path}: {match.group(0)!r}"
    helped = CliRunner().invoke(main, ["--help"]).output
    assert methods.description() in re.sub(r"\s+", " ", helped)
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert not re.search(r"^site_description:", config, flags=re.M), "the hook sets it"
    assert "docs/hooks/site_description.py" in config
    import importlib.util
    spec = importlib.util.spec_from_file_location("site_description", ROOT / "docs/hooks/site_description.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)

    class Config:
        site_description = None
    assert hook.on_config(Config()).site_description == methods.description()


def test_the_papers_title_names_the_methods_its_campaign_raced():
    from experiments.analysis.growth import growth_table
    from experiments.report.macros import campaign_macros
    campaign = censored_stats.load(RESULTS / "reference-n2-10")
    tex = (ROOT / "report" / "report.tex").read_text(encoding="utf-8")
    # \reportTitle is both the title page's title and the PDF's metadata title
    assert re.search(r"\\title\{\\reportTitle\\\\", tex)
    assert re.search(r"pdftitle=\{\\reportTitle\}", tex)
    title = re.search(r"\\newcommand\{\\reportTitle\}\{(.*)\}$", tex, flags=re.M).group(1)
    assert r"\campaignMethodCount" in title and r"\campaignMethods" in title
    table = censored_stats.summary(campaign)
    text = campaign_macros(campaign, table, growth_table(campaign, table),
                           {"campaignMethodCount", "campaignMethods"}).text()
    assert r"\newcommand{\campaignMethodCount}{four}" in text
    assert r"\newcommand{\campaignMethods}{backtracking, dancing links, bit sets and SAT}" in text


# ---------------------------------------------------------------- the reference campaign

REF = "reference-n2-10"


def unique_sentence() -> str:
    """Every entrant's median on unique puzzles up to the campaign's largest n, under a bound."""
    table = summary(REF)
    unique = table[table["family"] == "unique"]
    largest = int(unique["n"].max())
    worst = float(unique["median_s"].max())
    assert worst < 0.05
    return f"stays under 50 ms up to {grid(largest)}"


def test_readme_says_what_the_reference_campaign_measured():
    text = flat(ROOT / "README.md")
    campaign = censored_stats.load(RESULTS / REF)
    assert (campaign.meta["instances"], campaign.timeout_s) == (10, 20)
    assert "10 puzzles per family and n, 20 s each" in text
    assert f"the median of each of its {methods.count_word(len(campaign.entrants))} entrants" in text
    assert unique_sentence() in text
    bt, dlx = every_solved_up_to(REF, "hard", "backtracking"), every_solved_up_to(REF, "hard", "dlx")
    assert row(REF, "hard", "backtracking", bt + 1)["solved"] == 0
    assert f"backtracking answers every {grid(bt)} and none of the {grid(bt + 1)}" in text
    after = row(REF, "hard", "dlx", dlx + 1)
    assert f"DLX every {grid(dlx)} and {after.solved} of {after.total} at {grid(dlx + 1)}" in text
    sat, kissat = every_solved_up_to(REF, "hard", "sat"), every_solved_up_to(REF, "hard", "kissat")
    assert sat == kissat
    assert row(REF, "hard", "sat", sat + 1)["solved"] == row(REF, "hard", "kissat", sat + 1)["solved"] == 0
    assert (f"SAT every {grid(sat)} (median {seconds(row(REF, 'hard', 'sat', sat)['median_s'])} in-process, "
            f"{seconds(row(REF, 'hard', 'kissat', sat)['median_s'])} with kissat) and none of the "
            f"{grid(sat + 1)} within 20 s") in text
    assert "all four methods answer every 25×25" not in text


def test_docs_index_says_what_the_reference_campaign_measured():
    text = flat(ROOT / "docs" / "index.md")
    assert unique_sentence() in text
    ups = [every_solved_up_to(REF, "hard", e) for e in ("backtracking", "dlx", "sat")]
    assert (f"backtracking answers every puzzle only up to n = {ups[0]}, DLX up to n = {ups[1]}, "
            f"SAT up to n = {ups[2]}") in text
    skipped = {e: row(REF, "hard", e, ups[2] + 1)["skipped"] for e in ("backtracking", "dlx")}
    assert all(count == 10 for count in skipped.values())
    assert f"at n = {ups[2] + 1} neither SAT entrant answers any puzzle within 20 s" in text


def test_performance_page_table_of_the_reference_campaign():
    text = flat(ROOT / "docs" / "performance.md")
    assert unique_sentence() in text
    for family in ("hard", "holes"):
        cells = []
        for entrant in ("backtracking", "dlx", "sat", "kissat"):
            up = every_solved_up_to(REF, family, entrant)
            median = row(REF, family, entrant, up)["median_s"]
            cells.append(f"{up} (median {median:.2f} s)" if median >= 0.1 else str(up))
        assert f"| {' | '.join(cells)} |" in text, (family, cells)
    bt = summary(REF)
    bt = bt[(bt["family"] == "unique") & (bt["entrant"] == "backtracking")]
    failed = bt[bt["solved"] < bt["total"]]
    assert list(failed["n"]) == [4] and int(failed["total"].iloc[0] - failed["solved"].iloc[0]) == 1
    assert "| `unique` (Algorithm 2) | 10, but for one 16×16 that timed out | 10 | 10 | 10 |" in text
    assert "every method answers every 25×25" not in text


# ---------------------------------------------------------------- the frontier

def test_the_frontier_counts_in_readme_index_and_performance():
    n6, n7 = answered("reference-hard-n6"), answered("reference-hard-n7")
    best = ["sat:config=sat", "kissat:config=sat", "parallel:members=sat:config=sat+kissat:config=sat"]
    each = {len(n6[e]) for e in best}
    together = len(set().union(*n6.values()))
    total6 = censored_stats.load(RESULTS / "reference-hard-n6").runs["instance"].nunique()
    total7 = censored_stats.load(RESULTS / "reference-hard-n7").runs["instance"].nunique()
    assert each == {3} and together == 4 and (total6, total7) == (20, 10)
    assert not set().union(*n7.values())
    readme = flat(ROOT / "README.md")
    assert (f"of {total6} hard 36×36 puzzles, the best entrants (SAT in its satisfiable-leaning "
            f"configuration, kissat, and a two-core `parallel` portfolio of both) answer 3 each within 60 s "
            f"and {together} together") in readme
    assert f"of {total7} hard 49×49, none" in readme
    index = flat(ROOT / "docs" / "index.md")
    assert f"answer 3 of {total6} hard 36×36 puzzles each, {together} together, and none of {total7} hard 49×49" \
        in index
    perf = flat(ROOT / "docs" / "performance.md")
    counts = [len(n6[e]) for e in ["sat:config=sat", "kissat:config=sat", "cpsat:model=int", best[2]]]
    assert f"| 6 (50%) | {total6} | {' | '.join(map(str, counts))} | {together} |" in perf
    assert f"| 7 (45%) | {total7} | 0 | 0 | 0 | not raced | 0 |" in perf
    runs = censored_stats.load(RESULTS / "reference-hard-n6").runs
    par2 = row("reference-hard-n6", "hard", best[2], 6)["par2_s"]
    assert f"its PAR-2 ({par2:.0f} s wall) is the lowest" in perf
    assert par2 == summary("reference-hard-n6")["par2_s"].min()
    # the per-puzzle table: a row per puzzle some entrant answered, each entrant's time or "-"
    raw = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    table = raw.split("What answered what at n = 6", 1)[1].split("\n\n", 2)[1]
    rows = {int(line.split("|")[1]): [c.strip() for c in line.split("|")[2:-1]]
            for line in table.splitlines()[2:]}
    puzzles = {int(re.search(r"-(\d{4})\.sudoku$", i).group(1)): i for i in set().union(*n6.values())}
    assert sorted(rows) == sorted(puzzles)
    entrants = ["sat:config=sat", "kissat:config=sat", "cpsat:model=int", best[2]]
    for number, instance in puzzles.items():
        for entrant, cell in zip(entrants, rows[number]):
            hit = runs[(runs["instance"] == instance) & (runs["entrant"] == entrant) & censored_stats.answered(runs)]
            if len(hit):
                assert cell.split()[0] == f"{hit['wall_s'].iloc[0]:.1f}", (number, entrant, cell)
            else:
                assert cell.startswith("-"), (number, entrant, cell)
    assert f"the other {total6 - together} puzzles: no entrant within 60 s" in perf


def test_the_600_s_follow_up_of_the_first_ten_puzzles():
    """README: of the first ten, the eight none answered within 60 s stay unanswered by kissat at 600 s."""
    n6 = answered("reference-hard-n6")
    first_ten = {f"holes-n6-s0-{i:04d}.sudoku" for i in range(10)}
    hit = {Path(i).name for i in set().union(*n6.values())} & first_ten
    unanswered = sorted(int(name[-11:-7]) for name in first_ten - hit)
    assert len(unanswered) == 8
    with open(ROOT / "docs" / "frontier-600s.csv", newline="") as f:
        tried = [r for r in csv.DictReader(f) if r["entrant"] == "kissat:config=sat" and r["seed"] == "0"]
    assert sorted(int(r["puzzle"]) for r in tried) == unanswered
    assert all(r["answered"] == "0" and r["limit_cpu_s"] == "600" for r in tried)
    assert ("of the first ten, the eight that none answered in 60 s stay unanswered by kissat at 600 s each"
            in flat(ROOT / "README.md"))


@pytest.mark.parametrize("path", ["README.md", "docs/index.md", "docs/performance.md"])
def test_no_claim_that_every_method_answers_every_hard_25x25(path):
    text = flat(ROOT / path)
    assert not re.search(r"(all|every) (four |three )?methods? answers? every 25×25", text)


# ---------------------------------------------------------------- docs/solvers: sat.md and auto.md

def par2_sums(name: str, family: str | None = None, n: int | None = None) -> dict[str, float]:
    """Per entrant of campaign ``name`` (on ``family`` at ``n`` when given): PAR-2 summed over
    the puzzles, an unanswered one counting as twice the limit."""
    import math
    campaign = censored_stats.load(RESULTS / name)
    runs = campaign.runs
    if family is not None:
        runs = runs[(runs["family"] == family) & (runs["n"] == n)]
    times = censored_stats.instance_times(runs)
    return {e: sum(t if math.isfinite(t) else 2 * campaign.timeout_s for t in group["time"])
            for e, group in times.groupby("entrant", sort=False)}


def test_the_sat_page_table_of_hard_25x25_campaigns():
    text = flat(ROOT / "docs" / "solvers" / "sat.md")
    fallback = "sat:fallback=kissat"
    s11 = par2_sums("reference-hard-n5-fallback")
    s10 = par2_sums("reference-hard-n5") | par2_sums("reference-hard-n5-fallback-s10")
    s0 = par2_sums("reference-n2-10", "hard", 5) | par2_sums("reference-hard-n5-fallback-s0")
    config = par2_sums("reference-hard-n5-config-s10")["sat:config=sat"] + \
        par2_sums("reference-hard-n5-config-s11")["sat:config=sat"]

    def cells(sums: dict[str, float]) -> str:
        return " | ".join(f"{sums[e]:.1f} s" for e in ("sat", "kissat", fallback))
    assert f"| 20 hard n = 5, seed 11 (`reference-hard-n5-fallback`) | {cells(s11)} | |" in text
    assert f"| 20 hard n = 5, seed 10 (`reference-hard-n5`, `-fallback-s10`) | {cells(s10)} | |" in text
    assert f"| 10 hard n = 5, seed 0 (`reference-n2-10`, `reference-hard-n5-fallback-s0`) | {cells(s0)} | |" in text
    both = {e: s10[e] + s11[e] for e in ("sat", "kissat", fallback)}
    assert (f"| 40 hard n = 5, seeds 10 and 11 (`reference-hard-n5-config-s10`, `-s11`) | {cells(both)} | "
            f"{config:.1f} s |") in text
    first_three = {e: s11[e] + s10[e] + s0[e] for e in ("sat", fallback)}
    assert f"({first_three[fallback]:.1f} s against {first_three['sat']:.1f} s)" in text
    assert first_three[fallback] > first_three["sat"] and config < min(both.values())


def test_the_auto_page_table_of_its_evaluation():
    text = flat(ROOT / "docs" / "solvers" / "auto.md")
    order = ["auto", "sat:config=sat", "kissat", "sat", "dlx", "backtracking"]
    for seed, names in {3: ["eval-auto-s3"], 21: ["eval-auto-s21", "eval-auto-s21-new"],
                        41: ["eval-auto-s41"]}.items():
        sums: dict[str, float] = {}
        for name in names:                       # -new re-ran auto (and sat:config=sat) on the same puzzles
            sums |= par2_sums(name)
        best = min(sums[e] for e in order)
        cells = [f"**{sums[e]:.2f}**" if sums[e] == best else f"{sums[e]:.2f}" for e in order]
        assert f"| {seed} | {' | '.join(cells)} |" in text, (seed, cells)
    assert "90 puzzles per entrant" in text
    assert all(len(censored_stats.load(RESULTS / f"eval-auto-s{s}").runs.query("entrant == 'auto'")) == 90
               for s in (3, 21, 41))


def test_the_auto_page_on_the_parallel_entrant_and_seed_41():
    text = flat(ROOT / "docs" / "solvers" / "auto.md")
    parallel = "parallel:members=sat:config=sat+kissat:config=sat"
    n6 = answered("reference-hard-n6")
    assert len(n6[parallel]) == len(n6["sat:config=sat"]) == len(n6["kissat:config=sat"]) == 3
    mine = row("reference-hard-n6", "hard", parallel, 6)["par2_s"]
    other = row("reference-hard-n6", "hard", "sat:config=sat", 6)["par2_s"]
    assert f"it answered 3 (as many as `sat:config=sat` and `kissat:config=sat` alone) with a PAR-2 of " \
           f"{mine:.0f} s of wall time against {other:.0f} s for `sat:config=sat`" in text
    runs = censored_stats.load(RESULTS / "eval-auto-s41").runs
    hard6 = runs[(runs["family"] == "hard") & (runs["n"] == 6) & censored_stats.answered(runs)]
    only = [i for i, g in hard6.groupby("instance") if set(g["entrant"]) == {"kissat"}]
    assert len(only) == 1
    seconds_taken = float(hard6.loc[hard6["instance"] == only[0], "wall_s"].iloc[0])
    assert f"kissat answered one hard 36×36 puzzle in {seconds_taken:.0f} s that nobody else answered in 10 s" \
        in text


def test_the_generators_page_on_the_committed_landscape_and_peaks():
    text = flat(ROOT / "docs" / "generators.md")
    landscape = censored_stats.load(RESULTS / "reference-landscape")
    assert (landscape.meta["instances"], landscape.timeout_s) == (5, 20)
    assert "(`results/reference-landscape`: balanced holes, 5 puzzles per point, 20 s limit)" in text
    with open(ROOT / "generators" / "hardness_peaks.csv", newline="") as f:
        peaks = {int(r["n"]): float(r["holes"]) for r in csv.DictReader(f) if r["pattern"] == "balanced"}
    listed = ", ".join(f"{peaks[n]:.2f} at n = {n}" for n in sorted(peaks))
    assert f"The peak moves to smaller shares of empty cells as n grows: {listed};" in text
    runs = landscape.runs
    for n in (6, 7):
        at_peak = runs[(runs["n"] == n) & (runs["holes"].astype(float).round(2) == peaks[n])
                       & runs["entrant"].isin(["sat", "kissat"])]
        assert len(at_peak) == 10 and not censored_stats.answered(at_peak).any()
    assert max(runs["n"]) == 7
    assert ("from n = 6 on, at the peak, neither SAT entrant (sat, kissat) answers any of the 5 puzzles "
            "within 20 s") in text


def test_the_backtracking_page_on_the_reference_campaign():
    text = flat(ROOT / "docs" / "solvers" / "backtracking.md")
    table = summary(REF)
    unique = table[table["family"] == "unique"]
    best = unique.loc[unique.groupby("n")["median_s"].idxmin()]
    wins = int((best["entrant"] == "backtracking").sum())
    sizes = unique["n"].nunique()
    assert (f"it has the smallest median time at {wins} of the {sizes} sizes from n = {unique['n'].min()} "
            f"to {unique['n'].max()}, though one 16×16 puzzle timed out") in text
    assert row(REF, "unique", "backtracking", 4)["timeout"] == 1
    hard = table[(table["family"] == "hard") & (table["entrant"] == "backtracking")]
    assert row(REF, "hard", "backtracking", 4)["solved"] == 0
    assert (hard[hard["n"] > 4]["skipped"] == hard[hard["n"] > 4]["runs"]).all()
    assert "on `hard` puzzles it answers none at n = 4 and is skipped beyond" in text


def test_the_compare_and_reports_pages_describe_the_hard_25x25_campaigns():
    n5 = censored_stats.load(RESULTS / "reference-hard-n5")
    config = censored_stats.load(RESULTS / "reference-hard-n5-config-s10")
    assert n5.entrants == ["sat", "kissat"] and n5.meta["seed"] == 10 and n5.n_values == [5]
    assert set(n5.runs["family"]) == {"hard"} and n5.runs["instance_sha256"].nunique() == 20
    assert config.entrants == ["sat:config=sat"]
    assert set(config.runs["instance_sha256"]) == set(n5.runs["instance_sha256"])
    assert ("The committed campaigns `reference-hard-n5` (sat and kissat on 20 hard 25×25 puzzles, seed 10) "
            "and `reference-hard-n5-config-s10` (`sat:config=sat`, CaDiCaL in its stable mode only, on the "
            "same puzzles)") in flat(ROOT / "docs" / "race" / "compare.md")
    assert "a small committed campaign: sat and kissat on 20 hard 25×25 puzzles" in flat(ROOT / "docs" / "reports.md")
