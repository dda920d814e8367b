"""The puzzles of a committed reference campaign, regenerated as ``race run`` regenerates them:
from its meta.json (family kind and options per n, seed, instance count), through the instance
cache (:func:`experiments.harness.instances.ensure_instances`), and checked against the sha256
its runs.csv recorded for every instance (a generator that drifted fails loudly here).

``puzzles(name, n)`` -> (the campaign's time limit in seconds, [(file name, Grid), ...]).
The cache is ``results/instances`` (where ``race run`` keeps it), so a second run is quick.
"""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = ROOT / "results"


def puzzles(campaign: str, n: int) -> tuple[float, list]:
    from experiments.harness.instances import ensure_instances
    from formats import grid_text
    directory = ROOT / "results" / campaign
    meta = json.loads((directory / "meta.json").read_text())
    (family,) = meta["families"].values()
    options = family["options"][str(n)]
    instances = ensure_instances(CACHE, family["kind"], n, int(meta["instances"]), int(meta["seed"]),
                                 **options)
    recorded = {row["instance"].rsplit("/", 1)[-1]: row["instance_sha256"]
                for row in csv.DictReader(open(directory / "runs.csv", newline=""))}
    out = []
    for instance in instances:
        data = instance.path.read_bytes()
        if hashlib.sha256(data).hexdigest() != recorded[instance.file]:
            raise SystemExit(f"{instance.path}: not the puzzle {campaign} raced (sha256 differs)")
        out.append((instance.file, grid_text.parse(data.decode(), instance.file).grids[0]))
    return float(meta["timeout_s"]), out
