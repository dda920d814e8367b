"""Campaigns from code: :func:`run` one as ``race run`` does (with a progress callback),
:func:`load` one back as pandas tables with its summary, :func:`compare` two of its entrants
as ``race compare`` does.

A campaign is a directory with ``runs.csv`` (one row per measurement) and ``meta.json``
(docs/formats.md); :func:`run` writes one, resumes it when called again with the same
arguments, and returns what :func:`load` returns. The figures and the HTML report are the
command line's: ``race report DIRECTORY --html -o report.html``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formats.errors import RaceError

if TYPE_CHECKING:
    import pandas as pd

    from experiments.harness.rows import Row

#: what :func:`run` calls after each measurement: (cells done, cells to run, the row written
#: to runs.csv: ``entrant``, ``family``, ``n``, ``instance``, ``status``, ``wall_s``, ...)
Progress = Callable[[int, int, dict], None]


@dataclass
class Results:
    """A campaign read back (:func:`load`): ``runs`` (one row per measurement, disagreements
    settled by the verified grid; columns in docs/formats.md), ``summary`` (per family,
    entrant and n: ``solved`` of ``total``, ``median_s`` with ``median_lo`` .. ``median_hi``, its
    95% interval, ``q25_s`` .. ``q75_s``, ``par2_s``, the count of each status, the median work
    counters and phase times; seconds, ``inf`` = censored), ``meta``
    (meta.json) and ``text``, the summary ``race run`` prints (also ``str(results)``)."""
    path: Path
    runs: pd.DataFrame
    summary: pd.DataFrame
    meta: dict
    text: str
    _campaign: Any = field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return str(self.meta.get("campaign") or self.path.name)

    @property
    def entrants(self) -> list[str]:
        """The entrants, in the order the campaign declared them."""
        return list(self._campaign.entrants)

    def __str__(self) -> str:
        return self.text


@dataclass
class Comparison:
    """Two entrants on the instances they both ran (:func:`compare`): ``table`` has one row
    per family and n (``n`` <NA>: all n of the family pooled) with ``pairs``, ``a_faster``,
    ``b_faster``, ``ties``, the median time ratio B/A with its 95% interval (``ratio``,
    ``ratio_lo``, ``ratio_hi``; < 1: B faster) and the signed-rank test's ``p``; ``text`` is
    what ``race compare`` prints (also ``str(comparison)``)."""
    a: str
    b: str
    table: pd.DataFrame
    text: str
    warnings: list[str]

    def __str__(self) -> str:
        return self.text


def load(path: str | Path) -> Results:
    """The campaign in directory ``path`` (or the one campaign below it). RaceError when there
    is none, or its files are missing or malformed (a damaged row is left out and named on
    stderr, never counted)."""
    from experiments.analysis import censored_stats, summary
    campaign = censored_stats.load(Path(path))
    per_instance = censored_stats.instance_times(campaign.runs)
    table = censored_stats.summary(campaign, per_instance)
    return Results(campaign.path, campaign.runs, table, campaign.meta,
                   summary.family_summaries(campaign), campaign)


def compare(results: Results | str | Path, a: str, b: str, n: int | Iterable[int] | None = None,
            family: str | None = None, tolerance: float = 0.05) -> Comparison:
    """Entrant ``b`` against entrant ``a`` of one campaign (a :class:`Results` or its
    directory), paired on identical instances, optionally only at box size(s) ``n`` and in one
    ``family``; times within ``tolerance`` (relative) are a tie. RaceError for an unknown
    entrant or family, or when they share no instance."""
    import pandas as pd

    from experiments.analysis import compare as comparison
    loaded = results if isinstance(results, Results) else load(results)
    campaign = loaded._campaign
    for entrant in (a, b):
        if entrant not in campaign.entrants:
            from formats.suggestions import did_you_mean
            raise RaceError(f"entrant {entrant!r} is not in campaign {loaded.name}"
                            f"{did_you_mean(entrant, campaign.entrants)} "
                            f"(entrants: {', '.join(campaign.entrants)})")
    families = [family] if family else None
    if family and family not in campaign.families:
        raise RaceError(f"family {family!r} is not in campaign {loaded.name} "
                        f"(families: {', '.join(campaign.families)})")
    n_values = None if n is None else [n] if isinstance(n, int) else sorted(int(k) for k in n)
    found = comparison.compare(campaign, a, b, n_values, families, tolerance)
    table = pd.DataFrame([{"family": r.family, "n": r.n, "pairs": r.pairs, "a_faster": r.a_wins,
                           "b_faster": r.b_wins, "ties": r.ties, "ratio": r.ratio.estimate,
                           "ratio_lo": r.ratio.low, "ratio_hi": r.ratio.high, "p": r.test.p}
                          for r in found.rows])
    table["n"] = table["n"].astype("Int64")          # <NA>: the family's n pooled
    return Comparison(a, b, table, comparison.comparison_text(found), list(found.warnings))


def run(n: int | str | Iterable[int] = "2..3", solvers: str | Iterable[str] = "dlx,sat", *,
        family: str = "unique,hard", instances: int = 5, timeout: float = 10.0,
        repeats: int = 1, seed: int = 0, memory_mb: float | None = 4096.0, jobs: int | None = None,
        out: str | Path = "results", campaign: str | None = None,
        progress: Progress | None = None, **family_options: Any) -> Results:
    """Race ``solvers`` (entrant specs: a comma-separated text or a list) on ``instances``
    generated puzzles per ``family`` and box size ``n`` (``3``, ``"2..5"``, ``[2, 4]``), each
    cell under ``timeout`` seconds and ``memory_mb``, ``repeats`` times, on ``jobs`` workers
    (default: one per core), recorded in ``out/CAMPAIGN`` (the name ``race run`` gives the same
    campaign, unless ``campaign`` names it). ``family_options``: ``holes``, ``pattern``,
    ``base`` as ``race run`` takes them. ``progress(done, total, row)`` is called after each
    measurement. Called again with the same arguments it resumes: recorded cells are not run
    again. Returns the campaign (:func:`load`). RaceError for a bad argument;
    KeyboardInterrupt when stopped (every finished cell is recorded)."""
    import os

    from experiments.harness.campaign import run_campaign
    from experiments.harness.config import (
        DEFAULTS,
        Config,
        Invocation,
        default_name,
        parse_n,
    )
    from experiments.harness.entrants import parse_entrants
    from experiments.harness.instance_families import parse_families
    from solvers.registry import INSTALLED
    n_text = str(n) if isinstance(n, (int, str)) else ",".join(str(int(k)) for k in n)
    n_values = parse_n(n_text)
    solvers_text = solvers if isinstance(solvers, str) else ",".join(solvers)
    entrants = parse_entrants(solvers_text, INSTALLED)
    families = parse_families(family, dict(family_options))
    options: dict[str, object] = {}
    for each in families:
        options.update({k: v for k, v in each.options if k in family_options})
    labels = ",".join(f.label for f in families)
    for name, value, low in (("instances", instances, 1), ("repeats", repeats, 1),
                             ("seed", seed, 0), ("jobs", jobs if jobs is not None else 1, 1)):
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise RaceError(f"{name} must be an integer >= {low}, got {value!r}")
    if not isinstance(timeout, (int, float)) or not 0 < timeout <= 1e6:
        raise RaceError(f"timeout must be a number of seconds in (0, 1e6], got {timeout!r}")
    memory = memory_mb or None
    name = campaign or default_name(n_values, labels, seed, instances, float(timeout), memory,
                                    DEFAULTS, options)
    if not name or "/" in name or name.startswith(".") or not name.isprintable():
        raise RaceError(f"campaign {name!r}: expected a plain directory name (printable "
                        "characters, no '/', not starting with '.')")
    config = Config(n_values=n_values, entrants=entrants, family_labels=labels, seed=seed,
                    instances=instances, repeats=repeats, timeout_s=float(timeout),
                    memory_mb=memory, jobs=jobs or os.cpu_count() or 1, out=Path(out),
                    campaign=name, generator_options=options, families=families,
                    asked=Invocation(n_text=n_text, solvers_text=solvers_text, jobs_given=jobs))
    counted = {"done": 0, "total": 0}

    def on_start(prepared) -> None:
        counted["total"] = len(prepared.pending)

    def on_row(row: Row) -> None:
        counted["done"] += 1
        if progress is not None:
            progress(counted["done"], counted["total"], row.as_dict())

    with _own_signal_handlers():
        done = run_campaign(config, on_row=on_row, on_start=on_start)
    if done.interrupted:
        raise KeyboardInterrupt(f"campaign {name} stopped; every finished cell is in "
                                f"{config.runs_path}: the same call resumes it")
    results = load(config.directory)
    if done.stats is not None:
        for entrant, (left, why) in done.stats.not_started.items():
            results.text += f"\nnote: {entrant} did not start ({why}): {left} cell(s) left to resume"
    return results


@contextmanager
def _own_signal_handlers() -> Iterator[None]:
    """The caller's SIGINT and SIGTERM handlers back once the campaign returns: a stopped
    campaign leaves both ignored, for a ``race run`` that is about to exit, while a notebook's
    kernel goes on and must still be interruptible."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                signal.signal(sig, handler)
