"""``race report CAMPAIGN``: the report of the campaign the user raced, as a PDF.

Unlike the repository's paper (``report/report.tex``, the write-up of the reference campaign
that ``make report`` builds with ``--paper``), this document is written whole from the
campaign: its title names the methods it raced (:mod:`solvers.methods`), its sentences
(:mod:`experiments.report.campaign_text`) say only what the campaign's numbers show, its
tables are the summary ``race export`` prints, one per family, and its figures are the
campaign's own. :func:`write_sources` writes ``report.tex`` and ``generated/`` (figures and
tables); :func:`experiments.report.latex.build_pdf` builds the PDF.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from experiments.analysis import noise
from experiments.analysis import statistics as analysis
from experiments.report import campaign_text as text
from experiments.report.tables import noise_paragraph
from experiments.report.tex import escape

#: the figures of the report: name -> (caption, when it is drawn)
FIGURES = {
    "runtime": "Median wall time per puzzle against the box size $n$, per entrant and family, with "
               "the interquartile band; a median beyond the limit is drawn at the limit.",
    "solved": "Share of the puzzles each entrant answered within the limit, against $n$.",
    "cactus": "Puzzles answered against time, all $n$ together: the $k$-th fastest answer at $x=k$.",
}

PREAMBLE = r"""\documentclass[11pt,a4paper]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage[margin=2.3cm]{geometry}
\usepackage{microtype}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{array}
\usepackage{caption}
\captionsetup{font=small,labelfont=bf}
\usepackage[hidelinks]{hyperref}
\sloppy
\hyphenpenalty=10000 \exhyphenpenalty=10000  % no word cut at a line end
"""


def summary_rows(table: pd.DataFrame, family: str) -> list[list[str]]:
    """The summary of one family as ``race export -f markdown`` prints it: entrant, n, solved,
    median, IQR, PAR-2, wrong (times by :func:`experiments.analysis.statistics.format_seconds`)."""
    fmt = analysis.format_seconds
    rows = []
    for row in table[table["family"] == family].itertuples():
        rows.append([row.entrant, str(row.n), f"{row.solved}/{row.total}", fmt(row.median_s, row.limit_s),
                     f"{fmt(row.q25_s, row.limit_s)} .. {fmt(row.q75_s, row.limit_s)}", fmt(row.par2_s),
                     str(row.wrong)])
    return rows


def summary_tabular(table: pd.DataFrame, family: str) -> str:
    """A booktabs table of :func:`summary_rows`; skipped cells say so instead of a time."""
    lines = [r"\begin{tabular}{>{\raggedright\arraybackslash}p{0.3\textwidth}rrrrrr}", r"\toprule",
             r"entrant & $n$ & solved & median & IQR & PAR-2 & wrong \\", r"\midrule"]
    skipped = table[table["family"] == family]
    skipped = list(skipped["skipped"] >= skipped["runs"])
    for (entrant, n, *rest), was_skipped in zip(summary_rows(table, family), skipped):
        cells = [r"\multicolumn{5}{l}{skipped (not run)}"] if was_skipped else [escape(c) for c in rest]
        lines.append(" & ".join([text.entrant_name(entrant), n, *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def write_figures(campaign: analysis.Campaign, out: Path) -> list[Path]:
    """The report's figures as PDF in ``out``: runtime and solved always, the cactus plot when
    an entrant answered a puzzle."""
    from experiments.analysis.figure_style import pyplot
    plt = pyplot()

    from experiments.analysis import plots
    from experiments.analysis.figure_style import STYLE, caption_below, save_figure
    out.mkdir(parents=True, exist_ok=True)
    table = analysis.summary(campaign)
    builders = {"runtime": lambda: plots.runtime_figure(campaign, table),
                "solved": lambda: plots.solved_figure(campaign, table),
                "cactus": lambda: plots.cactus_figure(campaign)}
    if not (table["solved"] > 0).any():
        del builders["cactus"]
    written = []
    with plt.rc_context(STYLE):
        for name, build in builders.items():
            fig = build()
            caption_below(fig, f"campaign {campaign.name}")
            save_figure(fig, out / f"{name}.pdf", metadata={"CreationDate": None})
            plt.close(fig)
            written.append(out / f"{name}.pdf")
    return written


def _figure(name: str, caption: str, width: str = r"\textwidth") -> str:
    return (f"\\begin{{figure}}[htbp]\n\\centering\n\\includegraphics[width={width}]{{generated/{name}.pdf}}\n"
            f"\\caption{{{caption}}}\n\\label{{fig:{name}}}\n\\end{{figure}}\n")


def family_section(campaign: analysis.Campaign, table: pd.DataFrame, family: str, index: int) -> str:
    """One family's subsection: a paragraph per entrant, who was fastest per n, its table."""
    parts = [f"\\subsection{{{escape(family)} puzzles}}\n"]
    for entrant in campaign.entrants:
        sentences = text.entrant_sentences(table, family, entrant)
        if sentences:
            parts.append(" ".join(sentences) + "\n")
    fastest = text.fastest_sentences(table, family)
    if fastest:
        parts.append(" ".join(fastest) + "\n")
    parts.append(f"\\begin{{table}}[htbp]\n\\centering\\small\n\\caption{{The {escape(family)} puzzles: "
                 "puzzles answered within the limit, the median wall time and its interquartile range "
                 "over all puzzles (an unanswered one counts as beyond the limit), PAR-2 (an unanswered "
                 "puzzle counts as twice the limit) and wrong answers.}\n"
                 f"\\label{{tab:family{index}}}\n\\input{{generated/table_family{index}.tex}}\n\\end{{table}}\n")
    return "\n".join(parts)


def document(campaign: analysis.Campaign, table: pd.DataFrame, figures: list[str],
             landscape: bool = False, frontier: bool = False) -> str:
    """The whole report.tex of ``campaign``."""
    title, subtitle = text.title(campaign)
    created = str(campaign.meta.get("created_at") or "")[:10]
    body = [PREAMBLE, f"\\hypersetup{{pdftitle={{{escape(title)}}}, pdfsubject={{{escape(subtitle)}}}, "
            "pdfauthor={sudoku-race}}\n",
            f"\\title{{{escape(title)}\\\\[2pt]\\large {escape(subtitle)}}}\n\\author{{sudoku-race}}\n"
            f"\\date{{{escape(created)}}}\n",
            "\\begin{document}\n\\maketitle\n\n\\section{The campaign}\n",
            text.campaign_paragraph(campaign), "\n" + text.outcome_sentence(campaign) + "\n\n",
            "\\input{generated/noise.tex}\n", "\n\\section{Results}\n"]
    if figures:
        tables = [f"Table~\\ref{{tab:family{i}}}" for i in range(len(campaign.families))]
        body.append(f"{text.methods.join(tables)} give{'s' if len(tables) == 1 else ''} the summary per "
                    f"entrant and $n$; {text.join_figures(figures)}.\n\n")
    for index, family in enumerate(campaign.families):
        body.append(family_section(campaign, table, family, index))
    if figures or landscape or frontier:
        body.append("\\clearpage\n\\section{Figures}\n")       # the tables above stay with their text
    body += [_figure(name, FIGURES[name]) for name in figures]
    if landscape:
        body.append(_figure("landscape", "The hardness landscape given with the campaign: median wall time "
                                         "per entrant against the share of empty cells, one panel per $n$.",
                            r"0.85\textwidth"))
    if frontier:
        body.append("\\begin{table}[htbp]\n\\centering\\footnotesize\n\\caption{The frontier campaigns "
                    "given with the report: per campaign and size, each entrant's puzzles answered within "
                    "the limit and its median wall times.}\n\\label{tab:frontier}\n"
                    "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}"
                    "{\\input{generated/table_frontier.tex}}\n\\end{table}\n")
    body.append("\\end{document}\n")
    return "".join(body)


def write_sources(campaign: analysis.Campaign, root: Path, landscape: Path | None = None,
                  frontier_table: str | None = None) -> list[Path]:
    """Write ``root/report.tex`` and ``root/generated/`` (figures, one table per family, the
    landscape and frontier when given); return the paths written."""
    import shutil
    generated = root / "generated"
    table = analysis.summary(campaign)
    written = write_figures(campaign, generated)
    for index, family in enumerate(campaign.families):
        path = generated / f"table_family{index}.tex"
        path.write_text(summary_tabular(table, family), encoding="utf-8")
        written.append(path)
    if landscape is not None:
        shutil.copyfile(landscape, generated / "landscape.pdf")
        written.append(generated / "landscape.pdf")
    if frontier_table:
        (generated / "table_frontier.tex").write_text(frontier_table, encoding="utf-8")
        written.append(generated / "table_frontier.tex")
    path = generated / "noise.tex"
    path.write_text(noise_paragraph(noise.warnings(campaign), "machine_state" in campaign.meta), encoding="utf-8")
    written.append(path)
    figures = [p.stem for p in written if p.suffix == ".pdf" and p.stem in FIGURES]
    source = root / "report.tex"
    source.write_text(document(campaign, table, figures, landscape is not None, bool(frontier_table)),
                      encoding="utf-8")
    written.append(source)
    table.replace([math.inf], "inf").to_csv(generated / "summary.csv", index=False)
    written.append(generated / "summary.csv")
    return written
