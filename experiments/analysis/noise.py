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
"""

from __future__ import annotations

from experiments.analysis import statistics as analysis
from experiments.harness.calibration import drift_warning
from experiments.harness.machine import busy_warning


def cores_in_use(meta: dict) -> int:
    """The workers a campaign ran at once (``jobs`` of meta.json; 1 when not recorded)."""
    try:
        return max(int(meta.get("jobs") or 1), 1)
    except (TypeError, ValueError):
        return 1


def machine_warnings(campaign: analysis.Campaign, where: str = "") -> list[str]:
    """The busy-machine and calibration-drift warnings of ``campaign`` (``where`` names it
    in the line, e.g. when two campaigns are compared)."""
    sources = [(campaign.meta, where)]
    for part in campaign.meta.get("merged_from") or []:     # race merge: each source's readings
        label = f"{where} ({part.get('campaign')})" if where else str(part.get("campaign"))
        sources.append((part, label))
    found = []
    for meta, label in sources:
        found += [busy_warning(meta.get("machine_state") or {}, cores_in_use(meta), label),
                  drift_warning(meta.get("calibration"), label)]
    return [w for w in found if w]


def warnings(campaign: analysis.Campaign, where: str = "") -> list[str]:
    """Every noise warning of ``campaign``: the machine's, then the repeats' spread per
    entrant (nothing when each instance ran once)."""
    from experiments.analysis.compare import spread_warnings
    spread = [w if not where else w.replace("WARNING: ", f"WARNING: {where}: ", 1)
              for w in spread_warnings(campaign, campaign.entrants) if w.startswith("WARNING")]
    return machine_warnings(campaign, where) + spread
