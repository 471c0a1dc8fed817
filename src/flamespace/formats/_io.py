"""Opening inputs and outputs the same way for every format: paths, '-', gzip, BOM."""

from __future__ import annotations

import errno
import io
import os
import stat
import sys

from ..errors import InputError, OutputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import contextmanager
    from types import TracebackType
    from typing import Any, BinaryIO, Callable, TextIO
    from collections.abc import Generator, Iterator

    from .._types import Source
else:

    def contextmanager(function):
        """contextlib.contextmanager without contextlib, whose import (functools, collections:
        about 2 ms) is a fifth of a small command's start-up (docs/performance.md)."""

        def manager(*args, **kwargs):
            return _GeneratorContext(function(*args, **kwargs))

        manager.__name__, manager.__qualname__ = function.__name__, function.__qualname__
        manager.__doc__, manager.__module__, manager.__wrapped__ = function.__doc__, function.__module__, function
        return manager


class _GeneratorContext:
    """What contextlib.contextmanager makes of a one-yield generator: the block runs at the
    yield, an exception in the block is thrown in there, and what leaves the generator
    leaves the ``with`` (the same rules as contextlib's, StopIteration included)."""

    __slots__ = ("_generator",)

    def __init__(self, generator: Generator[Any, None, None]) -> None:
        self._generator = generator

    def __enter__(self) -> Any:
        try:
            return next(self._generator)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None) -> bool:
        if kind is None:
            try:
                next(self._generator)
            except StopIteration:
                return False
            raise RuntimeError("generator didn't stop")
        if value is None:
            value = kind()
        try:
            self._generator.throw(value)
        except StopIteration as exc:
            return exc is not value  # the generator swallowed the exception: so does the with
        except RuntimeError as exc:
            if exc is value or (isinstance(value, StopIteration) and exc.__cause__ is value):
                value.__traceback__ = traceback
                return False  # the block's own exception (PEP 479 wrapped it): re-raised as it was
            raise
        except BaseException as exc:
            if exc is not value:
                raise
            exc.__traceback__ = traceback
            return False
        raise RuntimeError("generator didn't stop after throw()")


GZIP_MAGIC = b"\x1f\x8b"
#: Called before standard input is read when it is a terminal (a command waiting for typed input
#: looks hung): the CLI sets it to say so on stderr, since the library never prints.
on_terminal_stdin: Callable[[], None] | None = None
#: What reading '-' or writing to stdout says when the shell closed the stream (``<&-``, ``>&-``).
STDIN_CLOSED = "standard input is closed: give the input as a file (or '< FILE')"
STDOUT_CLOSED = "cannot write to standard output: it is closed (write to a file with -o FILE or '> FILE'; '> /dev/null' discards)"
#: The attribute, true, of the stand-in stream the CLI puts in place of a closed one (cli/_streams.py).
CLOSED_MARK = "flamespace_closed"


def stdout_closed() -> bool:
    """Whether the shell closed stdout: Python's None for it, or the CLI's stand-in."""
    return sys.stdout is None or bool(getattr(sys.stdout, CLOSED_MARK, False))


#: Undecodable bytes are kept as surrogates and written back unchanged (lossless round trip).
ENCODING_ERRORS = "surrogateescape"


def display_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        return "<stdin>" if name == "-" else name or "''"  # an empty path is shown, not left out of the message
    return getattr(source, "name", None) or "<stream>"


@contextmanager
def open_binary(source: Source) -> Iterator[tuple[io.BufferedReader[Any], str]]:
    """A peekable binary stream over ``source``, gunzipped if it starts with gzip's magic bytes."""
    name = display_name(source)
    close = False
    if isinstance(source, (str, os.PathLike)):
        if os.fspath(source) == "-":
            if sys.stdin is None:  # closed when Python started
                raise InputError(STDIN_CLOSED, name)
            raw: BinaryIO = sys.stdin.buffer
            if sys.stdin.isatty():
                if on_terminal_stdin is not None:
                    on_terminal_stdin()
                # A terminal says "end of input" (Ctrl-D) once: read it all before sniffing reads again.
                raw = io.BytesIO(raw.read())
        else:
            try:
                raw = open(source, "rb")
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", name) from None
            close = True
    else:
        raw = source
    unreadable: tuple[type[BaseException], ...] = (OSError, EOFError)
    try:
        # Any binary stream with readinto will do; typeshed asks BufferedReader for a raw one.
        stream = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[type-var]
        if stream.peek(2)[:2] == GZIP_MAGIC:
            import gzip  # only for gzipped input: start-up matters for small files
            import zlib

            compressed = _Counted(stream)
            stream = io.BufferedReader(_Bounded(gzip.GzipFile(fileobj=compressed, mode="rb"), compressed, name))
            unreadable += (zlib.error,)  # damaged compressed data (found by tests/formats/test_fuzz.py)
        yield stream, name
    except unreadable as exc:
        raise InputError(f"cannot read: {exc}", name) from None
    finally:
        if close:
            raw.close()


class _Counted:
    """A binary stream that counts the bytes read from it (the compressed bytes under a gzip stream)."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream, self.count = stream, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.count += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        """Not seekable: gzip asks only to rewind, which a reader here never does."""
        raise io.UnsupportedOperation("seek")


class _Bounded(io.RawIOBase):
    """A gzip stream that stops with an InputError when it has decompressed more than the limit
    of :mod:`._limits` (a ratio to the compressed bytes read, with a floor, or the size its
    environment variable sets): a small gzip file must not expand to gigabytes in a reader
    that holds its whole input."""

    def __init__(self, gunzipped: io.BufferedIOBase, compressed: _Counted, name: str) -> None:
        from ._limits import GUNZIP_ENV, from_environment

        super().__init__()
        self.gunzipped, self.compressed, self.name, self.total = gunzipped, compressed, name, 0
        self.fixed = from_environment(GUNZIP_ENV)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size: int = self.gunzipped.readinto(buffer)
        self.total += size
        if size and self.total > self.limit():
            raise self.too_big()
        return size

    def limit(self) -> int:
        from ._limits import GUNZIP_FLOOR, GUNZIP_RATIO

        if self.fixed is not None:
            return self.fixed if self.fixed >= 0 else self.total
        return max(GUNZIP_FLOOR, GUNZIP_RATIO * self.compressed.count)

    def too_big(self) -> InputError:
        from ..core.units import human
        from ._limits import GUNZIP_ENV, GUNZIP_FLOOR, GUNZIP_RATIO

        limit = self.limit()
        rule = (
            "the limit set by " + GUNZIP_ENV
            if self.fixed is not None
            else (f"the larger of {human(GUNZIP_FLOOR, 'bytes')} and {GUNZIP_RATIO} times the compressed size read")
        )
        return InputError(
            f"decompresses to more than {human(limit, 'bytes')} ({rule}; a gzip bomb?); "
            f"set {GUNZIP_ENV}=SIZE (e.g. 8G, or 'none') to read it",
            self.name,
        )

    def close(self) -> None:
        self.gunzipped.close()
        super().close()


def line_too_long(source: str, line: int, limit: int) -> InputError:
    """The error for line ``line`` of ``source``, longer than ``limit`` bytes: it names the limit and how to raise it."""
    from ..core.units import human
    from ._limits import MAX_LINE_ENV

    return InputError(
        f"line is longer than {human(limit, 'bytes')} ({limit:,} bytes), the longest line read; "
        f"to read it, raise the limit with the environment variable {MAX_LINE_ENV} (e.g. {MAX_LINE_ENV}=2G)",
        source,
        line,
    )


def bounded_lines(stream: TextIO, source: str, first: int = 1) -> Iterator[str]:
    """The lines of a text stream (each with its line break), as iterating it gives them, but a line
    longer than :func:`._limits.max_line_bytes` is refused (:func:`line_too_long`) once that much of it is
    read, not read whole. ``first``: the number of the first line. (A character is at least one
    byte, so a line of more characters than the limit has more bytes.)"""
    from ._limits import max_line_bytes

    limit = max_line_bytes()
    readline = stream.readline
    lineno = first
    while True:
        line = readline(limit + 2)  # the limit and a line break of two characters
        if not line:
            return
        if len(line) > limit and len(line.rstrip("\r\n")) > limit:
            raise line_too_long(source, lineno, limit)
        yield line
        lineno += 1


def text_reader(stream: BinaryIO) -> io.TextIOWrapper:
    """UTF-8 text (a BOM is dropped), universal newlines, undecodable bytes kept."""
    return io.TextIOWrapper(stream, encoding="utf-8-sig", errors=ENCODING_ERRORS, newline=None)


def check_output(destination: str | os.PathLike[str] | None) -> None:
    """Fail now, before any work, if ``destination`` cannot be written: its directory is missing or read-only.

    '-' and None (stdout) pass unless the shell closed stdout (``>&-``). A file that exists must be
    writable: an output never replaces a file the user made read-only.
    """
    if destination is None or os.fspath(destination) == "-":
        if stdout_closed():  # before a recorded program runs, not after
            raise OutputError(STDOUT_CLOSED)
        return
    path = os.fspath(destination)
    if not path:  # realpath('') is the current directory: "cannot write : Is a directory"
        raise OutputError("cannot write '': the output path is empty (give a file name, or '-' for standard output)")
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    if os.path.isdir(target):
        raise OutputError(f"cannot write {path}: {os.strerror(errno.EISDIR)}")
    if not os.path.isdir(directory):
        raise OutputError(f"cannot write {path}: directory {os.path.dirname(path) or '.'} does not exist")
    if os.path.exists(target):
        if not os.access(target, os.W_OK):
            raise OutputError(f"cannot write {path}: {os.strerror(errno.EACCES)}")
        if not _replaceable(target):
            return  # a device or a pipe is written in place
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {path}: {os.strerror(errno.EACCES)} (directory {os.path.dirname(path) or '.'})")


def check_output_dir(directory: str) -> None:
    """Create ``directory`` (and its parents) if need be and fail now if files cannot be created in it."""
    if not directory:
        raise OutputError("cannot create directory '': the path is empty (give a directory, or '.' for this one)")
    try:
        os.makedirs(directory, exist_ok=True)
    except FileExistsError:  # makedirs' "File exists" for a file (or a device) of that name
        raise OutputError(f"cannot create directory {directory}: a file of that name is in the way") from None
    except OSError as exc:
        raise OutputError(f"cannot create directory {directory}: {exc.strerror or exc}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write in directory {directory}: {os.strerror(errno.EACCES)}")


def _replaceable(target: str) -> bool:
    """Whether ``target`` is written by renaming a new file over it: a regular file or nothing, not /dev/null or a FIFO."""
    try:
        return stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        return True


def _temporary(directory: str, base: str) -> tuple[int, str | None]:
    """An open file in ``directory`` for the new content, and its name (None: it has none yet).

    On Linux the file is anonymous (O_TMPFILE) until it is complete, so that a process killed
    even with SIGKILL leaves nothing behind; elsewhere it is a hidden ``.NAME.*.tmp`` file,
    created with mode 0o666 less the umask, as open() would.
    """
    if getattr(os, "O_TMPFILE", 0) and sys.platform.startswith("linux"):
        try:
            return os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o666), None
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                raise
    return _named(directory, base)


def _named(directory: str, base: str) -> tuple[int, str]:
    while True:
        name = os.path.join(directory, f".{base}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(name, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666), name
        except FileExistsError:
            continue


def _link(fd: int, directory: str, base: str) -> str:
    """A name in ``directory`` for the anonymous file ``fd``, so that it can be renamed over the target.

    linkat(AT_SYMLINK_FOLLOW) of /proc/self/fd/FD: plain os.link() calls link(), which cannot
    name an O_TMPFILE file, but given a directory descriptor it calls linkat() and follows the
    link (the path is absolute, so the descriptor itself is not used; ``fd`` will do). No ctypes:
    its import cost every written file about 2 ms. Where that fails (no /proc), the content is
    copied to a named file.
    """
    while True:
        name = os.path.join(directory, f".{base}.{os.urandom(6).hex()}.tmp")
        try:
            os.link(f"/proc/self/fd/{fd}", name, src_dir_fd=fd, follow_symlinks=True)
            return name
        except FileExistsError:
            continue
        except (OSError, NotImplementedError):
            break
    copy, name = _named(directory, base)
    try:
        os.fchmod(copy, stat.S_IMODE(os.fstat(fd).st_mode))  # the target's permissions, given to fd
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            view = memoryview(chunk)
            while view:
                view = view[os.write(copy, view) :]
    except BaseException:
        os.close(copy)
        os.unlink(name)
        raise
    os.close(copy)
    return name


@contextmanager
def open_output(
    destination: str | os.PathLike[str] | None, encoding: str | None = None, errors: str | None = None
) -> Iterator[TextIO]:
    """A text stream for ``destination``: a path, or stdout for None or '-'; what every writer opens.

    A path is written atomically: to a temporary file in the same directory, renamed over the
    target only when the block ends without an exception, with the target's permissions if it
    existed (a symbolic link's target is replaced, the link kept). When the block fails, the target
    is untouched and the temporary file removed. Devices and pipes (/dev/null, a FIFO) are
    written in place. Errors of the system (no such directory, no space) raise OutputError
    naming the path.

    UTF-8 with undecodable input bytes written back as they were, unless ``encoding`` and
    ``errors`` say otherwise (an SVG in another encoding writes the characters it lacks as
    XML references: ``errors="xmlcharrefreplace"``). ``newline=""``: lines end in "\\n" on
    every platform, as with ``newline="\\n"``, but without the copy of every written string
    that asking to translate "\\n" to itself costs.
    """
    encoding = encoding or "utf-8"
    errors = errors or ENCODING_ERRORS
    if destination is None or os.fspath(destination) == "-":
        if sys.stdout is None:  # closed when Python started (the CLI's stand-in fails on the first write)
            raise OutputError(STDOUT_CLOSED)
        out = io.TextIOWrapper(sys.stdout.buffer, encoding=encoding, errors=errors, newline="", write_through=True)
        try:
            yield out
            out.flush()
            sys.stdout.buffer.flush()
        except (BrokenPipeError, OutputError):
            raise
        except OSError as exc:
            if exc.filename is not None:  # not our stream: a file opened inside the block
                raise
            raise OutputError(f"cannot write to standard output: {exc.strerror or exc}") from None
        finally:
            out.detach()
        return
    path = os.fspath(destination)
    check_output(path)
    target = os.path.realpath(path)
    if not _replaceable(target):
        with _writing(path):
            with open(target, "wb") as raw, _text(raw, path, encoding, errors) as text:
                yield text
        return
    directory, base = os.path.split(target)
    with _writing(path):
        fd, name = _temporary(directory, base)
    staged: _Staged | None = _Staged(path, target, fd, name)
    try:
        with _writing(path):
            with open(fd, "wb", closefd=False) as raw:
                with _text(raw, path, encoding, errors) as text:
                    yield text
                raw.flush()
            try:
                os.fchmod(fd, stat.S_IMODE(os.stat(target).st_mode))
            except FileNotFoundError:
                pass  # a new file: created with 0o666 less the umask
        group = _group()
        if group is not None:  # written with others: each appears when all are written (see outputs_together)
            group.append(staged)  # type: ignore[arg-type]
        else:
            staged.commit()  # type: ignore[union-attr]
        staged = None
    finally:
        if staged is not None:
            staged.discard()


class _Staged:
    """An output written in full to its temporary file, not yet renamed over its target."""

    __slots__ = ("path", "target", "fd", "name")

    def __init__(self, path: str, target: str, fd: int | None, name: str | None) -> None:
        self.path, self.target, self.fd, self.name = path, target, fd, name

    def link(self) -> None:
        """Give the anonymous temporary file a name in the target's directory (O_TMPFILE), ready to rename."""
        if self.name is None and self.fd is not None:
            with _writing(self.path):
                self.name = _link(self.fd, *os.path.split(self.target))

    def commit(self) -> None:
        """Rename the temporary file over the target."""
        self.link()
        with _writing(self.path):
            os.replace(self.name, self.target)  # type: ignore[arg-type]
        self.name = None
        self.discard()

    def discard(self) -> None:
        """Close and remove the temporary file (nothing is left of an output that is not committed)."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.name is not None:
            try:
                os.unlink(self.name)
            except OSError:
                pass
            self.name = None


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (delivered when the block ends) where the system can
    hold them (POSIX); elsewhere the block runs as it is."""
    import signal

    held = {signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", signal.SIGTERM)}
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


#: (thread, its outputs) of each open :func:`outputs_together` block, innermost last.
_GROUPS: list[tuple[int, list[_Staged]]] = []


def _group() -> list[_Staged] | None:
    """The outputs of this thread's innermost :func:`outputs_together` block, or None outside one."""
    import _thread  # built in: no start-up cost

    me = _thread.get_ident()
    return next((outputs for thread, outputs in reversed(_GROUPS) if thread == me), None)


@contextmanager
def outputs_together() -> Iterator[None]:
    """Every file :func:`open_output` writes inside the block appears only when the block ends
    without an exception, all together: each is written in full to its temporary file first, and
    the renames follow only when all are written. When any fails (no space), every temporary file
    is removed and the files already there stay as they were: never old parts beside new ones
    (``decompose --out-dir`` on a full disk). Devices and pipes are written in place, as ever.
    """
    import _thread

    staged: list[_Staged] = []
    entry = (_thread.get_ident(), staged)
    _GROUPS.append(entry)
    try:
        yield
        for output in staged:  # names first (linkat can fail too): nothing is replaced until all have one
            output.link()
        with _signals_held():  # Ctrl-C or SIGTERM waits for the last rename: never half the files renamed
            for output in staged:
                output.commit()
    finally:
        _GROUPS.remove(entry)
        for output in staged:
            output.discard()


@contextmanager
def _text(raw: BinaryIO, path: str, encoding: str, errors: str) -> Iterator[TextIO]:
    """A text stream over ``raw``, gzipped when ``path`` ends in ``.gz`` (what its name says), with
    no time stamp in the gzip header (the same profile gives the same bytes). ``raw`` stays open."""
    compressed = None
    if path.lower().endswith(".gz"):
        import gzip

        compressed = gzip.GzipFile(filename="", fileobj=raw, mode="wb", compresslevel=6, mtime=0)
    out = io.TextIOWrapper(compressed or raw, encoding=encoding, errors=errors, newline="")
    try:
        yield out
    except BaseException:
        for finish in (out.detach, compressed.close if compressed is not None else None):
            try:
                if finish is not None:
                    finish()
            except OSError:
                pass  # the output is discarded: the first error is the one to report
        raise
    out.detach()  # flushes
    if compressed is not None:
        compressed.close()  # the trailer; GzipFile never closes a fileobj it was given


@contextmanager
def _writing(path: str) -> Iterator[None]:
    """Turn the system's errors in writing ``path`` into OutputError; errors about other files pass through."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        if (
            exc.filename is not None
            and exc.filename not in (path, os.path.realpath(path))
            and not str(exc.filename).startswith((os.path.dirname(os.path.realpath(path)) + os.sep + ".", "/proc/self/fd/"))
        ):
            raise
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
