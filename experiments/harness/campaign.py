"""A race campaign: entrants x n x instances x repeats, run by an executor, recorded.

:func:`prepare` makes the campaign directory, the instances (generated once,
cached by :mod:`experiments.harness.instances`) and ``meta.json``
(:mod:`experiments.harness.provenance`) and finds the cells without a record;
:func:`experiments.harness.scheduling.run` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from experiments.harness import records
from experiments.harness.config import Config
from experiments.harness.instances import ensure_instances
from experiments.harness.provenance import previous_meta, write_meta
from experiments.harness.scheduling import Cell, make_cells


@dataclass
class Prepared:
    """A campaign ready to run: every cell and those without a record yet."""
    config: Config
    cells: list[Cell]
    pending: list[Cell]
    meta: dict[str, Any]


def prepare(config: Config, progress: bool = False) -> Prepared:
    """Make the campaign directory, the instances of every family and meta.json; find the
    pending cells. A runs.csv written before a column was added gets the new header and
    its damaged rows are set aside (:func:`records.set_aside`)."""
    previous_meta(config)                       # refuse an incompatible resume before any work
    if config.instance_set is not None:         # race run --instances PATH: one family
        family = config.families[0]
        instances = {(family.key, n): config.instance_set.by_n[n] for n in config.n_values}
    else:
        instances = {(family.key, n): ensure_instances(config.out, family.kind, n, config.instances,
                                                       config.seed, progress=progress,
                                                       **family.options_for(n))
                     for family in config.families for n in config.n_values}
    config.directory.mkdir(parents=True, exist_ok=True)
    records.set_aside(config.runs_path)         # damaged rows aside, older header upgraded
    meta = write_meta(config)
    cells = make_cells(config, instances)
    done = records.done_keys(config.runs_path)
    pending = [c for c in cells if c.key not in done]
    return Prepared(config, cells, pending, meta)

