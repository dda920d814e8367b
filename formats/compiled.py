"""Compiled kernels: numba's ``njit``, deferred to the first call, with an interpreted mode.

It lives in ``formats``, the lowest layer, because the DIMACS writer (``formats.dimacs``)
and the solvers share it and nothing in ``formats`` may import from ``solvers``.

Every hot loop of the project (the propagation kernel, Algorithm X, the backtracking
search, the candidate numbering of the CNF encoder, the DIMACS writer) is a plain
Python function decorated with :func:`kernel`. Importing numba and loading its cached
machine code costs about 0.6 s of CPU, which a command answering one 9x9 puzzle should
not pay: so the decorator does not import numba. The first call of a kernel imports
numba and compiles it (or loads it from numba's on-disk cache), exactly as
``numba.njit(**options)`` would; later calls go straight to the compiled code.

Inside :func:`interpreted` every kernel runs as the Python function it was written as
(its ``py_func``), and numba is never imported. Same code, same answers, slower per
step: ``race solve`` uses it for a handful of 9x9 puzzles with DLX, where the search is
milliseconds and numba's start-up is not, and for the SAT entrants up to n = 7, whose
kernels only build the formula (see ``experiments/cli/solve.py``). The race itself
never runs interpreted.

Kernels call each other by their module-level names. When a kernel is compiled, the
kernels it names are compiled first and those module globals are replaced by numba's
dispatchers, which is what numba needs to type the call (it reads globals when it
compiles); a kernel calling itself works the same way.
"""

from __future__ import annotations

import contextlib
import functools
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, overload

_mode = threading.local()
#: seconds this process spent loading compiled kernels (:meth:`Kernel.load`)
_load_seconds = 0.0
#: one compilation at a time (numba's typing reads the globals this module rewrites)
_compiling = threading.RLock()
#: set by the race CLI (:func:`ctrl_c_stops_kernels`): see there
_ctrl_c_stops = False


def ctrl_c_stops_kernels(enabled: bool = True) -> None:
    """Let Ctrl-C stop this process inside a kernel marked ``long_running`` (a search that
    may take minutes: DLX, Algorithm 1). Compiled code never returns to the interpreter, so
    Python's SIGINT handler (KeyboardInterrupt) would only run once the search is over;
    while such a kernel runs in the main thread and SIGINT has Python's default handler
    (not a handler of the caller's, like a campaign's clean stop), SIGINT gets the system's
    default action instead: the process ends at once (status 130 in the shell), with no
    message and unflushed output lost. The race CLI turns this on; the harness's worker
    processes (their own sessions, no Ctrl-C) do not, and pay nothing."""
    global _ctrl_c_stops
    _ctrl_c_stops = enabled


@contextlib.contextmanager
def _sigint_ends_process() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def load_seconds() -> float:
    """Seconds this process has spent so far importing numba and compiling kernels or
    reading them from numba's cache (each kernel's first compiled call, :meth:`Kernel.load`)."""
    return _load_seconds


def is_interpreted() -> bool:
    """True inside :func:`interpreted` (in this thread)."""
    return getattr(_mode, "interpreted", False)


@contextlib.contextmanager
def interpreted(enabled: bool = True) -> Iterator[None]:
    """Within this block (this thread), kernels run as plain Python (``enabled``) or
    compiled as usual (``enabled=False``, a no-op)."""
    before = is_interpreted()
    _mode.interpreted = before or enabled
    try:
        yield
    finally:
        _mode.interpreted = before


@contextlib.contextmanager
def compiled_here() -> Iterator[None]:
    """Within this block (this thread), kernels run compiled even inside :func:`interpreted`:
    for a search that started interpreted and turned out long (see solvers/backtracking.py)."""
    before = is_interpreted()
    _mode.interpreted = False
    try:
        yield
    finally:
        _mode.interpreted = before


class Kernel:
    """A function compiled by ``numba.njit(**options)`` at its first call outside
    :func:`interpreted`; ``py_func`` is the function itself."""

    def __init__(self, fn: Callable[..., Any], options: dict[str, Any]) -> None:
        self.py_func = fn
        #: a search that may run for minutes (:func:`ctrl_c_stops_kernels`)
        self.long_running = bool(options.pop("long_running", False))
        self.options = options
        self._dispatcher: Any = None        # numba's dispatcher (numba has no type stubs)
        self._pending: Any = None
        self._loaded = False        # compiled (or read from the cache) for a first signature
        functools.update_wrapper(self, fn)

    def compiled(self) -> Any:
        """numba's dispatcher for this kernel (numba imported on first use)."""
        if self._dispatcher is not None:
            return self._dispatcher
        with _compiling:
            if self._dispatcher is not None:
                return self._dispatcher
            if self._pending is not None:       # a kernel calling itself, mid-build
                return self._pending
            import numba
            self._pending = numba.njit(**self.options)(self.py_func)
            namespace = self.py_func.__globals__
            for name in self.py_func.__code__.co_names:
                other = namespace.get(name)
                if isinstance(other, Kernel):
                    namespace[name] = other.compiled()
            # published only once every kernel it calls is a dispatcher in its globals
            self._dispatcher = self._pending
            return self._dispatcher

    def load(self, *args: Any) -> float:
        """Import numba and compile this kernel for the types of ``args`` (or read it from
        numba's cache), without running it: the seconds that took, 0.0 when that was done
        already. Every kernel does this at its first compiled call, so the time is also
        added to :func:`load_seconds`."""
        global _load_seconds
        if self._loaded:
            return 0.0
        t0 = time.perf_counter()
        dispatcher = self.compiled()
        if hasattr(dispatcher, "typeof_pyval"):     # numba's (not a test's stand-in)
            with _compiling:
                dispatcher.compile(tuple(dispatcher.typeof_pyval(a) for a in args))
        self._loaded = True
        spent = time.perf_counter() - t0
        _load_seconds += spent
        return spent

    def __call__(self, *args: Any) -> Any:
        if is_interpreted():
            return self.py_func(*args)
        if not self._loaded:
            self.load(*args)
        compiled = self.compiled()
        if self.long_running and _ctrl_c_stops:
            with _sigint_ends_process():
                return compiled(*args)
        return compiled(*args)

    def __repr__(self) -> str:
        state = "compiled" if self._dispatcher is not None else "not compiled yet"
        return f"<kernel {self.py_func.__module__}.{self.py_func.__qualname__} ({state})>"


@overload
def kernel(fn: Callable[..., Any], **options: object) -> Kernel: ...
@overload
def kernel(fn: None = None, **options: object) -> Callable[[Callable[..., Any]], Kernel]: ...
def kernel(fn: Callable[..., Any] | None = None,
           **options: object) -> Kernel | Callable[[Callable[..., Any]], Kernel]:
    """Decorator: ``@kernel`` or ``@kernel(cache=True, nogil=True, ...)`` with numba
    ``njit`` options; see the module docstring. ``long_running=True`` (not numba's) marks a
    search that may take minutes (:func:`ctrl_c_stops_kernels`)."""
    if fn is None:
        return lambda f: Kernel(f, options)
    return Kernel(fn, options)
