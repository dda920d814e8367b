"""A campaign whose rows were not all measured alike: by several codes of one entrant
(``race run --mixed``, or a program edited under an older campaign: meta.json's
``entrant_code`` / ``entrant_provenance``), or on several machines (a merge, a dask cluster,
a resume elsewhere: the host of runs.csv's ``worker`` column). The run summary, ``race
report`` and the HTML page say so (:func:`experiments.analysis.noise.warnings`)."""

from __future__ import annotations

import pandas as pd

from experiments.analysis import censored_stats
from experiments.harness.code_identity import mixing_lines
from formats.errors import printable


def machines(runs: pd.DataFrame) -> dict[str, int]:
    """Host -> rows it measured, from the ``worker`` column (``host:pid``; blank: none)."""
    if "worker" not in runs.columns or runs.empty:
        return {}
    counts = runs["worker"].value_counts(sort=False)
    hosts: dict[str, int] = {}
    for worker, count in counts.items():
        text = str(worker)
        if not text or text == "nan":
            continue
        host = text.rpartition(":")[0] or text
        hosts[host] = hosts.get(host, 0) + int(count)
    return dict(sorted(hosts.items()))


def warnings(campaign: censored_stats.Campaign) -> list[str]:
    """One line per entrant whose rows mix code, and one when the rows were measured on
    more than one machine."""
    out = mixing_lines(campaign.meta)
    hosts = machines(campaign.runs)
    if len(hosts) > 1:
        out.append(f"its rows were measured on {len(hosts)} machines: "
                   + ", ".join(f"{printable(host)} ({count} rows)" for host, count in hosts.items()))
    return out
