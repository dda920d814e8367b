"""The report's outputs are ready for someone else's LaTeX: a plain article with the preamble
the generated README names \\input-s every table `race report` and `race export -f latex` write
and includes every figure, with no error and no overfull box; `race plot --width` draws figures
for a column or a page whose type reads at 8 to 10 points there; the PDF report sets its floats
where they are cited (no page per float); the figures draw values where they are.

The campaign is a small fixture (runs.csv + meta.json written here), never raced."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from click.testing import CliRunner

matplotlib.use("Agg")

from experiments.analysis import (
    censored_stats,  # noqa: E402
    plots,  # noqa: E402
)
from experiments.analysis.figure_style import (  # noqa: E402
    PRINT_SIZES,
    STYLE,
    fit_width,
    parse_width,
    pyplot,
)
from experiments.cli.main import main  # noqa: E402
from experiments.report import campaign_report  # noqa: E402
from formats.errors import RaceError  # noqa: E402
from tests.test_analysis import LIMIT, run, write_campaign  # noqa: E402
from tests.test_report import require_latex  # noqa: E402

ENTRANTS = ["dlx", "sat", "kissat:config=sat"]


def small_campaign(root: Path, entrants: list[str] = ENTRANTS) -> Path:
    """Two families, n = 2..4, three puzzles per n; every entrant times out at n = 4 on hard
    puzzles (a censored median) and on two of three unique ones."""
    rows = []
    for family in ("unique", "hard"):
        for n in (2, 3, 4):
            for k in range(3):
                for i, entrant in enumerate(entrants):
                    out = n == 4 and (family == "hard" or (i + k) % 3 != 0)
                    rows.append(run(entrant, n, f"{family}{n}{k}", "timeout" if out else "solved",
                                    0.01 * (i + 1) * n * n * (k + 1), family=family, nodes=10 * n * (k + 1)))
    return write_campaign(root, rows, {"entrants": entrants, "family_labels": "unique,hard",
                                       "created_at": "2026-01-01T00:00:00Z"})


def _race(*args: object) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


def _latexmk(folder: Path, name: str) -> str:
    """Build ``folder/name.tex`` with latexmk (pdflatex); the log."""
    done = subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    log = (folder / f"{name}.log").read_text(errors="replace")
    assert done.returncode == 0, log[-3000:]
    return log


def _preamble(readme: str) -> list[str]:
    """The preamble lines the generated README gives (its first ```latex block)."""
    found = re.search(r"```latex\n(.*?)```", readme, flags=re.S)
    assert found is not None, "no latex block in the README"
    block = found.group(1)
    return [line for line in block.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> dict[str, Path]:
    """A campaign, `race report --no-pdf` of it, `race plot --width 3.3in` and `race export -f latex`."""
    root = tmp_path_factory.mktemp("latex-ready")
    campaign = small_campaign(root / "small")
    _race("report", campaign, "--no-pdf", "--report-dir", root / "report")
    _race("plot", campaign, "--width", "3.3in", "-o", root / "column")
    _race("export", campaign, "-f", "latex", "-o", root / "export.tex")
    return {"root": root, "campaign": campaign, "generated": root / "report" / "generated",
            "column": root / "column", "export": root / "export.tex"}


def test_tables_are_named_by_family_and_say_their_preamble(outputs):
    generated = outputs["generated"]
    assert sorted(p.name for p in generated.glob("table_*.tex")) == ["table_hard.tex", "table_unique.tex"]
    preamble = _preamble((generated / "README.md").read_text())
    assert preamble[0] == r"\documentclass{article}"
    assert any("booktabs" in line for line in preamble) and any("graphicx" in line for line in preamble)
    for table in generated.glob("table_*.tex"):
        head = table.read_text().split(r"\begin{tabular}")[0]
        assert r"\usepackage{booktabs}" in head and all(line.startswith("%") for line in head.splitlines())
    report = (outputs["root"] / "report" / "report.tex").read_text()
    assert r"\input{generated/table_unique.tex}" in report and r"\input{generated/table_hard.tex}" in report
    assert "table_family" not in report


def test_a_plain_article_inputs_every_table_and_figure_without_an_overfull_box(outputs):
    """A plain article (the README's preamble, nothing else) \\input-s every generated table and
    the export's, includes the report's figures at the text width and the column figures at
    their own size: it builds, no error, no overfull box; its pages are looked at as PNGs."""
    require_latex()
    root, generated = outputs["root"], outputs["generated"]
    tables = sorted(generated.glob("table_*.tex")) + [outputs["export"]]
    figures = sorted(generated.glob("*.pdf"))
    column = sorted(outputs["column"].glob("*.pdf"))
    assert len(figures) >= 3 and len(column) == len(plots.FIGURES)
    body = []
    for table in tables:
        body.append(f"\\begin{{table}}[htbp]\\centering\n\\input{{{table}}}\n\\caption{{A table.}}\\end{{table}}")
    for figure in figures:
        body.append(f"\\begin{{figure}}[htbp]\\centering\n\\includegraphics[width=\\linewidth]{{{figure}}}"
                    "\\end{figure}")
    for figure in column:
        body.append(f"\\begin{{figure}}[htbp]\\centering\n\\includegraphics{{{figure}}}\\end{{figure}}")
    article = root / "article"
    article.mkdir(exist_ok=True)
    preamble = _preamble((generated / "README.md").read_text())
    (article / "plain.tex").write_text("\n".join([*preamble, r"\begin{document}", "Text.\n", *body,
                                                  r"\end{document}", ""]))
    log = _latexmk(article, "plain")
    assert not re.search(r"^! ", log, flags=re.M)
    assert "Overfull" not in log, [line for line in log.splitlines() if "Overfull" in line]
    assert "Illegal character" not in log and "Undefined control sequence" not in log
    text = subprocess.run(["pdftotext", str(article / "plain.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "> 10 s" in text and "¿" not in text and "¡" not in text          # the censored time
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-png", "-r", "60", str(article / "plain.pdf"), str(article / "page")],
                       check=True)
        assert sorted(article.glob("page-*.png"))


@pytest.mark.parametrize("width", ["3.3in", "6.8in"])
def test_figures_for_a_column_or_a_page_fit_and_read_at_8_to_10_points(tmp_path, width):
    """Every figure drawn for the width is no wider (the PDF's page), and every text in it is 8
    to 10 points: included at that width, it reads at that size."""
    inches = parse_width(width)
    campaign = censored_stats.load(small_campaign(tmp_path / "c"))
    plt = pyplot()
    builders = plots.figure_builders(campaign)
    with plt.rc_context(STYLE):
        for name in plots.FIGURES:
            fig = plots.draw(builders[name], f"campaign {campaign.name}", inches)
            from matplotlib.text import Text
            sizes = {t.get_fontsize() for t in fig.findobj(Text) if t.get_text().strip() and t.get_visible()}
            sizes |= {label.get_fontsize() for ax in fig.axes for label in ax.get_xticklabels() + ax.get_yticklabels()
                      if label.get_text()}
            assert PRINT_SIZES[0] <= min(sizes) and max(sizes) <= PRINT_SIZES[1], (name, sorted(sizes))
            path = tmp_path / f"{name}.pdf"
            from experiments.analysis.figure_style import save_figure, tight_box
            save_figure(fig, path, bbox_inches=tight_box(fig))
            plt.close(fig)
            page = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout \
                if shutil.which("pdfinfo") else ""
            if page:
                wide = float(re.search(r"Page size:\s+([\d.]+) x", page).group(1))
                assert wide <= inches * 72 + 1, (name, wide, inches * 72)


def test_plot_draws_only_the_figures_named(tmp_path):
    campaign = small_campaign(tmp_path / "c")
    out = _race("plot", campaign, "--only", "runtime", "--only", "solved", "--width", "8.4cm", "-o", tmp_path / "p")
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["runtime.pdf", "runtime.png", "solved.pdf",
                                                                 "solved.png"]
    assert "wrote" in out
    for args, said in ((["--only", "runtime,nope"], "no figure named 'nope'"),
                       (["--width", "wide"], "--width 'wide': expected a length"),
                       (["--width", "40in"], "from 1.5 to 20 inches")):
        result = CliRunner().invoke(main, ["plot", str(campaign), "-o", str(tmp_path / "q"), *args])
        assert result.exit_code == 2 and said in result.output, result.output


def test_width_units():
    assert parse_width("3.3in") == pytest.approx(3.3)
    assert parse_width("8.4cm") == pytest.approx(8.4 / 2.54)
    assert parse_width("240pt") == pytest.approx(240 / 72.27)
    assert parse_width("5") == 5.0
    with pytest.raises(RaceError):
        parse_width("-3in")


def test_export_latex_is_the_summary_and_refuses_the_runs(tmp_path):
    campaign = small_campaign(tmp_path / "c")
    text = _race("export", campaign, "-f", "latex")
    assert r"\begin{tabular}" in text and r"\emph{unique puzzles}" in text and r"\emph{hard puzzles}" in text
    assert r"$>$\,10\,s" in text and "> 10" not in text.split(r"\begin{tabular}")[1]
    rows = [line for line in text.splitlines() if line.endswith(r"\\") and "&" in line]
    assert len(rows) == 1 + 2 * 3 * len(ENTRANTS)        # the header, then per family, entrant and n
    result = CliRunner().invoke(main, ["export", str(campaign), "-f", "latex", "--table", "runs"])
    assert result.exit_code == 2 and "summary table only" in result.output


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    found = re.search(r"^Pages:\s+(\d+)", info, flags=re.M)
    assert found is not None, "pdfinfo printed no page count"
    return int(found.group(1))


def test_the_pdf_report_sets_floats_where_they_are_cited(tmp_path):
    """No float page, no page of figures after the text: every float is [!htb], right after the
    paragraph that cites it, and the report of a small campaign takes few pages, each with text."""
    require_latex()
    campaign = small_campaign(tmp_path / "c")
    _race("report", campaign, "--report-dir", tmp_path / "r")
    source = (tmp_path / "r" / "report.tex").read_text()
    assert r"\clearpage" not in source and not re.search(r"\\begin\{(figure|table)\}\[(?!!htb\])", source)
    sections = re.split(r"\\(?:sub)*section\{", source)
    for label in re.findall(r"\\label\{((?:fig|tab):[^}]+)\}", source):
        placed = next(i for i, part in enumerate(sections) if f"\\label{{{label}}}" in part)
        assert f"\\ref{{{label}}}" in sections[placed], label      # set in the section that cites it
    pdf = tmp_path / "r" / "report.pdf"
    pages = _pages(pdf)
    assert pages <= 4, pages
    for page in range(1, pages + 1):                # every page carries sentences, not only floats
        text = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"],
                              capture_output=True, text=True, check=True).stdout
        assert re.search(r"\b(answered|median|raced|smallest)\b.*\.", text), page
    log = (tmp_path / "r" / "report.log").read_text(errors="replace")
    assert "Overfull" not in log


def test_solved_shares_are_drawn_where_they_are(tmp_path):
    """100 % is drawn at 100 (not 97 or 103): no entrant is lifted or lowered, the virtual best
    neither; entrants at one n are apart along x only."""
    campaign = censored_stats.load(small_campaign(tmp_path / "c"))
    table = censored_stats.summary(campaign)
    fig = plots.solved_figure(campaign, table)
    checked = 0
    for ax in fig.axes:
        family = ax.get_title().split(":")[0].strip()
        for line in ax.get_lines():
            entrant = line.get_label()
            rows = table[(table["entrant"] == entrant) & (table["family"] == family)].sort_values("n")
            if rows.empty:
                continue
            assert np.allclose(line.get_ydata(), 100 * rows["solved_frac"].to_numpy(float)), (family, entrant)
            assert np.allclose(np.round(line.get_xdata()), rows["n"].to_numpy(float))
            checked += 1
    assert checked == 2 * len(ENTRANTS)
    assert max(y for ax in fig.axes for line in ax.get_lines() for y in line.get_ydata()) == 100.0
    pyplot().close(fig)


def test_runtime_draws_censored_medians_at_the_limit(tmp_path):
    """As the caption says: a censored median is a hollow marker at the limit (10 s), not above it;
    the page's twin draws it there too."""
    from experiments.report import html_figures
    campaign = censored_stats.load(small_campaign(tmp_path / "c"))
    table = censored_stats.summary(campaign)
    fig = plots.runtime_figure(campaign, table)
    hollow = [y for ax in fig.axes for line in ax.get_lines() if line.get_markerfacecolor() == "white"
              for y in line.get_ydata()]
    assert hollow and set(map(float, hollow)) == {LIMIT}
    assert "drawn at the limit" in campaign_report.FIGURES["runtime"]
    pyplot().close(fig)
    page = html_figures.runtime_figure(campaign, table, censored_stats.instance_times(campaign.runs))
    medians = [y for t in page.data if str(t.name).endswith("(median > limit)") for y in t.y]
    assert medians and set(map(float, medians)) == {LIMIT}


def test_fit_width_narrows_a_figure_to_its_width():
    plt = pyplot()
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(9, 3))
        ax.plot([1, 2], [1, 2], label="a line")
        ax.set_title("a title long enough to need a second line at the width of one column of a paper")
        fit_width(fig, 3.3)
        box = fig.get_tightbbox(fig.canvas.get_renderer())
        assert box.width <= 3.3
        plt.close(fig)
