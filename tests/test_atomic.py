"""cfpromise/atomic.py's contract: the one atomic writer every module uses.

A reader sees the old file or the new one; a failure leaves the old file as it was and
no temporary file behind; the new file's mode is what the caller asked for (0600 by
default, exact bits, the umask's, or the old file's with ``preserve``).
"""
from __future__ import annotations

import os
import stat

import pytest

from cfpromise import atomic
from cfpromise.atomic import CreateError, UMASK, write_atomically


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_replaces_text_and_bytes_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "state"
    target.write_text("old\n")
    write_atomically(str(target), "new\n")
    assert target.read_text() == "new\n"
    write_atomically(str(target), b"\x00\xff")
    assert target.read_bytes() == b"\x00\xff"
    assert os.listdir(tmp_path) == ["state"]


def test_callable_data_writes_into_the_open_file(tmp_path):
    target = tmp_path / "out"
    write_atomically(str(target), lambda fh: fh.write(b"streamed"))
    assert target.read_bytes() == b"streamed"


@pytest.mark.parametrize("newline, expected", [(None, b"a\nb\n"), ("", b"a\nb\n"),
                                               ("\r\n", b"a\r\nb\r\n")])
def test_newline_as_open_takes_it(tmp_path, newline, expected):
    target = tmp_path / "t"
    write_atomically(str(target), "a\nb\n", newline=newline)
    assert target.read_bytes() == expected


def test_failure_while_writing_keeps_the_old_file(tmp_path):
    target = tmp_path / "state"
    target.write_text("old\n")

    def produce(fh):
        fh.write(b"half")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_atomically(str(target), produce)
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["state"]


def test_failure_to_encode_keeps_the_old_file(tmp_path):
    target = tmp_path / "state"
    target.write_text("old\n")
    with pytest.raises(UnicodeEncodeError):
        write_atomically(str(target), "\udcff", encoding="utf-8")
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["state"]


def test_failed_rename_keeps_the_old_file_and_removes_the_temporary(tmp_path):
    target = tmp_path / "dir-in-the-way"
    target.mkdir()
    (target / "inside").write_text("x")
    with pytest.raises(OSError):
        write_atomically(str(target), "new")
    assert (target / "inside").read_text() == "x"
    assert sorted(os.listdir(tmp_path)) == ["dir-in-the-way"]


def test_default_mode_is_private_whatever_the_umask(tmp_path):
    old = os.umask(0)
    try:
        write_atomically(str(tmp_path / "f"), "x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "f") == 0o600


def test_exact_mode(tmp_path):
    old = os.umask(0o077)
    try:
        write_atomically(str(tmp_path / "f"), "x", mode=0o644)
    finally:
        os.umask(old)
    assert _mode(tmp_path / "f") == 0o644


def test_umask_mode_is_what_open_would_give(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomically(str(tmp_path / "f"), "x", mode=UMASK)
        with open(tmp_path / "g", "w") as fh:
            fh.write("x")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "f") == _mode(tmp_path / "g") == 0o640


def test_preserve_keeps_the_old_files_mode(tmp_path):
    target = tmp_path / "conf"
    target.write_text("old")
    os.chmod(target, 0o751)
    write_atomically(str(target), "new", preserve=True)
    assert target.read_text() == "new" and _mode(target) == 0o751
    fresh = tmp_path / "fresh"
    write_atomically(str(fresh), "new", preserve=True, mode=0o640)
    assert _mode(fresh) == 0o640


@pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root")
def test_preserve_keeps_the_old_files_owner(tmp_path):
    target = tmp_path / "conf"
    target.write_text("old")
    os.chown(target, 12345, 23456)
    write_atomically(str(target), "new", preserve=True)
    st = os.stat(target)
    assert (st.st_uid, st.st_gid) == (12345, 23456)


def test_fixed_temporary_name_replaces_a_leftover_and_never_follows_a_link(tmp_path):
    target = tmp_path / "env_data"
    victim = tmp_path / "victim"
    victim.write_text("precious")
    os.symlink(victim, tmp_path / "env_data.new")
    write_atomically(str(target), "value=1\n", temp=str(tmp_path / "env_data.new"))
    assert target.read_text() == "value=1\n"
    assert victim.read_text() == "precious"
    assert sorted(os.listdir(tmp_path)) == ["env_data", "victim"]


def test_directory_made_or_not(tmp_path):
    write_atomically(str(tmp_path / "a" / "b" / "f"), "x", dir_mode=0o700, fsync_dir=True)
    assert (tmp_path / "a" / "b" / "f").read_text() == "x"
    with pytest.raises(CreateError) as info:
        write_atomically(str(tmp_path / "missing" / "f"), "x", make_dirs=False)
    assert isinstance(info.value, OSError) and info.value.strerror
    assert not (tmp_path / "missing").exists()


# promises/files/atomic.py is cf-agent's SaveAsFile and promises/files/copyfile.py its
# copy_from: the original goes to its backup (renamed, rotated) before the new content
# (``.cfnew``, the names cf-agent uses) is renamed over it, sequences of their own
OWN_SEQUENCE = {"cfpromise/atomic.py", "cfpromise/promises/files/atomic.py",
                "cfpromise/promises/files/copyfile.py"}


def test_the_writers_use_it():
    """No module of cfpromise writes its own temporary-file-and-rename any more (a copy
    written out again would not keep this contract)."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    copies = []
    for path in sorted((root / "cfpromise").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in OWN_SEQUENCE:
            continue
        source = path.read_text(encoding="utf-8")
        if "mkstemp" in source or re.search(r"os\.(replace|rename)\(tmp", source):
            copies.append(rel)
    assert not copies, copies
