"""The puzzles behind a campaign's instances, for the HTML report's grid view.

A campaign records each instance by its path under the instance cache
(``<out>/instances/<set>/<kind>-n<N>-s<seed>-<index>.sudoku``) and its sha256. The
grid is read from that file when it is there (next to the campaign directory, as
``race run`` writes it), else regenerated from the generator identity the path and
``meta.json`` give (puzzles are byte-identical on every machine). Either way its bytes
must hash to the recorded sha256, or the grid is left out with the reason: a grid
shown is always the one that was raced.

Grids travel as text: one character per cell in base 36 for n <= 5 (``0`` empty),
two characters per cell for larger n (see :func:`encode`). :func:`pack` writes each
solution once (the families of a campaign cut their puzzles from the same solved grids)
and a puzzle whose clues agree with its solution as a mask of the given cells.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.analysis import censored_stats
from experiments.harness.identity import family_label
from formats import grid_text
from formats.errors import RaceError

#: a generated instance's file name (generators.puzzle_set.puzzle_name)
NAME = re.compile(r"^(?P<kind>[a-z]+)-n(?P<n>\d+)-s(?P<seed>\d+)-(?P<index>\d+)\.sudoku$")
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
_DIGIT_TABLE = np.array(list(DIGITS))
_HEX_TABLE = np.array(list("0123456789abcdef"))


@dataclass(frozen=True)
class InstanceGrid:
    """One instance's puzzle: ``clues`` and, when known, ``solution`` (encoded, see
    :func:`encode`); ``solution_label`` says what the solution is ("the unique
    solution", "the planted solution (one of possibly several)"); ``source``:
    ``file`` or ``regenerated``."""
    n: int
    clues: str
    solution: str | None
    solution_label: str
    source: str


def width(n: int) -> int:
    """Characters per cell: 1 up to n = 5 (values <= 25 < 36), else 2 (values <= 1295)."""
    return 1 if n * n < len(DIGITS) else 2


def encode(cells: np.ndarray, n: int) -> str:
    """The cells in row-major order, each value in base 36 with :func:`width` digits."""
    values = np.asarray(cells).reshape(-1)
    if width(n) == 1:
        return "".join(_DIGIT_TABLE[values].tolist())
    return "".join(np.char.add(_DIGIT_TABLE[values // 36], _DIGIT_TABLE[values % 36]).tolist())


def _values(text: str, n: int) -> np.ndarray:
    """A ``compact`` solution (one-line format for n <= 5, else comma-separated values)."""
    if "," in text:
        return np.array([int(v) for v in text.split(",")], dtype=int)
    return grid_text.parse(text + "\n").grids[0].cells.reshape(-1)


def from_bytes(data: bytes, source: str) -> InstanceGrid:
    """The grid (and the solution its metadata records) of a native puzzle file."""
    found = grid_text.parse(data.decode("utf-8"), source)
    grid = found.grids[0]
    meta = found.metadata
    solution, label = None, ""
    if meta.get("solution"):
        solution, label = encode(_values(meta["solution"], grid.n), grid.n), "the unique solution"
    elif meta.get("planted"):
        solution = encode(_values(meta["planted"], grid.n), grid.n)
        label = "the planted solution (the grid the holes were cut from; there may be others)"
    return InstanceGrid(grid.n, encode(grid.cells, grid.n), solution, label, source)


def _family_kind(meta: dict, key: str) -> str | None:
    """The generator kind of the family with key ``key``, as meta.json records it."""
    entry = (meta.get("families") or {}).get(key)
    kind = entry.get("kind") if isinstance(entry, dict) else None
    return kind if isinstance(kind, str) and kind else None


def _family_options(meta: dict, key: str, n: int) -> dict:
    """The generator options at n of the family with key ``key``, as meta.json records them."""
    families = meta.get("families") or {}
    entries = [families[key]] if key in families else \
        [e for e in families.values() if isinstance(e, dict) and e.get("label") == family_label(key)]
    for entry in entries:
        if isinstance(entry, dict):
            options = (entry.get("options") or {}).get(str(n))
            return dict(options) if isinstance(options, dict) else {}
    return {}


def _set_directory(instance: str, family_key: str, meta: dict) -> str | None:
    """The directory of the instance cache that ``race run`` wrote a generated ``instance``
    into (:func:`experiments.harness.instances.instance_dir`), or None when the name is not
    a generated puzzle's."""
    from experiments.harness.config import options_label
    match = NAME.match(Path(instance).name)
    if match is None:
        return None
    n = int(match["n"])
    return f"{match['kind']}-n{n}-s{match['seed']}{options_label(_family_options(meta, family_key, n))}"


def _regenerate(instance: str, family_key: str, meta: dict, pool) -> bytes | None:
    """The bytes ``race run`` wrote for ``instance`` (from its generator identity), or None
    when the path names no generated puzzle."""
    from generators.puzzle_set import make
    match = NAME.match(Path(instance).name)
    if match is None:
        return None
    stem, n, seed, index = match["kind"], int(match["n"]), int(match["seed"]), int(match["index"])
    options = _family_options(meta, family_key, n)
    if not options and "-" in Path(instance).parent.name.removeprefix(f"{stem}-n{n}-s{seed}"):
        return None     # options in the set's name that meta.json does not give
    kind = _family_kind(meta, family_key) or stem     # hard-...: a holes puzzle
    grid, puzzle_meta = make(kind, n, seed, index, pool=pool, **options)
    return grid_text.format_native(grid, puzzle_meta).encode("utf-8")


#: the most instances whose grids a page holds (the slowest first: :func:`slowest`)
GRID_LIMIT = 2000


def slowest(rows: pd.DataFrame, limit: int = GRID_LIMIT) -> list[str]:
    """The ``limit`` instances of the per-instance table ``rows`` (``instance``, ``time``,
    ``inf`` = censored, ``status``) slowest for the entrant slowest on them, censored first (a
    cell never raced, ``skipped``, is not slow: last), ties in the order the instances first
    appear; all of them when there are at most ``limit``."""
    times = rows["time"].to_numpy(float)
    if "status" in rows.columns:
        times = np.where((rows["status"] == "skipped").to_numpy(), -1.0, times)
    worst = pd.Series(times, index=rows["instance"].to_numpy()).groupby(level=0, sort=False).max()
    if len(worst) <= limit:
        return list(worst.index)
    order = np.argsort(-worst.fillna(-1.0).to_numpy(), kind="stable")[:limit]
    return list(worst.index[order])


def campaign_grids(campaign: censored_stats.Campaign, regenerate: bool = True, only: "list[str] | None" = None
                   ) -> tuple[dict[str, InstanceGrid], dict[str, str]]:
    """The grid of every instance of ``campaign`` (or of those named in ``only``) by its
    ``instance`` path, and the reason for each instance left out (no file, not regenerable,
    sha256 mismatch). The file is looked for in the imported set's directory (meta.json's
    ``instance_set``, wherever it is) and in the instance cache beside the campaign
    (``<out>/instances/``), by its path or in the directory of its set, before it is
    regenerated."""
    from generators.puzzle_set import CounterPool
    runs = campaign.runs
    if only is not None:
        runs = runs[runs["instance"].isin(only)]
    runs = runs.drop_duplicates("instance")[["instance", "instance_sha256", "family_key"]]
    roots = [campaign.path.parent / "instances", campaign.path / "instances"]
    imported = (campaign.meta.get("instance_set") or {}).get("directory")
    if isinstance(imported, str) and imported:      # race run --instances PATH: the set, anywhere
        roots.insert(0, Path(imported))
    grids: dict[str, InstanceGrid] = {}
    missing: dict[str, str] = {}
    with CounterPool() as pool:
        for row in runs.itertuples():
            instance, sha = str(row.instance), str(row.instance_sha256)
            data, source = None, ""
            where = _set_directory(instance, str(row.family_key), campaign.meta)
            for path in [root / instance for root in roots] + \
                    ([root / where / instance for root in roots] if where else []):
                if path.is_file():
                    data, source = path.read_bytes(), "file"
                    break
            if data is None and regenerate:
                try:
                    data, source = _regenerate(instance, str(row.family_key), campaign.meta, pool), "regenerated"
                except RaceError as exc:
                    missing[instance] = f"cannot regenerate: {exc}"
                    continue
            if data is None:
                missing.setdefault(instance, "no instance file (the imported set or <out>/instances/) and no generator identity")
                continue
            if sha and sha != "nan" and hashlib.sha256(data).hexdigest() != sha:
                missing[instance] = f"the {source} puzzle does not match the recorded sha256"
                continue
            try:
                grids[instance] = from_bytes(data, instance)
            except (RaceError, UnicodeDecodeError, IndexError, ValueError) as exc:
                missing[instance] = f"unreadable: {exc}"
                continue
            grids[instance] = InstanceGrid(**{**grids[instance].__dict__, "source": source})
    return grids, missing


def clue_mask(clues: str, solution: str, n: int) -> str | None:
    """The given cells of ``clues`` as hex digits (cell 4k + j is bit 3 - j of digit k,
    row-major), when every clue equals ``solution``'s value there; else None."""
    w = width(n)
    cells = n ** 4
    clue_chars = np.frombuffer(clues.encode("ascii"), dtype=np.uint8).reshape(cells, w)
    solution_chars = np.frombuffer(solution.encode("ascii"), dtype=np.uint8).reshape(cells, w)
    given = (clue_chars != ord("0")).any(axis=1)
    if (given & (clue_chars != solution_chars).any(axis=1)).any():
        return None
    bits = np.concatenate([given, np.zeros(-cells % 4, dtype=bool)]).reshape(-1, 4)
    return "".join(_HEX_TABLE[bits @ np.array([8, 4, 2, 1])].tolist())


def pack(grids: dict[str, InstanceGrid]) -> dict:
    """``grids`` for the page: ``solutions`` (each distinct solution once) and ``grids``:
    instance -> ``[n, clues, mask, solution, label, source]`` where ``solution`` indexes
    ``solutions`` (None when unknown) and the clues are either ``mask`` (:func:`clue_mask`,
    the values read from the solution; ``clues`` None) or ``clues`` (encoded; ``mask`` None)."""
    solutions: dict[str, int] = {}
    packed = {}
    for name, g in grids.items():
        index = solutions.setdefault(g.solution, len(solutions)) if g.solution else None
        mask = clue_mask(g.clues, g.solution, g.n) if g.solution else None
        packed[name] = [g.n, None if mask is not None else g.clues, mask, index, g.solution_label, g.source]
    return {"solutions": list(solutions), "grids": packed}


def unpack(packed: dict, instance: str) -> InstanceGrid:
    """The grid of ``instance`` from :func:`pack`'s output (what the page's script does)."""
    n, clues, mask, index, label, source = packed["grids"][instance]
    solution = packed["solutions"][index] if index is not None else None
    if mask is not None:
        assert solution is not None                # a mask stands for the clues of a known solution
        w = width(n)
        bits = "".join(f"{int(d, 16):04b}" for d in mask)
        clues = "".join(solution[i * w:(i + 1) * w] if bits[i] == "1" else "0" * w for i in range(n ** 4))
    return InstanceGrid(n, clues, solution, label, source)
