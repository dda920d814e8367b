"""Commands of the report part of the race CLI: ``race plot`` and ``race report``."""

from __future__ import annotations

from pathlib import Path

import click

from experiments.analysis import censored_stats


@click.command()
@click.argument("results_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", "-o", "out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the figures [default: RESULTS_DIR/plots].")
@click.option("--width", "width", default=None, metavar="LENGTH",
              help="Lay each figure out for this width (3.3in: a column, 6.8in: a page; also cm, mm, "
                   "pt): type of 8 to 10 pt when included at that width [default: the size each "
                   "figure needs].")
@click.option("--only", "only", multiple=True, metavar="NAME",
              help="Draw only this figure (runtime, solved, cactus, work, phases, scatter); "
                   "repeatable, or comma-separated.")
def plot(results_dir: Path, out: Path | None, width: str | None, only: tuple[str, ...]) -> None:
    """Plot the campaign in RESULTS_DIR (runs.csv + meta.json): runtime vs n,
    fraction solved vs n, cactus plot, work counters vs n and the SAT phase
    split, each as PDF and PNG. Prints the summary table, the noise warnings
    (busy machine, calibration drift, repeats varying > 10%) and the files written.

    \b
    Example:
      race plot results/reference-n2-10 -o /tmp/plots
      race plot results/reference-n2-10 --width 3.3in --only runtime,solved
    """
    from experiments.analysis.figure_style import parse_width
    from experiments.analysis.plots import chosen_figures
    inches = parse_width(width) if width is not None else None
    names = chosen_figures([n.strip() for item in only for n in item.split(",") if n.strip()])
    from experiments.analysis import noise, plots, summary
    from experiments.cli.run_progress import large, slow_step
    shown = large(results_dir)
    with slow_step("reading the campaign", shown=shown):
        campaign = censored_stats.load(results_dir)
    with slow_step("computing the summary", shown=shown):
        per_instance = censored_stats.instance_times(campaign.runs)
        table = censored_stats.summary(campaign, per_instance)
    with slow_step("drawing the figures", shown=shown):
        written = plots.plot_all(campaign, out if out is not None else campaign.path / "plots",
                                 table=table, per_instance=per_instance, width=inches, only=names)
    with slow_step("writing the summary", shown=shown):
        text = summary.summary_text(campaign, table, per_instance)
    click.echo(text)
    for warning in noise.warnings(campaign, per_instance=per_instance):
        click.echo(warning, err=True)
    for path in written:
        click.echo(f"wrote {path}")


@click.command()
@click.argument("results_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--report-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Build in this directory (report.tex is written there) "
                   "[default: RESULTS_DIR/report].")
@click.option("--no-pdf", is_flag=True, help="Only write report.tex and generated/ (figures, tables; "
                                              "with --paper the macros), do not run LaTeX.")
@click.option("--landscape", type=click.Path(path_type=Path), default=None,
              help="The landscape campaign (directory with landscape.pdf, or the PDF) for the "
                   "report [default: RESULTS_DIR/landscape.pdf when present]; with --html, "
                   "a landscape campaign directory (runs.csv) whose landscape the page draws.")
@click.option("--frontier", "frontier", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="A frontier campaign (a campaign directory, e.g. the hard family at one large n) "
                   "for the table (with --paper: the section \"Where the methods stop\"): per "
                   "campaign its n, family, share of empty cells, limit and puzzles; per entrant the "
                   "puzzles answered and the median wall time (CPU time too on several cores). "
                   "Repeatable.")
@click.option("--paper", is_flag=True,
              help="Build the repository's paper (report/report.tex: the write-up of the reference "
                   "campaign, its numbers filled in from RESULTS_DIR) instead of the campaign's own "
                   "report; `make report` builds it from results/reference-n2-10.")
@click.option("--html", "html", is_flag=True,
              help="Write the interactive, self-contained HTML page instead of the LaTeX report.")
@click.option("--out", "-o", "out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="With --html: the HTML file to write [default: RESULTS_DIR/report.html].")
@click.option("--no-grids", is_flag=True,
              help="With --html: leave the instances' grids out (no puzzle regeneration; smaller file).")
def report(results_dir: Path, report_dir: Path | None, no_pdf: bool, landscape: Path | None,
           frontier: tuple[Path, ...], paper: bool, html: bool, out: Path | None, no_grids: bool) -> None:
    """Build the report of the campaign in RESULTS_DIR: report.tex, its figures
    and tables (generated/) in RESULTS_DIR/report/ (--report-dir: elsewhere), then
    report.pdf there with latexmk. Every sentence is computed from the campaign:
    its entrants, families and n, where each entrant answered every puzzle and
    where it first missed, its medians, the fastest per n; the tables are the
    summary `race export` prints, one per family. Without LaTeX installed, still
    writes the sources and says how to install it (exit 0).

    With --paper, the repository's paper instead (report/report.tex, the write-up
    of the reference campaign, with macros.tex holding every number it quotes);
    `make report` builds it in report/ from results/reference-n2-10.

    With --frontier DIR (repeatable), the report gains a table of those campaigns
    (generated/table_frontier.tex; the paper's section "Where the methods stop"):
    puzzles answered per entrant and medians in which an unanswered puzzle counts
    as beyond the limit. A missing or unreadable DIR stops the command (exit 2).

    With --html, write instead one offline HTML page (plotly.js and the data
    inlined): interactive figures, head to head of any two entrants, a per-instance
    table that sorts and filters, each instance's grid (read from results/instances/
    or regenerated, checked against its sha256), the summary with its intervals, the
    virtual best solver and the campaign's metadata.

    \b
    Example:
      race report results/reference-n2-10    # -> .../report/report.pdf
      race report results/reference-n2-10 --paper --report-dir my-paper
      race report results/reference-n2-10 --frontier results/reference-hard-n6
      race report results/reference-n2-10 --html -o report.html
    """
    results_dir = censored_stats.campaign_root(results_dir)     # a `race run --out` directory: its campaign
    if html:
        from experiments.report import html as html_report
        if report_dir is not None or no_pdf or paper:
            click.echo("race: note: --report-dir, --no-pdf and --paper concern the LaTeX report; ignored "
                       "with --html", err=True)
        from experiments.cli.run_progress import large, slow_step
        shown = large(results_dir)
        with slow_step("reading the campaign and writing the HTML page", shown=shown):
            path = html_report.write(results_dir, out if out is not None else results_dir / "report.html",
                                     landscape, grids=not no_grids, frontier=frontier)
        click.echo(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
        return
    if out is not None or no_grids:
        raise click.UsageError("--out and --no-grids go with --html")
    from experiments.report import build as report_module
    target = report_dir if report_dir is not None else results_dir / "report"
    result = report_module.build(results_dir, target, pdf=not no_pdf, landscape=landscape, frontier=frontier,
                                 paper=paper)
    click.echo(result.message)


COMMANDS: list = [plot, report]
