"""``race report --html``: one self-contained, offline HTML page per campaign.

The page inlines plotly.js: ``static/plotly-cartesian.min.js`` is the npm package
``plotly.js-cartesian-dist-min`` (scatter and bar traces: all the page draws, a third of
the full bundle) at the plotly.js version python plotly writes its figures for (a test
checks they agree), ``static/plotly-cartesian.LICENSE`` its license. It inlines the
page's own script and style (``static/``) too, and the campaign's data: the interactive
figures of :mod:`experiments.report.html_figures`, a per-instance table that sorts and
filters, the grid of each instance (clues, and the solution when one is known;
:func:`experiments.report.instance_grids.pack`), the head-to-head scatter of any two
entrants chosen in the page (its points, strip places and counts computed here, once:
:func:`head_to_head_data`), the summary with its intervals, the virtual best solver and
"who wins where", the frontier campaigns given with ``--frontier`` (:func:`frontier_rows`),
and the campaign's metadata (command, commit, machine, limits, warnings). Nothing is fetched
from the network.

The data and the figures travel as JSON, gzip-compressed and base64-encoded
(:func:`packed_script`), unpacked by the browser: a fraction of the size, and no text
from the data (an entrant's name, a campaign's) can end or open an element of the page.
The template's placeholders are replaced in one pass over the template only
(:func:`fill`): nothing inserted is searched again.
"""

from __future__ import annotations

import base64
import html as html_escape
import json
import math
import re
import zlib
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats, virtual_best
from experiments.analysis import frontier as frontier_data
from experiments.analysis import head_to_head_table as h2h
from experiments.analysis.figure_style import campaign_styles
from experiments.analysis.head_to_head_table import HeadToHeadTable
from experiments.harness.schema import Status
from experiments.report import html_figures, html_landscape, instance_grids
from formats.errors import RaceError, write_reason
from formats.whole_file import write_whole

if TYPE_CHECKING:
    import plotly.graph_objects as go

#: per-instance columns of the table (besides entrant, family, n, instance, status, time)
COUNTERS = ("nodes", "updates", "conflicts", "decisions", "propagations")


def instance_rows(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per (entrant, family, n, instance): time (``inf`` censored) and status as in
    :func:`censored_stats.instance_times` (``per_instance``, when at hand), the median of each work
    counter over the answered repeats, ``work`` (the entrant's search counter: nodes, else
    conflicts), the share of empty cells and the clues."""
    runs = campaign.runs
    rows = censored_stats.instance_times(runs) if per_instance is None else per_instance
    keys = ["entrant", "family", "n", "instance"]
    ok = runs[keys + list(COUNTERS)][censored_stats.answered(runs)]      # no other column copied
    if len(ok):
        counters = ok.groupby(keys)[list(COUNTERS)].median().reset_index()
        rows = rows.merge(counters, on=keys, how="left")
    else:
        rows = rows.assign(**{c: np.nan for c in COUNTERS})
    extra = runs[["instance", "holes", "clues"]].drop_duplicates("instance")
    rows = rows.merge(extra, on="instance", how="left")
    rows["work"] = rows["nodes"].where(rows["nodes"].notna(), rows["conflicts"])
    return rows


def _clean(value):
    """JSON-safe: ``nan`` -> None, ``inf`` -> the string "inf", numpy scalars -> Python."""
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf"
        return value
    return value


def _column(values: pd.Series) -> list:
    """:func:`_clean` of each value of one column, the float columns converted at once."""
    if values.dtype.kind == "f":
        array = values.to_numpy(float)
        out = np.where(np.isnan(array), np.array(None), np.where(np.isinf(array), "inf", array.astype(object)))
        return [float(v) if isinstance(v, float) else v for v in out.tolist()]
    if values.dtype.kind in "iub":
        return values.to_numpy().tolist()
    return [_clean(v) for v in values.tolist()]


def _records(frame: pd.DataFrame, columns: list[str]) -> list[list]:
    """The rows of ``frame``'s ``columns`` as JSON-safe lists (:func:`_clean`), column by column."""
    return [list(row) for row in zip(*(_column(frame[c]) for c in columns))] if len(frame) else []


def warnings(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None) -> list[str]:
    """What a reader must know before trusting the numbers: wrong answers, disagreements,
    uncommitted changes, damaged rows set aside, and the noise warnings (busy machine,
    calibration drift, repeats that disagree: :func:`experiments.analysis.noise.warnings`)."""
    from experiments.analysis import noise
    out = [w.removeprefix("WARNING: ") for w in noise.warnings(campaign, per_instance=per_instance)]
    runs = campaign.runs
    wrong = int((runs["status"] == Status.WRONG).sum())
    if wrong:
        out.append(f"{wrong} cell(s) returned a WRONG answer (status wrong)")
    unsat = runs[runs["status"] == Status.UNSAT]
    if len(unsat):          # of those, the ones on an instance another entrant solved
        unsat = unsat[unsat["instance"].isin(set(runs.loc[runs["status"] == Status.SOLVED, "instance"]))]
    if len(unsat):
        out.append(f"{len(unsat)} cell(s) claim unsat on an instance another entrant solved")
    commit = str(campaign.meta.get("git_commit") or "")
    if commit.endswith("-dirty"):
        out.append("the campaign ran with uncommitted changes (git commit ends in -dirty)")
    damaged = campaign.path / "runs.damaged.csv"
    if damaged.is_file():
        out.append(f"damaged rows were set aside in {damaged.name}")
    for note in campaign.meta.get("warnings") or []:
        out.append(str(note))
    return out


def metadata(campaign: censored_stats.Campaign) -> list[list[str]]:
    """(label, value) pairs of the campaign's metadata for the page."""
    meta = campaign.meta
    machine = meta.get("machine") or {}
    packages = meta.get("packages") or {}
    pairs = [("campaign", campaign.name), ("command", meta.get("command", "")),
             ("created", meta.get("created_at", "")), ("git commit", meta.get("git_commit", "")),
             ("entrants", ", ".join(campaign.entrants)), ("entrants' code", _code(campaign)),
             ("families", ", ".join(campaign.families)),
             ("n", ", ".join(map(str, campaign.n_values))),
             ("time limit", censored_stats.format_seconds(campaign.timeout_s)),
             ("memory limit", f"{meta['memory_mb']:g} MB" if meta.get("memory_mb") else ""),
             ("instances per family and n", meta.get("instances", "")), ("repeats", meta.get("repeats", "")),
             ("seed", meta.get("seed", "")), ("jobs", meta.get("jobs", "")),
             ("executor", meta.get("executor", "")),
             ("machine", ", ".join(f"{k}: {v}" for k, v in machine.items())),
             ("python", meta.get("python", "")), ("kissat", meta.get("kissat_version", "")),
             ("packages", ", ".join(f"{k} {v}" for k, v in packages.items())),
             ("cells recorded", str(len(campaign.runs)))]
    return [[k, str(v)] for k, v in pairs if v not in ("", None)]


def _code(campaign: censored_stats.Campaign) -> str:
    """Each entrant with the code that measured its rows (meta.json's ``entrant_code``):
    ``dlx [1a42be..], mine [93b732..]+[83fe64..]``; "" when none is recorded."""
    from experiments.analysis.code_pairing import spec_of
    from experiments.harness.code_identity import label, measured_by
    found = [(entrant, measured_by(campaign.meta, spec_of(campaign.meta, entrant)))
             for entrant in campaign.entrants]
    return ", ".join(f"{entrant} {label(digests)}" for entrant, digests in found if digests)


SUMMARY_COLUMNS = ["family", "entrant", "n", "solved", "total", "median_s", "median_lo", "median_hi", "q25_s",
                   "q75_s", "par2_s", "timeout", "memout", "error", "unknown", "skipped", "wrong", "runs"]


def _summary(campaign: censored_stats.Campaign, table: pd.DataFrame, per_instance: pd.DataFrame | None = None
             ) -> pd.DataFrame:
    rows = table
    if virtual_best.applies(campaign):
        rows = pd.concat([table, virtual_best.summary(campaign, per_instance)], ignore_index=True)
        order = {k: i for i, k in enumerate(campaign.families)}
        rows = rows.assign(_k=rows["family"].map(order)).sort_values(["_k"], kind="mergesort").drop(columns="_k")
    for column in SUMMARY_COLUMNS:
        if column not in rows.columns:
            rows[column] = np.nan
    return rows


FRONTIER_COLUMNS = ["campaign", "family", "n", "empty", "limit", "puzzles", "entrant", "cores", "answered",
                    "median", "median of answered", "CPU median of answered"]


def frontier_rows(campaigns: list[censored_stats.Campaign]) -> list[list[str]]:
    """The frontier campaigns' table (:mod:`experiments.analysis.frontier`) as text cells in
    :data:`FRONTIER_COLUMNS`' order: per (campaign, family, n) a row per entrant, then a row
    "any entrant" (the puzzles some entrant answered, the medians of the fastest answer per
    puzzle); times written with each campaign's limit ("> 60 s": censored), "-" where a number
    does not apply (no answer; the CPU time of an entrant on one core)."""
    fmt = censored_stats.format_seconds
    entrants = frontier_data.entrant_rows(campaigns)
    out = []
    for g in frontier_data.group_rows(campaigns, entrants).itertuples():
        head = [g.campaign, g.family, str(g.n), f"{100 * g.holes:.0f}%" if math.isfinite(g.holes) else "n/a",
                fmt(g.limit_s), str(g.puzzles)]
        mine = entrants[(entrants["source"] == g.source) & (entrants["family"] == g.family) & (entrants["n"] == g.n)]
        for r in mine.itertuples():
            out.append([*head, r.entrant, str(r.cores), f"{r.answered}/{r.total}", fmt(r.median_s, r.limit_s),
                        "-" if math.isnan(r.answered_median_s) else fmt(r.answered_median_s),
                        fmt(r.cpu_answered_median_s) if r.cores > 1 and not math.isnan(r.cpu_answered_median_s)
                        else "-"])
        out.append([*head, "any entrant", "", f"{g.anyone}/{g.puzzles}", fmt(g.median_s, g.limit_s),
                     "-" if math.isnan(g.answered_median_s) else fmt(g.answered_median_s), ""])
    return out


def head_to_head_data(table: HeadToHeadTable) -> dict:
    """The page's head to head (:mod:`experiments.analysis.head_to_head_table`), for the
    reader's choice of two entrants and a family: per instance its ``family``, ``n`` and
    ``instance``; per entrant (``entrants``) where each of its values is drawn (``at``: the
    time, or its place in the strip beyond the limit; None where it never raced the
    instance), whether it is censored (``censored``, 1 or 0) and its ``status``; in ``pairs``,
    for each family choice (``all``, then each of ``families``) and each ordered pair (a, b),
    :data:`experiments.analysis.head_to_head_table.COUNTS` and ``low``, the bottom of both
    axes (``pair_columns`` names them); ``top`` the axes' top (the strip's)."""
    entrants = list(table.entrants)
    choices = [h2h.ALL, *table.families]
    return {
        "entrants": entrants, "all": h2h.ALL, "families": table.families,
        "family": table.rows["family"].tolist(), "n": table.rows["n"].astype(int).tolist(),
        "instance": table.rows["instance"].tolist(),
        "at": {e: _column(pd.Series(table.at[e])) for e in entrants},
        "censored": {e: np.isinf(table.time[e]).astype(int).tolist() for e in entrants},
        "status": {e: table.status[e].tolist() for e in entrants},
        "pair_columns": [*h2h.COUNTS, "low"],
        "pairs": {choice: {a: {b: [*table.counts(a, b, choice).values(), table.low(a, b, choice)]
                               for b in entrants} for a in entrants} for choice in choices},
        "top": table.limit * h2h.STRIP,
    }


def page_data(campaign: censored_stats.Campaign, landscape: censored_stats.Campaign | None = None,
              grids: bool = True, frontier: Sequence[censored_stats.Campaign] = ()
              ) -> tuple[dict, dict[str, go.Figure]]:
    """The page's data (JSON-safe) and its figures (plotly figures, by figure name);
    ``frontier``: the frontier campaigns of the section "Where the methods stop", if any."""
    from experiments.analysis.head_to_head import head_to_head_pair
    per_instance = censored_stats.instance_times(campaign.runs)
    table = censored_stats.summary(campaign, per_instance)
    rows = instance_rows(campaign, per_instance)
    limit = campaign.timeout_s
    styles = campaign_styles(campaign, *([landscape] if landscape is not None else []))
    figures = {
        "runtime": html_figures.runtime_figure(campaign, table, rows, styles),
        "solved": html_figures.solved_figure(campaign, table, styles, per_instance),
        "cactus": html_figures.cactus_figure(campaign, rows, styles),
        "work": html_figures.work_figure(campaign, table, styles),
        "phases": html_figures.phases_figure(campaign, table),
    }
    if landscape is not None:
        figures["landscape"] = html_landscape.landscape_figure(landscape, styles)
    columns = ["entrant", "family", "n", "instance", "status", "time", "work", *COUNTERS, "holes", "clues",
               "repeats"]
    shown = instance_grids.slowest(rows) if grids else []
    found, missing = instance_grids.campaign_grids(campaign, only=shown) if grids else ({}, {})
    if grids and rows["instance"].nunique() > len(shown):
        missing["*"] = grids_note(len(shown), rows["instance"].nunique())
    wins = virtual_best.wins(campaign, table, per_instance) if virtual_best.applies(campaign) else pd.DataFrame()
    data = {
        "name": campaign.name, "limit": limit, "entrants": campaign.entrants, "families": campaign.families,
        "vbs": virtual_best.NAME if virtual_best.applies(campaign) else None,
        "pair": list(head_to_head_pair(campaign) or campaign.entrants[:1] * 2),
        "head_to_head": head_to_head_data(h2h.head_to_head_table(campaign, per_instance)),
        "columns": columns, "instances": _records(rows, columns),
        "summary_columns": SUMMARY_COLUMNS, "summary": _records(_summary(campaign, table, per_instance), SUMMARY_COLUMNS),
        "wins_columns": list(wins.columns), "wins": _records(wins, list(wins.columns)) if len(wins) else [],
        "frontier_columns": FRONTIER_COLUMNS, "frontier": frontier_rows(list(frontier)),
        "meta": metadata(campaign) + ([["instance grids", missing["*"]]] if "*" in missing else []),
        "warnings": warnings(campaign, per_instance),
        "grids": instance_grids.pack(found),
        "grids_missing": missing if grids else {"*": "grids left out (--no-grids)"},
    }
    return data, figures


def grids_note(shown: int, instances: int) -> str:
    """What the page says of the grids it leaves out: it holds ``shown`` of ``instances``."""
    return (f"the page holds the grids of the {shown:,} slowest of {instances:,} instances (censored "
            f"first; a grid per instance would make the page too large); the others are their "
            f"instance files")


#: the static files of the page (``static/``): template, style, script, plotly.js
STATIC = ("report.html", "report.css", "report.js", "plotly-cartesian.min.js")
PLACEHOLDER = re.compile(r"\{\{([A-Z]+)\}\}")


def packed_script(element_id: str, value=None, pieces: Iterable[str] | None = None) -> str:
    """``value`` as JSON (or ``pieces``, JSON text in parts, each compressed as it comes: the
    whole text is never held), gzip-compressed and base64-encoded, in a ``<script>`` element
    the browser does not run (the page's script unpacks it): base64 holds no ``<``, ``&`` or
    quote, so no data can end the element or open another."""
    if pieces is None:
        pieces = (json.dumps(value, separators=(",", ":"), allow_nan=False),)
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)     # the gzip format
    packed = [packer.compress(piece.encode("utf-8")) for piece in pieces]
    packed.append(packer.flush())
    body = base64.b64encode(b"".join(packed)).decode("ascii")
    return f'<script type="application/json+gzip+base64" id="{element_id}">{body}</script>'


def figures_json(figures: dict[str, go.Figure]) -> Iterator[str]:
    """One JSON object of the figures' JSON texts, by name, in pieces: each figure is written
    by plotly once (not parsed and written again), and taken out of ``figures`` as it is, so
    a large campaign's figures are never all held as text at once."""
    yield "{"
    for i, name in enumerate(list(figures)):
        yield ("," if i else "") + json.dumps(name) + ":"
        yield figures.pop(name).to_json(validate=False)
    yield "}"


def fill(template: str, parts: dict[str, str]) -> str:
    """``template`` with each ``{{NAME}}`` replaced by ``parts[NAME]`` in one pass: text
    inserted is never searched for placeholders (a ``{{SCRIPT}}`` in the data stays text).
    A placeholder without a part is a ValueError (a broken template, not user input)."""
    def part(match: re.Match) -> str:
        if match.group(1) not in parts:
            raise ValueError(f"the report template names no part {match.group(0)}")
        return parts[match.group(1)]
    return PLACEHOLDER.sub(part, template)


def render(campaign: censored_stats.Campaign, landscape: censored_stats.Campaign | None = None, grids: bool = True,
           frontier: Sequence[censored_stats.Campaign] = ()) -> str:
    """The whole page as one string."""
    data, figures = page_data(campaign, landscape, grids, frontier)
    packed = packed_script("race-data", data)
    del data                            # a large campaign's rows: let go before the figures' text
    packed += packed_script("race-figures", pieces=figures_json(figures))
    static = resources.files("experiments.report") / "static"
    template, style, script, plotly = ((static / name).read_text(encoding="utf-8") for name in STATIC)
    return fill(template, {
        "TITLE": html_escape.escape(f"sudoku-race: {campaign.name}"),
        "STYLE": style,
        "PLOTLY": plotly,
        "DATA": packed,
        "SCRIPT": script,
    })


def landscape_campaign(campaign: censored_stats.Campaign, landscape: Path | None) -> censored_stats.Campaign | None:
    """The campaign whose hardness landscape the page draws: ``landscape`` when it is a
    campaign directory (runs.csv), else the campaign itself when it has several shares of
    empty cells at one n and family (a ``race landscape`` campaign), else None."""
    if landscape is not None:
        directory = landscape if landscape.is_dir() else landscape.parent
        if not (directory / "runs.csv").is_file():
            raise RaceError("--landscape: no landscape campaign here (expected a directory with "
                            "runs.csv, written by race landscape)", source=str(landscape))
        given = censored_stats.load(directory)
        holes = pd.to_numeric(given.runs["holes"], errors="coerce")
        if not int(given.runs.assign(h=holes).groupby("n")["h"].nunique().max()) > 1:
            raise RaceError("--landscape: not a landscape (one share of empty cells per n and "
                            "family; race landscape measures several)", source=str(landscape))
        return given
    return campaign if _has_hole_axis(campaign) else None


def _has_hole_axis(campaign: censored_stats.Campaign) -> bool:
    """Several shares of empty cells at one n and family: a ``race landscape`` campaign."""
    holes = pd.to_numeric(campaign.runs["holes"], errors="coerce")
    per = campaign.runs.assign(h=holes).groupby(["family", "n"])["h"].nunique()
    return bool(len(per) and int(per.max()) > 1)


def write(campaign_dir: str | Path, out: str | Path, landscape: Path | None = None,
          grids: bool = True, frontier: Sequence[str | Path] = ()) -> Path:
    """Write the page of the campaign in ``campaign_dir`` to ``out``; return its path.
    ``frontier``: the frontier campaign directories (:func:`experiments.analysis.frontier.load`),
    read before anything is written."""
    campaign = censored_stats.load(campaign_dir)
    frontier_campaigns = frontier_data.load([Path(d) for d in frontier])
    text = render(campaign, landscape_campaign(campaign, landscape), grids, frontier_campaigns)
    path = Path(out)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, text, sync=False)
    except OSError as exc:
        raise RaceError(f"cannot write the HTML report: {write_reason(exc)}", source=str(path)) from None
    return path
