"""Where numba caches the compiled kernels of a ``race`` process: never a folder others could plant in.

numba's ``cache=True`` writes ``__pycache__`` beside each source file, and loads (unpickles) the
index files it finds in its cache folder, so that folder decides what code runs. When the install
is writable by this user, numba's own choice stands (the install's ``__pycache__``). Otherwise
(a read-only site-packages, a container image) the cache goes to
``$XDG_CACHE_HOME/sudoku-race/numba`` (``~/.cache/...``) when that folder is private
(:mod:`solvers.private_paths`: this user's, mode 0700, every folder above it this user's or root's
and not writable by others), and else to a fresh private temporary folder of this process, removed
when it ends (its worker processes inherit it), never a predictable shared path such as
``/tmp/sudoku-race``. An explicit ``NUMBA_CACHE_DIR`` wins. Both starts of ``race`` (the click
group and the plain ``race cover``) call :func:`configure` before numba is imported.
"""

from __future__ import annotations

import os

#: the folder of the numba kernels' sources (the ``solvers`` package)
SOLVERS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "solvers")


def numba_cache_dir(package_dir: str | None = None) -> str | None:
    """Where numba should cache compiled kernels (module docstring), or None for its default.
    May create the user's cache folder or a temporary folder (removed at exit)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    if os.access(package_dir or SOLVERS_DIR, os.W_OK):
        return None
    from pathlib import Path

    from solvers.private_paths import make_private_folder
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = Path(base) / "sudoku-race" / "numba"
    if not make_private_folder(folder):
        return str(folder)
    return _process_folder()


def _process_folder() -> str:
    """A private temporary folder of this process (mkdtemp: mode 0700, an unpredictable name),
    removed when the process ends."""
    import atexit
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix="sudoku-race-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def configure() -> None:
    """Set ``NUMBA_CACHE_DIR`` for this process and its workers when numba's default will not do."""
    cache = numba_cache_dir()
    if cache:
        os.environ["NUMBA_CACHE_DIR"] = cache
