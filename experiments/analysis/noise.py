"""Noise you can see: the pyperf-style warnings (one line each) that the run summary,
``race plot``, the report and ``race compare`` print under their tables, from what
``meta.json`` and ``runs.csv`` recorded:

* the machine was busy: the load average above the cores in use, or the other processes
  using more than the cores the run left free, at the start or the end
  (:func:`experiments.harness.machine.busy_warning`);
* the calibration drifted by more than 5% between the start and the end
  (:func:`experiments.harness.calibration.drift_warning`);
* the repeats of an instance vary by more than 10%
  (:func:`experiments.analysis.compare.spread_warnings`).

The machine's warnings come from every *session* (one ``race run`` of the campaign; a resume
is another) that measured cells: each one's readings are in ``runs_conditions``
(:mod:`experiments.harness.conditions`), and a warning of a campaign of several sessions
names the run (``run 2 of 3, started 2026-11-23 19:37 UTC``). A session that
measured no cell (a resume with nothing left to run) changes no warning: the readings at the
top of meta.json, the latest session's, are read only when there is no history.
"""

from __future__ import annotations

from experiments.analysis import censored_stats
from experiments.harness.calibration import drift_warning
from experiments.harness.machine import busy_warning


def cores_in_use(meta: dict) -> int:
    """The workers a campaign ran at once (``jobs`` of meta.json; 1 when not recorded)."""
    try:
        return max(int(meta.get("jobs") or 1), 1)
    except (TypeError, ValueError):
        return 1


def _moment(session: dict, which: str) -> str | None:
    """When ``session``'s readings were taken at its ``start`` or ``end`` (ISO UTC), or None."""
    for block in ("machine_state", "calibration"):
        reading = (session.get(block) or {}).get(which)
        if isinstance(reading, dict) and isinstance(reading.get("at"), str):
            return reading["at"]
    return None


def _measured(session: dict, later: dict | None, started: list[str]) -> bool:
    """Whether ``session`` measured a cell: its recorded count of ``cells`` when it has one,
    else whether a row's ``started_at`` (``started``) falls between its start and its end (or,
    for a session that never ended, the start of the ``later`` one); True when neither can
    tell (no times recorded)."""
    if isinstance(session.get("cells"), int):
        return session["cells"] > 0
    begin = _moment(session, "start")
    end = _moment(session, "end") or (_moment(later, "start") if later else None)
    if begin is None or not started:
        return True
    return any(begin <= t and (end is None or t <= end) for t in started)


def sessions(meta: dict, runs=None) -> list[tuple[dict, str]]:
    """The readings to warn about, each with the words naming its session: those of every
    session of ``runs_conditions`` that measured a cell (:func:`_measured`, from the rows
    ``runs``), named when the campaign has several sessions; the top-level readings when
    there is no history."""
    history = [s for s in meta.get("runs_conditions") or [] if isinstance(s, dict)]
    if not history:
        return [(meta, "")]
    started = [] if runs is None or "started_at" not in runs else \
        sorted(str(t) for t in runs["started_at"].dropna())
    found = []
    for k, session in enumerate(history):
        later = history[k + 1] if k + 1 < len(history) else None
        if not _measured(session, later, started):
            continue
        at = (_moment(session, "start") or "")[:16].replace("T", " ")
        name = f"run {k + 1} of {len(history)}" + (f", started {at} UTC" if at else "")
        found.append((session, name if len(history) > 1 else ""))
    return found


def machine_warnings(campaign: censored_stats.Campaign, where: str = "") -> list[str]:
    """The busy-machine and calibration-drift warnings of ``campaign`` (``where`` names it
    in the line, e.g. when two campaigns are compared), from each session that measured
    cells (:func:`sessions`), and for a merged campaign each source's."""
    merged = campaign.meta.get("merged_from") or []
    sources = [] if merged else [(campaign.meta, where)]     # a merge's readings are its sources'
    for part in merged:     # race merge: each source's readings
        label = f"{where} ({part.get('campaign')})" if where else str(part.get("campaign"))
        sources.append((part, label))
    found = []
    for meta, label in sources:
        runs = campaign.runs
        if meta is not campaign.meta and "campaign" in runs:
            runs = runs[runs["campaign"].astype(str) == str(meta.get("campaign"))]
        for session, name in sessions(meta, runs):
            where_ = ", ".join(w for w in (label, name) if w)
            found += [busy_warning(session.get("machine_state") or {}, cores_in_use(meta), where_),
                      drift_warning(session.get("calibration"), where_)]
    return list(dict.fromkeys(w for w in found if w))


def warnings(campaign: censored_stats.Campaign, where: str = "", per_instance=None) -> list[str]:
    """Every noise warning of ``campaign``: the machine's, then the repeats' spread per
    entrant (nothing when each instance ran once), then rows of mixed code or machines
    (:func:`experiments.analysis.mixed_campaign.warnings`). ``per_instance``: the campaign's
    :func:`censored_stats.instance_times`, when the caller has it."""
    from experiments.analysis.compare import spread_warnings
    from experiments.analysis.mixed_campaign import warnings as mixing
    spread = [w if not where else w.replace("WARNING: ", f"WARNING: {where}: ", 1)
              for w in spread_warnings(campaign, campaign.entrants, per_instance=per_instance)
              if w.startswith("WARNING")]
    mixed = [f"WARNING: {where + ': ' if where else ''}{line}" for line in mixing(campaign)]
    return machine_warnings(campaign, where) + spread + mixed
