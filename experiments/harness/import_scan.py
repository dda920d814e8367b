"""What a Python source file imports and which file names it writes, read from its syntax tree
once per content.

:mod:`experiments.harness.code_identity` follows a solver module's imports to every source it
reaches. Parsing them (``ast.parse`` of some fifteen files) cost about 0.3 s of every ``race run``,
a resume with nothing to run included. What a file's tree says depends on its bytes alone (and,
for a relative import, on the package it lies in), so the answer is kept by the sha256 of those
bytes and the package: in memory, and in ``$XDG_CACHE_HOME/sudoku-race/imports.json``
(``~/.cache/...``) when that folder is private (:mod:`solvers.private_paths`: nothing is kept
where another user could write). An entry is only ever used for the exact bytes it was read
from; a file that cannot be kept there is simply parsed again next time.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import json
import os
import re
from pathlib import Path

#: a string that may name a file beside the module: ``portfolio.csv``, ``dlx_native.c``
FILE_NAME = re.compile(r"^[A-Za-z0-9_][\w-]{0,80}\.[A-Za-z0-9]{1,8}$")
#: entries kept on disk at most (the newest)
MAX_ENTRIES = 4096
#: the cache file's name in the user's cache folder
CACHE_NAME = "imports.json"

#: "sha256:package" -> (modules imported, file names written), what is known in this process
_KNOWN: dict[str, tuple[list[str], list[str]]] = {}
#: whether the disk's entries were read, and whether this process found new ones
_STATE = {"loaded": False, "dirty": False}


def scan(source: bytes, package: str, filename: str = "<source>") -> tuple[list[str], list[str]]:
    """The modules ``source`` imports (absolute names, relative ones resolved in ``package``;
    for ``from X import Y`` both ``X`` and ``X.Y``, a submodule or not) and the string
    constants that may name a file beside it (:data:`FILE_NAME`, no ``.py``)."""
    key = f"{hashlib.sha256(source).hexdigest()}:{package}"
    _load()
    known = _KNOWN.get(key)
    if known is None:
        known = _parse(source, package, filename)
        _KNOWN[key] = known
        _STATE["dirty"] = True
    return known


def _parse(source: bytes, package: str, filename: str) -> tuple[list[str], list[str]]:
    tree = ast.parse(source, filename=filename)
    names: list[str] = []
    files: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[:len(parts) - node.level + 1] if node.level > 1 else parts
                base = ".".join(p for p in [*parts, base] if p)
            names.append(base)
            names += [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and FILE_NAME.match(node.value) and not node.value.endswith(".py"):
            files.append(node.value)
    return names, files


def _folder() -> Path | None:
    """The private cache folder (None where there is none)."""
    from solvers.private_paths import make_private_folder
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "sudoku-race"
    return None if make_private_folder(folder) else folder


def _load() -> None:
    """Read the disk's entries once per process (a damaged or foreign file: none)."""
    if _STATE["loaded"]:
        return
    _STATE["loaded"] = True
    with contextlib.suppress(OSError, ValueError, TypeError):
        folder = _folder()
        if folder is None:
            return
        found = json.loads((folder / CACHE_NAME).read_text(encoding="utf-8"))
        if not isinstance(found, dict):
            return
        for key, value in found.items():
            if isinstance(value, list) and len(value) == 2 and all(
                    isinstance(part, list) and all(isinstance(x, str) for x in part)
                    for part in value):
                _KNOWN.setdefault(key, (list(value[0]), list(value[1])))


def save() -> None:
    """Keep what this process learned on disk (written whole, or not at all)."""
    if not _STATE["dirty"]:
        return
    _STATE["dirty"] = False
    with contextlib.suppress(OSError):
        folder = _folder()
        if folder is None:
            return
        entries = dict(list(_KNOWN.items())[-MAX_ENTRIES:])
        temporary = folder / f".{CACHE_NAME}.{os.getpid()}"
        try:
            temporary.write_text(json.dumps(entries), encoding="utf-8")
            os.replace(temporary, folder / CACHE_NAME)
        finally:
            temporary.unlink(missing_ok=True)
