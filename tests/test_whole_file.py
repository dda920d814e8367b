"""formats.whole_file: a file is replaced whole or not at all."""

from __future__ import annotations

import pytest

from formats.whole_file import replacing, write_whole


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "table.csv"
    write_whole(path, "old\n")
    with pytest.raises(OSError), replacing(path) as temporary:
        temporary.write_text("half")
        raise OSError(28, "No space left on device")
    assert path.read_text() == "old\n" and sorted(tmp_path.iterdir()) == [path]
    write_whole(path, b"new\n")
    assert path.read_bytes() == b"new\n" and sorted(tmp_path.iterdir()) == [path]


def test_a_directory_that_is_a_file_raises_the_write_error_not_the_cleanups(tmp_path):
    (tmp_path / "afile").write_text("")
    with pytest.raises(NotADirectoryError):
        write_whole(tmp_path / "afile" / "x.csv", "data")


def test_a_device_or_a_link_at_the_path_is_written_through_never_replaced(tmp_path):
    """`race portfolio -o /dev/full` (as root) turned the device into a regular file and said
    it had written it; a symbolic link was replaced by a file. Now a device is written in
    place (its error is the error), and a link's target gets the content."""
    import errno
    import os
    import stat

    import pytest

    from formats.whole_file import write_whole
    full, null = tmp_path / "full", tmp_path / "null"     # private nodes: a regression
    try:                                                  # must not replace the system's
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:                               # not root: the system's own
        full, null = "/dev/full", "/dev/null"
    with pytest.raises(OSError) as caught:
        write_whole(full, "data\n")
    assert caught.value.errno == errno.ENOSPC
    assert stat.S_ISCHR(os.stat(full).st_mode)
    write_whole(null, "data\n")
    assert stat.S_ISCHR(os.stat(null).st_mode)
    for node in (full, null):
        if str(node).startswith(str(tmp_path)):
            os.unlink(node)
    target = tmp_path / "real.csv"
    target.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    write_whole(link, "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.csv", "real.csv"]


class _FullDisk:
    """A file that takes 100 bytes, then raises "No space left on device"."""

    def __init__(self, path, mode="wb", **_):
        self.f = open(path, mode)
        self.room = 100

    def write(self, data):
        if len(data) > self.room:
            self.f.write(data[:self.room])
            self.f.flush()
            raise OSError(28, "No space left on device")
        self.room -= len(data)
        return self.f.write(data)

    def fileno(self):
        return self.f.fileno()

    def flush(self):
        self.f.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


def test_a_full_disk_leaves_the_old_output_of_encode_export_and_animate(tmp_path, monkeypatch):
    """`race encode -o` and `race animate -o` (and export, import: the same writer) left a cut file on a full disk,
    over the one that was there: now the old file stays, no temporary is left, and the
    one-line error names the file."""
    from click.testing import CliRunner

    from experiments.cli.main import main
    from formats import dimacs, whole_file
    puzzle = tmp_path / "p.sudoku"
    puzzle.write_text(". . . .\n" * 4)
    real_write_to = dimacs._write_to

    def cut(out, head, blocks):
        return real_write_to(_FullDiskStream(out), head, blocks)
    monkeypatch.setattr(dimacs, "_write_to", cut)
    monkeypatch.setattr(whole_file, "open", _FullDisk, raising=False)
    cases = [(["encode", str(puzzle), "-o", "{out}"], "p.cnf"),
             (["animate", "queens:4", "-o", "{out}"], "q.html")]
    for args, name in cases:
        out = tmp_path / name
        out.write_text("old\n")
        result = CliRunner().invoke(main, [a.format(out=out) for a in args])
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines() == [f"race: error: {out}: cannot write: No space left on device"]
        assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.cnf", "p.sudoku", "q.html"]


class _FullDiskStream:
    def __init__(self, out):
        self.out, self.room = out, 100

    def write(self, data):
        data = bytes(data)
        if len(data) > self.room:
            self.out.write(data[:self.room])
            raise OSError(28, "No space left on device")
        self.room -= len(data)
        return self.out.write(data)
