"""Outputs that cannot be written: exit 1 with the path and the system's reason, before any work; a closed pipe exits 0."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from flamespace.cli import main
from flamespace.cli._report import EXIT_CLOSED_PIPE, exit_code

EXE = Path(sys.executable).parent / "flamespace"


@pytest.fixture
def big(tmp_path):
    path = tmp_path / "big.folded"
    path.write_text("".join(f"main;f{i % 500};g{i} {i + 1}\n" for i in range(100000)))
    return path


def test_record_checks_the_output_directory_before_running_the_program(capsys, tmp_path):
    """The fault: the program ran to its end, then 'internal error ... please report it' (exit 2)."""
    ran = tmp_path / "ran"
    code = main(["record", "-o", str(tmp_path / "nonexistent" / "x.folded"), "-c", f"open({str(ran)!r}, 'w').close()"])
    err = capsys.readouterr().err
    assert code == 1 and not ran.exists()  # the program never ran (not timed: a busy machine is slow to start it)
    assert f"directory {tmp_path / 'nonexistent'} does not exist" in err and "internal error" not in err


def test_collect_and_compare_check_their_directories_before_any_work(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    ran = tmp_path / "ran"
    code = main(["collect", "-n", "2", "-o", str(blocker / "runs"), "-c", f"open({str(ran)!r}, 'w').close()"])
    assert code == 1 and not ran.exists()
    assert f"cannot create directory {blocker / 'runs'}" in capsys.readouterr().err
    code = main(["compare", "-a", "missing-a", "-b", "missing-b", "--out-dir", str(blocker / "out")])
    assert code == 1 and f"cannot create directory {blocker / 'out'}" in capsys.readouterr().err  # not the inputs


@pytest.mark.parametrize("command", [["merge"], ["text"], ["svg"], ["filter", "--grep", "f1"]])
def test_an_unwritable_output_is_named_before_the_input_is_read(capsys, tmp_path, command):
    code = main([*command, "missing.folded", "-o", str(tmp_path / "no" / "out")])
    err = capsys.readouterr().err
    assert code == 1 and f"cannot write {tmp_path / 'no' / 'out'}: directory" in err and "missing.folded" not in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("to_stdout", [True, False])
def test_a_full_disk_is_exit_1_with_the_reason(big, to_stdout):
    """The fault: `> /dev/full` was an internal error (exit 2)."""
    with open("/dev/full", "w") as full:
        args = [str(EXE), "merge", str(big)] + ([] if to_stdout else ["-o", "/dev/full"])
        result = subprocess.run(args, stdout=full, stderr=subprocess.PIPE, text=True)
    assert result.returncode == 1
    assert "No space left on device" in result.stderr and "internal error" not in result.stderr
    assert ("standard output" if to_stdout else "/dev/full") in result.stderr


@pytest.mark.parametrize("command", [["merge"], ["top"], ["text"], ["svg"], ["scale", "2"], ["--help"]])
def test_a_closed_pipe_gives_the_documented_exit_code_for_every_command(big, command):
    """The fault: `| head` gave exit 0 for some commands, 1 for others (click's and rich's own handling)."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first write: EPIPE for certain, however fast or slow the machine
    try:
        result = subprocess.run([str(EXE), *command, str(big)], stdout=write, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (EXIT_CLOSED_PIPE, "")


def test_merge_into_head_reads_one_line_and_exits_quietly(big):
    child = subprocess.Popen([str(EXE), "merge", str(big)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = child.stdout.readline()
    child.stdout.close()  # as head -1 does
    stderr = child.stderr.read()
    child.stderr.close()
    assert first == "main;f0;g0 1\n"
    assert (child.wait(), stderr) == (EXIT_CLOSED_PIPE, "")


def test_system_errors_are_the_users_to_fix_not_internal_errors(capsys):
    assert exit_code(PermissionError(13, "Permission denied", "x.folded"), "flamespace merge") == 1
    assert capsys.readouterr().err == "flamespace merge: error: x.folded: Permission denied\n"
