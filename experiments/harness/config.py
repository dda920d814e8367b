"""What defines a campaign: :class:`Config`, frozen once built from the command line, and
the command-line text behind it, kept apart (:class:`Invocation`; box sizes, the campaign's
default name, the command that resumes it)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from experiments.harness.entrants import Entrant
from experiments.harness.instance_families import BY_FAMILY, Family
from formats.errors import RaceError
from formats.grid import MAX_N

#: the defaults of a campaign, defined once (``race run`` and :class:`Config` use them):
#: measured so that ``race run --n 2..5`` (= ``make race``) finishes within 15 minutes on a
#: 2-core machine from a fresh clone, instance generation included: 20 instances per family
#: and n, 10 s per cell (the skip rule keeps the budget on entrants that can still finish)
DEFAULTS: dict[str, Any] = {"n": "2..5", "instances": 20, "timeout_s": 10.0, "memory_mb": 4096.0,
                            "repeats": 1, "families": "unique,hard", "seed": 0}
#: the defaults of ``race landscape`` (the hardness axis)
LANDSCAPE_DEFAULTS: dict[str, Any] = {"n": "3..6", "holes": "0.30..0.80:0.05",
                                      "pattern": "balanced", "instances": 5, "timeout_s": 10.0,
                                      "memory_mb": 4096.0, "seed": 0}


def parse_n(text: str) -> list[int]:
    """Box sizes from ``2..5``, ``3``, ``2,4,6`` or a mix (``2..3,5``): sorted, distinct.

    Raises RaceError for anything else, or for n outside 2..MAX_N (n = 1, a grid of one
    cell, has nothing to race)."""
    values: set[int] = set()
    for part in str(text).split(","):
        part = part.strip()
        m = re.fullmatch(r"([0-9]+)\s*(?:\.\.\s*([0-9]+))?", part, re.ASCII)
        if not m:
            raise RaceError(f"--n {text!r}: expected N, A..B or a comma-separated list "
                            f"such as 2..5 or 2,4,6 (got {part!r})")
        lo = int(m.group(1))
        hi = int(m.group(2)) if m.group(2) else lo
        if hi < lo:
            raise RaceError(f"--n {text!r}: empty range {lo}..{hi}")
        for n in (lo, hi):
            if not 1 <= n <= MAX_N:
                raise RaceError(f"--n {text!r}: box size {n} is out of range 2..{MAX_N}")
        if lo == 1:     # one cell, its one value: no search for an entrant to race on
            raise RaceError(f"--n {text!r}: n = 1 is a 1x1 grid, one cell and no search to "
                            "race; box sizes start at 2")
        values.update(range(lo, hi + 1))
    return sorted(values)


@dataclass(frozen=True)
class Invocation:
    """How a campaign was asked for, as typed: the command line (empty when it did not come
    from a shell), the ``--n`` and ``--solvers`` texts, ``--jobs`` as given (None: the
    default, one worker per core), and for ``race landscape`` its ``--holes``, ``--pattern``
    and ``peaks`` (the ``--peaks`` file, "none" for ``--no-peaks``, absent for the default
    table). What builds the command that resumes the campaign (:func:`resume_command`)."""
    command: str = ""
    n_text: str = ""
    solvers_text: str = ""
    jobs_given: int | None = None
    landscape: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Config:
    """Everything that defines a campaign run, frozen once built (a step that learns more,
    such as the cluster's slots, makes a new one: :meth:`with_`). ``family_labels`` is the
    ``--family`` text (family labels, comma-separated), ``generator_options`` the family
    options given on the command line (e.g. ``holes``, ``pattern``) and ``families`` what
    they resolve to (:func:`experiments.harness.instance_families.parse_families`);
    ``asked`` how it was asked for (:class:`Invocation`)."""
    n_values: list[int]
    entrants: list[Entrant]
    family_labels: str = DEFAULTS["families"]
    seed: int = DEFAULTS["seed"]
    instances: int = DEFAULTS["instances"]
    repeats: int = DEFAULTS["repeats"]
    timeout_s: float = DEFAULTS["timeout_s"]
    memory_mb: float | None = DEFAULTS["memory_mb"]
    jobs: int = 2
    executor: str = "local"
    scheduler: str | None = None
    out: Path = Path("results")
    campaign: str = ""
    generator_options: dict[str, Any] = field(default_factory=dict)
    #: user-supplied instances (race run --instances PATH): an
    #: experiments.harness.instances.InstanceSet used instead of generated ones
    instance_set: Any = None
    families: list[Family] = field(default_factory=list)
    #: the order cells go out: "random" (seeded, interleaved within each family and n) or
    #: "fixed" (entrant by entrant); see experiments.harness.scheduling
    order: str = "random"
    #: pin each local worker to a core of its own (experiments.harness.pinning)
    pin: bool = True
    #: how the generated instance files are named (experiments.harness.instance_families:
    #: after the family; a resumed campaign keeps what its meta.json says)
    instance_names: str = BY_FAMILY
    asked: Invocation = Invocation()
    #: the peak table the hard family reads (``race run --peaks``, an absolute path; None:
    #: the committed generators/hardness_peaks.csv); meta.json records it
    peaks: Path | None = None

    def __post_init__(self) -> None:
        if not self.families:
            from experiments.harness.instance_families import parse_families
            object.__setattr__(self, "families", parse_families(
                self.family_labels, self.generator_options, self.peaks))

    def with_(self, **changes: Any) -> Config:
        """This campaign with ``changes`` (a new Config: this one stays as it is)."""
        return replace(self, **changes)

    @property
    def command(self) -> str:
        """The command line that asked for the campaign: as typed, else the one that resumes
        it (:func:`resume_command`)."""
        return self.asked.command or resume_command(self)

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


def options_label(options: dict[str, Any]) -> str:
    """Generator options as a name suffix: ``{"holes": 0.55, "pattern": "balanced"}`` ->
    ``-holes0.55-balanced`` (empty without options)."""
    parts = []
    for key, value in sorted(options.items()):
        text = f"{value:g}" if isinstance(value, float) else str(value)
        parts.append(f"{key}{text}" if key == "holes" else text)
    return "".join(f"-{p}" for p in parts)


def default_name(n_values: list[int], family_labels: str, seed: int, instances: int, timeout_s: float,
                 memory_mb: float | None, defaults: dict[str, Any],
                 generator_options: dict[str, Any] | None = None) -> str:
    """A campaign name derived from what defines its cells and limits, so the same
    command resumes into the same directory: ``race-n2-5-unique-s0``, plus the
    generator options, ``-i<K>``, ``-t<SEC>``, ``-m<MB>`` when those differ from the defaults.
    (Entrants and repeats are not in the name: adding some resumes the campaign.)"""
    name = f"race-n{n_label(n_values)}-{family_labels.replace(',', '+')}{options_label(generator_options or {})}-s{seed}"
    if instances != defaults.get("instances"):
        name += f"-i{instances}"
    if timeout_s != defaults.get("timeout_s"):
        name += f"-t{timeout_s:g}"
    if memory_mb != defaults.get("memory_mb"):
        name += f"-m{memory_mb:g}" if memory_mb is not None else "-mnone"
    return name


def resume_command(config: Config) -> str:
    """The command line that resumes the campaign ``config`` (the one place that builds it:
    ``race run`` and ``race landscape`` print it when interrupted or when a record cannot
    be written)."""
    import shlex
    asked = config.asked
    n_text = asked.n_text or ",".join(map(str, config.n_values))
    solvers = asked.solvers_text or ",".join(e.spec for e in config.entrants)
    memory = f"{config.memory_mb:g}" if config.memory_mb is not None else "0"
    if asked.landscape is not None:
        parts = ["race", "landscape", "--n", n_text, "--holes", asked.landscape["holes"],
                 "--pattern", asked.landscape["pattern"], "--solvers", solvers,
                 "--instances", str(config.instances), "--seed", str(config.seed),
                 "--timeout", f"{config.timeout_s:g}", "--memory", memory,
                 "--out", str(config.out), "--campaign", config.campaign]
        if asked.jobs_given is not None:
            parts += ["--jobs", str(asked.jobs_given)]
        peaks = asked.landscape.get("peaks")
        if peaks:
            parts += ["--no-peaks"] if peaks == "none" else ["--peaks", peaks]
        return " ".join(shlex.quote(p) for p in parts)
    source = config.instance_set.source if config.instance_set is not None else str(config.instances)
    given = [x for key, value in config.generator_options.items()
             for x in (f"--{key}", f"{value:g}" if isinstance(value, float) else str(value))]
    parts = ["race", "run", "--n", n_text, "--solvers", solvers, "--instances", source,
             "--family", config.family_labels, *given, "--seed", str(config.seed),
             "--timeout", f"{config.timeout_s:g}", "--memory", memory,
             "--repeats", str(config.repeats), "--out", str(config.out), "--campaign", config.campaign]
    if asked.jobs_given is not None:
        parts += ["--jobs", str(asked.jobs_given)]
    if config.executor != "local":
        parts += ["--executor", config.executor, "--scheduler", str(config.scheduler)]
    if config.order != "random":
        parts += ["--order", config.order]
    if not config.pin:
        parts += ["--no-pin"]
    if config.peaks is not None:
        parts += ["--peaks", str(config.peaks)]
    return " ".join(shlex.quote(p) for p in parts)
