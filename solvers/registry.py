"""Solvers by name, so the CLI and the harness pick entrants with a string.

An entrant spec is ``name`` or ``name:key=value,key=value``, e.g.
``dlx:heuristic=first`` or ``sat:backend=glucose4,encoding=reduced``.
Solver classes are imported lazily: naming one does not import the others.
"""

from __future__ import annotations

import importlib
from types import MappingProxyType
from typing import Mapping

from formats.errors import RaceError
from solvers.interface import Solver

#: name -> (module:Class, fixed parameters) of the built-in solvers. Aliases fix some
#: parameters. Read-only: other solvers (e.g. a test's) go into a :class:`Registry`.
SOLVERS: Mapping[str, tuple[str, Mapping[str, str]]] = MappingProxyType({
    "backtracking": ("solvers.backtracking:Backtracking", {}),
    "dlx": ("solvers.dlx:DLX", {}),
    "sat": ("solvers.sat:SAT", {}),
    "kissat": ("solvers.sat:SAT", {"backend": "kissat"}),
    "cmd": ("solvers.command:Command", {}),
})


class Registry:
    """An immutable table of solvers by name: the built-ins plus any registered.

    ``Registry()`` holds the built-ins; :meth:`register` returns a new registry with
    one more entry (nothing global changes), so a test or the harness's worker
    passes the registry it needs to whoever creates solvers.
    """

    def __init__(self, entries: Mapping[str, tuple[str, Mapping[str, str]]] | None = None) -> None:
        source = SOLVERS if entries is None else entries
        self._entries = {name: (target, dict(fixed)) for name, (target, fixed) in source.items()}

    def register(self, name: str, target: str, fixed: Mapping[str, str] | None = None) -> "Registry":
        """A new registry with ``name`` -> ``target`` (``module:Class``) and its fixed parameters."""
        if not name or ":" in name or "," in name:
            raise RaceError(f"solver name {name!r}: expected a non-empty name without ':' or ','")
        return Registry({**self._entries, name: (target, dict(fixed or {}))})

    def names(self) -> list[str]:
        """The registered names, built-ins first."""
        return list(self._entries)

    def entry(self, name: str) -> tuple[str, dict[str, str]]:
        """``(module:Class, fixed parameters)`` of ``name``; RaceError when unknown."""
        if name not in self._entries:
            raise RaceError(f"unknown solver {name!r} (known: {', '.join(self._entries)})")
        target, fixed = self._entries[name]
        return target, dict(fixed)

    def solver_class(self, name: str) -> type[Solver]:
        """The solver class of ``name`` (imported now); RaceError when unknown or unavailable."""
        target, _ = self.entry(name)
        module, cls = target.split(":")
        try:
            return getattr(importlib.import_module(module), cls)
        except (ImportError, AttributeError) as exc:
            raise RaceError(f"solver {name!r} is not available: {exc}") from None

    def create(self, spec: str) -> Solver:
        """A solver instance from an entrant spec."""
        name, params = parse_spec(spec)
        cls = self.solver_class(name)
        fixed = self.entry(name)[1]
        clash = set(fixed) & set(params)
        if clash:
            raise RaceError(f"entrant {spec!r}: {name!r} already fixes {', '.join(sorted(clash))}")
        return cls(**fixed, **params)


#: the registry of the built-in solvers
BUILTIN = Registry()


def names() -> list[str]:
    """The built-in solver names."""
    return BUILTIN.names()


def solver_class(name: str) -> type[Solver]:
    """The class of built-in solver ``name``."""
    return BUILTIN.solver_class(name)


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and its parameters; a key
    given twice is an error."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise RaceError(f"entrant {spec!r}: expected key=value, got {item!r}")
        if key.strip() in params:
            raise RaceError(f"entrant {spec!r}: parameter {key.strip()!r} given twice")
        params[key.strip()] = value.strip()
    if not name:
        raise RaceError(f"entrant {spec!r}: missing solver name")
    return name, params


def create(spec: str) -> Solver:
    """A built-in solver instance from an entrant spec."""
    return BUILTIN.create(spec)
