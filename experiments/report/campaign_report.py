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
import re
from pathlib import Path

import pandas as pd

from experiments.analysis import noise
from experiments.analysis import censored_stats
from experiments.analysis.entrant_labels import short_label, shortened
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

#: the report's text width in inches (A4, margins of 2.3 cm): the figures are drawn for it, or
#: for half of it (:data:`HALF`), and included at their own size
TEXT_WIDTH = (21.0 - 2 * 2.3) / 2.54
#: the figures set side by side, each on a little less than half the text width
HALF = ("solved", "cactus")
HALF_SHARE = 0.49

#: what a document needs to \input the generated tables and include the figures
MINIMAL_PREAMBLE = (r"\documentclass{article}", r"\usepackage{graphicx}  % the figures (PDF)",
                    r"\usepackage{booktabs}  % the tables (\toprule, \midrule, \bottomrule)")

PREAMBLE = r"""\documentclass[11pt,a4paper]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage[margin=2.3cm]{geometry}
\usepackage{microtype}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{caption}
\captionsetup{font=small,labelfont=bf}
\usepackage[hidelinks]{hyperref}
\sloppy
\hyphenpenalty=10000 \exhyphenpenalty=10000  % no word cut at a line end
% floats where they are cited: up to nine tenths of a page of floats above the text, a page of
% floats only when it is four fifths full
\renewcommand{\topfraction}{0.9}
\renewcommand{\bottomfraction}{0.6}
\renewcommand{\textfraction}{0.1}
\renewcommand{\floatpagefraction}{0.8}
\setcounter{topnumber}{3}
\setcounter{totalnumber}{5}
"""


def family_slug(family: str) -> str:
    """The file-name part of a family: ``hard`` -> ``hard``; other characters than ASCII
    letters and digits become ``-`` (``dataset:Top 95`` -> ``dataset-top-95``)."""
    slug = re.sub(r"[^a-z0-9]+", "-", str(family).lower()).strip("-")
    return slug or "family"


def table_names(families: list[str]) -> dict[str, str]:
    """Each family's table file, ``table_<slug>.tex``: named by the family, a number added where
    two families would share a name or one would take a name of another generated file."""
    taken = {"table_frontier.tex"}
    names: dict[str, str] = {}
    for family in families:
        stem, k = f"table_{family_slug(family)}", 1
        name = f"{stem}.tex"
        while name in taken:
            k += 1
            name = f"{stem}-{k}.tex"
        taken.add(name)
        names[family] = name
    return names


def summary_rows(table: pd.DataFrame, family: str) -> list[list[str]]:
    """The summary of one family as ``race export -f markdown`` prints it: entrant, n, solved,
    median, IQR, PAR-2, wrong (times by :func:`experiments.analysis.censored_stats.format_seconds`)."""
    fmt = censored_stats.format_seconds
    rows = []
    for row in table[table["family"] == family].itertuples():
        rows.append([row.entrant, str(row.n), f"{row.solved}/{row.total}", fmt(row.median_s, row.limit_s),
                     f"{fmt(row.q25_s, row.limit_s)} .. {fmt(row.q75_s, row.limit_s)}", fmt(row.par2_s),
                     str(row.wrong)])
    return rows


def table_header(campaign_name: str, family: str, entrants: list[str]) -> str:
    """The comment lines at the top of a family's table file: what it is, the preamble it needs
    and, for each entrant name cut short in it, the whole name."""
    lines = [f"% The {family} puzzles of campaign {campaign_name}, as sudoku-race sums them up:",
             "% a booktabs tabular for a table environment, at most 345 pt wide (an article's text).",
             "% It needs no more than this preamble:",
             *(f"%   {line}" for line in MINIMAL_PREAMBLE)]
    cut = shortened(entrants, TABLE_LABEL_CHARS)
    if cut:
        lines.append("% Entrant names cut short here (`race export` prints them whole):")
        lines += [f"%   {short} = {whole}" for whole, short in cut.items()]
    return "".join(f"{line.replace(chr(10), ' ')}\n" for line in lines)


#: the longest entrant name a table shows whole: with it the table is at most 345 pt wide (an
#: article's text width at 10 pt)
TABLE_LABEL_CHARS = 20
#: the columns of a summary table: 8 pt between columns (not 12), none at the edges
COLUMNS = "@{}l" + "@{\\hspace{8pt}}r" * 6 + "@{}"


def table_name(entrant: str) -> str:
    """An entrant as a table names it: typewriter type, at most :data:`TABLE_LABEL_CHARS`
    characters (:func:`short_label`)."""
    return "\\texttt{" + escape(short_label(entrant, TABLE_LABEL_CHARS)) + "}"


def summary_tabular(table: pd.DataFrame, family: str) -> str:
    """A booktabs table of :func:`summary_rows`; skipped cells say so instead of a time. It
    needs only booktabs: entrant names are cut short (:func:`short_label`), ``>`` is
    ``\\textgreater``."""
    lines = [rf"\begin{{tabular}}{{{COLUMNS}}}", r"\toprule",
             r"entrant & $n$ & solved & median & IQR & PAR-2 & wrong \\", r"\midrule"]
    skipped = table[table["family"] == family]
    skipped = list(skipped["skipped"] >= skipped["runs"])
    previous = None
    for (entrant, n, *rest), was_skipped in zip(summary_rows(table, family), skipped):
        cells = [r"\multicolumn{5}{l}{skipped (not run)}"] if was_skipped else [_cell(c) for c in rest]
        if previous is not None and entrant != previous:
            lines.append(r"\addlinespace[2pt]")
        previous = entrant
        lines.append(" & ".join([table_name(entrant), n, *cells]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def campaign_tabular(campaign: censored_stats.Campaign, table: pd.DataFrame) -> str:
    """The whole summary as one booktabs tabular (``race export -f latex``): the header comment
    of :func:`table_header`, then one block per family under an italic heading when the campaign
    has several, each block :func:`summary_tabular`'s rows."""
    families = campaign.families
    head = table_header(campaign.name, ", ".join(families), campaign.entrants)
    blocks = []
    for family in families:
        rows = summary_tabular(table, family).splitlines()
        body = rows[rows.index(r"\midrule") + 1:rows.index(r"\bottomrule")]
        if len(families) > 1:
            body.insert(0, f"\\multicolumn{{7}}{{l}}{{\\emph{{{escape(family)} puzzles}}}} \\\\")
        blocks.append("\n".join(body))
    lines = [rf"\begin{{tabular}}{{{COLUMNS}}}", r"\toprule",
             r"entrant & $n$ & solved & median & IQR & PAR-2 & wrong \\", r"\midrule",
             "\n\\midrule\n".join(blocks), r"\bottomrule", r"\end{tabular}"]
    return head + "\n".join(lines) + "\n"


def _cell(value: str) -> str:
    """A cell of :func:`summary_rows` as ``race export`` prints it: escaped, a thin space before
    a unit, ``$>$`` for a censored time."""
    return escape(value).replace(r"\textgreater{} ", r"$>$\,").replace(" ", r"\,")


def write_figures(campaign: censored_stats.Campaign, out: Path, width: float = TEXT_WIDTH) -> list[Path]:
    """The report's figures as PDF in ``out``: runtime and solved always, the cactus plot when
    an entrant answered a puzzle; each laid out for the width it is set at, ``width`` inches or
    nearly half of it (:data:`HALF`), its type 8 to 10 points there."""
    from experiments.analysis import plots
    table = censored_stats.summary(campaign)
    only = ["runtime", "solved"] + (["cactus"] if (table["solved"] > 0).any() else [])
    widths = {name: width * HALF_SHARE if name in HALF else width for name in only}
    return plots.plot_all(campaign, out, formats=("pdf",), table=table, width=widths, only=only)


def _figure(name: str, caption: str, width: str = r"\linewidth", place: str = "!htb") -> str:
    return (f"\\begin{{figure}}[{place}]\n\\centering\n\\includegraphics[width={width}]{{generated/{name}.pdf}}\n"
            f"\\caption{{{caption}}}\n\\label{{fig:{name}}}\n\\end{{figure}}\n")


def _side_by_side(names: list[str]) -> str:
    """The figures ``names`` (two) in one float, side by side, each with its caption."""
    parts = [f"\\begin{{minipage}}[t]{{{HALF_SHARE}\\linewidth}}\n\\centering\n"
             f"\\includegraphics[width=\\linewidth]{{generated/{name}.pdf}}\n"
             f"\\caption{{{FIGURES[name]}}}\n\\label{{fig:{name}}}\n\\end{{minipage}}" for name in names]
    return "\\begin{figure}[!htb]\n" + "\\hfill\n".join(parts) + "\n\\end{figure}\n"


def family_section(campaign: censored_stats.Campaign, table: pd.DataFrame, family: str, file: str) -> str:
    """One family's subsection: its table (``file``: the table's name in generated/), a paragraph
    per entrant, who was fastest per n and the sentence that cites the table."""
    label = f"tab:{Path(file).stem.removeprefix('table_')}"
    parts = [f"\\subsection{{{escape(family)} puzzles}}\n"]
    for entrant in campaign.entrants:
        sentences = text.entrant_sentences(table, family, entrant)
        if sentences:
            parts.append(" ".join(sentences) + "\n")
    fastest = text.fastest_sentences(table, family)
    if fastest:
        parts.append(" ".join(fastest) + "\n")
    parts.append(f"Table~\\ref{{{label}}} sums up the {escape(family)} puzzles.\n")
    # the table first: set at the top of the section's page, or right under its heading
    parts.insert(1, f"\\begin{{table}}[!htb]\n\\centering\\small\n\\caption{{The {escape(family)} puzzles: "
                 "puzzles answered within the limit, the median wall time and its interquartile range "
                 "over all puzzles (an unanswered one counts as beyond the limit), PAR-2 (an unanswered "
                 "puzzle counts as twice the limit) and wrong answers.}\n"
                 f"\\label{{{label}}}\n\\input{{generated/{file}}}\n\\end{{table}}\n")
    return "\n".join(parts)


def document(campaign: censored_stats.Campaign, table: pd.DataFrame, figures: list[str],
             landscape: bool = False, frontier: bool = False) -> str:
    """The whole report.tex of ``campaign``: each float set right after the paragraph that
    cites it (``[!htb]``, never a page of its own unless it fills four fifths of one)."""
    title, subtitle = text.title(campaign)
    created = str(campaign.meta.get("created_at") or "")[:10]
    names = table_names(campaign.families)
    body = [PREAMBLE, f"\\hypersetup{{pdftitle={{{escape(title)}}}, pdfsubject={{{escape(subtitle)}}}, "
            "pdfauthor={sudoku-race}}\n",
            f"\\title{{{escape(title)}\\\\[2pt]\\large {escape(subtitle)}}}\n\\author{{sudoku-race}}\n"
            f"\\date{{{escape(created)}}}\n",
            "\\begin{document}\n\\maketitle\n\n\\section{The campaign}\n",
            text.campaign_paragraph(campaign), "\n" + text.outcome_sentence(campaign) + "\n\n",
            "\\input{generated/noise.tex}\n", "\n\\section{Results}\n"]
    if figures:
        tables = [f"Table~\\ref{{tab:{Path(names[f]).stem.removeprefix('table_')}}}" for f in campaign.families]
        body.append(f"{text.methods.join(tables)} give{'s' if len(tables) == 1 else ''} the summary per "
                    f"entrant and $n$; {text.join_figures(figures)}.\n\n")
        whole = [name for name in figures if name not in HALF]
        halves = [name for name in figures if name in HALF]
        body += [_figure(name, FIGURES[name]) for name in whole]
        if len(halves) == 2:
            body.append(_side_by_side(halves))
        else:
            body += [_figure(name, FIGURES[name], rf"{HALF_SHARE}\linewidth") for name in halves]
    for family in campaign.families:
        body.append(family_section(campaign, table, family, names[family]))
    if landscape or frontier:
        body.append("\n\\section{Given with the campaign}\n")
        cited = (["the hardness landscape (Figure~\\ref{fig:landscape})"] if landscape else []) + \
            (["the frontier campaigns (Table~\\ref{tab:frontier})"] if frontier else [])
        body.append(f"The report was given {text.methods.join(cited)}.\n\n")
    if landscape:
        body.append(_figure("landscape", "The hardness landscape given with the campaign: median wall time "
                                         "per entrant against the share of empty cells, one panel per $n$.",
                            r"0.85\linewidth"))
    if frontier:
        body.append("\\begin{table}[!htb]\n\\centering\\footnotesize\n\\caption{The frontier campaigns "
                    "given with the report: per campaign and size, each entrant's puzzles answered within "
                    "the limit and its median wall times.}\n\\label{tab:frontier}\n"
                    "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}"
                    "{\\input{generated/table_frontier.tex}}\n\\end{table}\n")
    body.append("\\end{document}\n")
    return "".join(body)


def readme(campaign: censored_stats.Campaign, files: list[str]) -> str:
    """generated/README.md: what each file is and the preamble a document needs to use them."""
    lines = [f"# The tables and figures of campaign {campaign.name}", "",
             "Written by `race report`. Each table is a booktabs `tabular` (put it in a `table`",
             "environment); each figure a PDF drawn for the width it is set at (type of 8 to 10 pt there).",
             "A plain article needs no more than this preamble:", "", "```latex", *MINIMAL_PREAMBLE,
             "```", "", "```latex", r"\begin{table}\centering", r"\input{generated/" +
             next((f for f in files if f.startswith("table_")), "table_unique.tex") + "}",
             r"\end{table}", r"\includegraphics[width=\linewidth]{generated/runtime.pdf}", "```", "",
             "Files:", ""]
    lines += [f"- `{name}`" for name in files]
    cut = shortened(campaign.entrants)
    if cut:
        lines += ["", "Entrant names cut short in the tables and figures (`race export` prints them whole):", ""]
        lines += [f"- `{short}`: {len(whole)} characters" for whole, short in cut.items()]
    return "\n".join(lines) + "\n"


def write_sources(campaign: censored_stats.Campaign, root: Path, landscape: Path | None = None,
                  frontier_table: str | None = None) -> list[Path]:
    """Write ``root/report.tex`` and ``root/generated/`` (figures, one table per family, the
    landscape and frontier when given); return the paths written."""
    import shutil
    generated = root / "generated"
    table = censored_stats.summary(campaign)
    written = write_figures(campaign, generated)
    for family, name in table_names(campaign.families).items():
        path = generated / name
        path.write_text(table_header(campaign.name, family, campaign.entrants) + summary_tabular(table, family),
                        encoding="utf-8")
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
    path = generated / "README.md"
    path.write_text(readme(campaign, sorted(p.name for p in written if p.parent == generated)), encoding="utf-8")
    written.append(path)
    return written
