"""The LaTeX report, regenerated from a campaign.

:func:`write_generated` fills ``<report>/generated/`` with

* the figures of :mod:`experiments.analysis.plots` (PDF for LaTeX, PNG for the README),
* booktabs tables (:mod:`experiments.report.tables`),
* ``macros.tex`` (:mod:`experiments.report.macros`): one ``\\newcommand`` for
  every number report.tex quotes, and only those;
* ``landscape.pdf``, the hardness landscape figure that ``race landscape`` wrote, when
  one is found (flag ``\\ifhasLandscape``): in the campaign directory (or its
  ``plots/``), or in the directory given as ``landscape``;
* ``table_frontier.tex``, the frontier campaigns given with ``--frontier``
  (:mod:`experiments.report.frontier`; flag ``\\ifhasFrontier``).

:func:`build` also runs latexmk (:mod:`experiments.report.latex`); without
latexmk it still writes the generated files and says how to install LaTeX.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.analysis import frontier as frontier_data
from experiments.analysis import growth as growth_fit
from experiments.analysis import noise, phase_plots, plots
from experiments.analysis import censored_stats
from experiments.report import frontier as report_frontier
from experiments.report import tables
from experiments.report import virtual_best as report_vbs
from experiments.report.latex import INSTALL_HINT, build_pdf, campaign_epoch
from experiments.report.macros import CANONICAL_N, campaign_macros
from experiments.report.tex import used_names
from formats.errors import RaceError

#: the committed report sources (report.tex lives here)
REPORT_DIR: Path = Path(__file__).resolve().parents[2] / "report"
#: source files copied when the report is built in another directory
SOURCES: tuple[str, ...] = ("report.tex",)


@dataclass
class ReportFiles:
    """What :func:`build` produced."""
    generated: Path
    files: list[Path]
    pdf: Path | None
    message: str


LANDSCAPE_FIGURE = "landscape.pdf"


def find_landscape(campaign_dir: Path, landscape: Path | None = None) -> Path | None:
    """The landscape figure: in ``landscape`` (a directory, or the PDF itself) when given,
    else in the campaign directory; None when there is none. Raises RaceError when
    ``landscape`` is given but holds no figure."""
    places = [landscape] if landscape is not None else [campaign_dir]
    for place in places:
        for candidate in (place, place / LANDSCAPE_FIGURE, place / "plots" / LANDSCAPE_FIGURE):
            if candidate.is_file() and candidate.suffix == ".pdf":
                return candidate
    if landscape is not None:
        raise RaceError(f"{landscape}: no {LANDSCAPE_FIGURE} in it or in its plots/ "
                        f"(written by `race landscape`)")
    return None


#: the paper's text width in inches (report.tex: A4, margins of 2.3 cm)
PAPER_TEXT_WIDTH = (21.0 - 2 * 2.3) / 2.54


def paper_widths(families: int) -> dict[str, float]:
    """The width (inches) each figure is set at in report.tex, which it is drawn for: its type
    then reads at 8 to 10 points (the shares of the text width are report.tex's)."""
    several = families > 1
    shares = {"runtime": 1.0, "work": 1.0, "scatter": 1.0 if several else 0.62,
              "solved": 1.0 if several else 0.49, "cactus": 0.48 if several else 0.49, "phases": 0.8}
    return {name: share * PAPER_TEXT_WIDTH for name, share in shares.items()}


def write_generated(campaign: censored_stats.Campaign, report_dir: str | Path = REPORT_DIR,
                    landscape: Path | None = None,
                    frontier: list[censored_stats.Campaign] | None = None) -> list[Path]:
    """Write figures, tables and macros.tex into ``report_dir/generated``; return the paths.
    macros.tex defines the macros ``report_dir/report.tex`` uses (every macro when there is
    no report.tex there). ``landscape``: the landscape figure to include (a PDF), if any;
    ``frontier``: the frontier campaigns of the section "Where the methods stop", if any."""
    out = Path(report_dir) / "generated"
    source = Path(report_dir) / "report.tex"
    wanted = used_names(source.read_text(encoding="utf-8")) if source.is_file() else None
    table = censored_stats.summary(campaign)
    growth = growth_fit.growth_table(campaign, table)
    written = plots.plot_all(campaign, out, width=paper_widths(len(campaign.families)))
    entrants = campaign.entrants
    sat = phase_plots.sat_entrants(campaign)
    ns = sorted(set(campaign.n_values) | set(CANONICAL_N))
    frontier_entrants = frontier_data.entrant_rows(frontier or [])
    frontier_groups = frontier_data.group_rows(frontier or [], frontier_entrants)
    files = {
        "table_summary.tex": tables.summary_tabular(table, entrants),
        "table_work.tex": tables.work_tabular(table, entrants),
        "table_phases.tex": tables.phases_tabular(table, sat),
        "table_growth.tex": tables.growth_tabular(growth),
        "table_sizes.tex": tables.sizes_tabular(tables.sizes_table(ns)),
        "table_vbs.tex": report_vbs.vbs_tabular(campaign, table),
        "cores.tex": tables.cores_section(campaign),
        "table_frontier.tex": report_frontier.frontier_tabular(frontier_groups, frontier_entrants),
        "macros.tex": campaign_macros(campaign, table, growth, wanted, landscape is not None,
                                      (frontier_groups, frontier_entrants)).text(),
        "noise.tex": tables.noise_paragraph(noise.warnings(campaign),
                                            "machine_state" in campaign.meta),
    }
    if landscape is not None:
        shutil.copyfile(landscape, out / LANDSCAPE_FIGURE)
        written.append(out / LANDSCAPE_FIGURE)
    for name, text in files.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    table.replace([np.inf], "inf").to_csv(out / "summary.csv", index=False)
    written.append(out / "summary.csv")
    return written


def build(campaign_dir: str | Path, report_dir: str | Path = REPORT_DIR, pdf: bool = True,
          landscape: str | Path | None = None, frontier: Sequence[str | Path] = (),
          paper: bool = False) -> ReportFiles:
    """Load the campaign, write ``report_dir/generated`` and (when ``pdf`` and latexmk is
    installed) build ``report_dir/report.pdf``: the campaign's own report
    (:mod:`experiments.report.campaign_report`), or with ``paper`` the repository's paper,
    report.tex filled with the campaign's macros (copied to ``report_dir`` first when that
    is not the committed report directory). ``landscape``: where the landscape campaign's
    figure is (see :func:`find_landscape`); ``frontier``: the frontier campaign directories
    (:func:`experiments.analysis.frontier.load`), all read before any file is written."""
    campaign = censored_stats.load(campaign_dir)
    figure = find_landscape(Path(campaign_dir), Path(landscape) if landscape is not None else None)
    frontier_campaigns = frontier_data.load([Path(d) for d in frontier])
    root = Path(report_dir)
    _make_dir(root)
    if not paper:
        from experiments.report import campaign_report
        table = None
        if frontier_campaigns:
            entrants = frontier_data.entrant_rows(frontier_campaigns)
            table = report_frontier.frontier_tabular(frontier_data.group_rows(frontier_campaigns, entrants),
                                                     entrants)
        files = campaign_report.write_sources(campaign, root, figure, table)
        return _finish(campaign, root, files, pdf)
    if root.resolve() != REPORT_DIR.resolve():
        for name in SOURCES:
            if not (REPORT_DIR / name).is_file():
                raise RaceError(f"{REPORT_DIR / name}: missing (the report sources)")
            try:
                shutil.copy2(REPORT_DIR / name, root / name)
            except OSError as exc:   # names the source file: the copy's target is what failed
                raise RaceError(f"cannot write the report source: {exc.strerror or exc}",
                                source=str(root / name)) from None
    files = write_generated(campaign, root, figure, frontier_campaigns)
    return _finish(campaign, root, files, pdf)


def _make_dir(root: Path) -> None:
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RaceError(f"{root}: cannot create the report directory ({exc.strerror or exc})") from None


def _finish(campaign: censored_stats.Campaign, root: Path, files: list[Path], pdf: bool) -> ReportFiles:
    """The noise warnings, then the PDF built with latexmk (when asked and installed)."""
    generated = root / "generated"
    warned = "".join(f"{w}\n" for w in noise.warnings(campaign))
    if not pdf:
        return ReportFiles(generated, files, None, f"{warned}wrote {len(files)} files to {generated}")
    if shutil.which("latexmk") is None:
        return ReportFiles(generated, files, None,
                           f"{warned}wrote {len(files)} files to {generated}; report.pdf NOT built: latexmk is "
                           f"missing. Install LaTeX with:\n  {INSTALL_HINT}")
    path = build_pdf(root, epoch=campaign_epoch(campaign))
    return ReportFiles(generated, files, path, f"{warned}wrote {len(files)} files to {generated}; built {path}")
