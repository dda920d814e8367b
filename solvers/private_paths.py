"""Folders and files this user may trust on a machine shared with other users.

A folder is *private* when it is a directory owned by this user and not writable by group or
others, and every folder above it (after symbolic links are resolved) is owned by this user or by
root and not writable by others, except a root-owned folder with the sticky bit (``/tmp``), where
no one may rename or remove what another user made. :func:`open_private_folder` walks the path
from ``/`` one component at a time with ``O_NOFOLLOW``, checking each open descriptor, so a
folder swapped for a symbolic link between a check and a use is refused, not followed. Files are
then opened relative to that descriptor (:func:`open_private_file`), again with ``O_NOFOLLOW``.

Used for the native kernels' build cache (:mod:`solvers.native_library`) and numba's cache
(:mod:`solvers.kernel_cache`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: why a folder is refused when it is writable by others (or by its group)
GROUP_WRITABLE = "writable by group or others"


class Untrusted(Exception):
    """A folder or file that may not be trusted; the message says which and why."""


def _me() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def _ancestor_problem(info: os.stat_result) -> str:
    """'' when a folder above a private one is acceptable (module docstring)."""
    if info.st_uid not in (_me(), 0):
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not (
            info.st_mode & stat.S_ISVTX and info.st_uid == 0):
        return GROUP_WRITABLE
    return ""


def own_problem(info: os.stat_result, directory: bool) -> str:
    """'' when ``info`` is a directory (or a regular file) of this user's that no one else may
    write, else why not."""
    kind = stat.S_ISDIR(info.st_mode) if directory else stat.S_ISREG(info.st_mode)
    if not kind:
        return "not a directory" if directory else "not a regular file"
    if info.st_uid != _me():
        return f"owned by another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return GROUP_WRITABLE
    return ""


def open_private_folder(folder: Path) -> int:
    """A descriptor (O_RDONLY | O_DIRECTORY, close-on-exec) of ``folder`` when it is private
    (module docstring); raises :class:`Untrusted` naming the folder at fault otherwise."""
    real = os.path.realpath(folder)
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    try:
        fd = os.open("/", flags)
    except OSError as exc:
        raise Untrusted(f"/: {exc.strerror or exc}") from None
    where = "/"
    try:
        parts = [p for p in real.split(os.sep) if p]
        for part in parts:
            info = os.fstat(fd)
            problem = _ancestor_problem(info)
            if problem:
                raise Untrusted(f"{where}: {problem}")
            where = os.path.join(where, part)
            try:
                child = os.open(part, flags | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                raise Untrusted(f"{where}: {exc.strerror or exc}") from None
            os.close(fd)
            fd = child
        problem = own_problem(os.fstat(fd), directory=True)
        if problem:
            raise Untrusted(f"{where}: {problem}")
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_private_file(folder_fd: int, name: str) -> int:
    """A read-only descriptor of the regular file ``name`` in the folder open as ``folder_fd``,
    not followed if it is a symbolic link, owned by this user and not writable by others;
    raises :class:`Untrusted` (or FileNotFoundError when there is no such file)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder_fd)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise Untrusted(f"{name}: {exc.strerror or exc}") from None
    problem = own_problem(os.fstat(fd), directory=False)
    if problem:
        os.close(fd)
        raise Untrusted(problem)
    return fd


def read_all(fd: int) -> bytes:
    """The whole content of the open file ``fd``, read from its start."""
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def make_private_folder(folder: Path) -> str:
    """Create ``folder`` (mode 0700, with its parents) unless it exists, and say why it may not
    be used ('' when it is private)."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        return f"{folder}: {exc.strerror or exc}"
    try:
        os.close(open_private_folder(folder))
    except Untrusted as exc:
        return str(exc)
    return ""
