"""What code an entrant is: its identity, recorded per entrant in meta.json (``entrant_code``).

An entrant is its spec and the code that runs it. The code's identity is one digest:

* an entrant that runs a program of its own (``cmd:path=PROGRAM``, any solver that names its
  executable in ``solver.program``): the program file's sha256 (``kind`` ``program``);
* a solver of this project (or of a module beside it, e.g. a test's): the sha256 of the Python
  sources its module imports, directly or not, within the project's packages (and the data
  files they name beside them, e.g. ``solvers/portfolio.csv``), and of the C kernels beside
  them (``X_native.py`` -> ``X_native.c``): ``source_sha256`` and ``kernel_sha256``, the
  digest over both (``kind`` ``source``). A module that reaches the registry
  (``parallel``, ``auto``: members chosen by name) counts every built-in solver's sources;
* a plugin (a solver module installed outside the project): its distribution's name and
  version and the digest of its sources (``kind`` ``plugin``).

meta.json keeps, per entrant spec, the identity that measured its rows, ``since`` when it was
first recorded; a resume whose code differs is refused (:func:`merge`) unless ``race run``
was told what to do (:mod:`experiments.harness.code_change`: ``--mixed``, ``--rerun``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from experiments.harness import import_scan
from formats.errors import RaceError, printable

#: the meta.json field: entrant spec -> its code identity
KEY = "entrant_code"
#: hex digits of a digest shown to a reader: ``[aa9714..]``
SHORT = 6


def short(digest: str | None) -> str:
    """A digest as a reader sees it: ``[aa9714..]`` (``[unknown]`` when not recorded)."""
    return f"[{digest[:SHORT]}..]" if digest else "[unknown]"


def _root() -> Path:
    return Path(__file__).resolve().parents[2]


# -- the sources a module reaches -------------------------------------------------------------

#: path -> ((mtime_ns, size), the module names it imports, the data files it names beside it)
_PARSED: dict[Path, tuple[tuple[int, int], tuple[str, ...], tuple[Path, ...]]] = {}


def _parse(path: Path) -> tuple[tuple[str, ...], tuple[Path, ...]]:
    """The modules ``path`` imports (absolute names; relative ones resolved) and the files
    beside it that a string of it names (``"portfolio.csv"``), cached while unchanged (and
    on disk by content: :mod:`experiments.harness.import_scan`)."""
    stat = path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    known = _PARSED.get(path)
    if known is not None and known[0] == key:
        return known[1], known[2]
    package = _module_name(path).rpartition(".")[0] if path.name != "__init__.py" \
        else _module_name(path)
    names, files = import_scan.scan(path.read_bytes(), package, str(path))
    data = [path.with_name(name) for name in files if path.with_name(name).is_file()]
    _PARSED[path] = (key, tuple(names), tuple(data))
    return tuple(names), tuple(data)


#: the roots modules are looked up in: top-level package name -> the folder holding it
_ROOTS: dict[str, Path] = {}


def _module_name(path: Path) -> str:
    for top, folder in _ROOTS.items():
        try:
            relative = path.relative_to(folder)
        except ValueError:
            continue
        if relative.parts and relative.parts[0] == top:
            parts = list(relative.with_suffix("").parts)
            return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    return path.stem


#: (module name, the folder of its top-level package) -> its source file (None: not a module)
_FILES: dict[tuple[str, Path], Path | None] = {}


def _module_file(name: str, tops: dict[str, Path]) -> Path | None:
    """The source file of module ``name`` when its top-level package is one of ``tops``."""
    top = name.split(".")[0]
    if top not in tops:
        return None
    key = (name, tops[top])
    if key not in _FILES:
        base = tops[top].joinpath(*name.split("."))
        _FILES[key] = next((c for c in (base.with_suffix(".py"), base / "__init__.py")
                            if c.is_file()), None)
    return _FILES[key]


_TOPS: dict[str, Path] = {}


def _project_tops() -> dict[str, Path]:
    """The project's top-level packages (folders with ``__init__.py`` at its root)."""
    if not _TOPS:
        root = _root()
        _TOPS.update({p.name: root for p in root.iterdir() if (p / "__init__.py").is_file()})
    return dict(_TOPS)


def _top_of(module: str) -> tuple[str, Path] | None:
    """(top-level package, the folder holding it) of ``module``, found without importing it."""
    import importlib.util
    top = module.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or spec.origin in ("built-in", "frozen"):
        return None
    origin = Path(spec.origin).resolve()
    return top, origin.parent.parent if origin.name == "__init__.py" else origin.parent


def sources(module: str) -> tuple[list[Path], list[Path]]:
    """The Python and data files (sorted) and the C kernels (sorted) that ``module`` reaches
    (see the module docstring); RaceError when its file cannot be found."""
    tops = _project_tops()
    own = _top_of(module)
    if own is not None:
        tops.setdefault(*own)
    _ROOTS.clear()
    _ROOTS.update(tops)
    first = _module_file(module, tops)
    if first is None:
        raise RaceError(f"cannot find the source of solver module {module!r}")
    registry = _module_file("solvers.registry", tops)
    seen: set[Path] = set()
    data: set[Path] = set()
    todo = [first]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        names, beside = _parse(path)
        data.update(beside)
        if path == registry:               # members by name: every built-in solver
            from solvers.registry import SOLVERS
            names = names + tuple(target.split(":")[0] for target, _ in SOLVERS.values())
        for name in names:
            found = _module_file(name, tops)
            if found is not None and found not in seen:
                todo.append(found)
            package = name.rpartition(".")[0]
            while package:                  # a submodule's packages run their __init__
                parent = _module_file(package, tops)
                if parent is not None and parent not in seen:
                    todo.append(parent)
                package = package.rpartition(".")[0]
    import_scan.save()
    kernels = {p.with_suffix(".c") for p in seen if p.with_suffix(".c").is_file()}
    kernels |= {p for p in data if p.suffix == ".c"}
    return sorted(seen | (data - kernels)), sorted(kernels)


#: path -> ((mtime_ns, size), sha256 of its bytes)
_SHA256: dict[Path, tuple[tuple[int, int], str]] = {}


def _file_digest(path: Path) -> str:
    """sha256 of ``path``'s bytes, read again only when its time or size changed."""
    stat = path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    known = _SHA256.get(path)
    if known is None or known[0] != key:
        known = (key, hashlib.sha256(path.read_bytes()).hexdigest())
        _SHA256[path] = known
    return known[1]


def _digest(files: Iterable[Path], root: Path) -> str | None:
    """sha256 over (path relative to ``root``, sha256 of the bytes) of ``files``; None for none."""
    files = list(files)
    if not files:
        return None
    whole = hashlib.sha256()
    for path in files:
        try:
            name = str(path.relative_to(root))
        except ValueError:
            name = path.name
        whole.update(f"{name}\0{_file_digest(path)}\n".encode())
    return whole.hexdigest()


def file_sha256(path: str | Path) -> str:
    """The sha256 of the bytes of ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- an entrant's identity -----------------------------------------------------------------

#: module -> (its files with their modification times, its identity): worked out once per
#: process while none of its files changes
_KNOWN: dict[str, tuple[tuple[tuple[Path, int], ...], dict[str, Any]]] = {}


def _stamp(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def of_module(module: str) -> dict[str, Any]:
    """The identity of the solver code in ``module`` (kind ``source``, or ``plugin`` when it
    lies outside the project: with its distribution and version)."""
    known = _KNOWN.get(module)
    if known is not None and all(_stamp(path) == stamp for path, stamp in known[0]):
        return dict(known[1])
    python, kernels = sources(module)
    stamps = tuple((path, _stamp(path)) for path in (*python, *kernels))
    identity = _identity(module, python, kernels)
    _KNOWN[module] = (stamps, identity)
    return dict(identity)


def _identity(module: str, python: list[Path], kernels: list[Path]) -> dict[str, Any]:
    own = _top_of(module)
    root = own[1] if own else _root()
    source = _digest(python, root)
    kernel = _digest(kernels, root)
    whole = hashlib.sha256(f"{source}\n{kernel}\n".encode()).hexdigest()
    identity: dict[str, Any] = {"kind": "source", "digest": whole, "module": module,
                                "source_sha256": source, "kernel_sha256": kernel,
                                "files": len(python) + len(kernels)}
    if own is not None and own[0] not in _project_tops():
        import importlib.metadata
        names = importlib.metadata.packages_distributions().get(own[0], [])
        version = None
        if names:
            with contextlib.suppress(importlib.metadata.PackageNotFoundError):
                version = importlib.metadata.version(names[0])
        identity.update(kind="plugin", package=names[0] if names else None, version=version)
        identity["digest"] = hashlib.sha256(f"{whole}\n{identity['package']}\n{version}\n"
                                            .encode()).hexdigest()
    return identity


def of_entrant(entrant: Any) -> dict[str, Any]:
    """The identity of one :class:`experiments.harness.entrants.Entrant` (module docstring):
    a program's sha256 when its solver runs one, else its module's sources. RaceError when it
    cannot be read (a program that vanished)."""
    from solvers.registry import Registry, parse_spec
    name = parse_spec(entrant.spec)[0]
    registry = Registry({name: (entrant.target, entrant.fixed)})
    cls = registry.solver_class(name)
    if callable(getattr(cls, "provenance", None)):      # it may run a program of its own
        program = getattr(registry.create(entrant.spec), "program", None)
        if isinstance(program, str) and os.path.isfile(program):
            try:
                return {"kind": "program", "digest": file_sha256(program), "path": program}
            except OSError as exc:
                raise RaceError(f"entrant {entrant.spec}: cannot read its program: "
                                f"{exc.strerror}", source=program) from None
    return of_module(cls.__module__)


def current(entrants: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Entrant spec -> its identity now (:func:`of_entrant`); one that cannot be read is
    ``{"kind": "unknown", "error": ...}`` (no digest: nothing to compare), never raised."""
    found = {}
    for entrant in entrants:
        try:
            found[entrant.spec] = of_entrant(entrant)
        except Exception as exc:  # noqa: BLE001 - an identity must never stop a campaign
            found[entrant.spec] = {"kind": "unknown", "error": f"{type(exc).__name__}: {exc}"}
    return found


# -- what a campaign recorded -----------------------------------------------------------------

def recorded(meta: dict[str, Any], spec: str) -> dict[str, Any] | None:
    """The identity meta.json records for ``spec`` (the one measuring its rows now), or, for a
    campaign written before identities were recorded, its program's sha256 from
    ``entrant_provenance``; None when nothing is recorded."""
    entry = (meta.get(KEY) or {}).get(spec)
    if isinstance(entry, dict) and entry.get("digest"):
        return entry
    program = (meta.get("entrant_provenance") or {}).get(spec)
    if isinstance(program, dict) and program.get("sha256"):
        earlier = [{"kind": "program", "digest": e.get("sha256"), "path": e.get("path")}
                   for e in program.get("earlier") or [] if isinstance(e, dict)]
        return {"kind": "program", "digest": program["sha256"], "path": program.get("path"),
                **({"earlier": earlier} if earlier else {})}
    return None


def measured_by(meta: dict[str, Any], spec: str) -> list[str] | None:
    """The digests of the code that measured ``spec``'s rows, oldest first (several: the
    campaign mixes code for it), or None when the campaign records none."""
    entry = recorded(meta, spec)
    if entry is None:
        return None
    earlier = [str(e.get("digest")) for e in entry.get("earlier") or [] if isinstance(e, dict)]
    return list(dict.fromkeys([*earlier, str(entry["digest"])]))


def label(digests: list[str] | None) -> str:
    """``[aa9714..]``, ``[aa9714..]+[d4e228..]`` for mixed code, ``[unknown]``."""
    return "+".join(short(d) for d in digests) if digests else short(None)


def mixed(meta: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Entrant spec -> the identities that measured its rows, oldest first (each with
    ``digest``, and ``until`` / ``rows`` for an earlier one), for the entrants whose rows
    mix code."""
    found = {}
    for spec in dict.fromkeys([*(meta.get(KEY) or {}), *(meta.get("entrant_provenance") or {})]):
        entry = recorded(meta, spec)
        if entry and entry.get("earlier"):
            found[spec] = [*entry["earlier"], {k: v for k, v in entry.items() if k != "earlier"}]
    return found


class CodeChanged(RaceError):
    """A resume whose entrant's code differs from the code that measured its rows."""


def _advice(spec: str) -> str:
    return (f"--mixed keeps its rows and records both, --rerun {spec} moves its rows aside and "
            "runs its cells again; or choose another --campaign name")


def merge(old: dict[str, Any], new: dict[str, dict[str, Any]], now: str, campaign: str = "",
          source: str | None = None) -> dict[str, Any]:
    """meta.json's ``entrant_code`` after a resume: the recorded identities ``old`` (spec ->
    entry), each entrant of ``new`` (spec -> identity now) added with ``since`` ``now``, an
    entrant whose code is unchanged kept as recorded. Raises :class:`CodeChanged` (naming the
    entrant, both digests and what to do) when an entrant's code differs from what measured
    its rows."""
    merged = {spec: value for spec, value in old.items()}
    for spec, now_identity in new.items():
        before = merged.get(spec)
        if isinstance(before, dict) and before.get("digest") and not now_identity.get("digest"):
            continue                        # cannot be read now: the record stands
        if isinstance(before, dict) and before.get("digest"):
            if before["digest"] != now_identity["digest"]:
                raise CodeChanged(
                    f"campaign {campaign!r}: the code of entrant {printable(spec)} changed since "
                    f"its rows were measured ({short(before['digest'])} -> "
                    f"{short(now_identity['digest'])}): {_advice(spec)}", source=source)
            merged[spec] = {**now_identity, **{k: before[k] for k in ("since", "earlier",
                                                                      "replaced") if k in before}}
        else:
            merged[spec] = {**now_identity, "since": now}
    return merged


def mixing_lines(meta: dict[str, Any]) -> list[str]:
    """One line per entrant whose rows were measured by several codes (what a report says)."""
    out = []
    for spec, identities in mixed(meta).items():
        parts = []
        for identity in identities:
            rows = identity.get("rows")
            until = identity.get("until")
            parts.append(short(identity.get("digest"))
                         + (f" ({rows} row(s) until {until})" if until else " (the rest)"))
        out.append(f"{printable(spec)}: its rows mix code: {', '.join(parts)} "
                   f"(race run --rerun {printable(spec)} measures them again with one)")
    return out

