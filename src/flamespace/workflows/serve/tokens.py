"""Who may push and who may read: the tokens of ``serve --token-file`` and how a request shows one.

The file holds one token a line, after its role::

    # flamespace serve tokens
    ingest 9f86d081884c7d659a2feaa0c55ad015   # the agents of the shop
    ingest 3c2a6f0e5e4b1d8a7f6e5d4c3b2a1908   # the batch jobs
    read   60303ae22b998861bce3b28f33eec1be   # the dashboards

Roles are ``ingest`` (the push routes) and ``read`` (the query API and the UI); a token may have
both (two lines). A request shows its token as ``Authorization: Bearer TOKEN`` or as the password
of HTTP basic auth (any user name: what Pyroscope clients send with ``basic_auth_username`` and
``basic_auth_password``). Tokens are compared by their SHA-256 digests, each with
:func:`hmac.compare_digest` and without stopping at a match, so the time of a check does not say
how much of a guess was right, nor which token it matched.

The file must not be readable by other users (as ssh refuses a private key that is): whoever can
read it can push and read profiles, which name the service's code; a warning would scroll by.

The server looks at the file again at most once a second (:class:`TokenFile`): tokens are added
and revoked without a restart, which would drop the pushes under way. A file that cannot be used
(unreadable, readable by others, a bad line) keeps the tokens before it, said once on the log.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import stat
import time

from ...errors import ArgumentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: The roles a token may have, and what each allows.
ROLES = {"ingest": "push profiles", "read": "query the API and open the UI"}
#: The shortest token taken: 16 characters of a random string are about 95 bits (hex: 64), too
#: many to guess over HTTP; a shorter one is a password someone chose.
MIN_LENGTH = 16
#: How often (s) at most the server looks whether its token file changed (one stat).
RELOAD_SECONDS = 1.0

LOG = logging.getLogger("flamespace.serve.tokens")


class TokenFileError(ArgumentError):
    """A token file that cannot be used: the message names the file (and the line)."""


class Tokens:
    """The digests of the tokens of each role (never the tokens themselves)."""

    def __init__(self, ingest: Iterable[str] = (), read: Iterable[str] = ()) -> None:
        self.digests = {"ingest": [_digest(t) for t in ingest], "read": [_digest(t) for t in read]}

    def allows(self, token: str | None, role: str) -> bool:
        """Whether ``token`` has ``role``: every digest of the role compared, in constant time each."""
        if token is None:
            return False
        presented = _digest(token)
        found = False
        for digest in self.digests[role]:
            found |= hmac.compare_digest(presented, digest)
        return found

    def count(self, role: str) -> int:
        return len(self.digests[role])

    def current(self) -> Tokens:
        """These tokens (a fixed set; :class:`TokenFile` reads its file again)."""
        return self


class TokenFile:
    """The tokens of a file that may change while the server runs.

    On a request, at most once every :data:`RELOAD_SECONDS`, the file is looked at (one stat):
    when its inode, size, time or mode changed it is read again, so a file replaced by a rename
    and one rewritten in place are both seen. A file that cannot be used keeps the tokens before
    it, and says why on the log once per change; a good one says how many tokens it holds."""

    def __init__(self, path: str, clock: Callable[[], float] = time.monotonic, every: float = RELOAD_SECONDS) -> None:
        self.path, self.clock, self.every = path, clock, every
        self.seen = self._signature()
        self.tokens = read_token_file(path)
        self.checked = clock()

    def current(self) -> Tokens:
        """The tokens in force now (the file read again first if it changed)."""
        now = self.clock()
        if now - self.checked >= self.every:
            self.checked = now
            signature = self._signature()
            if signature != self.seen:
                self.seen = signature
                self._reload()
        return self.tokens

    def _signature(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)

    def _reload(self) -> None:
        try:
            tokens = read_token_file(self.path)
        except TokenFileError as exc:
            LOG.warning("flamespace serve: %s; the tokens read before stay in force", exc)
            return
        self.tokens = tokens
        LOG.warning(
            "flamespace serve: read %s again: %d ingest and %d read token(s)",
            self.path,
            tokens.count("ingest"),
            tokens.count("read"),
        )


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


def read_token_file(path: str) -> Tokens:
    """The tokens of the file at ``path``; :class:`TokenFileError` naming the file and line of what is wrong."""
    check_private(path)
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenFileError(f"--token-file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_tokens(text, path)


def check_private(path: str) -> None:
    """:class:`TokenFileError` when the file at ``path`` can be read or written by users other than its owner."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise TokenFileError(f"--token-file {path}: {exc.strerror or exc}") from None
    if os.name == "posix" and mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise TokenFileError(
            f"--token-file {path}: other users can read it (mode {stat.S_IMODE(mode):04o}); "
            f"whoever reads it can push and read profiles: chmod 600 {path}"
        )


def parse_tokens(text: str, path: str = "<tokens>") -> Tokens:
    """Lines ``ROLE TOKEN`` (``#`` starts a comment; blank lines are skipped)."""
    roles: dict[str, list[str]] = {role: [] for role in ROLES}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{path}:{number}"
        if len(words) != 2 or words[0] not in ROLES:
            raise TokenFileError(
                f"{where}: give a role and a token, e.g. 'ingest 9f86d081884c7d65...' (roles: {', '.join(ROLES)})"
            )
        role, token = words
        problem = token_problem(token)
        if problem:
            raise TokenFileError(f"{where}: {problem}")
        roles[role].append(token)
    if not any(roles.values()):
        raise TokenFileError(f"{path}: no token in it (lines 'ingest TOKEN' and 'read TOKEN')")
    return Tokens(roles["ingest"], roles["read"])


def token_problem(token: str) -> str | None:
    """What makes ``token`` unusable (None if nothing): too short, or characters a header cannot carry."""
    if len(token) < MIN_LENGTH:
        return f"the token has {len(token)} characters; take at least {MIN_LENGTH} random ones (e.g. openssl rand -hex 16)"
    if not all(33 <= ord(c) < 127 for c in token) or "#" in token:
        return "a token is printable ASCII without spaces or '#' (e.g. openssl rand -hex 16)"
    return None


def credential(authorization: str | None) -> str | None:
    """The token an ``Authorization`` header shows: a Bearer token, or basic auth's password
    (its user name when the password is empty); None for no header or another scheme."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    scheme, value = scheme.lower(), value.strip()
    if scheme == "bearer":
        return value or None
    if scheme == "basic":
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
        user, _, password = decoded.partition(":")
        return password or user or None
    return None


__all__ = [
    "MIN_LENGTH",
    "RELOAD_SECONDS",
    "ROLES",
    "TokenFile",
    "TokenFileError",
    "Tokens",
    "check_private",
    "credential",
    "parse_tokens",
    "read_token_file",
]
