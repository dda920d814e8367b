"""Build and load a native (C) kernel safely: compiled at its first use, loaded only if this user built it.

A :class:`NativeLibrary` is one C source of the project (``solvers/dlx_native.c``,
``solvers/cover_native.c``) and how to declare its functions to ctypes. Its first
:meth:`~NativeLibrary.library` call compiles the source with the system's C compiler (``$CC``,
else ``cc``) into a cache folder and loads it; later processes load that build. The file name
carries a hash of the source, the compiler flags and the machine, so an edited source is built
again and never a stale build loaded.

Loading a shared library runs its code (its constructors) in this process, so a library is
loaded only when

* its folder is a directory owned by this user and not writable by group or others,
* the library is a regular file (not a symbolic link) with the same owner and mode, and
* its content has the SHA-256 digest recorded beside it (``NAME.so.sha256``, written when it was
  built, with the same owner and mode), checked just before it is loaded.

The cache folders are tried in turn: ``__pycache__`` beside the source, then
``$XDG_CACHE_HOME/sudoku-race/native`` (``~/.cache/...``), which is made private (mode 0700) when
it is the user's own but writable by group or others (as an older version left it under a umask
of 002). A folder that fails the checks is passed over; a library in a folder that passes them,
but that fails them itself, is not loaded and is built again there. When no folder serves, the
source is built into a fresh private temporary folder (removed once the library is loaded) and
loaded from there. A library refused is named, with why, in one line on stderr. Without a
compiler, or when the compiler fails, :meth:`~NativeLibrary.library` returns None and says why in
:attr:`~NativeLibrary.why_not`: each caller then uses its numba kernel (same answers, a slower
start). ``RACE_NATIVE=0`` turns every native kernel off.
"""

from __future__ import annotations

import ctypes
import os
import stat
import sys
import threading
from collections.abc import Callable
from pathlib import Path

try:                                # the interpreter's own SHA-256: hashlib loads OpenSSL first,
    from _sha256 import sha256      # 3 ms of a start-up that race cover counts in tens of ms
except ImportError:                 # pragma: no cover - another Python's layout
    try:
        from _sha2 import sha256    # Python 3.12 and later
    except ImportError:
        from hashlib import sha256

#: compiler flags of every build (part of the library's name)
FLAGS = ("-O2", "-shared", "-fPIC")


class NativeLibrary:
    """The C source ``source`` built and loaded on demand (see the module docstring).
    ``declare(lib)`` sets the argtypes/restype of its functions (an AttributeError there,
    a missing symbol, means the library is not what was built)."""

    def __init__(self, source: Path, declare: Callable[[ctypes.CDLL], None],
                 flags: tuple[str, ...] = FLAGS) -> None:
        self.source = Path(source)
        self.declare = declare
        self.flags = tuple(flags)
        #: why the library is not in use (empty while it is, or before the first try)
        self.why_not = ""
        #: where the library in use was loaded from
        self.path: Path | None = None
        self._lock = threading.Lock()
        self._tried = False
        self._lib: ctypes.CDLL | None = None

    # -- where ------------------------------------------------------------------------------
    def cache_dirs(self) -> list[Path]:
        """The folders tried in turn for a build (see the module docstring)."""
        return [self.source.parent / "__pycache__", user_cache()]

    def name(self, source: bytes) -> str:
        """The file name of the library built from ``source`` with these flags on this machine."""
        machine = os.uname().machine if hasattr(os, "uname") else sys.platform
        key = source + b"\0" + " ".join(self.flags).encode() + b"\0" + machine.encode()
        return f"{self.source.stem}-{sha256(key).hexdigest()[:16]}.so"

    # -- loading ----------------------------------------------------------------------------
    def library(self) -> ctypes.CDLL | None:
        """The loaded library (built on first use), or None (see :attr:`why_not`)."""
        if self._tried:
            return self._lib
        with self._lock:
            if not self._tried:
                self._lib = self._load()
                self._tried = True
        return self._lib

    @property
    def tried(self) -> bool:
        """Whether :meth:`library` was asked for (and so a build or load attempted) in this process."""
        return self._tried

    def forget(self) -> None:
        """Forget the outcome of the last :meth:`library` call (the next one tries again)."""
        with self._lock:
            self._tried = False
            self._lib = None
            self.why_not = ""
            self.path = None

    def _load(self) -> ctypes.CDLL | None:
        if os.environ.get("RACE_NATIVE", "1") == "0":
            self.why_not = "turned off (RACE_NATIVE=0)"
            return None
        try:
            source = self.source.read_bytes()
        except OSError as exc:
            self.why_not = f"no source: {exc}"
            return None
        name = self.name(source)
        errors: list[str] = []
        refused: list[str] = []
        try:
            for folder in self.cache_dirs():
                lib = self._from_folder(folder, name, errors, refused)
                if lib is not None:
                    self._say(refused, f"loaded a build of this user's from {folder}")
                    return lib
        except _BuildFailed as exc:                 # no other folder helps
            errors.append(str(exc))
            self.why_not = "; ".join(errors)
            self._say(refused, "using the numba kernel")
            return None
        import shutil
        import tempfile
        try:
            folder = Path(tempfile.mkdtemp(prefix="sudoku-race-native-"))
        except OSError as exc:
            errors.append(f"a private temporary folder: {exc.strerror or exc}")
            self.why_not = "; ".join(errors)
            self._say(refused, "using the numba kernel")
            return None
        try:
            lib = self._from_folder(folder, name, errors, refused)
        except _BuildFailed as exc:
            errors.append(str(exc))
            lib = None
        finally:
            shutil.rmtree(folder, ignore_errors=True)   # a loaded library stays mapped
        if lib is not None:
            self._say(refused, "built a fresh copy in a private temporary folder")
            return lib
        self.why_not = "; ".join(errors)
        self._say(refused, "using the numba kernel")
        return None

    def _say(self, refused: list[str], outcome: str) -> None:
        """One line on stderr when a library or a folder was refused."""
        if refused:
            print(f"race: note: {'; '.join(refused)}; {outcome}", file=sys.stderr, flush=True)

    def _from_folder(self, folder: Path, name: str, errors: list[str],
                     refused: list[str]) -> ctypes.CDLL | None:
        """The library ``name`` from ``folder`` (built there when missing or refused), or None
        with the reason added to ``errors`` (and to ``refused`` when something was refused)."""
        target = folder / name
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            errors.append(f"{folder}: {exc.strerror or exc}")
            return None
        unsafe = _unsafe(folder, directory=True)
        if unsafe == GROUP_WRITABLE and folder == user_cache():
            try:        # the user's own cache folder (made by an older version with the umask)
                os.chmod(folder, 0o700)
                unsafe = _unsafe(folder, directory=True)
            except OSError:
                pass
        if unsafe:
            errors.append(f"{folder}: {unsafe}")
            if os.path.lexists(target):
                refused.append(f"not loading {target}: its folder is {unsafe}")
            return None
        if os.path.lexists(target):
            problem = _unsafe(target) or _digest_problem(target)
            if not problem:
                return self._open(target, errors)
            refused.append(f"not loading {target}: {problem}")
        try:
            self._build(target)
        except _BuildFailed as exc:
            raise _BuildFailed(f"{folder}: {exc}") from None
        except OSError as exc:
            errors.append(f"{folder}: {exc.strerror or exc}")
            return None
        problem = _unsafe(target) or _digest_problem(target)
        if problem:
            errors.append(f"{target}: {problem}")
            return None
        return self._open(target, errors)

    def _open(self, target: Path, errors: list[str]) -> ctypes.CDLL | None:
        try:
            lib = ctypes.CDLL(str(target))
            self.declare(lib)
        except (OSError, AttributeError) as exc:    # unloadable, or not the library we built
            errors.append(f"{target}: {exc}")
            return None
        self.why_not = ""
        self.path = target
        return lib

    # -- building ---------------------------------------------------------------------------
    def _build(self, target: Path) -> None:
        """Compile the source into ``target`` and record its digest beside it, each written
        to a temporary file (mode 0600, then 0644) and renamed into place."""
        import shlex
        import shutil
        import subprocess
        import tempfile
        command = shlex.split(os.environ.get("CC") or "cc") or ["cc"]
        compiler = command[0]
        if shutil.which(compiler) is None:
            raise _BuildFailed(f"no C compiler ({compiler!r} not found)")
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=target.parent)
        os.close(fd)
        try:
            try:
                done = subprocess.run([*command, *self.flags, "-o", tmp, str(self.source)],
                                      capture_output=True, text=True, timeout=300)
            except (OSError, subprocess.SubprocessError) as exc:
                raise _BuildFailed(f"{compiler}: {exc}") from None
            if done.returncode != 0:
                raise _BuildFailed(f"{compiler} failed: {done.stderr.strip()[:300]}")
            os.chmod(tmp, 0o644)
            digest = sha256(Path(tmp).read_bytes()).hexdigest()
            _write_private(Path(str(target) + DIGEST), digest + "\n")
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


class _BuildFailed(Exception):
    """The compiler is missing or fails: building in another folder would not help."""


#: the suffix of the digest file written beside each library
DIGEST = ".sha256"
GROUP_WRITABLE = "writable by group or others"


def user_cache() -> Path:
    """The user's cache folder for native builds: ``$XDG_CACHE_HOME/sudoku-race/native``."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "sudoku-race" / "native"


def _unsafe(path: Path, directory: bool = False) -> str:
    """Why ``path`` may not be trusted ('' if it may): not a plain file (or directory), owned
    by another user, or writable by group or others."""
    try:
        info = os.stat(path) if directory else os.lstat(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    kind = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
    if not kind:
        return "not a directory" if directory else "not a regular file"
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return GROUP_WRITABLE
    return ""


def _digest_problem(target: Path) -> str:
    """'' when ``target``'s content has the digest recorded beside it, else what is wrong."""
    record = Path(str(target) + DIGEST)
    unsafe = _unsafe(record)
    if unsafe:
        return f"its digest file: {'none' if not os.path.lexists(record) else unsafe}"
    try:
        expected = record.read_text().strip()
        actual = sha256(target.read_bytes()).hexdigest()
    except (OSError, UnicodeDecodeError) as exc:
        return f"unreadable ({exc})"
    if expected != actual:
        return "its content does not have the digest recorded when it was built"
    return ""


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed into place (mode 0644)."""
    import tempfile
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
