"""formats.whole_file: a file is replaced whole or not at all."""

from __future__ import annotations

import pytest

from formats.whole_file import replacing, write_whole


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "table.csv"
    write_whole(path, "old\n")
    with pytest.raises(OSError):
        with replacing(path) as temporary:
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

    import pytest

    import stat

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
