"""Files written whole or not at all: into a temporary file beside the target, then renamed
over it (``os.replace``). A kill, a full disk or an error part-way leaves the old file (or
none) and never a cut one: the campaign's meta.json, the damaged rows' rewrite of
runs.csv, the portfolio table ``auto`` reads, the HTML report and the figures."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """The temporary path to write ``path``'s new content to; renamed over ``path`` when
    the block ends without an error, removed when it raises (the error goes on). A symbolic
    link is followed (the file it names is replaced, the link kept); a path that is no regular
    file (a device such as /dev/stdout, a pipe) is given as it is, to be written in place."""
    path = Path(path)
    if path.is_symlink():            # the file the link names gets the content; the link stays
        path = path.resolve()
    if path.exists() and not path.is_file():
        # a device (/dev/stdout, /dev/null, /dev/full), a pipe or a directory: never replaced
        # by a file of ours; written in place (a directory then fails to open, as it should)
        yield path
        return
    temporary = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):       # its directory may be no directory
            temporary.unlink()
        raise


def write_whole(path: str | Path, data: bytes | str, sync: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all, flushed to the disk
    first when ``sync``. Raises OSError."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with replacing(path) as temporary, open(temporary, "wb") as f:
        f.write(raw)
        f.flush()
        if sync and stat.S_ISREG(os.fstat(f.fileno()).st_mode):   # not a device
            os.fsync(f.fileno())
