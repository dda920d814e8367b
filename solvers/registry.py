"""Solvers by name, so the CLI and the harness pick entrants with a string.

An entrant spec is ``name`` or ``name:key=value,key=value``, e.g.
``dlx:heuristic=first`` or ``sat:backend=glucose4,encoding=reduced``.
Solver classes are imported lazily: naming one does not import the others.
"""

from __future__ import annotations

import importlib

from formats.errors import RaceError
from solvers.interface import Solver

#: name -> (module:Class, fixed parameters). Aliases fix some parameters.
SOLVERS: dict[str, tuple[str, dict[str, str]]] = {
    "backtracking": ("solvers.backtracking:Backtracking", {}),
    "dlx": ("solvers.dlx:DLX", {}),
    "sat": ("solvers.sat:SAT", {}),
    "kissat": ("solvers.sat:SAT", {"backend": "kissat"}),
    "cmd": ("solvers.command:Command", {}),
}


def names() -> list[str]:
    return list(SOLVERS)


def solver_class(name: str) -> type[Solver]:
    if name not in SOLVERS:
        raise RaceError(f"unknown solver {name!r} (known: {', '.join(SOLVERS)})")
    target, _ = SOLVERS[name]
    module, cls = target.split(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise RaceError(f"solver {name!r} is not available: {exc}") from None


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and its parameters."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise RaceError(f"entrant {spec!r}: expected key=value, got {item!r}")
        params[key.strip()] = value.strip()
    if not name:
        raise RaceError(f"entrant {spec!r}: missing solver name")
    return name, params


def create(spec: str) -> Solver:
    """A solver instance from an entrant spec."""
    name, params = parse_spec(spec)
    cls = solver_class(name)
    fixed = SOLVERS[name][1]
    clash = set(fixed) & set(params)
    if clash:
        raise RaceError(f"entrant {spec!r}: {name!r} already fixes {', '.join(sorted(clash))}")
    return cls(**fixed, **params)
