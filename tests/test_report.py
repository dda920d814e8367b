"""Plots, generated LaTeX files, and the report PDF built from a real small campaign."""

from __future__ import annotations

import csv
import itertools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.image as mpimg
import pytest
from click.testing import CliRunner

from experiments.analysis import censored_stats, head_to_head, phase_plots, plots
from experiments.analysis import frontier as frontier_data
from experiments.analysis import growth as growth_fit
from experiments.cli.main import main
from experiments.harness import schema
from experiments.report import build as report
from experiments.report import latex, tables, tex
from experiments.report.macros import campaign_macros
from solvers.sat.sudoku_cnf import structural_clause_count
from tests.test_report_frontier import frontier_campaign

#: the committed reference campaign the committed report is built from
REFERENCE = report.REPORT_DIR.parent / "results" / "reference-n2-10"
#: the frontier campaigns `make report` passes (the second once it exists)
FRONTIER = [report.REPORT_DIR.parent / "results" / name for name in ("reference-hard-n6", "reference-hard-n7")]
SECTIONS = ["The problem", "Three methods", "File formats and data structures",
            "Instances: the generator", "Experimental design", "Results", "Discussion", "References"]


def _status(family: str, entrant: str, n: int, k: int, t: float, limit: float) -> str:
    """unique: backtracking times out at n = 4 (then skipped); hard: backtracking from
    n = 3, DLX on one instance at n = 4, anything slower than the limit."""
    if entrant == "backtracking" and n >= (4 if family == "unique" else 3):
        return "timeout" if k == 0 else "skipped"
    if family == "hard" and entrant == "dlx" and n == 4 and k == 0:
        return "timeout"
    return "timeout" if t > limit else "solved"


def synthetic_campaign(root: Path, families: tuple[str, ...] = ("unique",)) -> Path:
    """Four entrants (backtracking, dlx, sat, kissat) x n = 2..4 x 3 instances per family,
    with counters and phases as each solver reports them; unique: one timeout and one
    skipped n; hard (100 times slower, see :func:`_status`): more censoring."""
    rows = []
    limit = 5.0
    for family, (e, (base, growth)) in itertools.product(families, {
            "backtracking": (1e-5, 300.0), "dlx": (2e-5, 8.0), "sat": (1e-3, 6.0),
            "kissat": (5e-3, 4.0)}.items()):
        for n in (2, 3, 4):
            for k in range(3):
                t = base * growth ** (n - 2) * (1 + k) * (100 if family == "hard" else 1)
                status = _status(family, e, n, k, t, limit)
                r: dict[str, object] = {c: "" for c in schema.COLUMNS}
                r.update(campaign="syn", entrant=e, solver=e, n=n, family=family, seed=0,
                         instance=f"{family}-n{n}-{k}.sudoku", instance_sha256=f"{family}{n}{k}",
                         clues=n ** 4 // 2 if family == "unique" else n ** 4 * 2 // 5, repeat=0, status=status,
                         verified=status == "solved", timeout_s=limit, iterations=1,
                         params=json.dumps({"backend": "kissat", "encoding": "extended"} if e == "kissat"
                                           else {"backend": "cadical195", "encoding": "extended"}
                                           if e == "sat" else {}))
                if status == "solved":
                    r.update(wall_s=t, cpu_s=t, t_check=t / 100, t_verify=t / 100)
                    if e == "backtracking":
                        r.update(nodes=int(t * 1e7), checks=int(t * 3e7), t_search=0.98 * t)
                    elif e == "dlx":
                        r.update(nodes=int(t * 1e6), updates=int(t * 1e8), t_build=0.3 * t, t_search=0.6 * t)
                    else:
                        r.update(conflicts=k, decisions=int(t * 1e5), vars=n ** 6,
                                 clauses=structural_clause_count(n, "extended"), t_encode=0.4 * t, t_search=0.4 * t,
                                 t_decode=0.1 * t, t_write=0.1 * t if e == "kissat" else "")
                elif status == "timeout":
                    r.update(wall_s=limit, cpu_s=limit)
                rows.append(r)
    root.mkdir(parents=True, exist_ok=True)
    with open(root / "runs.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, schema.COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    meta = {"campaign": "syn", "command": "race run --n 2..4 --instances 3 --timeout 5",
            "created_at": "2026-11-21T20:00:00.000Z", "n_values": [2, 3, 4],
            "entrants": ["backtracking", "dlx", "sat", "kissat"], "family_labels": ",".join(families), "seed": 0,
            "instances": 3, "repeats": 1, "timeout_s": limit, "memory_mb": 4096.0, "jobs": 2,
            "executor": "local", "git_commit": "0123456789abcdef-dirty", "python": "3.11.7",
            "packages": {"numpy": "2.0", "numba": "0.60", "python-sat": "1.8.dev30"},
            "kissat_version": "4.0.1", "machine": {"cpu_model": "Test CPU_1 & co", "cores": 2,
                                                   "ram_gb": 8.0, "os": "Linux", "hostname": "h"}}
    (root / "meta.json").write_text(json.dumps(meta))
    return root


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory) -> Path:
    return synthetic_campaign(tmp_path_factory.mktemp("syn") / "syn")


@pytest.fixture(scope="session")
def generated(synthetic, tmp_path_factory) -> tuple[Path, list[Path]]:
    """report.write_generated on the synthetic campaign: (report dir, files written)."""
    root = tmp_path_factory.mktemp("report")
    return root, report.write_generated(censored_stats.load(synthetic), root)


def race_command() -> list[str]:
    """The `race` console script of this interpreter's environment."""
    script = Path(sys.executable).with_name("race")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from experiments.cli.main import main; main()"]


@pytest.fixture(scope="session")
def small_campaign(tmp_path_factory) -> Path:
    """A real campaign: `race run --n 2..3 --instances 2 --solvers backtracking,dlx --timeout 10`."""
    out = tmp_path_factory.mktemp("race")
    proc = subprocess.run([*race_command(), "run", "--no-report", "--n", "2..3", "--instances", "2", "--solvers",
                           "backtracking,dlx", "--family", "unique", "--timeout", "10", "--jobs", "1", "--out", str(out),
                           "--campaign", "small"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out / "small"


# ---------------------------------------------------------------- names and macros

def test_macro_names_are_letters_only():
    assert tex.macro_name("dlx", "Median", "N5") == "dlxMedianNFive"
    assert tex.macro_name("sat:backend=glucose4,encoding=reduced") == "satBackendGlucoseFourEncodingReduced"
    assert tex.number_word(12) == "Twelve" and tex.number_word(195) == "OneNineFive"
    with pytest.raises(ValueError):
        tex.Macros().add("dlx2", "x")


def test_reduction_sizes_match_the_assignment():
    assert structural_clause_count(3, "minimal") == 3240    # the assignment's example for n = 3
    assert structural_clause_count(3, "extended") == 11988  # Lynce & Ouaknine's extended encoding, 9x9
    sizes = tables.sizes_table([2, 5]).set_index("n")
    assert sizes.loc[5, "vars"] == 5 ** 6 and sizes.loc[5, "columns"] == 4 * 5 ** 4


def read_macros(path: Path) -> dict[str, str]:
    text = path.read_text()
    pairs = re.findall(r"^\\newcommand\{\\([A-Za-z]+)\}\{(.*)\}$", text, flags=re.M)
    assert len(pairs) == text.count("\\newcommand"), "a macro line did not parse"
    return dict(pairs)


def test_generated_files_and_macros(synthetic, generated):
    campaign = censored_stats.load(synthetic)
    root, written = generated
    gen = root / "generated"
    for name in ("table_summary.tex", "table_work.tex", "table_phases.tex", "table_growth.tex",
                 "table_sizes.tex", "macros.tex", "runtime.pdf", "runtime.png", "phases.pdf"):
        assert gen / name in written and (gen / name).stat().st_size > 0
    macros = read_macros(gen / "macros.tex")
    assert len(macros) == len(set(macros))
    table = censored_stats.summary(campaign)
    dlx2 = table[(table.entrant == "dlx") & (table.n == 2)].iloc[0]
    assert macros["dlxMedianNTwo"] == tex.tex_seconds(dlx2["median_s"])
    assert macros["dlxSolvedNTwo"] == "3/3"
    assert macros["backtrackingMedianNFour"] == r"$>$\,5\,s"       # censored: 1 timeout + 2 skipped
    assert macros["backtrackingMaxAllSolvedN"] == "3" and macros["backtrackingFirstFailN"] == "4"
    assert macros["dlxMedianNFive"] == "n/a"                    # canonical n = 5 is always defined
    assert macros["minimalClausesNThree"] == "3{,}240"
    assert macros["machineCpu"] == r"Test CPU\_1 \& co"        # escaped for LaTeX
    assert "uncommitted" in macros["campaignGitCommit"]
    assert macros["dlxGrowthFactor"] == "8"
    # medians at n = 3: backtracking 3e-3 * 2 s, dlx 1.6e-4 * 2 s: 18.75 times, to 2 digits
    medians = table[table.n == 3].set_index("entrant")["median_s"]
    assert medians["backtracking"] / medians["dlx"] == pytest.approx(18.75)
    assert macros["dlxVsBacktrackingNThree"] == "19 times faster than"
    summary = (gen / "table_summary.tex").read_text()
    assert r"\toprule" in summary and r"\bottomrule" in summary and "kissat" in summary


def test_report_macros_are_exactly_those_report_tex_uses():
    """Every camelCase control word of report.tex (how the generated macros are named) and
    every ``\\if<flag>`` it tests is defined by the generated macros.tex, which defines
    nothing else."""
    source = (report.REPORT_DIR / "report.tex").read_text()
    source = re.sub(r"(?<!\\)%.*", "", source)
    own = set(re.findall(r"\\newcommand\{?\\([A-Za-z]+)", source))
    used = tex.used_names(source)
    campaign = censored_stats.load(REFERENCE)
    table = censored_stats.summary(campaign)
    text = campaign_macros(campaign, table, growth_fit.growth_table(campaign, table), used).text()
    defined = set(re.findall(r"^\\newcommand\{\\([A-Za-z]+)\}", text, flags=re.M))
    flags = set(re.findall(r"^\\newif\\if([A-Za-z]+)$", text, flags=re.M))
    camel = {m for m in used if re.fullmatch(r"[a-z]+[A-Z][A-Za-z]*", m)} - own
    tested = {m[2:] for m in camel if m.startswith("if")}
    assert camel - {f"if{f}" for f in tested} - defined == set(), "report.tex uses undefined macros"
    assert tested - flags == set(), "report.tex tests undefined flags"
    assert defined <= used and flags <= tested
    assert len(defined) >= 80


def test_report_text_quotes_numbers_only_through_macros(generated):
    """Decimal numbers or numbers of 3+ digits in the prose would not regenerate from data;
    and every macro the text uses that looks like ours is defined."""
    text = (report.REPORT_DIR / "report.tex").read_text()
    body = text.split(r"\begin{document}")[1].split(r"\begin{thebibliography}")[0]
    body = re.sub(r"%.*", "", body)
    body = re.sub(r"\\(ref|label|cite|includegraphics|input)(\[[^]]*\])?\{[^}]*\}", "", body)
    body = re.sub(r"\d+(\.\d+)?\s*(pt|cm|mm|em|ex|\\textwidth|\\linewidth)", "", body)
    assert not re.findall(r"\d+\.\d+|\d{3,}", body)
    macros = read_macros(generated[0] / "generated" / "macros.tex")
    used = set(re.findall(r"\\([A-Za-z]+)", body))
    quoted = {m for m in used if m in macros}
    assert len(quoted) >= 40, "the text should quote its numbers through macros"
    ours = re.compile(r"^(backtracking|dlx|sat|kissat|campaign|machine|clues|vars|minimal|"
                      r"extended|cover)[A-Z]")
    assert {m for m in used if ours.match(m)} <= set(macros)


# ---------------------------------------------------------------- plots

def test_plots_written_and_decodable(generated):
    paths = [p for p in generated[1] if p.stem in plots.FIGURES]
    assert {p.name for p in paths} == {f"{name}.{fmt}" for name in plots.FIGURES for fmt in ("pdf", "png")}
    for path in paths:
        assert path.stat().st_size > 1000
        if path.suffix == ".png":
            image = mpimg.imread(path)
            assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 300
        else:
            assert path.read_bytes().startswith(b"%PDF")


def test_runtime_plot_shows_every_entrant_and_the_limit(synthetic):
    campaign = censored_stats.load(synthetic)
    fig = plots.runtime_figure(campaign)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:4] == ["backtracking", "dlx", "sat", "kissat"]
    assert any("time limit (5 s)" in label for label in labels)
    assert fig.axes[0].get_yscale() == "log"
    assert fig.axes[0].get_xlabel().startswith("box size n")


def test_phases_plot_without_sat_entrant(tmp_path, synthetic):
    with open(synthetic / "runs.csv", newline="") as f:
        runs = list(csv.DictReader(f))
    root = tmp_path / "nosat"
    root.mkdir()
    with open(root / "runs.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, schema.COLUMNS)
        writer.writeheader()
        writer.writerows(r for r in runs if r["entrant"] in ("backtracking", "dlx"))
    shutil.copy(synthetic / "meta.json", root / "meta.json")
    campaign = censored_stats.load(root)
    assert phase_plots.sat_entrants(campaign) == []
    fig = phase_plots.phases_figure(campaign)
    assert "no SAT entrant" in fig.axes[0].texts[0].get_text()


def test_cli_plot(synthetic, tmp_path):
    result = CliRunner().invoke(main, ["plot", str(synthetic), "-o", str(tmp_path / "p")])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and (tmp_path / "p" / "cactus.png").stat().st_size > 0
    assert "dlx" in result.output and "> 5 s" in result.output


def test_report_without_latex_still_writes_files(synthetic, tmp_path, monkeypatch):
    real_which = shutil.which
    monkeypatch.setattr(report.shutil, "which", lambda name: None if name == "latexmk" else real_which(name))
    result = CliRunner().invoke(main, ["report", str(synthetic), "--report-dir", str(tmp_path / "r"), "--paper"])
    assert result.exit_code == 0, result.output
    assert "latexmk is missing" in result.output and "apt-get install" in result.output
    assert "texlive-latex-recommended" in result.output
    assert (tmp_path / "r" / "generated" / "macros.tex").is_file()
    assert not (tmp_path / "r" / "report.pdf").exists()


def test_reference_campaign_is_complete():
    """The committed reference: three families, every entrant at every n = 2..10 (run or
    skipped), at least 10 instances per family and n, no wrong answer, and SAT solving
    every instance of the fixed-share family up to n = 10."""
    campaign = censored_stats.load(REFERENCE)
    table = censored_stats.summary(campaign)
    assert campaign.n_values == list(range(2, 11))
    assert campaign.families == ["unique", "hard", "holes"]
    assert {"backtracking", "dlx", "sat", "kissat"} <= set(campaign.entrants)
    assert len(table) == 3 * 9 * len(campaign.entrants)
    assert (table["total"] >= 10).all()
    assert table["wrong"].sum() == 0 and table["error"].sum() == 0
    sat = table[(table["family"] == "holes") & (table["entrant"] == "sat")]
    assert (sat["solved"] == sat["total"]).all()
    landscape = REFERENCE.parent / "reference-landscape"
    assert (landscape / "landscape.pdf").is_file() and (landscape / "runs.csv").is_file()
    # `race report` of the reference finds the landscape by itself (a link in the campaign)
    assert report.find_landscape(REFERENCE).resolve() == (landscape / "landscape.pdf").resolve()


def test_report_bad_campaign_exits_2(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path / "none"), "--report-dir", str(tmp_path)])
    assert result.exit_code == 2 and "not a campaign directory" in result.output


# ---------------------------------------------------------------- the PDF

def require_latex() -> None:
    missing = [tool for tool in ("latexmk", "pdflatex", "pdfinfo", "pdftotext") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed; the report build test needs LaTeX and poppler: "
                    f"{latex.INSTALL_HINT}", pytrace=False)


def test_pdf_from_a_real_small_campaign(small_campaign, tmp_path):
    require_latex()
    campaign = censored_stats.load(small_campaign)
    assert campaign.entrants == ["backtracking", "dlx"] and campaign.n_values == [2, 3]
    assert (campaign.runs["status"] == "solved").all()
    result = CliRunner().invoke(main, ["report", str(small_campaign), "--report-dir", str(tmp_path), "--paper"])
    assert result.exit_code == 0, result.output
    pdf = tmp_path / "report.pdf"
    assert pdf.is_file()
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    pages = int(re.search(r"^Pages:\s+(\d+)", info, flags=re.M).group(1))
    assert 4 <= pages <= 12
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    flat = re.sub(r"\s+", " ", text)
    for title in SECTIONS:
        assert title in flat, f"section {title!r} missing from the PDF text"
    macros = read_macros(tmp_path / "generated" / "macros.tex")
    # the PDF's metadata carries the title page's title (pdfinfo reads it)
    title = f"Sudoku {macros['campaignMethodCount']} ways: {macros['campaignMethods']}"
    assert title == "Sudoku two ways: backtracking and dancing links"
    assert re.search(r"^Title:\s+(.*)$", info, flags=re.M).group(1).strip() == title
    assert re.search(r"^Subject:\s+(.*)$", info, flags=re.M).group(1).strip() == \
        "a horse race in the box size n"
    assert re.search(r"^Author:\s+(.*)$", info, flags=re.M).group(1).strip() == "sudoku-race"
    assert title in flat
    assert f"Campaign {campaign.name}" in flat
    assert f"DLX solves {macros['dlxSolvedTotal']} instances" in flat
    # the figures are embedded: their own text (titles, axis labels) is in the PDF
    figure_texts = ["Median time per instance", "Cactus plot", "search-tree nodes", "box size n",
                    "Where SAT time goes" if phase_plots.sat_entrants(campaign) else "no SAT entrant in this campaign"]
    for figure_text in figure_texts:
        assert figure_text in flat, f"figure text {figure_text!r} missing"
    assert "??" not in flat, "an unresolved reference or citation"
    assert "Where the methods stop" not in flat, "a frontier section without --frontier"


def test_report_text_fits_six_pages(tmp_path):
    """Assignment, section 14: at most 6 pages excluding tables, figures and references,
    with the text as the committed reference campaign and the frontier campaigns `make report`
    passes fill it."""
    require_latex()
    frontier = [d for d in FRONTIER if (d / "runs.csv").is_file()]
    assert FRONTIER[0] in frontier, "make report's first frontier campaign is missing"
    report.write_generated(censored_stats.load(REFERENCE), tmp_path, frontier=frontier_data.load(frontier))
    text = (report.REPORT_DIR / "report.tex").read_text()
    text = re.sub(r"\\begin\{(figure|table)\}.*?\\end\{\1\}", "", text, flags=re.S)
    text = re.sub(r"\\begin\{thebibliography\}.*?\\end\{thebibliography\}", "", text, flags=re.S)
    (tmp_path / "report.tex").write_text(text)
    pdf = latex.build_pdf(tmp_path)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert int(re.search(r"^Pages:\s+(\d+)", info, flags=re.M).group(1)) <= 6


# ---------------------------------------------------------------- several families, head to head

@pytest.fixture(scope="session")
def families(tmp_path_factory) -> Path:
    return synthetic_campaign(tmp_path_factory.mktemp("fam") / "fam", families=("hard", "unique"))


def test_scatter_draws_pairs_and_censored_runs_at_the_limit(synthetic):
    campaign = censored_stats.load(synthetic)
    fig = head_to_head.scatter_figure(campaign, "backtracking", "dlx")
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert ax.get_xlabel() == "backtracking: wall time (s)" and ax.get_ylabel() == "dlx: wall time (s)"
    points = [(x, y) for line in ax.get_lines() for x, y in zip(line.get_xdata(), line.get_ydata())
              if line.get_linestyle() == "None"]
    assert len(points) == 7             # 3 n x 3 instances paired, but 2 never raced (skipped)
    # backtracking's timeout at n = 4 sits in the strip beyond the x limit line; its skipped
    # runs are no time: left out, and counted in the legend
    assert sum(1 for x, _ in points if campaign.timeout_s < x < campaign.timeout_s * head_to_head.STRIP) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:3] == ["n = 2", "n = 3", "n = 4"] and "censored (in the strip beyond the limit)" in labels
    assert "left out: 2 pair(s) with a skipped side" in labels
    assert head_to_head.head_to_head_pair(campaign) == ("dlx", "sat")


def test_families_group_tables_figures_and_macros(families, tmp_path):
    campaign = censored_stats.load(families)
    assert campaign.families == ["unique", "hard"]
    table = censored_stats.summary(campaign)
    assert list(dict.fromkeys(table["family"])) == ["unique", "hard"] and len(table) == 2 * 4 * 3
    written = report.write_generated(campaign, tmp_path)
    gen = tmp_path / "generated"
    summary = (gen / "table_summary.tex").read_text()
    assert summary.index(r"\emph{unique puzzles}") < summary.index(r"\emph{hard puzzles}")
    assert r"{family}" not in summary and "family" in (gen / "table_growth.tex").read_text()
    assert len(plots.runtime_figure(campaign).axes) == 2          # one panel per family
    assert len(head_to_head.scatter_figure(campaign).axes) == 2
    macros = read_macros(gen / "macros.tex")
    assert macros["dlxSolvedTotal"] == "9/9"                     # per-n macros: the unique family
    assert macros["hardDlxMaxAllSolvedN"] == "3" and macros["hardDlxFirstFailN"] == "4"
    assert macros["hardSatLargestN"] == "3" and macros["hardBacktrackingMaxAllSolvedN"] == "2"
    assert macros["hardHolesPct"] == "60" and macros["campaignFamilies"] == "unique, hard"
    # the head to head is dlx vs sat on the last family (hard), all n pooled: 9 pairs, dlx
    # faster on all; at n = 4 DLX's timeout meets SAT's censored median
    assert (macros["headToHeadFamily"], macros["headToHeadPairs"]) == ("hard", "9")
    assert macros["headToHeadAWins"] == "8" and macros["headToHeadBWins"] == "1"
    assert gen / "scatter.pdf" in written


def test_report_builds_for_several_families_with_a_landscape_and_a_frontier(families, tmp_path):
    require_latex()
    fig = plots.solved_figure(censored_stats.load(families))      # stands in for race landscape's figure
    fig.savefig(tmp_path / "landscape.pdf")
    frontier = frontier_campaign(tmp_path / "hard-n6")
    result = CliRunner().invoke(main, ["report", str(families), "--report-dir", str(tmp_path / "r"), "--paper",
                                       "--landscape", str(tmp_path), "--frontier", str(frontier)])
    assert result.exit_code == 0, result.output
    macros = (tmp_path / "r" / "generated" / "macros.tex").read_text()
    assert "\\hasLandscapetrue" in macros and "\\hasFamilyHardtrue" in macros
    text = subprocess.run(["pdftotext", str(tmp_path / "r" / "report.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    flat = re.sub(r"\s+", " ", text)
    assert "On the hard family" in flat and "hardness landscape: median" in flat   # the caption
    assert "hard puzzles" in flat and "??" not in flat
    # the frontier's section, sentences and table (hard puzzles: DLX's median measured up to n = 4 here)
    assert "Where the methods stop" in flat and "No entrant answered 1 of the 5 puzzles" in flat
    assert "median on hard puzzles is measured beyond n = 4" in flat
    assert re.search(r"n = 6 \(36 × 36\), hard, 50 % empty, limit 60 s, 5 puzzles", flat)
    assert "on 2 cores (4 of 5 puzzles; median of those 6.5 s)" in flat
    missing = CliRunner().invoke(main, ["report", str(families), "--report-dir", str(tmp_path / "r"),
                                        "--landscape", str(tmp_path / "none"), "--no-pdf"])
    assert missing.exit_code == 2 and "no landscape.pdf" in missing.output


def test_runtime_figure_of_the_reference_names_each_family_and_keeps_ticks_readable():
    campaign = censored_stats.load(REFERENCE)
    fig = plots.runtime_figure(campaign)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles == ["unique puzzles", "hard puzzles", "holes puzzles (33% empty)"]
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == [str(n) for n in range(2, 11)]            # nine n: no grid sizes, no overlap


def test_log_axes_label_ticks_as_plain_text_not_tex_source(tmp_path):
    """The figures draw text as written (no mathtext, for `$` in entrant names), so the log
    axes need labels that are text too: matplotlib's own show `$\\mathdefault{10^{-4}}$`."""
    from experiments.analysis import landscape
    campaign = censored_stats.load(REFERENCE)
    figures = [plots.runtime_figure(campaign), plots.cactus_figure(campaign),
               plots.work_figure(campaign), head_to_head.scatter_figure(campaign)]
    checked = 0
    for fig in figures:
        fig.canvas.draw()
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                if axis.get_scale() not in ("log", "symlog"):
                    continue
                labels = [t.get_text() for t in axis.get_ticklabels() + axis.get_ticklabels(minor=True)
                          if t.get_text()]
                if not labels:      # a panel sharing its neighbour's axis shows none
                    continue
                assert not any("$" in t or "mathdefault" in t for t in labels), labels
                assert any("10" in t for t in labels), labels
                checked += 1
    assert checked >= 5
    landscape_dir = REFERENCE.parent / "reference-landscape"
    for path in landscape.landscape_figure(censored_stats.load(landscape_dir), tmp_path):
        if path.suffix == ".pdf":
            text = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True)
            if text.returncode == 0:
                assert "mathdefault" not in text.stdout and "10" in text.stdout


def test_plain_log_formatter_names_decades_and_their_multiples():
    from experiments.analysis.log_axes import PlainLogFormatter
    fmt = PlainLogFormatter()
    assert fmt._num_to_string(1e-4, 1e-5, 1) == "10\u207b\u2074"
    assert fmt._num_to_string(0.001, 1e-5, 1) == "10\u207b\u00b3"
    assert fmt._num_to_string(100, 1, 1000) == "10\u00b2"
    assert fmt._num_to_string(0.003, 1e-3, 1e-2) == "3\u00d710\u207b\u00b3"


def test_a_figure_that_cannot_be_written_is_one_line_and_leaves_no_cut_file(synthetic, tmp_path,
                                                                             monkeypatch):
    """A full disk shows in matplotlib's PDF backend as zlib.error ("buffer error"), a
    traceback before; and the figures are written whole or not at all."""
    import zlib

    from matplotlib.figure import Figure
    real = Figure.savefig

    def full(self, fname, *args, **kwargs):
        if str(fname).endswith(".pdf"):
            Path(fname).write_bytes(b"%PDF-cut")
            raise zlib.error("Error -2 while flushing: buffer error")
        return real(self, fname, *args, **kwargs)
    monkeypatch.setattr(Figure, "savefig", full)
    out = tmp_path / "plots"
    result = CliRunner().invoke(main, ["plot", str(synthetic), "-o", str(out)])
    assert result.exit_code == 2 and "cannot write the figure" in result.output
    assert str(out / "runtime.pdf") in result.output and "Traceback" not in result.output
    assert not list(out.glob("*.pdf")) and not list(out.glob(".*"))


def test_report_dir_that_cannot_be_written_is_named_not_the_source(synthetic, tmp_path, monkeypatch):
    def full(source, target, *args, **kwargs):
        raise OSError(28, "No space left on device", str(source))
    monkeypatch.setattr(report.shutil, "copy2", full)
    target = tmp_path / "rep"
    result = CliRunner().invoke(main, ["report", str(synthetic), "--report-dir", str(target), "--no-pdf", "--paper"])
    assert result.exit_code == 2 and str(target / "report.tex") in result.output
    assert str(report.REPORT_DIR) not in result.output


def test_a_report_without_report_dir_goes_into_the_campaign_not_the_repository(tmp_path):
    campaign = synthetic_campaign(tmp_path / "camp")
    committed = report.REPORT_DIR / "generated" / "macros.tex"
    before = committed.stat().st_mtime_ns if committed.exists() else None
    result = CliRunner().invoke(main, ["report", str(campaign), "--no-pdf", "--paper"])
    assert result.exit_code == 0, result.output
    assert (campaign / "report" / "report.tex").is_file()
    assert (campaign / "report" / "generated" / "macros.tex").is_file()
    assert (committed.stat().st_mtime_ns if committed.exists() else None) == before
