"""A synthetic but valid campaign of any size, for testing and timing the analysis at scale.

:func:`write` makes, under ``out``:

* ``instances/`` an instance set as ``race import`` writes it (one native ``.sudoku`` file per
  puzzle with its unique solution in the header, and ``manifest.csv``): 9 x 9 puzzles, each a
  random relabelling and row/column shuffle (within bands and stacks, and of the bands and
  stacks) of one generated unique puzzle, so every file is a real puzzle with one solution;
* ``<campaign>/runs.csv``: one row per entrant x instance x repeat, in the record contract
  (:mod:`experiments.harness.records`), times drawn from a seeded log-normal law around
  ``median_s`` per entrant, a share ``timeout_share`` of the instances at the limit (status
  ``timeout``) for every entrant but the first;
* ``<campaign>/meta.json``: what ``race run --instances`` records, enough for every reader
  (summary, resume, plot, report, export, compare, merge, portfolio).

Everything is vectorised (numpy arrays written by pandas): a million rows take seconds.
Run as ``python -m experiments.harness.synthetic_campaign OUT --rows N`` (``--help``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.harness.schema import COLUMNS

#: the default entrants (specs); the first answers every instance
ENTRANTS: tuple[str, ...] = ("dlx",)


def _base_puzzle(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One generated 9 x 9 puzzle with a unique solution and that solution (flat, 81 values)."""
    from formats import grid_text
    from generators.puzzle_set import make
    grid, meta = make("unique", 3, seed, 0)
    solution = grid_text.parse_compact(str(meta["solution"]), 3).cells.reshape(-1)
    return grid.cells.reshape(-1).astype(np.int8), solution.astype(np.int8)


def _permutations(rng: np.random.Generator, count: int) -> np.ndarray:
    """``count`` row orders of a 9 x 9 grid that keep its bands: bands shuffled, rows in each."""
    bands = np.argsort(rng.random((count, 3)), axis=1)
    inside = np.argsort(rng.random((count, 3, 3)), axis=2)
    return (bands[:, :, None] * 3 + np.take_along_axis(inside, np.zeros((count, 3, 1), int) +
                                                      np.arange(3)[None, None, :], axis=2)).reshape(count, 9)


def puzzles(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` distinct-by-construction 9 x 9 puzzles with unique solutions (and those
    solutions), as ``(count, 81)`` int8 arrays; 0 = empty. Validity-preserving transformations
    of one generated puzzle: digits relabelled, rows and columns shuffled inside bands and stacks,
    bands and stacks shuffled."""
    clues, solution = _base_puzzle(seed)
    rng = np.random.default_rng(seed)
    labels = np.concatenate([np.zeros((count, 1), np.int8),
                             (np.argsort(rng.random((count, 9)), axis=1) + 1).astype(np.int8)], axis=1)
    rows, cols = _permutations(rng, count), _permutations(rng, count)
    index = (rows[:, :, None] * 9 + cols[:, None, :]).reshape(count, 81)
    out_clues = np.take_along_axis(labels, clues[index].astype(np.intp), axis=1)
    out_solution = np.take_along_axis(labels, solution[index].astype(np.intp), axis=1)
    return out_clues, out_solution


def _native(cells: np.ndarray, solution: np.ndarray, index: int) -> bytes:
    digits = np.array(list(".123456789"))
    sol = "".join(digits[solution].tolist())
    rows = "\n".join(" ".join(digits[cells[r * 9:(r + 1) * 9]].tolist()) for r in range(9))
    return (f"# kind=imported\n# source=synthetic\n# line={index + 1}\n# clues={int((cells > 0).sum())}\n"
            f"# solutions=1\n# solution={sol}\n{rows}\n").encode()


def write_instances(directory: Path, count: int, seed: int = 0) -> tuple[list[str], list[str], np.ndarray]:
    """Write ``count`` puzzles (:func:`puzzles`) as an instance set in ``directory``; returns
    their file names, sha256s and clue counts."""
    directory.mkdir(parents=True, exist_ok=True)
    clues, solutions = puzzles(count, seed)
    names, shas, lines = [], [], ["file,kind,n,seed,index,clues,sha256,source,line,solutions"]
    for k in range(count):
        name = f"synthetic-{k:07d}.sudoku"
        data = _native(clues[k], solutions[k], k)
        (directory / name).write_bytes(data)
        sha = hashlib.sha256(data).hexdigest()
        names.append(name)
        shas.append(sha)
        lines.append(f"{name},imported,3,{seed},{k},{int((clues[k] > 0).sum())},{sha},synthetic,{k + 1},1")
    (directory / "manifest.csv").write_text("\n".join(lines) + "\n")
    return names, shas, (clues > 0).sum(axis=1)


def write(out: Path, rows: int, entrants: tuple[str, ...] = ENTRANTS, repeats: int = 1, seed: int = 0,
          timeout_s: float = 10.0, median_s: float = 2e-4, timeout_share: float = 0.02,
          campaign: str = "synthetic", host: str = "synthetic") -> Path:
    """Write a campaign of about ``rows`` rows (rounded down to whole instances: ``rows //
    (entrants x repeats)`` instances, at least one) and its instance set under ``out``;
    returns the campaign's directory; ``host`` names the machine in the rows' ``worker`` (two
    campaigns of different hosts are two machines' measurements, as ``race merge`` wants).
    See the module docstring for what the rows hold."""
    out = Path(out)
    count = max(1, rows // (len(entrants) * repeats))
    set_dir = out / "instances" / campaign
    names, shas, clue_counts = write_instances(set_dir, count, seed)
    rng = np.random.default_rng(seed + 1)
    e_idx = np.repeat(np.arange(len(entrants)), count * repeats)
    i_idx = np.tile(np.repeat(np.arange(count), repeats), len(entrants))
    r_idx = np.tile(np.arange(repeats), len(entrants) * count)
    size = e_idx.size
    hardness = rng.lognormal(0.0, 0.8, count)[i_idx]           # one instance is hard for everyone
    wall = median_s * (1.0 + e_idx) * hardness * rng.lognormal(0.0, 0.05, size)
    censored = (e_idx > 0) & (rng.random(count)[i_idx] < timeout_share)
    wall = np.where(censored, timeout_s, wall)
    status = np.where(censored, "timeout", "solved")
    specs = np.array(entrants, dtype=object)[e_idx]
    solvers = np.array([e.split(":", 1)[0] for e in entrants], dtype=object)[e_idx]
    frame = pd.DataFrame({c: "" for c in COLUMNS}, index=pd.RangeIndex(size))
    frame["campaign"], frame["entrant"], frame["solver"], frame["params"] = campaign, specs, solvers, "{}"
    frame["n"], frame["family"], frame["seed"] = 3, "imported", seed
    frame["instance"] = np.array(names, dtype=object)[i_idx]
    frame["instance_sha256"] = np.array(shas, dtype=object)[i_idx]
    frame["clues"], frame["repeat"], frame["status"] = clue_counts[i_idx], r_idx, status
    frame["verified"] = np.where(censored, "False", "True")
    frame["wall_s"], frame["cpu_s"] = wall, wall * 0.95
    frame["cores"], frame["peak_rss_mb"], frame["timeout_s"] = 1, 200.0 + e_idx, timeout_s
    frame["iterations"] = np.where(censored, "", np.maximum(1, (0.02 / wall).astype(int)).astype(str))
    frame["t_search"] = np.where(censored, np.nan, wall * 0.6)
    frame["nodes"] = np.where(censored, "", (hardness * 100).astype(int).astype(str))
    frame["worker"] = f"{host}:" + (e_idx % 2).astype(str).astype(object)
    frame["started_at"] = "2026-01-01T00:00:00.000Z"
    frame["referee"] = np.where(censored, "", "verified grid")
    root = out / campaign
    root.mkdir(parents=True, exist_ok=True)
    frame.to_csv(root / "runs.csv", index=False, float_format="%.9g", lineterminator="\n")
    manifest = hashlib.sha256((set_dir / "manifest.csv").read_bytes()).hexdigest()
    meta = {"campaign": campaign, "command": f"synthetic campaign of {size} rows",
            "created_at": "2026-01-01T00:00:00.000Z", "n_values": [3], "entrants": list(entrants),
            "family_labels": "imported", "seed": seed,
            "families": {"imported": {"label": "imported", "kind": "imported", "options": {"3": {}}}},
            "instances": count, "repeats": repeats, "timeout_s": timeout_s, "memory_mb": 4096.0,
            "jobs": 2, "executor": "local",
            "instance_set": {"source": str(set_dir), "directory": str(set_dir), "manifest_sha256": manifest,
                             "instances": {"3": count}, "solutions": {"unique": count}, "not_unique": {}}}
    (root / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return root


def main(argv: list[str] | None = None) -> int:
    """``python -m experiments.harness.synthetic_campaign OUT --rows N``: print the campaign's path."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--entrants", default=",".join(ENTRANTS), help="comma-separated specs")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--campaign", default="synthetic")
    args = parser.parse_args(argv)
    if args.rows < 1 or args.repeats < 1:
        print("synthetic_campaign: error: --rows and --repeats must be positive", file=sys.stderr)
        return 2
    print(write(args.out, args.rows, tuple(args.entrants.split(",")), args.repeats, args.seed,
                campaign=args.campaign))
    return 0


if __name__ == "__main__":
    sys.exit(main())
