"""open_output writes a path atomically: the target is replaced whole or not at all, and no temporary file is left."""

import os
import signal
import stat
import subprocess
import sys

import pytest

from flamespace.errors import OutputError
from flamespace.formats import check_output, open_output


def existing(tmp_path, mode=0o640):
    path = tmp_path / "data.folded"
    path.write_text("a;b 1\n")
    path.chmod(mode)
    return path


def test_a_failure_inside_the_block_leaves_the_target_and_no_temporary_file(tmp_path):
    path = existing(tmp_path)
    for error in (RuntimeError("boom"), KeyboardInterrupt()):
        with pytest.raises(type(error)):
            with open_output(path) as out:
                out.write("x;y 2\n" * 100000)
                raise error
        assert path.read_text() == "a;b 1\n"
        assert os.listdir(tmp_path) == ["data.folded"]


def test_success_replaces_the_content_keeping_permissions_and_symbolic_links(tmp_path):
    path = existing(tmp_path)
    link = tmp_path / "link.folded"
    link.symlink_to(path.name)
    with open_output(link) as out:
        out.write("c 3\n")
    assert link.is_symlink() and path.read_text() == "c 3\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["data.folded", "link.folded"]


def test_a_new_file_gets_the_umask_as_with_open(tmp_path):
    old = os.umask(0o027)
    try:
        with open_output(tmp_path / "new.folded") as out:
            out.write("c 3\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.folded").stat().st_mode) == 0o640


def test_without_o_tmpfile_a_named_temporary_file_is_used_and_removed(tmp_path, monkeypatch):
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    path = existing(tmp_path)
    with pytest.raises(RuntimeError):
        with open_output(path) as out:
            out.write("x 1\n")
            assert len(os.listdir(tmp_path)) == 2  # the named temporary file, while writing
            raise RuntimeError("boom")
    assert os.listdir(tmp_path) == ["data.folded"] and path.read_text() == "a;b 1\n"
    with open_output(path) as out:
        out.write("c 3\n")
    assert os.listdir(tmp_path) == ["data.folded"] and path.read_text() == "c 3\n"


def test_sigkill_while_writing_leaves_the_target_intact(tmp_path):
    """The fault: -o truncated first, so a kill mid-write left a 0-byte file where the data was."""
    path = existing(tmp_path)
    code = (
        "import sys, time\n"
        "from flamespace.formats import open_output\n"
        "with open_output(sys.argv[1]) as out:\n"
        "    out.write('x;y 2\\n' * 200000); out.flush()\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(60)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "writing\n"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert path.read_text() == "a;b 1\n"
    if hasattr(os, "O_TMPFILE") and sys.platform.startswith("linux"):
        assert os.listdir(tmp_path) == ["data.folded"]  # the new content had no name yet


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_device_is_an_output_error_naming_it():
    with pytest.raises(OutputError, match="cannot write /dev/full: No space left on device"):
        with open_output("/dev/full") as out:
            out.write("a 1\n")


def test_a_path_that_cannot_be_written_fails_before_any_work(tmp_path):
    with pytest.raises(OutputError, match="directory .*nowhere does not exist"):
        check_output(tmp_path / "nowhere" / "x.folded")
    with pytest.raises(OutputError, match="Is a directory"):
        check_output(tmp_path)
    check_output("-")
    check_output(tmp_path / "x.folded")
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not (hasattr(os, "O_TMPFILE") and sys.platform.startswith("linux")), reason="O_TMPFILE: Linux")
@pytest.mark.parametrize("link_works", [True, False])
def test_the_anonymous_file_is_linked_in_or_else_copied(tmp_path, monkeypatch, link_works):
    """Linux: the new content is an O_TMPFILE file given a name by linkat (os.link); where that is refused,
    its content is copied to a named temporary file. Either way the target gets it and nothing is left."""
    from flamespace.formats import _io

    named = []
    monkeypatch.setattr(_io, "_named", lambda *args, real=_io._named: named.append(args) or real(*args))
    if not link_works:

        def refuse(*args, **kwargs):
            raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(os, "link", refuse)
    path = existing(tmp_path)
    with open_output(path) as out:
        out.write("x;y 2\n" * 1000)
    assert path.read_text() == "x;y 2\n" * 1000
    assert os.listdir(tmp_path) == ["data.folded"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert len(named) == (0 if link_works else 1)
