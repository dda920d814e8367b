"""Load a native (C) kernel: the one built with the package, else (a development checkout whose
C source was edited since) one this user built, loaded only if no one else could have touched it.

A :class:`NativeLibrary` is one C source of the project (every ``solvers/*_native.c``) and how
to declare its functions to ctypes. The normal path: setup.py builds each source when the
package is built or installed (an editable install too) into ``solvers/_native/`` of the package,
with the source's SHA-256 compiled in (``race_source_sha256``); :meth:`~NativeLibrary.library`
loads that file, from the package's own folder, and no compiler runs. When the package holds no
build of the kernel (the build failed at install time: no C compiler), one line on stderr says
so and each caller uses its numba kernel (same answers, a slower start).

Only when the source beside the module differs from the one built (an edited source in a
development checkout), or no build is there but the source is, is the source compiled at run time
(``$CC``, else ``cc``) into a cache folder: ``__pycache__`` beside the source, then
``$XDG_CACHE_HOME/sudoku-race/native`` (``~/.cache/...``), then a fresh temporary folder (removed
once loaded). The file name carries a hash of the source, the compiler flags and the machine.
Loading a shared library runs its constructors, so a cached library is loaded only when its
folder is private (:mod:`solvers.private_paths`: this user's, not writable by others, every
folder above it this user's or root's and not writable by others, walked with ``O_NOFOLLOW``),
the library and its recorded digest (``NAME.so.sha256``) are regular files of this user's opened
without following links, and the open library's content has that digest; the very descriptor
that was hashed is what is loaded (``/proc/self/fd/N``), so nothing can be swapped in between.
A library refused, or one that cannot be loaded, is named with why in one line on stderr and
built again. A compiler that fails for want of room (a full or read-only cache disk) moves the
build to the next folder. ``RACE_NATIVE=0`` turns every native kernel off.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Callable
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from solvers.private_paths import (
    GROUP_WRITABLE,
    Untrusted,
    make_private_folder,
    open_private_file,
    open_private_folder,
    read_all,
)

try:                                # the interpreter's own SHA-256: hashlib loads OpenSSL first,
    from _sha256 import (
        sha256,  # 3 ms of a start-up that race cover counts in tens of ms
    )
except ImportError:                 # pragma: no cover - another Python's layout
    try:
        from _sha2 import sha256  # Python 3.12 and later
    except ImportError:
        from hashlib import sha256

#: compiler flags of every run-time build (part of the library's name)
FLAGS = ("-O2", "-shared", "-fPIC")
#: the folder (beside the sources) that holds the kernels built with the package (setup.py)
BUILT = "_native"
#: the symbol of a built kernel that holds the SHA-256 of the source it was built from
SOURCE_DIGEST = "race_source_sha256"
#: the suffix of the digest file written beside each library built at run time
DIGEST = ".sha256"
#: the words of a compiler's error that blame the folder, not the source (try the next folder)
_NO_ROOM = (os.strerror(28), os.strerror(122), os.strerror(30))   # ENOSPC, EDQUOT, EROFS

__all__ = ["NativeLibrary", "user_cache", "DIGEST", "GROUP_WRITABLE", "FLAGS"]


class NativeLibrary:
    """The C source ``source``, its build loaded on demand (see the module docstring).
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
    def built(self) -> Path:
        """Where the build made with the package is (``solvers/_native/NAME.cpython-*.so``)."""
        return self.source.parent / BUILT / (self.source.stem + EXTENSION_SUFFIXES[0])

    def cache_dirs(self) -> list[Path]:
        """The folders tried in turn for a run-time build (see the module docstring)."""
        return [self.source.parent / "__pycache__", user_cache()]

    def name(self, source: bytes) -> str:
        """The file name of the library built from ``source`` with these flags on this machine."""
        machine = os.uname().machine if hasattr(os, "uname") else sys.platform
        key = source + b"\0" + " ".join(self.flags).encode() + b"\0" + machine.encode()
        return f"{self.source.stem}-{sha256(key).hexdigest()[:16]}.so"

    # -- loading ----------------------------------------------------------------------------
    def library(self) -> ctypes.CDLL | None:
        """The loaded library, or None (see :attr:`why_not`)."""
        if self._tried:
            return self._lib
        with self._lock:
            if not self._tried:
                self._lib = self._load()
                self._tried = True
        return self._lib

    @property
    def tried(self) -> bool:
        """Whether :meth:`library` was asked for (and so a load attempted) in this process."""
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
            source: bytes | None = self.source.read_bytes()
        except OSError:
            source = None
        built = self.built()
        if os.path.exists(built):
            lib = self._from_package(built, source)
            if lib is not None or source is None:
                return lib
        elif source is None:
            self.why_not = (f"the C kernel {self.source.stem} was not built with this package "
                            "(no C compiler when it was installed?)")
            self._say([self.why_not], "using the numba kernel")
            return None
        lib = self._runtime_build(source)
        if lib is None and not os.path.exists(built):
            self._say([f"the C kernel {self.source.stem} was not built with this package and "
                       f"cannot be built here ({self.why_not})"], "using the numba kernel")
        return lib

    def _from_package(self, built: Path, source: bytes | None) -> ctypes.CDLL | None:
        """The build made with the package, or None when it cannot be loaded or (``source``
        given) was built from another source."""
        try:
            lib = ctypes.CDLL(str(built))
            self.declare(lib)
            made_from = (ctypes.c_char * 65).in_dll(lib, SOURCE_DIGEST).value.decode()
        except (OSError, AttributeError, ValueError, UnicodeDecodeError) as exc:
            self.why_not = f"{built}: {exc}"
            if source is None:
                self._say([f"not loading {built}: {exc}"], "using the numba kernel")
            return None
        if source is not None and made_from != sha256(source).hexdigest():
            self.why_not = f"{built}: built from another version of {self.source.name}"
            return None
        self.why_not = ""
        self.path = built
        return lib

    def _runtime_build(self, source: bytes) -> ctypes.CDLL | None:
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
        unsafe = make_private_folder(folder)
        if GROUP_WRITABLE in unsafe and folder == user_cache():
            try:        # the user's own cache folder (made by an older version with the umask)
                os.chmod(folder, 0o700)
                unsafe = make_private_folder(folder)
            except OSError:
                pass
        if unsafe:
            errors.append(unsafe if str(folder) in unsafe else f"{folder}: {unsafe}")
            if os.path.lexists(target):
                prefix = f"{os.path.realpath(folder)}: "      # the folder's own fault, or above
                why = unsafe[len(prefix):] if unsafe.startswith(prefix) else f"under {unsafe}"
                refused.append(f"not loading {target}: its folder is {why}")
            return None
        if os.path.lexists(target):
            lib, problem = self._open(target)
            if lib is not None:
                return lib
            refused.append(f"not loading {target}: {problem}")
        try:
            self._build(target)
        except _BuildFailed as exc:
            raise _BuildFailed(f"{folder}: {exc}") from None
        except OSError as exc:
            errors.append(f"{folder}: {exc.strerror or exc}")
            return None
        lib, problem = self._open(target)
        if lib is None:
            errors.append(f"{target}: {problem}")
        return lib

    def _open(self, target: Path) -> tuple[ctypes.CDLL | None, str]:
        """(the library at ``target``, '') when it may be trusted and loads, else (None, why):
        the descriptor hashed against the recorded digest is the one loaded."""
        try:
            folder = open_private_folder(target.parent)
        except Untrusted as exc:
            return None, f"its folder is not private ({exc})"
        library = record = -1
        try:
            library = open_private_file(folder, target.name)
            record = open_private_file(folder, target.name + DIGEST)
            expected = read_all(record).decode().strip()
            if sha256(read_all(library)).hexdigest() != expected:
                return None, "its content does not have the digest recorded when it was built"
            lib = ctypes.CDLL(f"/proc/self/fd/{library}")
            self.declare(lib)
            library = -1    # kept open: the loader knows the library by this name, never reused
        except FileNotFoundError:
            return None, "its digest file: none"
        except Untrusted as exc:
            return None, str(exc)
        except (OSError, AttributeError, UnicodeDecodeError) as exc:
            return None, f"cannot be loaded ({exc})"    # unloadable, or not what was built
        finally:
            for fd in (folder, library, record):
                if fd >= 0:
                    os.close(fd)
        self.why_not = ""
        self.path = target
        return lib, ""

    # -- building ---------------------------------------------------------------------------
    def _build(self, target: Path) -> None:
        """Compile the source into ``target`` and record its digest beside it, each written
        to a temporary file (mode 0600, then 0644) and renamed into place. Raises
        _BuildFailed when the compiler is missing or fails, OSError when the folder is at fault."""
        import shlex
        import shutil
        import subprocess
        import tempfile
        try:
            command = shlex.split(os.environ.get("CC") or "cc") or ["cc"]
        except ValueError as exc:
            raise _BuildFailed(f"$CC is not a command line ({exc})") from None
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
                said = done.stderr.strip()
                if any(words in said for words in _NO_ROOM):     # the folder, not the source
                    raise OSError(f"{compiler} failed: {said[:300]}")
                raise _BuildFailed(f"{compiler} failed: {said[:300]}")
            os.chmod(tmp, 0o644)
            digest = sha256(Path(tmp).read_bytes()).hexdigest()
            _write_private(Path(str(target) + DIGEST), digest + "\n")
            os.replace(tmp, target)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


class _BuildFailed(Exception):
    """The compiler is missing or fails: building in another folder would not help."""


def user_cache() -> Path:
    """The user's cache folder for native builds: ``$XDG_CACHE_HOME/sudoku-race/native``."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(home) / "sudoku-race" / "native"


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
