"""The head to head's data, computed once for every view of it: the static figure
(:func:`experiments.analysis.scatter_phase_models.scatter_model`) and the HTML page, where the
reader picks any two entrants and a family.

:func:`head_to_head_table` makes a wide table, one row per instance (family, n and the
instance: its sha256 pairs the entrants' rows when recorded, else its name, as
:func:`experiments.analysis.compare.paired_times`), with, per entrant:

* ``time``: the median time over its repeats, ``inf`` when censored (no verified answer),
  NaN where it never raced the instance (skipped, or not in its rows);
* ``skipped``: whether it was skipped there (never raced: no time, so a pair with a skipped
  side is left out, never drawn as a censored one);
* ``status``: the instance's status (:func:`experiments.analysis.censored_stats.instance_times`);
* ``at``: where its value is drawn on a time axis: the time, or for a censored one a place in
  the strip beyond the limit (limit .. limit * :data:`STRIP`, log-uniform), fixed by a hash of
  the instance's name and the entrant's (:func:`strip_place`), so that every view puts it in
  the same place and two entrants' censored points of one instance do not sit on the diagonal.

:meth:`HeadToHeadTable.counts` gives, for a pair and a family (or all), what the head to head's
note says: :data:`COUNTS`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.harness.schema import Status

#: how far the censored strip beyond each limit line reaches (a factor of the limit)
STRIP = 4.0
#: the share of the strip's log width its places leave free at each end
STRIP_MARGIN = 0.15
#: the family choice of every family together
ALL = "all families"
#: what :meth:`HeadToHeadTable.counts` counts for a pair (a on x, b on y): the pairs drawn,
#: a faster, b faster, equal times (two censored ones included), beyond the limit on x only,
#: on y only and on both, and the pairs left out for a skipped side
COUNTS = ("pairs", "a_faster", "b_faster", "ties", "x_only", "y_only", "both", "left_out")


def strip_place(instance: str, entrant: str, limit: float) -> float:
    """Where ``entrant``'s censored time on ``instance`` is drawn: in the strip beyond
    ``limit`` (its inner 70 % on a log scale), from a BLAKE2b hash of both names (the same
    on every machine and in every view)."""
    digest = hashlib.blake2b(f"{instance}\0{entrant}".encode(), digest_size=8).digest()
    share = int.from_bytes(digest, "big") / 2.0 ** 64
    return float(limit * STRIP ** (STRIP_MARGIN + (1 - 2 * STRIP_MARGIN) * share))


@dataclass(frozen=True, eq=False)
class HeadToHeadTable:
    """The wide table (see the module docstring): ``rows`` (family, n, instance; in the
    campaign's family order, then n, then instance), and per entrant (``entrants``) the
    arrays ``time``, ``skipped``, ``status`` and ``at``, one value per row."""

    limit: float
    entrants: tuple[str, ...]
    rows: pd.DataFrame
    time: dict[str, np.ndarray]
    skipped: dict[str, np.ndarray]
    status: dict[str, np.ndarray]
    at: dict[str, np.ndarray]

    @property
    def families(self) -> list[str]:
        """The families of the rows, in their order."""
        return list(dict.fromkeys(self.rows["family"]))

    def _family(self, family: str | None) -> np.ndarray:
        if family is None or family == ALL:
            return np.ones(len(self.rows), dtype=bool)
        return (self.rows["family"] == family).to_numpy()

    def present(self, entrant: str) -> np.ndarray:
        """Rows where ``entrant`` has a row (raced, or skipped)."""
        return ~np.isnan(self.time[entrant]) | self.skipped[entrant]

    def drawn(self, a: str, b: str, family: str | None = None) -> np.ndarray:
        """The rows drawn for the pair (``family`` only, or all): both raced the instance."""
        return self._family(family) & ~np.isnan(self.time[a]) & ~np.isnan(self.time[b])

    def counts(self, a: str, b: str, family: str | None = None) -> dict[str, int]:
        """:data:`COUNTS` for ``a`` (x) against ``b`` (y) on ``family`` (None or :data:`ALL`:
        every family)."""
        rows = self._family(family)
        both = rows & self.present(a) & self.present(b)
        left_out = both & (self.skipped[a] | self.skipped[b])
        drawn = self.drawn(a, b, family)
        ta, tb = self.time[a][drawn], self.time[b][drawn]
        off_a, off_b = np.isinf(ta), np.isinf(tb)
        return {"pairs": int(drawn.sum()), "a_faster": int((ta < tb).sum()), "b_faster": int((tb < ta).sum()),
                "ties": int((ta == tb).sum()), "x_only": int((off_a & ~off_b).sum()),
                "y_only": int((off_b & ~off_a).sum()), "both": int((off_a & off_b).sum()),
                "left_out": int(left_out.sum())}

    def low(self, a: str, b: str, family: str | None = None) -> float:
        """The bottom of both time axes of the pair: half its smallest measured time (a
        thousandth of the limit without one)."""
        drawn = self.drawn(a, b, family)
        values = np.concatenate([self.time[a][drawn], self.time[b][drawn]])
        values = values[np.isfinite(values) & (values > 0)]
        return float(values.min()) / 2 if values.size else self.limit / 1e3

    def pairs(self, a: str, b: str, family: str | None = None) -> pd.DataFrame:
        """The drawn pairs: family, n, instance, time_a, time_b (``inf`` censored) and x, y
        (where each is drawn: :attr:`at`)."""
        drawn = self.drawn(a, b, family)
        out = self.rows[drawn].reset_index(drop=True)
        return out.assign(time_a=self.time[a][drawn], time_b=self.time[b][drawn],
                          x=self.at[a][drawn], y=self.at[b][drawn])


def head_to_head_table(campaign: censored_stats.Campaign, per_instance: pd.DataFrame | None = None
                       ) -> HeadToHeadTable:
    """The wide table of ``campaign`` (``per_instance``: its
    :func:`censored_stats.instance_times`, when at hand). Columnar: one factorisation of the
    instances, no Python loop per row but the hash of each censored value's place."""
    times = censored_stats.instance_times(campaign.runs) if per_instance is None else per_instance
    limit = campaign.timeout_s
    sha = times["instance_sha256"].astype(str)
    key = np.where(sha.isin(["", "nan", "None"]), times["instance"].astype(str), sha)
    frame = pd.DataFrame({"family": times["family"].astype(str).to_numpy(), "n": times["n"].astype(int).to_numpy(),
                          "key": key, "instance": times["instance"].astype(str).to_numpy()})
    row, _ = pd.factorize(pd.MultiIndex.from_frame(frame[["family", "n", "key"]]))
    first = np.unique(row, return_index=True)[1]
    rows = frame.iloc[first][["family", "n", "instance"]].reset_index(drop=True)
    order = {f: i for i, f in enumerate(campaign.families)}
    rank = rows["family"].map(order).fillna(len(order)).to_numpy()
    sort = np.lexsort((rows["instance"].to_numpy(), rows["n"].to_numpy(), rank))
    rows = rows.iloc[sort].reset_index(drop=True)
    place = np.empty(len(sort), dtype=int)
    place[sort] = np.arange(len(sort))
    row = place[row]
    entrants = tuple(campaign.entrants) + tuple(e for e in dict.fromkeys(times["entrant"]) if e not in campaign.entrants)
    time, skipped, status, at = {}, {}, {}, {}
    entrant_of = times["entrant"].to_numpy()
    value, words = times["time"].to_numpy(float), times["status"].astype(str).to_numpy()
    for entrant in entrants:
        mine = np.flatnonzero(entrant_of == entrant)
        mine = mine[np.unique(row[mine], return_index=True)[1]]        # the first row of each instance
        where = row[mine]
        status[entrant] = np.full(len(rows), None, dtype=object)
        status[entrant][where] = words[mine]
        skipped[entrant] = np.zeros(len(rows), dtype=bool)
        skipped[entrant][where] = words[mine] == Status.SKIPPED.value
        time[entrant] = np.full(len(rows), np.nan)
        time[entrant][where] = np.where(skipped[entrant][where], np.nan, value[mine])
        at[entrant] = time[entrant].copy()
        censored = np.flatnonzero(np.isinf(time[entrant]))
        names = rows["instance"].to_numpy()[censored]
        at[entrant][censored] = [strip_place(name, entrant, limit) for name in names]
    return HeadToHeadTable(limit, entrants, rows, time, skipped, status, at)
