"""Entrants: the ``--solvers`` text of ``race run`` turned into validated entrants.

An entrant is a spec (``name`` or ``name:key=value,...``) with its registry entry,
so a worker process can create it from its init request alone (even a solver
registered only in the parent's :class:`solvers.registry.Registry`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from formats.errors import RaceError
from solvers import registry as solver_registry

#: the default entrants of a race
DEFAULT_ENTRANTS = ("backtracking", "dlx", "bitset", "sat", "kissat")


def jsonable(params: dict[str, Any]) -> dict[str, Any]:
    """Solver parameters as JSON values (anything else as its ``str``)."""
    return {k: v if isinstance(v, (int, float, str, bool, type(None))) else str(v)
            for k, v in params.items()}


#: a part of ``--solvers`` that continues the previous entrant's parameters: ``key=...``
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*=")


def split_specs(text: str) -> list[str]:
    """Split ``a,b:k=v,k2=v2,c`` into entrant specs: a comma starts a new entrant
    unless what follows is a parameter ``key=value`` (its value may hold ``:`` and ``=``:
    ``cmd:path=p,args=--opt=k:v``). A comma escaped as ``\\,`` never splits."""
    specs: list[str] = []
    for part in (p.strip() for p in re.split(r"(?<!\\),", str(text))):
        if not part:
            continue
        if specs and _PARAMETER.match(part) and ":" in specs[-1]:
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
    #: the solver's family of method (:attr:`solvers.interface.Solver.method`)
    method: str = "other"
    #: the cores one of its cells holds (:attr:`solvers.interface.Solver.cores`): more than
    #: 1 for an entrant that runs several searches at once (``parallel``)
    cores: int = 1

    def init_request(self) -> dict[str, Any]:
        """The worker's ``init`` request for this entrant (see :mod:`experiments.harness.worker`)."""
        return {"spec": self.spec, "name": self.name, "target": self.target, "fixed": self.fixed}


def parse_entrants(text: str | Iterable[str],
                   registry: solver_registry.Registry = solver_registry.BUILTIN,
                   on_unavailable: Callable[[str, str], None] | None = None) -> list[Entrant]:
    """Entrant specs (``backtracking,dlx:heuristic=first,sat:backend=glucose4,encoding=...``),
    each validated by creating it through ``registry``. Raises RaceError for an
    unknown or unavailable solver or a bad parameter; with ``on_unavailable``, an entrant
    whose solver cannot run on this machine (an optional dependency missing:
    :class:`solvers.registry.Unavailable`) is left out and ``on_unavailable(spec, why)``
    is called instead (then RaceError only when no entrant is left)."""
    specs = split_specs(text) if isinstance(text, str) else [s.strip() for s in text]
    if not specs:
        raise RaceError("--solvers: no entrant given")
    entrants: list[Entrant] = []
    left_out: list[str] = []
    for spec in dict.fromkeys(specs):
        if not spec.isprintable():    # its rows would carry it escaped: never the campaign's
            raise RaceError(f"--solvers: entrant {spec!r}: a character that is not printable "
                            "(such as a no-break space); type the spec with plain characters")
        try:
            solver = registry.create(spec)
        except solver_registry.Unavailable as exc:
            if on_unavailable is None:
                raise
            on_unavailable(spec, str(exc))
            left_out.append(spec)
            continue
        name, _ = solver_registry.parse_spec(spec)
        target, fixed = registry.entry(name)
        entrants.append(Entrant(spec, solver.name, target, dict(fixed), jsonable(solver.params),
                                str(getattr(solver, "method", "other")),
                                max(int(getattr(solver, "cores", 1)), 1)))
    if not entrants:
        raise RaceError(f"--solvers: no entrant can run here ({', '.join(left_out)} cannot)")
    named: dict[str, str] = {}
    for entrant in entrants:                 # a name= label must name one entrant only
        label = solver_registry.entrant_label(entrant.spec)
        if label in named:
            raise RaceError(f"--solvers: {entrant.spec!r} and {named[label]!r} are both "
                            f"called {label!r} (give each cmd entrant a name= of its own)")
        named[label] = entrant.spec
    return entrants
