"""The end of ``race run``: the campaign's figures and HTML report, and the lines that name
them and the commands to run next."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import click

from formats.errors import RaceError

#: the figures ``race run`` draws at the end, as PNG (``race plot`` and ``race report`` also
#: write the PDFs; PNG alone halves the time, see :func:`write_report`)
FIGURE_FORMATS = ("png",)


def write_report(directory: Path) -> tuple[list[Path], list[str]]:
    """Draw the figures of the campaign in ``directory`` into ``directory/plots``
    (:func:`experiments.analysis.plots.plot_all`, as ``race plot``) and write its HTML
    report to ``directory/report.html`` (:func:`experiments.report.html.write`, as ``race
    report --html``), the page in a forked process while this one draws the figures (one
    after the other where there is one CPU or no fork). Returns the paths written and, for
    each part that failed, one line saying what and where (never raised: the rows are on
    disk already)."""
    written: list[Path] = []
    failed: list[str] = []
    click.echo("drawing the figures and the HTML report ...", err=True)
    page = _page_in_child(directory)
    try:
        from experiments.analysis import censored_stats, plots
        written += plots.plot_all(censored_stats.load(directory), directory / "plots", formats=FIGURE_FORMATS)
    except Exception as exc:  # noqa: BLE001 - any renderer's failure is one line, the rows stay
        failed.append(f"the figures were not drawn: {_reason(exc)}")
    path, why = page() if page is not None else _page(directory)
    if path is not None:
        written.append(path)
    else:
        failed.append(f"the HTML report was not written: {why}")
    return written, failed


def _page(directory: Path) -> tuple[Path | None, str]:
    """Write the campaign's HTML report: (its path, "") or (None, why not)."""
    try:
        from experiments.report import html
        return html.write(directory, directory / "report.html"), ""
    except Exception as exc:  # noqa: BLE001 - as in write_report
        return None, _reason(exc)


def _page_in_child(directory: Path):
    """Start writing the HTML report in a forked process; a function that waits for it and
    returns what :func:`_page` returns. None (write it here) with one usable CPU or no fork."""
    if len(os.sched_getaffinity(0)) < 2:
        return None
    from solvers.processes.control import fork_context
    try:
        context = fork_context()
        ours, theirs = context.Pipe(duplex=False)
        child = context.Process(target=_page_to_pipe, args=(directory, theirs, os.getpid()),
                                daemon=True)
        child.start()
    except (OSError, ValueError):
        return None
    theirs.close()

    def wait() -> tuple[Path | None, str]:
        try:
            path, why = ours.recv()
        except (EOFError, OSError):
            path, why = None, "its process ended without a word"
        child.join()
        ours.close()
        return (Path(path) if path else None), why
    return wait


def _page_to_pipe(directory: Path, pipe, parent: int) -> None:
    from solvers.processes.control import die_with
    die_with(parent)                    # a killed race leaves no page writer behind
    path, why = _page(directory)
    pipe.send((str(path) if path else "", why))
    pipe.close()


def _reason(exc: Exception) -> str:
    if isinstance(exc, RaceError):
        return str(exc)
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}" + (f": {exc.filename}" if exc.filename else "")
    return f"{type(exc).__name__}: {exc}"


def report_lines(campaign, written: list[Path], why_none: str) -> list[str]:
    """The last lines of ``race run``: the figures and the HTML report written (``written``;
    ``why_none`` says why when there are none), and the commands that take the campaign
    further."""
    from experiments.analysis.head_to_head import head_to_head_pair
    where = shlex.quote(str(campaign.path))
    figures = [p for p in written if p.suffix != ".html"]
    pages = [p for p in written if p.suffix == ".html"]
    lines = []
    if figures:
        lines.append(f"figures: {figures[0]}")
        lines += [f"         {p}" for p in figures[1:]]
    if pages:
        lines.append(f"report:  {pages[0]} (interactive, offline: open it in a browser)")
    if not figures:
        lines.append(f"figures: none drawn ({why_none}): race plot {where} draws them")
    pair = head_to_head_pair(campaign)
    lines.append("next:")
    commands = [(f"race report {where}", "the PDF report (LaTeX), its figures as PDF")]
    if pair:
        commands.append((f"race compare {where} {shlex.quote(pair[0])} {shlex.quote(pair[1])}",
                         "two entrants head to head"))
    commands.append((f"race export {where} -f markdown", "the summary as a table to paste"))
    width = max(len(c) for c, _ in commands)
    lines += [f"  {c:<{width}}  # {what}" for c, what in commands]
    return lines
