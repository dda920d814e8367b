"""The C kernels, built with the package: every ``solvers/*_native.c`` is one optional extension.

Each kernel is a plain shared object (no Python module init), loaded with ctypes by
:mod:`solvers.native_library` from ``solvers/_native/`` of the installed package. Next to the
kernel's own source each build compiles one generated line, ``race_source_sha256``, the SHA-256
of that source, so a development checkout whose C file was edited after the build is noticed.
A kernel compiles with ``-O2`` unless a line near its top says otherwise
(``/* compile with: -O3 */``).
``optional=True``: without a C compiler the package still installs and the numba kernels run.
A compiler variable that is not a command line (``CC='"'``: an unclosed quote) is said in one
line naming it, and the package builds without the kernels, as without a compiler
(:func:`unusable_compiler_variable`).
Everything else about the package is declared in pyproject.toml.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

#: the one place that lists the kernels: a new ``solvers/NAME_native.c`` needs no packaging change
KERNELS = sorted(Path("solvers").glob("*_native.c"))
#: the package folder the built kernels go to (``solvers.native_library.BUILT``)
BUILT = "solvers._native"
#: a kernel's own optimisation flags, on a line of its first 40: ``/* compile with: -O3 */``
_FLAGS_LINE = re.compile(r"^\s*(?:/\*|//)\s*compile with:\s*(.*?)\s*(?:\*/)?\s*$")


def compile_flags(source: Path) -> list[str]:
    """The flags ``source`` asks for (see :data:`_FLAGS_LINE`), else ``-O2``."""
    for line in source.read_text(encoding="utf-8").splitlines()[:40]:
        found = _FLAGS_LINE.match(line)
        if found:
            return found.group(1).split()
    return ["-O2"]


#: the environment variables the compiler's command lines are split from (distutils' unix
#: compiler: ``configure_system``)
COMPILER_VARIABLES = ("CC", "CXX", "CPP", "LDSHARED", "LDCXXSHARED", "CFLAGS", "CXXFLAGS",
                      "CPPFLAGS", "LDFLAGS", "AR", "ARFLAGS", "RANLIB")


def _split(value: str) -> list[str]:
    """``value`` split as distutils splits a compiler variable (ValueError when it cannot)."""
    try:
        from setuptools._distutils.util import split_quoted
    except ImportError:                         # a setuptools that keeps it elsewhere
        return shlex.split(value)
    return split_quoted(value)


def unusable_compiler_variable(environ: dict[str, str] | None = None) -> str | None:
    """The one line that names the first of :data:`COMPILER_VARIABLES` in ``environ`` (default:
    this process's environment) that cannot be split into a command line, and why; None when
    each can (a missing or failing compiler is left to ``optional=True``)."""
    environ = dict(os.environ) if environ is None else environ
    for name in COMPILER_VARIABLES:
        value = environ.get(name)
        if value is None:
            continue
        try:
            words = _split(value)
        except ValueError as exc:
            why = str(exc) or type(exc).__name__
        else:
            if words or name not in ("CC", "CXX", "LDSHARED"):
                continue
            why = "empty"
        return (f"sudoku-race: {name}={value!r} is not a command line ({why}): building without "
                "the C kernels (the numba kernels run instead)")
    return None


class BuildKernels(build_ext):
    """build_ext that compiles the source digest (``race_source_sha256``) into each kernel,
    and builds none when a compiler variable is not a command line."""

    def run(self) -> None:
        problem = unusable_compiler_variable()
        if problem is not None:
            print(problem, file=sys.stderr)
            return
        super().run()

    def build_extension(self, ext: Extension) -> None:
        source = Path(ext.sources[0])
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        stamp = Path(self.build_temp) / f"{source.stem}_source_digest.c"
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(f'const char race_source_sha256[] = "{digest}";\n')
        ext.sources = [str(source), str(stamp)]
        super().build_extension(ext)


setup(
    ext_modules=[Extension(f"{BUILT}.{path.stem}", [str(path)], optional=True,
                           extra_compile_args=compile_flags(path)) for path in KERNELS],
    cmdclass={"build_ext": BuildKernels},
)
