"""``race export``: a campaign's runs (or its summary) as parquet, JSON lines, CSV, markdown or a
LaTeX (booktabs) table."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from formats.errors import RaceError

FORMATS = ("parquet", "jsonl", "csv", "markdown", "latex")
#: the formats that print the summary table as a person reads it (no table of every run)
TABLE_FORMATS = ("markdown", "latex")
TABLES = ("runs", "summary")


def load_campaign(results_dir: Path):
    """The campaign in ``results_dir``: the one call into the analysis package."""
    from experiments.analysis import censored_stats
    return censored_stats.load(results_dir)


def summary_rows(campaign) -> tuple[list[str], list[list[str]]]:
    """The summary table as printed by ``race plot``: family, entrant, n, solved/total,
    median, IQR, PAR-2, wrong; times formatted, censored ones as ``> limit``; a cell whose every
    run was skipped (never raced) says so, with no time and no PAR-2."""
    from experiments.analysis import censored_stats, skipped_cells
    table = censored_stats.summary(campaign)
    fmt = censored_stats.format_seconds
    header = ["family", "entrant", "n", "solved", "median", "IQR", "PAR-2", "wrong"]
    never_raced = skipped_cells.mask(table).to_numpy()
    rows = [[str(getattr(row, "family", "")), row.entrant, str(row.n)]
            + (["-", "skipped (not run)", "", ""] if skipped else
               [f"{row.solved}/{row.total}", fmt(row.median_s, row.limit_s),
                f"{fmt(row.q25_s, row.limit_s)} .. {fmt(row.q75_s, row.limit_s)}", fmt(row.par2_s)])
            + [str(row.wrong)] for row, skipped in zip(table.itertuples(), never_raced)]
    return header, rows


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A GitHub-flavoured markdown table (``|`` in cells escaped), columns padded,
    numbers right-aligned (a column is numeric when every cell parses as a float)."""
    def cell(text: str) -> str:
        return str(text).replace("|", "\\|").replace("\n", " ")

    body = [[cell(v) for v in row] for row in rows]
    head = [cell(h) for h in header]
    widths = [max([len(h), 3, *(len(r[i]) for r in body)]) for i, h in enumerate(head)]
    numeric = [bool(body) and all(_is_number(r[i]) for r in body) for i in range(len(head))]
    lines = ["| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |",
             "| " + " | ".join("-" * (w - 1) + ":" if num else "-" * w
                               for w, num in zip(widths, numeric)) + " |"]
    for row in body:
        lines.append("| " + " | ".join(v.rjust(w) if num else v.ljust(w)
                                       for v, w, num in zip(row, widths, numeric)) + " |")
    return "\n".join(lines) + "\n"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def write_frame(frame, fmt: str, out: str) -> None:
    """Write a DataFrame as parquet (needs pyarrow; ``out`` must be a file),
    JSON lines or CSV to ``out`` (a path, or ``-`` for stdout)."""
    if fmt == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise RaceError("--format parquet needs the package pyarrow "
                            "(pip install 'sudoku-race[parquet]')") from None
        if out == "-":
            raise RaceError("--format parquet is binary: give a file with --out")
        from formats.whole_file import replacing
        try:
            with replacing(out) as temporary:       # whole or not at all (a full disk)
                _typed(frame).to_parquet(temporary, index=False)
        except OSError as exc:
            raise RaceError(f"cannot write: {exc.strerror or exc}", source=out) from None
        return
    frame = _whole(frame)
    text = _typed(frame, json=True).to_json(orient="records", lines=True) if fmt == "jsonl" \
        else frame.to_csv(index=False, lineterminator="\n")
    _write_text(text, out)


def _whole(frame):
    """``frame`` with each float column that holds whole numbers only (none blank, e.g. the
    limit ``timeout_s``) as integers: written ``20`` as runs.csv holds it, not ``20.0``."""
    import numpy as np
    whole = [column for column in frame.columns if frame[column].dtype.kind == "f" and len(frame)
             and np.isfinite(values := frame[column].to_numpy()).all()
             and (values == np.round(values)).all() and np.abs(values).max() < 2 ** 53]
    if not whole:
        return frame
    frame = frame.copy()
    for column in whole:
        frame[column] = frame[column].astype(np.int64)
    return frame


def _typed(frame, json: bool = False):
    """``frame`` with ``verified`` as booleans and, for JSON (which has no infinity: pandas
    writes null), every infinite number as the string "inf" or "-inf", as CSV writes it: a
    censored median (above the limit) stays apart from a missing one."""
    import numpy as np

    from experiments.harness.schema import is_true
    frame = frame.copy()
    if "verified" in frame:
        frame["verified"] = frame["verified"].map(is_true)
    if json:
        for column in frame.columns:
            values = frame[column]
            if values.dtype.kind == "f" and np.isinf(values.to_numpy()).any():
                frame[column] = values.astype(object).where(~np.isinf(values.to_numpy()),
                                                            np.where(values > 0, "inf", "-inf"))
    return frame


def _write_text(text: str, out: str) -> None:
    if out == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    from formats.whole_file import write_whole
    try:
        write_whole(out, text if text.endswith("\n") else text + "\n", sync=False)
    except OSError as exc:
        raise RaceError(f"cannot write: {exc.strerror}", source=out) from None


@click.command("export")
@click.argument("results_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), required=True,
              help="Output format (markdown: the summary table, ready to paste; latex: the summary "
                   "as a booktabs tabular, one block per family, for \\input in a table "
                   "environment; needs only \\usepackage{booktabs}).")
@click.option("--table", type=click.Choice(TABLES), default=None,
              help="What to export [default: runs; summary for markdown and latex].")
@click.option("--out", "-o", "out", default="-", show_default=True,
              help="Output file, or - for stdout (parquet needs a file).")
def export(results_dir: Path, fmt: str, table: str | None, out: str) -> None:
    """Export the campaign in RESULTS_DIR (runs.csv + meta.json): every run,
    or the per-entrant, per-n summary, as parquet, JSON lines, CSV, a
    markdown table or a LaTeX table (the summary only: a booktabs tabular that
    a plain article with \\usepackage{booktabs} can \\input).

    \b
    Example:
      race export results/reference-n2-10 --format markdown   # to paste
      race export results/reference-n2-10 -f latex -o summary.tex
      race export results/reference-n2-10 -f parquet -o runs.parquet
      race export results/reference-n2-10 -f csv --table summary -o summary.csv
    """
    from experiments.cli.run_progress import large, slow_step
    shown = large(results_dir)
    with slow_step("reading the campaign", shown=shown):
        campaign = load_campaign(results_dir)
    table = table or ("summary" if fmt in TABLE_FORMATS else "runs")
    if fmt == "latex":
        if table != "summary":
            raise RaceError("--format latex writes the summary table only (--table summary); "
                            "every run goes to csv, jsonl or parquet")
        from experiments.analysis import censored_stats
        from experiments.report.campaign_report import campaign_tabular
        _write_text(campaign_tabular(campaign, censored_stats.summary(campaign)), out)
        return
    if fmt == "markdown":
        if table == "summary":
            header, rows = summary_rows(campaign)
        else:
            frame = campaign.runs
            header = list(frame.columns)
            rows = [["" if v != v else str(v) for v in r] for r in frame.itertuples(index=False)]
        _write_text(markdown_table(header, rows), out)
        return
    if table == "summary":
        from experiments.analysis import censored_stats
        frame = censored_stats.summary(campaign)
    else:
        frame = campaign.runs
    write_frame(frame, fmt, out)


COMMANDS: list = [export]
