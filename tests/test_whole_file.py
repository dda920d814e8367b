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
