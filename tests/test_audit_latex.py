"""Hostile names in the LaTeX report: a campaign named in Greek and Chinese, an entrant spec of
5,000 characters. The PDF builds, long names are cut in figures and tables (the whole name in a
footnote and in `race export`), and a figure that cannot be drawn says why, not "disk full".
Campaigns are small fixtures (runs.csv + meta.json), never raced."""

from __future__ import annotations

import json
import re
import subprocess
import warnings
from pathlib import Path

import matplotlib
import pytest
from click.testing import CliRunner

matplotlib.use("Agg")

from experiments.analysis import (
    censored_stats,  # noqa: E402
    plots,  # noqa: E402
)
from experiments.analysis.entrant_labels import LABEL_CHARS, short_label  # noqa: E402
from experiments.analysis.figure_style import pyplot, save_figure  # noqa: E402
from experiments.cli.main import main  # noqa: E402
from experiments.report.tex import escape  # noqa: E402
from formats.errors import RaceError  # noqa: E402
from tests.test_latex_ready import small_campaign  # noqa: E402
from tests.test_report import require_latex  # noqa: E402

LONG = "cmd:path=/opt/solver,args=" + "x" * 5000


def _race(*args: object) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output[-3000:]
    return result.output


def _text(pdf: Path, *options: str) -> str:
    return subprocess.run(["pdftotext", *options, str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def test_L1_a_campaign_named_in_greek_and_chinese_gets_its_pdf(tmp_path):
    require_latex()
    name = "τ-测试"
    campaign = small_campaign(tmp_path / name)
    assert json.loads((campaign / "meta.json").read_text())["campaign"] == name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        printed = _race("report", campaign, "--report-dir", tmp_path / "report")
    assert not [w for w in caught if "missing from font" in str(w.message)]   # no empty box in a figure
    pdf = tmp_path / "report" / "report.pdf"
    assert f"built {pdf}" in printed
    text = _text(pdf)
    # Greek in math italics, each ideograph by its code point: every character accounted for
    assert re.search(r"τ\s*-\[U\+6D4B\]\[U\+8BD5\]", text), text[:400]
    log = (tmp_path / "report" / "report.log").read_text(errors="replace")
    assert "Overfull" not in log and "not set up for use with LaTeX" not in log


def test_L1_escape_writes_every_character_for_plain_pdflatex():
    assert escape("τ") == r"\ensuremath{\tau}" and escape("Ω") == r"\ensuremath{\Omega}"
    assert escape("Α") == "A"                                  # a Greek capital drawn like a Latin one
    assert escape("测") == "[U+6D4B]"
    assert escape("é") == r"\'{e}" and escape("ß") == r"\ss{}"
    assert escape("> 10 s") == r"\textgreater{} 10 s"
    assert all(ord(c) < 128 for c in escape("τ-测试 café Ölß ±5 µs … — «x»"))


def test_L2_a_5000_character_entrant_is_cut_in_figures_and_tables_and_whole_in_a_footnote(tmp_path):
    require_latex()
    campaign = small_campaign(tmp_path / "long", ["dlx", LONG])
    out = _race("plot", campaign, "-o", tmp_path / "plots")
    assert "wrote" in out and (tmp_path / "plots" / "runtime.png").is_file()
    loaded = censored_stats.load(campaign)
    fig = plots.runtime_figure(loaded)
    labels = [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    assert short_label(LONG) in labels and max(len(label) for label in labels if "\n" not in label) <= 60
    assert len(short_label(LONG)) == LABEL_CHARS
    pyplot().close(fig)

    printed = _race("report", campaign, "--report-dir", tmp_path / "report")
    pdf = tmp_path / "report" / "report.pdf"
    assert f"built {pdf}" in printed
    log = (tmp_path / "report" / "report.log").read_text(errors="replace")
    assert "Overfull" not in log and "Dimension too large" not in log
    squeezed = re.sub(r"\s+", "", _text(pdf))
    # the whole spec, in the footnote (which may go on at the foot of the next page)
    source = (tmp_path / "report" / "report.tex").read_text()
    assert re.search(r"\\footnote\{The whole name of .*" + re.escape(LONG.replace("x" * 5000, "")),
                     source.replace(r"\allowbreak{}", ""))
    assert "x" * 5000 in source.replace(r"\allowbreak{}", "")
    assert squeezed.count("x") >= 5000
    table = (tmp_path / "report" / "generated" / "table_unique.tex").read_text()
    assert f"= {LONG}" in table                                # and in the table file's comment
    tabular = table.split(r"\begin{tabular}")[1]
    assert "x" * 100 not in tabular
    export = _race("export", campaign, "-f", "csv", "--table", "summary")
    assert LONG in export                                      # the export keeps it whole


def test_L2_a_figure_too_large_to_draw_names_the_cause(tmp_path):
    """A MemoryError (or a backend's "too large") while saving is no full disk: the message says
    the figure is too large, with its size, and asks whether a label is too long."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(3, 2))

    def refuse(*args, **kwargs):
        raise MemoryError()
    fig.savefig = refuse
    with pytest.raises(RaceError) as caught:
        save_figure(fig, tmp_path / "f.png")
    message = str(caught.value)
    assert "too large to draw" in message and "3.0 x 2.0 in" in message and "label" in message
    assert "disk full" not in message
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(3, 2))

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")
    fig.savefig = full
    with pytest.raises(RaceError, match="No space left on device"):
        save_figure(fig, tmp_path / "g.png")
    plt.close(fig)
