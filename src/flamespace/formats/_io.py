"""Opening inputs and outputs the same way for every format: paths, '-', gzip, BOM."""

from __future__ import annotations

import errno
import io
import os
import stat
import sys

from ..errors import ArgumentError, InputError, OutputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from contextlib import contextmanager
    from types import TracebackType
    from typing import Any, BinaryIO, Callable, Generator, Iterator, Optional, TextIO, Tuple, Type, Union

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

    def __init__(self, generator: "Generator[Any, None, None]") -> None:
        self._generator = generator

    def __enter__(self) -> Any:
        try:
            return next(self._generator)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, kind: "Optional[Type[BaseException]]", value: "Optional[BaseException]",
                 traceback: "Optional[TracebackType]") -> bool:
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
#: Undecodable bytes are kept as surrogates and written back unchanged (lossless round trip).
ENCODING_ERRORS = "surrogateescape"


def display_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        return "<stdin>" if name == "-" else name
    return getattr(source, "name", None) or "<stream>"


@contextmanager
def open_binary(source: Source) -> Iterator[Tuple[io.BufferedReader[Any], str]]:
    """A peekable binary stream over ``source``, gunzipped if it starts with gzip's magic bytes."""
    name = display_name(source)
    close = False
    if isinstance(source, (str, os.PathLike)):
        if os.fspath(source) == "-":
            raw: BinaryIO = sys.stdin.buffer
        else:
            try:
                raw = open(source, "rb")
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", name) from None
            close = True
    else:
        raw = source
    unreadable: Tuple[Type[BaseException], ...] = (OSError, EOFError)
    try:
        # Any binary stream with readinto will do; typeshed asks BufferedReader for a raw one.
        stream = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[type-var]
        if stream.peek(2)[:2] == GZIP_MAGIC:
            import gzip  # only for gzipped input: start-up matters for small files
            import zlib

            stream = io.BufferedReader(gzip.GzipFile(fileobj=stream, mode="rb"))
            unreadable += (zlib.error,)  # damaged compressed data (found by tests/formats/test_fuzz.py)
        yield stream, name
    except unreadable as exc:
        raise InputError(f"cannot read: {exc}", name) from None
    finally:
        if close:
            raw.close()


#: The longest line a reader takes, in bytes: a longer one is refused as soon as it is seen to
#: be longer, before it is read whole (one line of 2 GB from a gzip of 2 MB would take minutes and
#: gigabytes). A stack 100,000 frames deep is about 5 MB of folded text. Raised (or lowered) by
#: the environment variable :data:`MAX_LINE_VARIABLE`.
MAX_LINE_BYTES = 128 << 20
#: The environment variable that sets the longest line read: bytes, or with a K, M or G suffix
#: (powers of 1024): ``FLAMESPACE_MAX_LINE=1G``.
MAX_LINE_VARIABLE = "FLAMESPACE_MAX_LINE"
#: The least line limit: more than a chunk the folded reader reads at once, so that every line
#: longer than the limit spans chunks, where it is measured.
MIN_LINE_BYTES = 1 << 20
_SIZE_SUFFIXES = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def max_line_bytes() -> int:
    """The longest line read: :data:`MAX_LINE_VARIABLE` when it is set, else :data:`MAX_LINE_BYTES`."""
    text = os.environ.get(MAX_LINE_VARIABLE, "").strip()
    if not text:
        return MAX_LINE_BYTES
    number = text.upper().removesuffix("B").removesuffix("I").rstrip()
    suffix = number[-1:] if number[-1:] in _SIZE_SUFFIXES else ""
    digits = number[: len(number) - len(suffix)].strip()
    if not (digits.isdigit() and digits.isascii()):
        raise ArgumentError(f"{MAX_LINE_VARIABLE}={text!r} is no size: give bytes, or a number with K, M or G (e.g. 1G)")
    limit = int(digits) * _SIZE_SUFFIXES[suffix]
    if limit < MIN_LINE_BYTES:
        raise ArgumentError(f"{MAX_LINE_VARIABLE}={text!r} is below the least line limit, 1M")
    return limit


def line_too_long(source: str, line: int, limit: int) -> InputError:
    """The error for line ``line`` of ``source``, longer than ``limit`` bytes: it names the limit and how to raise it."""
    from ..core.units import human

    return InputError(
        f"line is longer than {human(limit, 'bytes')} ({limit:,} bytes), the longest line read; "
        f"to read it, raise the limit with the environment variable {MAX_LINE_VARIABLE} (e.g. {MAX_LINE_VARIABLE}=2G)",
        source, line,
    )


def bounded_lines(stream: TextIO, source: str, first: int = 1) -> Iterator[str]:
    """The lines of a text stream (each with its line break), as iterating it gives them, but a line
    longer than :func:`max_line_bytes` is refused (:func:`line_too_long`) once that much of it is
    read, not read whole. ``first``: the number of the first line. (A character is at least one
    byte, so a line of more characters than the limit has more bytes.)"""
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


def check_output(destination: Union[str, "os.PathLike[str]", None]) -> None:
    """Fail now, before any work, if ``destination`` cannot be written: its directory is missing or read-only.

    '-' and None (stdout) always pass. A file that exists must be writable: an output never
    replaces a file the user made read-only.
    """
    if destination is None or os.fspath(destination) == "-":
        return
    path = os.fspath(destination)
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
    try:
        os.makedirs(directory, exist_ok=True)
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


def _temporary(directory: str, base: str) -> Tuple[int, Optional[str]]:
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


def _named(directory: str, base: str) -> Tuple[int, str]:
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
                view = view[os.write(copy, view):]
    except BaseException:
        os.close(copy)
        os.unlink(name)
        raise
    os.close(copy)
    return name


@contextmanager
def open_output(
    destination: Union[str, "os.PathLike[str]", None], encoding: Optional[str] = None, errors: Optional[str] = None
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
        out = io.TextIOWrapper(sys.stdout.buffer, encoding=encoding, errors=errors, newline="", write_through=True)
        try:
            yield out
            out.flush()
            sys.stdout.buffer.flush()
        except BrokenPipeError:
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
            with open(target, "w", encoding=encoding, errors=errors, newline="") as out:
                yield out
        return
    directory, base = os.path.split(target)
    with _writing(path):
        fd, name = _temporary(directory, base)
    try:
        with _writing(path):
            with open(fd, "w", encoding=encoding, errors=errors, newline="") as out:
                yield out
                out.flush()
                try:
                    os.fchmod(out.fileno(), stat.S_IMODE(os.stat(target).st_mode))
                except FileNotFoundError:
                    pass  # a new file: created with 0o666 less the umask
                if name is None:
                    name = _link(out.fileno(), directory, base)
            os.replace(name, target)
            name = None
    finally:
        if name is not None:
            try:
                os.unlink(name)
            except OSError:
                pass


@contextmanager
def _writing(path: str) -> Iterator[None]:
    """Turn the system's errors in writing ``path`` into OutputError; errors about other files pass through."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        if exc.filename is not None and exc.filename not in (path, os.path.realpath(path)) and not str(exc.filename).startswith(
            (os.path.dirname(os.path.realpath(path)) + os.sep + ".", "/proc/self/fd/")
        ):
            raise
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
