"""Internal errors and leftovers of issue 24 (item 8): each case here was an internal error (exit 2),
a silent skip or a leftover before; docs/robustness.md ("Internal errors
and leftovers") lists what was tried."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

EXE = Path(sys.executable).parent / "flamespace"
FOLDED = "main;parse 3\nmain;parse;lex 2\nmain;eval 5\n"


def flamespace(*args, redirect="", cwd=None, stdin=None):
    """Run the flamespace script under sh, so that ``redirect`` (``>&-``, ``<&-``) can close a standard stream."""
    script = f'"$0" "$@" {redirect}'
    return subprocess.run(
        ["sh", "-c", script, str(EXE), *map(str, args)], capture_output=not redirect.count("2>"), text=True, cwd=cwd, stdin=stdin
    )


@pytest.fixture
def profile(tmp_path):
    path = tmp_path / "x.folded"
    path.write_text(FOLDED)
    return path


# -- closed standard streams --------------------------------------------------------------


STDOUT_COMMANDS = [
    ["convert", "{p}"],
    ["info", "{p}"],
    ["top", "{p}"],
    ["text", "{p}"],
    ["svg", "{p}"],
    ["html", "{p}"],
    ["merge", "{p}"],
    ["filter", "{p}"],
    ["scale", "2", "{p}"],
    ["sub", "{p}", "{p}"],
    ["similarity", "{p}", "{p}"],
    ["decompose", "{p}", "{p}", "-d", "{d}"],
    ["formats"],
    ["--help"],
]


@pytest.mark.parametrize("command", STDOUT_COMMANDS, ids=lambda c: c[0])
def test_a_closed_stdout_is_one_clear_line_and_exit_1(profile, tmp_path, command):
    """The fault: `flamespace convert x >&-` was an internal error (AttributeError on None, exit 2)."""
    args = [a.format(p=profile, d=tmp_path / "parts") for a in command]
    result = flamespace(*args, redirect=">&-")
    assert result.returncode == 1, result.stderr
    assert "standard output" in result.stderr and "closed" in result.stderr and "internal error" not in result.stderr
    assert len(result.stderr.splitlines()) == 1  # no "Exception ignored" at the interpreter's exit


def test_a_closed_stdout_does_not_stop_a_command_that_writes_to_a_file(profile, tmp_path):
    out = tmp_path / "out.folded"
    result = flamespace("convert", profile, "-o", out, redirect=">&-")
    assert result.returncode == 0 and result.stderr == ""
    assert out.read_text().strip().endswith("main;parse;lex 2")


@pytest.mark.parametrize("command", [["info"], ["convert", "-"], ["top"], ["filter", "--grep", "x"]], ids=lambda c: c[0])
def test_a_closed_stdin_is_one_clear_line_and_exit_1(command):
    """The fault: `flamespace info <&-` was an internal error (exit 2)."""
    result = flamespace(*command, redirect="<&-")
    assert result.returncode == 1, result.stderr
    assert "<stdin>: standard input is closed" in result.stderr and "internal error" not in result.stderr


def test_a_closed_stderr_keeps_the_exit_code(profile):
    """Nowhere to say it: the error is lost, its exit code is not."""
    assert flamespace("info", "missing.folded", redirect="2>&-").returncode == 1
    assert flamespace("info", profile, redirect="2>&- >/dev/null").returncode == 0


# -- numbers that are not sizes -------------------------------------------------------------


@pytest.mark.parametrize("value", ["inf", "1e400", "nan", "-1", "-0", "0"])
@pytest.mark.parametrize("option", ["--total", "--factor", "--fontsize", "--fontwidth"])
def test_svg_refuses_a_number_that_is_not_finite_and_positive_before_reading(option, value):
    """The fault: `svg --total inf` (and 1e400) was an internal error, a ZeroDivisionError after the reading."""
    result = flamespace("svg", f"{option}={value}", "missing.folded")
    assert result.returncode == 1, result.stderr
    assert f"Invalid value for '{option}'" in result.stderr and "is not a finite number > 0" in result.stderr
    assert "missing.folded" not in result.stderr


def test_the_layout_refuses_an_infinite_total():
    from flamespace.errors import ArgumentError
    from flamespace.render.options import LayoutOptions

    with pytest.raises(ArgumentError, match="total must be a finite number > 0, not inf"):
        LayoutOptions(total=float("inf"))


# -- messages -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["chrome", "cpuprofile", "gecko", "flamespace-json"])
def test_json_nested_too_deeply_is_said_without_a_doubled_word(tmp_path, fmt):
    """The fault: "not a a Chrome trace file: JSON nested too deeply"."""
    deep = tmp_path / "deep.json"
    deep.write_text('{"a": ' * 100000 + "1" + "}" * 100000)
    result = flamespace("info", "--from", fmt, deep)
    assert result.returncode == 1 and "nested too deeply" in result.stderr, result.stderr
    words = result.stderr.lower().split()
    assert not [w for w, after in zip(words, words[1:]) if w == after and w.isalpha()], result.stderr


# -- directories of inputs --------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("command", [["merge"], ["text"], ["svg", "-o", "{out}"], ["convert", "-o", "{out}"]], ids=lambda c: c[0])
def test_a_fifo_in_an_input_directory_is_skipped_and_named_never_read(tmp_path, command):
    """The fault: a FIFO among the runs was left out without the note the README promises
    ("other files and subdirectories are skipped and named on stderr")."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "run-1.folded").write_text(FOLDED)
    os.mkfifo(runs / "run-2.folded")  # a profile's name: only its type tells it is not one
    args = [a.format(out=tmp_path / "out") for a in command]
    result = subprocess.run([str(EXE), *args, str(runs)], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert f"skipped 1 entry in {runs} that is not a regular file" in result.stderr and "run-2.folded" in result.stderr


# -- outputs that appear together ------------------------------------------------------------


PARTS = ("appeared", "grown", "disappeared", "shrunk")


def write_change(before, after, stacks):
    """Profiles whose Δ has ``stacks`` stacks in each of the four parts (each part ~20 bytes a stack)."""
    before.write_text("".join(f"main;gone_{i:06d} 1\nmain;grows_{i:06d} 1\nmain;shrinks_{i:06d} 2\n" for i in range(stacks)))
    after.write_text("".join(f"main;came_{i:06d} 1\nmain;grows_{i:06d} 2\nmain;shrinks_{i:06d} 1\n" for i in range(stacks)))


@pytest.fixture
def tiny_disk(tmp_path):
    """A 512 KiB tmpfs (root only: mount); skipped elsewhere with the reason (under CI=true, which runs as root,
    tests/conftest.py makes that skip a failure)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    reason = None
    if os.geteuid() != 0:
        reason = "mounting a tmpfs needs root"
    else:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(disk)], capture_output=True, text=True)
        if mounted.returncode:
            reason = f"cannot mount a tmpfs: {mounted.stderr.strip()}"
    if reason:
        pytest.skip(reason)
    yield disk
    subprocess.run(["umount", "-l", str(disk)], check=True)


def test_decompose_on_a_full_disk_leaves_the_old_parts_whole(tmp_path, tiny_disk):
    """The fault: a full disk in the third part left two new parts beside two old ones (exit 1, mixed)."""
    before, after = tmp_path / "before.folded", tmp_path / "after.folded"
    write_change(before, after, 10)
    assert flamespace("decompose", before, after, "-d", tiny_disk).returncode == 0
    old = {name: (tiny_disk / f"{name}.folded").read_text() for name in PARTS}
    write_change(before, after, 8000)  # four parts of ~170 KB: two fit in 512 KiB, four do not
    result = flamespace("decompose", before, after, "-d", tiny_disk)
    assert result.returncode == 1 and "No space left on device" in result.stderr, result.stderr
    assert str(tiny_disk) in result.stderr and "internal error" not in result.stderr
    assert {name: (tiny_disk / f"{name}.folded").read_text() for name in PARTS} == old
    assert sorted(p.name for p in tiny_disk.iterdir()) == sorted(f"{name}.folded" for name in PARTS)  # no temporary file left


def _file_size_limit(size):
    """A preexec_fn: files the command writes may not grow past ``size`` bytes (EFBIG, as a full disk's ENOSPC)."""

    def limit():
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of killing the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_decompose_that_cannot_write_its_third_part_leaves_the_old_parts_whole(tmp_path):
    """The same fault without root: a file size limit stops the third part (disappeared), the first two fit."""
    before, after, parts = tmp_path / "before.folded", tmp_path / "after.folded", tmp_path / "parts"
    write_change(before, after, 10)
    assert flamespace("decompose", before, after, "-d", parts).returncode == 0
    old = {name: (parts / f"{name}.folded").read_text() for name in PARTS}
    before.write_text("".join(f"main;gone_{i:06d} 1\n" for i in range(20000)) + "main;grows 1\nmain;shrinks 2\n")
    after.write_text("main;came 1\nmain;grows 2\nmain;shrinks 1\n")
    result = subprocess.run(
        [str(EXE), "decompose", str(before), str(after), "-d", str(parts)],
        capture_output=True,
        text=True,
        preexec_fn=_file_size_limit(64 * 1024),
    )
    assert result.returncode == 1 and "File too large" in result.stderr and "disappeared.folded" in result.stderr, result.stderr
    assert {name: (parts / f"{name}.folded").read_text() for name in PARTS} == old
    assert sorted(p.name for p in parts.iterdir()) == sorted(f"{name}.folded" for name in PARTS)


def test_outputs_together_replace_nothing_when_one_fails(tmp_path):
    """The same without a tmpfs: the third output fails (a fault injected in its writer)."""
    from flamespace.errors import OutputError
    from flamespace.formats import open_output, outputs_together

    for name in "abc":
        (tmp_path / name).write_text("old")
    with pytest.raises(OutputError, match="No space left"):
        with outputs_together():
            for name in "abc":
                with open_output(tmp_path / name) as out:
                    out.write("new")
                    if name == "c":
                        raise OSError(28, "No space left on device", str(tmp_path / name))
    assert [(tmp_path / n).read_text() for n in "abc"] == ["old"] * 3 and sorted(os.listdir(tmp_path)) == list("abc")
    with outputs_together():
        for name in "abc":
            with open_output(tmp_path / name) as out:
                out.write("new")
            assert (tmp_path / name).read_text() == "old"  # not before the block ends
    assert [(tmp_path / n).read_text() for n in "abc"] == ["new"] * 3 and sorted(os.listdir(tmp_path)) == list("abc")


# -- the sweep's findings (tests/cli/robustness_sweep.py) -------------------------------------


@pytest.fixture
def samples(tmp_path):
    for side, extra in (("base", 0), ("cand", 3)):
        (tmp_path / side).mkdir()
        for run in range(4):
            (tmp_path / side / f"run-{run}.folded").write_text(f"main;work {10 + run + extra}\nmain;idle {5 + run % 2}\n")
    return tmp_path / "base", tmp_path / "cand"


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--seed", "-1", "the seed must be at least 0, not -1"),  # was: internal error (numpy's ValueError)
        ("--min-delta", "nan", "must be ≥ 0 and finite, not nan"),  # was: accepted, exit 0 (no change can pass a nan margin)
        ("--min-delta", "inf", "must be ≥ 0 and finite, not inf"),
        ("--min-rel", "1e400", "'1e400' is not a finite number >= 0"),
    ],
)
def test_compare_refuses_a_seed_or_margin_that_cannot_be(samples, option, value, message):
    base, cand = samples
    result = flamespace("compare", "-a", base, "-b", cand, option, value)
    assert result.returncode == 1 and message in result.stderr, result.stderr


def test_the_library_refuses_a_negative_seed():
    from flamespace.errors import ArgumentError
    from flamespace.stats.comparison import CompareOptions

    with pytest.raises(ArgumentError, match="the seed must be at least 0, not -1"):
        CompareOptions(seed=-1)


@pytest.mark.parametrize(
    "command, option, value, message",
    [
        (
            "record",
            "--duration",
            "inf",
            "the duration must be positive (a finite number of seconds), not inf",
        ),  # was: a traceback in the child
        ("record", "--duration", "1e400", "the duration must be positive (a finite number of seconds), not inf"),
        ("trace", "--max-events", "99999999999999999999999999", "max_events must be between 1 and 9,223,372,036,854,775,807"),
        ("trace", "--max-depth", "99999999999999999999999999", "max_depth must be between 1 and 9,223,372,036,854,775,807"),
    ],
)
def test_a_recorder_refuses_a_number_it_cannot_carry_before_the_program_runs(tmp_path, command, option, value, message):
    """The fault: the child's interpreter died of it (NameError 'inf', OverflowError) and the launcher
    said the program 'replaced itself with os.exec*()'; the traceback was on stderr."""
    ran = tmp_path / "ran"
    result = flamespace(command, "-o", tmp_path / "out.folded", option, value, "-c", f"open({str(ran)!r}, 'w')")
    assert result.returncode == 1 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not ran.exists()


@pytest.mark.parametrize(
    "command", [["convert", "{p}", "-o", ""], ["svg", "{p}", "-o", ""], ["decompose", "{p}", "{p}", "-d", ""]], ids=lambda c: c[0]
)
def test_an_empty_output_path_is_said_so(profile, command):
    """The fault: `-o ''` said "cannot write : Is a directory" (the empty path taken for the current directory)."""
    result = flamespace(*[a.format(p=profile) for a in command])
    assert result.returncode == 1 and "'': the" in result.stderr and "path is empty" in result.stderr, result.stderr


@pytest.mark.parametrize("option", ["--html", "--out-dir"])
def test_compare_does_not_drop_an_empty_output_silently(samples, option):
    """The fault: `compare --html ''` (and --out-dir '') wrote nothing and said nothing, exit 0 or 3."""
    base, cand = samples
    result = flamespace("compare", "-a", base, "-b", cand, option, "")
    assert result.returncode == 1 and "path is empty" in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["record", "trace"])
def test_a_program_recorded_with_closed_standard_streams_gets_dev_null(tmp_path, command):
    """A closed stdin/stdout is /dev/null for the program too (not a descriptor number that its own
    or the recorder's next file takes): it reads EOF, its writes to descriptor 1 go nowhere."""
    seen = tmp_path / "seen"
    code = (
        f"import os, sys; os.write(1, b'x' * 100); "
        f"open({str(seen)!r}, 'w').write(repr(sys.stdin.read()) + ' ' + os.path.realpath('/proc/self/fd/1'))"
    )
    result = flamespace(command, "-o", tmp_path / "out.folded", "-c", code, redirect="<&- >&-")
    assert result.returncode == 0, result.stderr
    assert seen.read_text() == "'' /dev/null"


def test_the_library_says_a_standard_stream_is_closed(monkeypatch):
    """Without the CLI (which reopens them): reading '-' or writing to stdout with the stream None
    (Python's value for a descriptor closed at start-up) is one clear error, not an AttributeError."""
    from flamespace.errors import InputError, OutputError
    from flamespace.formats import open_output, registry

    monkeypatch.setattr(sys, "stdin", None)
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(InputError, match="<stdin>: standard input is closed"):
        registry.read("-")
    with pytest.raises(OutputError, match="standard output: it is closed"):
        with open_output("-"):
            pass


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_an_output_directory_that_is_a_device_is_said_so(profile):
    """The fault: `decompose -d /dev/full` (a regular file is click's "is a file") said "File exists"."""
    result = flamespace("decompose", profile, profile, "-d", "/dev/full")
    assert result.returncode == 1, result.stderr
    assert "cannot create directory /dev/full: a file of that name is in the way" in result.stderr


@pytest.mark.parametrize(
    "command", [["info", ""], ["merge", ""], ["svg", "--colour-by", "", "{p}", "-o", "{out}"]], ids=lambda c: c[0]
)
def test_an_empty_input_path_is_named(profile, tmp_path, command):
    """The fault: `info ''` said "error: cannot read: No such file or directory", naming no input."""
    result = flamespace(*[a.format(p=profile, out=tmp_path / "out.svg") for a in command])
    assert result.returncode == 1 and "error: '': cannot read: No such file or directory" in result.stderr, result.stderr


@pytest.mark.parametrize("value", ["inf%", "1e400%", "inf"])
def test_html_refuses_an_infinite_minwidth(profile, tmp_path, value):
    """The fault: `html --minwidth inf%` wrote a page with no frame in it, exit 0."""
    result = flamespace("html", "--minwidth", value, profile, "-o", tmp_path / "page.html")
    assert result.returncode == 1 and "min_percent must be a finite number >= 0, not inf" in result.stderr, result.stderr


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="holding signals needs POSIX")
def test_a_signal_during_the_renames_waits_for_the_last(tmp_path):
    """Ctrl-C between two renames of outputs_together: before, half the files were new; now the
    interrupt is delivered after the last rename (and still interrupts)."""
    for name in "ab":
        (tmp_path / name).write_text("old")
    code = """if True:
        import os, signal, sys
        from flamespace.formats import _io, open_output, outputs_together
        commit = _io._Staged.commit
        def commit_then_interrupt(self):
            commit(self)
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C right after the first rename
        _io._Staged.commit = commit_then_interrupt
        try:
            with outputs_together():
                for name in "ab":
                    with open_output(os.path.join(sys.argv[1], name)) as out:
                        out.write("new")
        except KeyboardInterrupt:
            print("interrupted")
    """
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True)
    assert result.stdout == "interrupted\n", result.stderr
    assert [(tmp_path / n).read_text() for n in "ab"] == ["new", "new"]


@pytest.mark.parametrize("command", ["record", "trace"])
def test_a_profile_for_a_closed_stdout_stops_before_the_program_runs(tmp_path, command):
    """The fault: `record -o - ... >&-` ran the program to its end, then could not write the profile."""
    ran = tmp_path / "ran"
    result = flamespace(command, "-o", "-", "-c", f"open({str(ran)!r}, 'w')", redirect=">&-")
    assert result.returncode == 1 and "standard output: it is closed" in result.stderr, result.stderr
    assert not ran.exists()
