"""Solvers by name, so the CLI and the harness pick entrants with a string.

An entrant spec is ``name`` or ``name:key=value,key=value``, e.g.
``dlx:heuristic=first`` or ``sat:backend=glucose4,encoding=reduced``.
Solver classes are imported lazily: naming one does not import the others.

Plugins: an installed package registers entrants through the entry-point group
:data:`PLUGIN_GROUP` (``sudoku_race.solvers``), name = entrant name, value =
``module:Class`` (a :class:`solvers.interface.Solver` subclass)::

    [project.entry-points."sudoku_race.solvers"]
    mysolver = "my_package.solver:MySolver"

:data:`INSTALLED` (the built-ins plus every plugin) is the registry the CLI and
the harness use. A broken plugin (a bad name or value, a clash with a built-in)
is left out with a one-line warning on stderr; one whose module fails to import
is listed, and says why when it is used.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from formats.errors import RaceError

if TYPE_CHECKING:       # solvers.interface imports numpy: not at `race --help`
    from solvers.interface import Solver

#: the entry-point group through which installed packages add entrants
PLUGIN_GROUP = "sudoku_race.solvers"
_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")

#: name -> (module:Class, fixed parameters) of the built-in solvers. Aliases fix some
#: parameters. Read-only: other solvers (e.g. a test's) go into a :class:`Registry`.
SOLVERS: Mapping[str, tuple[str, Mapping[str, str]]] = MappingProxyType({
    "backtracking": ("solvers.backtracking:Backtracking", {}),
    "dlx": ("solvers.exact_cover.dlx:DLX", {}),
    "bitset": ("solvers.bitsets.solver:Bitset", {}),
    "sat": ("solvers.sat.solver:SAT", {}),
    "kissat": ("solvers.sat.solver:SAT", {"backend": "kissat"}),
    "cpsat": ("solvers.sat.cpsat:CPSAT", {}),
    "parallel": ("solvers.parallel:Parallel", {}),
    "cmd": ("solvers.command:Command", {}),
    "auto": ("solvers.auto:Auto", {}),
})


class Unavailable(RaceError):
    """The solver exists but cannot run on this machine: an optional dependency is missing
    (:meth:`solvers.interface.Solver.unavailable` says which and how to install it)."""


class Registry:
    """An immutable table of solvers by name: the built-ins plus any registered.

    ``Registry()`` holds the built-ins; :meth:`register` returns a new registry with
    one more entry (nothing global changes), so a test or the harness's worker
    passes the registry it needs to whoever creates solvers.
    """

    def __init__(self, entries: Mapping[str, tuple[str, Mapping[str, str]]] | None = None) -> None:
        source = SOLVERS if entries is None else entries
        self._entries = {name: (target, dict(fixed)) for name, (target, fixed) in source.items()}
        self.plugins: dict[str, str] = {}     # plugin entrant name -> the package providing it

    def register(self, name: str, target: str, fixed: Mapping[str, str] | None = None) -> Registry:
        """A new registry with ``name`` -> ``target`` (``module:Class``) and its fixed parameters."""
        if not name or ":" in name or "," in name:
            raise RaceError(f"solver name {name!r}: expected a non-empty name without ':' or ','")
        registry = Registry({**self._entries, name: (target, dict(fixed or {}))})
        registry.plugins = dict(self.plugins)
        return registry

    def names(self) -> list[str]:
        """The registered names, built-ins first."""
        return list(self._entries)

    def entry(self, name: str) -> tuple[str, dict[str, str]]:
        """``(module:Class, fixed parameters)`` of ``name``; RaceError when unknown."""
        if name not in self._entries:
            import difflib
            close = difflib.get_close_matches(name, list(self._entries), n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise RaceError(f"unknown solver {name!r} ({hint}known: {', '.join(self._entries)})")
        target, fixed = self._entries[name]
        return target, dict(fixed)

    def solver_class(self, name: str) -> type[Solver]:
        """The solver class of ``name`` (imported now); RaceError when unknown or
        unavailable (a plugin whose module fails to import, or not a Solver)."""
        from solvers.interface import Solver
        target, _ = self.entry(name)
        module, cls = target.split(":")
        try:
            found = getattr(importlib.import_module(module), cls)
        except Exception as exc:    # noqa: BLE001 - a plugin's import may raise anything
            raise RaceError(f"solver {name!r} is not available: "
                            f"{type(exc).__name__}: {exc}") from None
        if not (isinstance(found, type) and issubclass(found, Solver)):
            raise RaceError(f"solver {name!r} is not available: {target} is not a Solver class")
        return found

    def create(self, spec: str) -> Solver:
        """A solver instance from an entrant spec; :class:`Unavailable` when its solver
        cannot run here (an optional dependency missing)."""
        name, params = parse_spec(spec)
        cls = self.solver_class(name)
        why = cls.unavailable()
        if why:
            raise Unavailable(f"solver {name!r} is not available: {why}")
        fixed = self.entry(name)[1]
        clash = set(fixed) & set(params)
        if clash:
            raise RaceError(f"entrant {spec!r}: {name!r} already fixes {', '.join(sorted(clash))}")
        return cls(**fixed, **params)


#: the registry of the built-in solvers
BUILTIN = Registry()


def with_plugins(base: Registry = BUILTIN,
                 warn: Callable[[str], None] | None = None) -> Registry:
    """``base`` plus the entrants of installed plugins (entry-point group
    :data:`PLUGIN_GROUP`). Each broken entry is skipped with one line given to
    ``warn`` (default: ``race: warning: ...`` on stderr). Plugin modules are not
    imported here."""
    from importlib.metadata import entry_points
    warn = warn or _warn
    try:
        found = sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: e.name)
    except Exception as exc:    # noqa: BLE001 - broken installed metadata
        warn(f"cannot read the installed {PLUGIN_GROUP} plugins: {exc}")
        return base
    registry = base
    for point in found:
        package = getattr(point.dist, "name", None) or "?"
        where = f"plugin {point.name!r} (package {package})"
        if point.name in registry.names():
            if registry.entry(point.name)[0] != point.value:
                warn(f"{where} ignored: the name {point.name!r} is already taken")
            continue
        if not _TARGET.match(point.value or ""):
            warn(f"{where} ignored: expected module:Class, got {point.value!r}")
            continue
        try:
            registry = registry.register(point.name, point.value)
        except RaceError as exc:
            warn(f"{where} ignored: {exc}")
            continue
        registry.plugins[point.name] = package
    return registry


def _warn(message: str) -> None:
    print(f"race: warning: {message}", file=sys.stderr)


class _Installed(Registry):
    """The built-ins plus the plugins, looked up at first use (not at import)."""

    def __init__(self) -> None:
        self._loaded: Registry | None = None

    def _registry(self) -> Registry:
        if self._loaded is None:
            self._loaded = with_plugins(BUILTIN)
        return self._loaded

    def __getattr__(self, attribute: str) -> Any:
        if attribute in ("_entries", "plugins"):
            return getattr(self._registry(), attribute)
        raise AttributeError(attribute)

    def entry(self, name: str) -> tuple[str, dict[str, str]]:
        """A built-in's entry without reading the plugins (a plugin cannot take a built-in's
        name, see :func:`with_plugins`): ``race solve -s dlx`` does not pay the ~20-30 ms of
        importlib.metadata and the entry-point scan."""
        if self._loaded is None and name in SOLVERS:
            return BUILTIN.entry(name)
        return super().entry(name)


#: the registry of the CLI and the harness: built-ins + installed plugins (loaded lazily)
INSTALLED: Registry = _Installed()


def names() -> list[str]:
    """The built-in solver names."""
    return BUILTIN.names()


def solver_class(name: str) -> type[Solver]:
    """The class of built-in solver ``name``."""
    return BUILTIN.solver_class(name)


def split_commas(text: str) -> list[str]:
    """``text`` split at its commas, except a comma escaped as ``\\,`` (which stays a comma
    in the value: ``args=a\\,b`` is the one argument ``a,b``)."""
    parts = re.split(r"(?<!\\),", text)
    return [p.replace("\\,", ",") for p in parts]


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and its parameters; a key
    given twice is an error. A comma inside a value is written ``\\,``."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in split_commas(rest))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise RaceError(f"entrant {spec!r}: expected key=value, got {item!r}")
        if key.strip() in params:
            raise RaceError(f"entrant {spec!r}: parameter {key.strip()!r} given twice")
        params[key.strip()] = value.strip()
    if not name:
        raise RaceError(f"entrant {spec!r}: missing solver name")
    return name, params


def entrant_label(spec: str) -> str:
    """What tables and figures call the entrant ``spec``: the ``name=`` it gives itself (a
    ``cmd`` entrant's short label, ``cmd:path=./solver.py,name=mine`` -> ``mine``), else
    the spec as written."""
    try:
        return parse_spec(spec)[1].get("name") or spec
    except RaceError:
        return spec


def create(spec: str) -> Solver:
    """A built-in solver instance from an entrant spec."""
    return BUILTIN.create(spec)
