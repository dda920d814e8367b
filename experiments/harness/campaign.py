"""A race campaign: entrants x n x instances x repeats, run by an executor, recorded.

:func:`parse_n` and :func:`parse_entrants` turn command-line text into a
:class:`Config`; :func:`prepare` makes the campaign directory, the instances
(generated once, cached under ``<out>/instances/<kind>-n<N>-s<seed>/``) and
``meta.json``; :func:`run` runs the cells that have no record yet.

Scheduling rules:

* **Resume**: a cell (entrant, n, instance, repeat) that already has a row in
  ``runs.csv`` is not run again.
* **Escalation**: once an entrant has hit its limit (timeout or memout) on every
  cell at some n, its cells at larger n are recorded as ``skipped``. A cell at
  n is only started once each smaller n of its entrant either has a cell that
  finished within the limit or is complete, so the rule never races.
* An entrant whose worker fails to start :data:`START_ATTEMPTS` times (e.g. its
  ``warmup()`` raises) gets its remaining cells recorded as ``error``, not run.
* Cells go out entrant by entrant (n ascending), preferring the entrant of an
  idle warm worker, so workers stay warm.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from experiments.harness import records
from experiments.harness.executor import repo_root, utc_now
from formats.errors import RaceError

#: the default entrants of a race
DEFAULT_ENTRANTS = ("backtracking", "dlx", "sat", "kissat")
#: the largest box size a campaign accepts (n = 16 is a 256 x 256 grid)
MAX_N = 16
#: an entrant whose worker fails to start this many times gets no more cells (recorded as error)
START_ATTEMPTS = 2
#: packages whose versions go into meta.json
PACKAGES = ("numpy", "numba", "python-sat", "passagemath-kissat", "pandas", "click", "tqdm",
            "dask", "distributed")


def parse_n(text: str) -> list[int]:
    """Box sizes from ``2..5``, ``3``, ``2,4,6`` or a mix (``2..3,5``): sorted, distinct.

    Raises RaceError for anything else, or for n outside 1..MAX_N."""
    values: set[int] = set()
    for part in str(text).split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)\s*(?:\.\.\s*(\d+))?", part)
        if not m:
            raise RaceError(f"--n {text!r}: expected N, A..B or a comma-separated list "
                            f"such as 2..5 or 2,4,6 (got {part!r})")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo:
            raise RaceError(f"--n {text!r}: empty range {lo}..{hi}")
        for n in (lo, hi):
            if not 1 <= n <= MAX_N:
                raise RaceError(f"--n {text!r}: box size {n} is out of range 1..{MAX_N}")
        values.update(range(lo, hi + 1))
    return sorted(values)


def _split_specs(text: str) -> list[str]:
    """Split ``a,b:k=v,k2=v2,c`` into entrant specs: a comma starts a new entrant
    unless what follows looks like ``key=value``."""
    specs: list[str] = []
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        if specs and "=" in part and ":" not in part and ":" in specs[-1]:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


@dataclass
class Entrant:
    """An entrant as the harness sends it to workers: the spec and its registry entry."""
    spec: str
    name: str
    target: str
    fixed: dict[str, Any]
    params: dict[str, Any]

    def init_request(self) -> dict[str, Any]:
        return {"spec": self.spec, "name": self.name, "target": self.target, "fixed": self.fixed}


def parse_entrants(text: str | Iterable[str]) -> list[Entrant]:
    """Entrant specs (``backtracking,dlx:heuristic=first,sat:backend=glucose4,encoding=...``),
    each validated by creating it through the registry. Raises RaceError for an
    unknown or unavailable solver or a bad parameter."""
    from solvers import registry
    specs = _split_specs(text) if isinstance(text, str) else [s.strip() for s in text]
    if not specs:
        raise RaceError("--solvers: no entrant given")
    entrants: list[Entrant] = []
    for spec in dict.fromkeys(specs):
        solver = registry.create(spec)
        name, _ = registry.parse_spec(spec)
        target, fixed = registry.SOLVERS[name]
        params = {k: v if isinstance(v, (int, float, str, bool, type(None))) else str(v)
                  for k, v in solver.params.items()}
        entrants.append(Entrant(spec, solver.name, target, dict(fixed), params))
    return entrants


@dataclass
class Config:
    """Everything that defines a campaign run."""
    n_values: list[int]
    entrants: list[Entrant]
    kind: str = "unique"
    seed: int = 0
    instances: int = 5
    repeats: int = 1
    timeout_s: float = 10.0
    memory_mb: float | None = None
    jobs: int = 2
    executor: str = "local"
    scheduler: str | None = None
    out: Path = Path("results")
    campaign: str = ""
    command: str = ""
    min_time: float | None = None          # worker calibration target (None = the worker's default)
    generator_options: dict[str, Any] = field(default_factory=dict)

    @property
    def directory(self) -> Path:
        return self.out / self.campaign

    @property
    def runs_path(self) -> Path:
        return self.directory / "runs.csv"


def n_label(n_values: list[int]) -> str:
    """``[2,3,4,5]`` -> ``2-5``; ``[2,4,6]`` -> ``2_4_6``."""
    if n_values == list(range(n_values[0], n_values[-1] + 1)) and len(n_values) > 1:
        return f"{n_values[0]}-{n_values[-1]}"
    return "_".join(map(str, n_values))


def default_name(n_values: list[int], kind: str, seed: int, instances: int, timeout_s: float,
                 memory_mb: float | None, defaults: dict[str, Any]) -> str:
    """A campaign name derived from what defines its cells and limits, so the same
    command resumes into the same directory: ``race-n2-5-unique-s0``, plus
    ``-i<K>``, ``-t<SEC>``, ``-m<MB>`` when those differ from the defaults.
    (Entrants and repeats are not in the name: adding some resumes the campaign.)"""
    name = f"race-n{n_label(n_values)}-{kind}-s{seed}"
    if instances != defaults.get("instances"):
        name += f"-i{instances}"
    if timeout_s != defaults.get("timeout_s"):
        name += f"-t{timeout_s:g}"
    if memory_mb != defaults.get("memory_mb"):
        name += f"-m{memory_mb:g}" if memory_mb is not None else "-mnone"
    return name


# -- instances --------------------------------------------------------------------
@dataclass(frozen=True)
class Instance:
    """One puzzle file of a cached instance set."""
    file: str
    path: Path
    n: int
    kind: str
    seed: int
    index: int
    clues: int | None
    sha256: str


def instance_name(kind: str, n: int, seed: int, index: int) -> str:
    """The generator's file name for an instance."""
    return f"{kind}-n{n}-s{seed}-{index:04d}.sudoku"


def instance_dir(out: Path, kind: str, n: int, seed: int) -> Path:
    return out / "instances" / f"{kind}-n{n}-s{seed}"


def _read_manifest(directory: Path, kind: str, n: int, seed: int) -> dict[int, Instance]:
    """The instances of (kind, n, seed) listed in the directory's manifest, by index."""
    manifest = directory / "manifest.csv"
    if not manifest.exists():
        return {}
    found: dict[int, Instance] = {}
    with open(manifest, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            try:
                if (row["kind"], int(row["n"]), int(row["seed"])) != (kind, n, seed):
                    continue
                index = int(row["index"])
                found[index] = Instance(row["file"], directory / row["file"], int(row["n"]),
                                        row["kind"], int(row["seed"]), index,
                                        int(row["clues"]) if row.get("clues") else None,
                                        row["sha256"])
            except (KeyError, ValueError, TypeError):
                raise RaceError("malformed manifest row (expected file, kind, n, seed, index, "
                                "clues, sha256)", source=str(manifest)) from None
    return {i: inst for i, inst in found.items() if inst.path.exists()}


def ensure_instances(out: Path, kind: str, n: int, count: int, seed: int,
                     progress: bool = False, **options: Any) -> list[Instance]:
    """Instances 0..count-1 of ``kind`` at box size n: read from the cache, generated
    (by :func:`generators.puzzle_set.write_set`) when missing."""
    directory = instance_dir(out, kind, n, seed)
    have = _read_manifest(directory, kind, n, seed)
    if any(i not in have for i in range(count)):
        try:
            from generators import puzzle_set
        except ImportError as exc:
            raise RaceError(f"cannot generate instances: {exc}") from None
        puzzle_set.identity(kind, n, seed, 0, **options)    # RaceError for a bad kind / option
        if progress:
            print(f"generating {count} {kind} instance(s) with n={n} (seed {seed}) "
                  f"in {directory}", file=sys.stderr, flush=True)
        puzzle_set.write_set(kind, n, count, seed, directory, progress=progress, **options)
        have = _read_manifest(directory, kind, n, seed)
        missing = [i for i in range(count) if i not in have]
        if missing:
            raise RaceError(f"the generator did not produce instance {missing[0]} "
                            f"of {kind} n={n} seed={seed}", source=str(directory))
    return [have[i] for i in range(count)]


def read_instance(instance: Instance) -> str:
    """The instance's text, checked against the manifest's sha256."""
    data = instance.path.read_bytes()
    if hashlib.sha256(data).hexdigest() != instance.sha256:
        raise RaceError("the cached instance does not match its sha256 in manifest.csv; "
                        "delete the directory to regenerate it", source=str(instance.path))
    return data.decode("utf-8")


# -- cells ------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One measurement: an entrant on an instance (``instance`` None when not generated)."""
    entrant: str
    n: int
    instance_file: str
    repeat: int
    instance: Instance | None = None

    @property
    def key(self) -> tuple[str, int, str, int]:
        return self.entrant, self.n, self.instance_file, self.repeat


def make_cells(config: Config, instances: dict[int, list[Instance]]) -> list[Cell]:
    """Every cell of the campaign, entrant-major, then n, instance, repeat."""
    cells = []
    for entrant in config.entrants:
        for n in config.n_values:
            for index in range(config.instances):
                inst = instances.get(n, [None] * config.instances)[index]
                file = inst.file if inst else instance_name(config.kind, n, config.seed, index)
                for repeat in range(config.repeats):
                    cells.append(Cell(entrant.spec, n, file, repeat, inst))
    return cells


class Escalation:
    """Which (entrant, n) groups are finished, which hit the limit everywhere, and
    whether a cell may start yet (see the module docstring)."""

    def __init__(self, cells: list[Cell]) -> None:
        self.total: dict[tuple[str, int], int] = {}
        self.finished: dict[tuple[str, int], int] = {}
        self.answered: set[tuple[str, int]] = set()     # has a cell within the limit
        self.n_values: dict[str, list[int]] = {}
        for cell in cells:
            group = (cell.entrant, cell.n)
            self.total[group] = self.total.get(group, 0) + 1
            self.n_values.setdefault(cell.entrant, [])
            if cell.n not in self.n_values[cell.entrant]:
                self.n_values[cell.entrant].append(cell.n)
        for ns in self.n_values.values():
            ns.sort()

    def record(self, entrant: str, n: int, status: str) -> None:
        group = (entrant, n)
        self.finished[group] = self.finished.get(group, 0) + 1
        if status not in records.LIMIT_STATUSES and status != "skipped":
            self.answered.add(group)

    def dead_at(self, entrant: str) -> int | None:
        """The smallest n where the entrant hit the limit on every cell, if any."""
        for n in self.n_values.get(entrant, []):
            group = (entrant, n)
            if group not in self.answered and self.finished.get(group, 0) >= self.total[group]:
                return n
        return None

    def may_start(self, cell: Cell) -> bool:
        """True when every smaller n of the entrant is complete or has an answer."""
        for n in self.n_values[cell.entrant]:
            if n >= cell.n:
                return True
            group = (cell.entrant, n)
            if group not in self.answered and self.finished.get(group, 0) < self.total[group]:
                return False
        return True


# -- meta.json ----------------------------------------------------------------------
def _git_commit() -> str | None:
    root = repo_root()
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                                text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (commit + ("-dirty" if dirty else "")) or None


def kissat_version() -> str | None:
    """``kissat --version`` of the binary the SAT solver would use, if there is one."""
    try:
        from solvers.sat_backends import find_kissat
        binary = find_kissat()
    except Exception:  # noqa: BLE001 - no SAT module or no binary: just "no version"
        binary = shutil.which("kissat")
    if not binary:
        return None
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip().splitlines()[0] if out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        return None


def machine() -> dict[str, Any]:
    """CPU model, cores, RAM (GB), OS and host name of this machine."""
    cpu = platform.processor() or None
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")),
                       cpu)
    except OSError:
        pass
    ram = None
    try:
        with open("/proc/meminfo") as f:
            kb = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
            ram = round(kb / 1024 ** 2, 1)
    except (OSError, StopIteration):
        pass
    return {"cpu_model": cpu, "cores": os.cpu_count(), "ram_gb": ram,
            "os": platform.platform(), "hostname": socket.gethostname()}


def packages() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def previous_meta(config: Config) -> dict[str, Any]:
    """The campaign's existing ``meta.json`` ({} for a new campaign). Raises RaceError
    when it was run with another kind, seed or limits (its rows would not compare)."""
    path = config.directory / "meta.json"
    if not path.exists():
        return {}
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return {}
    for key, value in (("kind", config.kind), ("seed", config.seed),
                       ("timeout_s", config.timeout_s), ("memory_mb", config.memory_mb)):
        if key in old and old[key] != value:
            raise RaceError(f"campaign {config.campaign!r} was run with {key}={old[key]!r}, "
                            f"not {value!r}; choose another --campaign name", source=str(path))
    return old


def write_meta(config: Config) -> dict[str, Any]:
    """Write (or, on resume, update) ``meta.json``. A resumed campaign must keep its
    kind, seed and limits; n values, entrants, instances and repeats may grow."""
    path = config.directory / "meta.json"
    old = previous_meta(config)
    entrants = list(dict.fromkeys([*old.get("entrants", []), *(e.spec for e in config.entrants)]))
    meta = {
        "campaign": config.campaign,
        "command": config.command,
        "created_at": old.get("created_at", utc_now()),
        "n_values": sorted(set(old.get("n_values", [])) | set(config.n_values)),
        "entrants": entrants,
        "kind": config.kind,
        "seed": config.seed,
        "instances": max(int(old.get("instances", 0)), config.instances),
        "repeats": max(int(old.get("repeats", 0)), config.repeats),
        "timeout_s": config.timeout_s,
        "memory_mb": config.memory_mb,
        "jobs": config.jobs,
        "executor": config.executor,
        "git_commit": _git_commit(),
        "python": platform.python_version(),
        "packages": packages(),
        "kissat_version": kissat_version(),
        "machine": machine(),
    }
    path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return meta


# -- running --------------------------------------------------------------------------
@dataclass
class Prepared:
    """A campaign ready to run: every cell and those without a record yet."""
    config: Config
    cells: list[Cell]
    pending: list[Cell]
    meta: dict[str, Any]


def prepare(config: Config, progress: bool = False) -> Prepared:
    """Make the campaign directory, the instances and meta.json; find the pending cells."""
    previous_meta(config)                       # refuse an incompatible resume before any work
    instances = {n: ensure_instances(config.out, config.kind, n, config.instances, config.seed,
                                     progress=progress, **config.generator_options)
                 for n in config.n_values}
    config.directory.mkdir(parents=True, exist_ok=True)
    meta = write_meta(config)
    cells = make_cells(config, instances)
    done = records.done_keys(config.runs_path)
    pending = [c for c in cells if c.key not in done]
    return Prepared(config, cells, pending, meta)


def _time(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def make_row(config: Config, entrant: Entrant, cell: Cell, outcome: dict[str, Any]) -> dict[str, Any]:
    """The runs.csv row of a finished (or skipped) cell."""
    status = outcome.get("status", "error")
    inst = cell.instance
    row: dict[str, Any] = {
        "campaign": config.campaign, "entrant": entrant.spec, "solver": entrant.name,
        "params": json.dumps(entrant.params, sort_keys=True), "n": cell.n, "kind": config.kind,
        "seed": config.seed, "instance": cell.instance_file,
        "instance_sha256": inst.sha256 if inst else None, "clues": inst.clues if inst else None,
        "repeat": cell.repeat, "status": status, "verified": bool(outcome.get("verified", False)),
        "timeout_s": config.timeout_s, "worker": outcome.get("worker"),
        "started_at": outcome.get("started_at"), "message": outcome.get("message") or None,
        "peak_rss_mb": _time(outcome.get("peak_rss_mb")),
    }
    if status in records.LIMIT_STATUSES:
        row["wall_s"] = row["cpu_s"] = config.timeout_s     # censored: the limit, not a time
    elif status not in ("skipped", "error"):
        row["wall_s"] = _time(outcome.get("wall_s"))
        row["cpu_s"] = _time(outcome.get("cpu_s"))
        row["iterations"] = outcome.get("iterations")
        for phase, seconds in (outcome.get("times") or {}).items():
            if phase in records.PHASES:
                row[f"t_{phase}"] = _time(seconds)
        for name, value in (outcome.get("counters") or {}).items():
            if name in records.COUNTERS:
                row[name] = value
    return row


@dataclass
class RunStats:
    """What :func:`run` did."""
    ran: int = 0
    skipped: int = 0
    statuses: dict[str, int] = field(default_factory=dict)


def run(prepared: Prepared, executor: Any,
        on_row: Callable[[dict[str, Any]], None] | None = None) -> RunStats:
    """Run the pending cells on ``executor`` (see :mod:`experiments.harness.executor`),
    appending one row per cell to runs.csv as it finishes. Escalation turns cells
    into ``skipped`` rows. ``on_row`` is called after each row is written (progress).
    On KeyboardInterrupt the executor is closed and the exception re-raised:
    every finished cell is already on disk."""
    config = prepared.config
    entrants = {e.spec: e for e in config.entrants}
    escalation = Escalation(prepared.cells)
    pending_keys = {c.key for c in prepared.pending}
    for row in records.read_rows(config.runs_path):
        key = records.cell_key(row)
        if key[0] in entrants and key not in pending_keys:
            escalation.record(key[0], key[1], row["status"])
    pending = list(prepared.pending)
    inflight: dict[tuple, Cell] = {}
    texts: dict[Path, str] = {}
    stats = RunStats()
    failures: dict[str, int] = {}      # entrant -> workers that failed to start
    broken: dict[str, str] = {}        # entrant -> why its remaining cells are not run

    def emit(writer: records.RunsWriter, cell: Cell, outcome: dict[str, Any]) -> None:
        row = make_row(config, entrants[cell.entrant], cell, outcome)
        writer.write(row)
        escalation.record(cell.entrant, cell.n, row["status"])
        stats.statuses[row["status"]] = stats.statuses.get(row["status"], 0) + 1
        if row["status"] == "skipped":
            stats.skipped += 1
        else:
            stats.ran += 1
        if on_row:
            on_row(row)

    with records.RunsWriter(config.runs_path) as writer:
        try:
            check_dead = True
            while pending or inflight:
                # escalation: skip what can no longer be worth running
                if check_dead:
                    keep = []
                    for cell in pending:
                        dead = escalation.dead_at(cell.entrant)
                        if cell.entrant in broken:
                            emit(writer, cell, {"status": "error", "started_at": utc_now(),
                                                "message": "not run: " + broken[cell.entrant]})
                        elif dead is not None and cell.n > dead:
                            emit(writer, cell, {"status": "skipped", "started_at": utc_now(),
                                                "message": f"{cell.entrant} hit the limit on "
                                                           f"every instance at n={dead}"})
                        else:
                            keep.append(cell)
                    pending, check_dead = keep, False
                # dispatch: the first cell that may start, of a warm entrant if possible
                while executor.free() > 0 and pending:
                    warm = executor.warm_entrants()
                    cell = next((c for c in pending if c.entrant in warm
                                 and escalation.may_start(c)), None) \
                        or next((c for c in pending if escalation.may_start(c)), None)
                    if cell is None:
                        break
                    pending.remove(cell)
                    inst = cell.instance
                    if inst.path not in texts:
                        texts[inst.path] = read_instance(inst)
                    request = {"entrant": cell.entrant,
                               "init": entrants[cell.entrant].init_request(),
                               "solve": {"instance": inst.file, "text": texts[inst.path]}}
                    executor.submit(cell.key, request)
                    inflight[cell.key] = cell
                if not inflight:
                    if pending and not any(escalation.may_start(c) for c in pending):
                        raise RuntimeError("scheduler stalled: no cell can start")  # a bug
                    continue
                for key, outcome in executor.poll(0.5):
                    cell = inflight.pop(key)
                    emit(writer, cell, outcome)
                    check_dead = check_dead or outcome.get("status") in records.LIMIT_STATUSES
                    if outcome.get("start_failed"):
                        failures[cell.entrant] = failures.get(cell.entrant, 0) + 1
                        if failures[cell.entrant] >= START_ATTEMPTS:
                            broken[cell.entrant] = outcome.get("message", "entrant failed to start")
                            check_dead = True
        except BaseException:
            executor.close()
            raise
    executor.close()
    return stats
