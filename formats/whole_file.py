"""Files written whole or not at all: into a temporary file beside the target, then renamed
over it (``os.replace``). A kill, a full disk or an error part-way leaves the old file (or
none) and never a cut one: the campaign's meta.json, the damaged rows' rewrite of
runs.csv, the portfolio table ``auto`` reads, the HTML report and the figures."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """The temporary path to write ``path``'s new content to; renamed over ``path`` when
    the block ends without an error, removed when it raises (the error goes on)."""
    path = Path(path)
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
        if sync:
            os.fsync(f.fileno())
