"""A campaign of several instance families, one family at a time.

The statistics of :mod:`experiments.analysis.statistics` group by entrant and n; a
campaign that races several families (``race run --kind unique,hard``) must be cut by
family first (runs.csv's ``kind`` column), or the families would be pooled.
"""

from __future__ import annotations

import pandas as pd

from experiments.analysis.statistics import Campaign


def family_labels(campaign: Campaign) -> list[str]:
    """The families of the campaign, in the order of its ``--kind`` (then as they appear)."""
    seen = [str(k) for k in dict.fromkeys(campaign.runs["kind"].fillna("").astype(str))]
    declared = [k.strip() for k in str(campaign.meta.get("kind") or "").split(",")]
    return [k for k in declared if k in seen] + [k for k in seen if k not in declared]


def by_family(campaign: Campaign) -> dict[str, Campaign]:
    """One sub-campaign per family (same directory and meta, the family's runs only)."""
    kinds = campaign.runs["kind"].fillna("").astype(str)
    return {label: Campaign(campaign.path, campaign.runs[kinds == label].reset_index(drop=True),
                            campaign.meta)
            for label in family_labels(campaign)}


def holes_by_n(campaign: Campaign, label: str) -> dict[int, float]:
    """The hole fraction of family ``label`` at each n (empty for families without holes)."""
    runs = campaign.runs[campaign.runs["kind"].astype(str) == label]
    holes = pd.to_numeric(runs["holes"], errors="coerce")
    return {int(n): float(h) for n, h in zip(runs["n"], holes) if pd.notna(h)}
