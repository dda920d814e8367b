"""The C kernels built with the package (setup.py) are the ones loaded, from the package's folder.

A kernel built with the package sits in ``solvers/_native/`` with the SHA-256 of its source
compiled in; it is loaded without a compiler. A checkout whose source was edited since builds
the edited source at run time; an install without a build (and without the source) says so in
one line and the numba kernel runs."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

from solvers import cover_native, dlx_native
from solvers.native_library import BUILT, NativeLibrary
from tests.test_native_library import KERNEL, declare

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")


def package_build(source: Path, text: str) -> Path:
    """Build ``text`` as setup.py builds ``source`` (with the digest of ``source``'s content)."""
    built = source.parent / BUILT / (source.stem + EXTENSION_SUFFIXES[0])
    built.parent.mkdir(exist_ok=True)
    stamp = source.parent / "stamp.c"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    stamp.write_text(f'const char race_source_sha256[] = "{digest}";\n')
    body = source.parent / "body.c"
    body.write_text(text)
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(built), str(body), str(stamp)], check=True)
    return built


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    source = tmp_path / "kernel_native.c"
    source.write_text(KERNEL)
    monkeypatch.delenv("RACE_NATIVE", raising=False)
    lib = NativeLibrary(source, declare)
    monkeypatch.setattr(lib, "cache_dirs", lambda: [tmp_path / "cache"])
    return lib


def test_the_project_kernels_are_the_ones_built_with_the_package():
    """The editable install (as a wheel) built every solvers/*_native.c into solvers/_native/."""
    for module in (dlx_native, cover_native):
        assert module.library() is not None, module.NATIVE.why_not
        assert module.NATIVE.path == module.NATIVE.built()
        assert module.NATIVE.path.parent.name == BUILT


@needs_cc
def test_a_kernel_built_with_the_package_is_loaded_without_a_compiler(kernel, tmp_path,
                                                                      monkeypatch, capsys):
    built = package_build(kernel.source, KERNEL.replace("42", "41"))
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert kernel.library().answer() == 41 and kernel.path == built
    assert capsys.readouterr().err == "" and not (tmp_path / "cache").exists()


@needs_cc
def test_an_edited_source_is_built_at_run_time(kernel, tmp_path, capsys):
    package_build(kernel.source, KERNEL.replace("42", "41"))
    kernel.source.write_text(KERNEL.replace("42", "43"))
    assert kernel.library().answer() == 43
    assert kernel.path.parent == tmp_path / "cache" and capsys.readouterr().err == ""


@needs_cc
def test_an_install_without_the_source_uses_its_build(kernel, tmp_path):
    built = package_build(kernel.source, KERNEL)
    kernel.source.unlink()
    assert kernel.library().answer() == 42 and kernel.path == built


def test_an_install_without_a_build_says_so_in_one_line(kernel, capsys):
    kernel.source.unlink()
    assert kernel.library() is None
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "kernel_native was not built with this package" in err[0]
    assert "numba" in err[0]


def test_the_build_lists_every_kernel_source_through_one_glob():
    """setup.py builds every solvers/*_native.c (a new kernel needs no packaging change)."""
    setup = (Path(__file__).parents[1] / "setup.py").read_text()
    assert 'Path("solvers").glob("*_native.c")' in setup
    for source in Path(dlx_native.__file__).parent.glob("*_native.c"):
        built = source.parent / BUILT / (source.stem + EXTENSION_SUFFIXES[0])
        assert built.is_file(), f"{source.name} was not built by the install"


def test_a_kernel_may_ask_for_its_own_flags_in_its_source(tmp_path):
    """setup.py compiles a kernel with -O2 unless a line near its top names other flags."""
    text = (Path(__file__).parents[1] / "setup.py").read_text()
    names: dict = {}
    exec(text.split("\nsetup(\n")[0], names)          # setup.py's definitions, without setup()
    plain, asking = tmp_path / "plain_native.c", tmp_path / "fast_native.c"
    plain.write_text("/* a kernel */\nint x;\n")
    asking.write_text("/* a kernel\n * compile with: -O9 */\n/* compile with: -O3 -funroll-loops */\n")
    assert names["compile_flags"](plain) == ["-O2"]
    assert names["compile_flags"](asking) == ["-O3", "-funroll-loops"]
