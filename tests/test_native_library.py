"""solvers.native_library: a native kernel is built once and loaded only if this user built it.

A shared library runs its constructors when it is loaded, so a library planted in a cache folder
must never be loaded: not in a folder writable by others, not one owned by another user or
writable by others, not one whose content differs from the digest recorded when it was built.
Each such library is refused with one line on stderr, and the kernel is built afresh."""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from solvers import native_library
from solvers.native_library import DIGEST, NativeLibrary

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
pytestmark = needs_cc

KERNEL = "int answer(void) { return 42; }\n"
PLANTED = """#include <stdio.h>
#include <stdlib.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen(getenv("PLANTED_MARKER"), "w");
    if (f) { fputs("ran", f); fclose(f); }
}
int answer(void) { return 666; }
"""


def declare(lib: ctypes.CDLL) -> None:
    lib.answer.restype = ctypes.c_int
    lib.answer.argtypes = []


@pytest.fixture
def kernel(tmp_path, monkeypatch):
    """A tiny kernel whose cache folders are tmp/first (made unusable by the test when it
    wants the second) and tmp/xdg; the planted library's constructor writes tmp/marker."""
    source = tmp_path / "kernel.c"
    source.write_text(KERNEL + f"/* {tmp_path.name} */\n")     # a name of its own per test
    monkeypatch.setenv("PLANTED_MARKER", str(tmp_path / "marker"))
    monkeypatch.delenv("RACE_NATIVE", raising=False)
    monkeypatch.delenv("CC", raising=False)
    lib = NativeLibrary(source, declare)
    monkeypatch.setattr(lib, "cache_dirs", lambda: [tmp_path / "first", tmp_path / "xdg"])
    return lib


def plant(kernel: NativeLibrary, folder: Path, digest: str | None = "right",
          mode: int = 0o644) -> Path:
    """A library with a constructor, under the name the kernel looks for, in ``folder``."""
    folder.mkdir(exist_ok=True)
    source = folder.parent / "planted.c"
    source.write_text(PLANTED)
    target = folder / kernel.name(kernel.source.read_bytes())
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(target), str(source)], check=True)
    target.chmod(mode)
    if digest is not None:
        value = hashlib.sha256(target.read_bytes()).hexdigest() if digest == "right" else "0" * 64
        Path(str(target) + DIGEST).write_text(value + "\n")
    return target


def block(folder: Path) -> None:
    """Make ``folder`` unusable as a cache folder (a file is in its place)."""
    folder.write_text("not a folder")


def loaded(kernel: NativeLibrary, capsys) -> tuple[int, list[str]]:
    lib = kernel.library()
    assert lib is not None, kernel.why_not
    return lib.answer(), [line for line in capsys.readouterr().err.splitlines() if line]


def test_a_planted_library_in_a_folder_writable_by_others_is_not_loaded(kernel, tmp_path, capsys):
    """The audit's case: the first folder cannot be used, the second holds a library (with a
    digest that matches it) in a folder anyone may write: it is refused, a fresh build in a
    private temporary folder is loaded instead, and one line says so."""
    block(tmp_path / "first")
    target = plant(kernel, tmp_path / "xdg")
    (tmp_path / "xdg").chmod(0o777)
    answer, err = loaded(kernel, capsys)
    assert answer == 42 and not (tmp_path / "marker").exists()
    assert len(err) == 1 and err[0].startswith("race: note: not loading") and str(target) in err[0]
    assert "writable by group or others" in err[0] and "private temporary folder" in err[0]


@pytest.mark.parametrize("digest, mode, reason", [
    (None, 0o644, "its digest file: none"),
    ("wrong", 0o644, "does not have the digest recorded"),
    ("right", 0o664, "writable by group or others"),
    ("right", 0o646, "writable by group or others")])
def test_a_planted_library_in_the_users_own_folder_is_rebuilt(kernel, tmp_path, capsys, digest,
                                                               mode, reason):
    """In a private folder, a library without its digest, with another digest, or writable by
    others is not loaded: it is built again there (and that build is used)."""
    block(tmp_path / "first")
    (tmp_path / "xdg").mkdir(mode=0o700)
    target = plant(kernel, tmp_path / "xdg", digest, mode)
    answer, err = loaded(kernel, capsys)
    assert answer == 42 and not (tmp_path / "marker").exists()
    assert len(err) == 1 and reason in err[0] and str(target) in err[0]
    assert kernel.path == target and (target.stat().st_mode & 0o022) == 0
    assert Path(str(target) + DIGEST).read_text().strip() == \
        hashlib.sha256(target.read_bytes()).hexdigest()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_library_owned_by_another_user_is_not_loaded(kernel, tmp_path, capsys):
    block(tmp_path / "first")
    (tmp_path / "xdg").mkdir(mode=0o700)
    target = plant(kernel, tmp_path / "xdg")
    os.chown(target, 4242, -1)
    answer, err = loaded(kernel, capsys)
    assert answer == 42 and not (tmp_path / "marker").exists()
    assert "owned by another user (uid 4242)" in err[0]


def test_a_folder_owned_by_another_user_is_passed_over(kernel, tmp_path, capsys):
    if os.geteuid() != 0:
        pytest.skip("only root can give a folder to another user")
    (tmp_path / "first").mkdir(mode=0o755)
    plant(kernel, tmp_path / "first")
    os.chown(tmp_path / "first", 4242, -1)
    answer, err = loaded(kernel, capsys)
    assert answer == 42 and not (tmp_path / "marker").exists()
    assert "its folder is owned by another user" in err[0]
    assert kernel.path.parent == tmp_path / "xdg"


def test_a_good_build_is_loaded_again_without_a_compiler_and_quietly(kernel, tmp_path, capsys,
                                                                     monkeypatch):
    assert loaded(kernel, capsys) == (42, [])
    first = kernel.path
    assert first.parent == tmp_path / "first" and (first.parent.stat().st_mode & 0o077) == 0
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    kernel.forget()
    assert loaded(kernel, capsys) == (42, []) and kernel.path == first


def test_the_users_cache_folder_is_made_private(kernel, tmp_path, capsys, monkeypatch):
    """A cache folder an older version made with a group-writable umask is tightened (it is the
    user's own), then used; any other folder writable by others is passed over."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    own = native_library.user_cache()
    own.mkdir(parents=True)
    own.chmod(0o775)
    monkeypatch.setattr(kernel, "cache_dirs", lambda: [tmp_path / "first", own])
    block(tmp_path / "first")
    assert loaded(kernel, capsys) == (42, [])
    assert kernel.path.parent == own and (own.stat().st_mode & 0o777) == 0o700


def test_an_edited_source_is_built_again(kernel, tmp_path, capsys):
    assert loaded(kernel, capsys)[0] == 42
    kernel.source.write_text(KERNEL.replace("42", "43"))
    kernel.forget()
    assert loaded(kernel, capsys)[0] == 43
    assert len(list((tmp_path / "first").glob("kernel-*.so"))) == 2


def test_without_a_compiler_there_is_no_library_and_the_reason(kernel, tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    assert kernel.library() is None
    assert "no C compiler" in kernel.why_not and str(tmp_path / "first") in kernel.why_not


def test_a_failing_compiler_leaves_nothing_behind(kernel, tmp_path, monkeypatch):
    bad = tmp_path / "badcc"
    bad.write_text("#!/bin/sh\necho 'boom: broken compiler' >&2\nexit 1\n")
    bad.chmod(0o755)
    monkeypatch.setenv("CC", str(bad))
    assert kernel.library() is None and "boom: broken compiler" in kernel.why_not
    assert not list((tmp_path / "first").iterdir())
    monkeypatch.setenv("RACE_NATIVE", "0")
    kernel.forget()
    assert kernel.library() is None and "RACE_NATIVE=0" in kernel.why_not


def test_x2_a_folder_swapped_after_its_check_is_not_followed(kernel, tmp_path, capsys,
                                                             monkeypatch):
    """The folder checked is the folder loaded from: right after the check, the cache folder is
    renamed and a symbolic link to a planted library's folder put in its place; the library
    still comes through the descriptors opened during the check, so the planted one never runs."""
    assert loaded(kernel, capsys) == (42, [])
    good = kernel.path
    evil = tmp_path / "evil"
    evil.mkdir(mode=0o700)
    plant(kernel, evil)
    checked = native_library.open_private_folder

    def check_then_swap(folder: Path) -> int:
        fd = checked(folder)
        if folder == good.parent and not folder.is_symlink():
            folder.rename(tmp_path / "moved")
            folder.symlink_to(evil)
        return fd

    monkeypatch.setattr(native_library, "open_private_folder", check_then_swap)
    kernel.forget()
    assert loaded(kernel, capsys) == (42, []) and not (tmp_path / "marker").exists()


def test_x2_a_library_replaced_after_its_digest_is_checked_is_not_loaded(kernel, tmp_path, capsys,
                                                                         monkeypatch):
    """The file hashed is the file loaded: the library is replaced by a planted one right after
    its content is read for the digest, and the library loaded is still the one hashed."""
    assert loaded(kernel, capsys) == (42, [])
    good = kernel.path
    planted = plant(kernel, tmp_path / "evil")
    reads = native_library.read_all

    def read_then_swap(fd: int) -> bytes:
        data = reads(fd)
        if data[:4] == b"\x7fELF":
            os.replace(planted, good)
        return data

    monkeypatch.setattr(native_library, "read_all", read_then_swap)
    kernel.forget()
    assert loaded(kernel, capsys) == (42, []) and not (tmp_path / "marker").exists()


def test_x2_a_folder_under_one_others_may_write_is_not_trusted(kernel, tmp_path, capsys,
                                                               monkeypatch):
    """XDG_CACHE_HOME in a folder others may write (without the sticky bit): a library there,
    with its digest, is not loaded even though its own folder is private."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    folder = shared / "native"
    folder.mkdir(mode=0o700)
    target = plant(kernel, folder)
    monkeypatch.setattr(kernel, "cache_dirs", lambda: [folder, tmp_path / "xdg"])
    answer, err = loaded(kernel, capsys)
    assert answer == 42 and not (tmp_path / "marker").exists()
    assert len(err) == 1 and str(target) in err[0] and "writable by group or others" in err[0]
    assert kernel.path.parent == tmp_path / "xdg"


def test_n1_a_cc_that_is_not_a_command_line_is_a_reason_not_a_traceback(kernel, monkeypatch):
    monkeypatch.setenv("CC", '"')
    assert kernel.library() is None and "$CC is not a command line" in kernel.why_not


def test_n2_a_cached_library_that_cannot_be_loaded_is_built_again(kernel, tmp_path, capsys,
                                                                  monkeypatch):
    """A file with the right digest that is no shared library is rebuilt in its folder (said in
    one line); the next process loads that build without a compiler."""
    folder = tmp_path / "first"
    folder.mkdir(mode=0o700)
    target = folder / kernel.name(kernel.source.read_bytes())
    target.write_bytes(b"not a shared library")
    Path(str(target) + DIGEST).write_text(hashlib.sha256(target.read_bytes()).hexdigest())
    answer, err = loaded(kernel, capsys)
    assert answer == 42 and kernel.path == target
    assert len(err) == 1 and "cannot be loaded" in err[0] and str(target) in err[0]
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    kernel.forget()
    assert loaded(kernel, capsys) == (42, []) and kernel.path == target


def test_n3_a_full_cache_disk_moves_the_build_to_the_next_folder(kernel, tmp_path, capsys,
                                                                 monkeypatch):
    """A compiler that fails because the first folder's disk is full: the build is made in the
    next folder, not taken for a broken compiler."""
    full = tmp_path / "fullcc"
    full.write_text(f'#!/bin/sh\ncase "$*" in *{tmp_path / "first"}*)\n'
                    f'  echo "cc: error: No space left on device" >&2; exit 1;;\nesac\n'
                    'exec cc "$@"\n')
    full.chmod(0o755)
    monkeypatch.setenv("CC", str(full))
    assert loaded(kernel, capsys) == (42, [])
    assert kernel.path.parent == tmp_path / "xdg"
