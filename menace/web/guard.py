"""Who may drive the server: host names it answers to, pages that may write, tokens and their roles.

Three defences, each against something a browser can be made to do:

* **DNS rebinding.** A hostile site can make its own name point at this computer; the browser then
  sends ``Host: evil.example``. :class:`HostPolicy` answers only the names the server was started
  for: the loopback names, the address it listens on and names given by the operator. When it
  listens on every address, any IP address is fine as well (a rebinding needs a name).
* **Cross-site requests.** A page of another origin (another port of this computer counts) can
  send a form or a ``no-cors`` fetch without asking. :class:`GuardMiddleware` refuses a write whose
  ``Origin`` (or, without one, ``Referer``) is not the server itself, and any write that is not
  ``application/json``, a type no form can send and no fetch can send across origins unasked.
  A client that names no page at all (curl, a script) is not a page, so not a forgery.
* **Guessing tokens.** Tokens are compared in constant time, and :class:`TokenLimiter` makes each
  client that keeps failing wait, doubling the wait, whatever token it tries next.
"""

from __future__ import annotations

import enum
import ipaddress
import json
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
ANY_ADDRESS = frozenset({"0.0.0.0", "::", ""})
TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""A token: URL-safe (it travels in a link's fragment and a header), at most 128 characters."""
LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOST_NAME = re.compile(rf"(?=.{{1,253}}$){LABEL}(\.{LABEL})*")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class Role(enum.IntEnum):
    """What a visitor may do; each role may do what the ones below it may."""

    WATCH = 0
    """See every page and download (no token)."""
    PLAY = 1
    """Play games (the play token: students, festival visitors)."""
    ADMIN = 2
    """Train, build, replace, import, recount, switch the machine shown, stop a game (the admin token)."""


ADMIN_POWERS = ("train", "build", "replace", "import", "recount", "switch the machine shown", "stop a game")
"""What the admin token lets the teacher do beyond playing, in the words every page and ``menace
serve`` use to describe it (one list, so none of them forgets a power)."""

def new_token() -> str:
    """A fresh random token: 128 bits, URL-safe."""
    return secrets.token_urlsafe(16)


def check_token(token: str | None, what: str = "a token") -> str | None:
    """``token`` if it is URL-safe, else :class:`ValueError` in one line."""
    if token is not None and not TOKEN_PATTERN.fullmatch(token):
        raise ValueError(f"{what} is 1 to 128 letters, digits, '-' and '_' (it travels in links and headers)")
    return token


def check_host_name(name: str) -> str:
    """A host name or IP address given by the operator, lower-cased; :class:`ValueError` otherwise."""
    text = name.strip().lower().rstrip(".")
    try:
        return str(ipaddress.ip_address(text.strip("[]")))
    except ValueError:
        pass
    if not HOST_NAME.fullmatch(text):
        raise ValueError(f"{name!r} is not a host name (letters, digits, '-' and dots) or an IP address")
    return text


def host_of(header: str) -> str | None:
    """The name in a ``Host`` header without its port (``[::1]:8000`` -> ``::1``), or None."""
    text = header.strip().lower()
    if not text:
        return None
    if text.startswith("["):
        name, bracket, port = text[1:].partition("]")
        if not bracket or (port and not re.fullmatch(r":\d{1,5}", port)):
            return None
        return name or None
    name, _, port = text.partition(":")
    if port and not port.isdigit():
        return None
    return name or None


def is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def is_loopback_address(text: str | None) -> bool:
    """Whether a client address is this computer's loopback (127.0.0.0/8, ::1)."""
    try:
        return text is not None and ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class HostPolicy:
    """The ``Host`` names the server answers: loopback names, the bound address, names given."""

    names: frozenset[str]
    any_ip: bool = False

    @classmethod
    def for_server(cls, bound: str = "127.0.0.1", extra: Iterable[str] = ()) -> HostPolicy:
        """The policy of a server listening on ``bound``, also answering the names ``extra``."""
        names = set(LOOPBACK_NAMES) | {check_host_name(n) for n in extra}
        wildcard = bound.strip("[]") in ANY_ADDRESS
        if not wildcard:
            names.add(check_host_name(bound))
        return cls(frozenset(names), any_ip=wildcard)

    def allows(self, host: str | None) -> bool:
        if host is None:
            return False
        return host in self.names or (self.any_ip and is_ip(host))


class TokenLimiter:
    """Slows down a client that keeps giving wrong tokens.

    The first :attr:`FREE_FAILURES` failures cost nothing (a typo, a stale tab); after that each
    failure makes the client wait 2, 4, 8 ... up to :attr:`LONGEST_WAIT` seconds before *any*
    token of its is looked at again, the right one included. A success forgets the client; so
    does an hour without failures. An IPv6 client is its /64 network (one device holds many
    addresses of it). At most :attr:`MAX_CLIENTS` clients are remembered (the oldest go first).
    """

    FREE_FAILURES = 5
    LONGEST_WAIT = 300
    FORGET_AFTER = 3600.0
    MAX_CLIENTS = 10_000

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, tuple[int, float, float]] = OrderedDict()
        """client -> (failures, time of the last failure, may try again at)."""

    @staticmethod
    def key(client: str) -> str:
        try:
            address = ipaddress.ip_address(client)
        except ValueError:
            return client
        if address.version == 6:
            return str(ipaddress.ip_network(f"{address}/64", strict=False))
        return str(address)

    def wait(self, client: str) -> int:
        """Seconds the client must wait before a token of its is looked at (0: look now)."""
        now = self._clock()
        with self._lock:
            entry = self._clients.get(self.key(client))
            if entry is None:
                return 0
            left = entry[2] - now
        return max(0, int(left + 0.999))

    def failed(self, client: str) -> None:
        now = self._clock()
        key = self.key(client)
        with self._lock:
            failures, last, _ = self._clients.pop(key, (0, now, now))
            if now - last > self.FORGET_AFTER:
                failures = 0
            failures += 1
            over = failures - self.FREE_FAILURES
            delay = 0 if over <= 0 else min(self.LONGEST_WAIT, 2 ** min(over, 20))
            self._clients[key] = (failures, now, now + delay)
            while len(self._clients) > self.MAX_CLIENTS:
                self._clients.popitem(last=False)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(self.key(client), None)


@dataclass(frozen=True)
class Access:
    """What one request may do, and what it said about its token."""

    role: Role
    token: str
    """``none`` (no token given), ``ok``, ``wrong``, ``loopback`` (this computer: no token needed)
    or ``open`` (the server needs no token for this role)."""


class Tokens:
    """The server's two tokens; a role whose token is None is open to every visitor."""

    def __init__(self, admin: str | None, play: str | None) -> None:
        self.admin = check_token(admin, "the admin token")
        self.play = check_token(play, "the play token")
        if admin is not None and admin == play:
            raise ValueError("the play token and the admin token must differ")

    @property
    def any(self) -> bool:
        return self.admin is not None or self.play is not None

    def open_role(self) -> Role:
        """The role of a visitor without a token."""
        if self.admin is None:
            return Role.ADMIN
        if self.play is None:
            return Role.PLAY
        return Role.WATCH

    def role_of(self, given: str) -> Role | None:
        """The role ``given`` grants, or None for a wrong token; every token is compared, in constant
        time, whatever matched (how long it takes says nothing about which one came close)."""
        candidate = given.encode("latin-1", "replace")
        found: Role | None = None
        for token, role in ((self.admin, Role.ADMIN), (self.play, Role.PLAY)):
            if token is not None and secrets.compare_digest(candidate, token.encode("ascii")) and found is None:
                found = role
        if found is None or not TOKEN_PATTERN.fullmatch(given):
            return None
        return found


# -- the middleware ------------------------------------------------------------------------------
def _headers(scope: Scope) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in scope["headers"]:
        key = name.decode("latin-1").lower()
        if key not in out:  # the first of a repeated header; a second Host is refused below
            out[key] = value.decode("latin-1")
        elif key in ("host", "origin", "content-type"):
            out[key] = "\0repeated"
    return out


def _origin_of(url: str) -> str | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower()


def _default_port(origin: str) -> str:
    for scheme, port in (("http://", ":80"), ("https://", ":443")):
        if origin.startswith(scheme) and origin.endswith(port):
            return origin[: -len(port)]
    return origin


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class GuardMiddleware:
    """Refuses, before any endpoint runs: a ``Host`` the server was not started for (403, or 400 when
    missing); a write from another origin (403); a write that is not JSON (415)."""

    def __init__(self, app: ASGIApp, hosts: HostPolicy) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        raw_host = headers.get("host", "")
        host = None if raw_host.startswith("\0") else host_of(raw_host)
        if host is None:
            await _refuse(send, 400, "the request names no host (or more than one)")
            return
        if not self.hosts.allows(host):
            shown = "".join(ch for ch in host if ch.isprintable())[:80]
            await _refuse(send, 403, f"this server does not answer to the name {shown!r}; it answers to "
                                     f"{', '.join(sorted(self.hosts.names))}"
                                     f"{' and its IP addresses' if self.hosts.any_ip else ''}")
            return
        if scope["method"] not in SAFE_METHODS:
            problem = self._write_problem(scope, headers, raw_host)
            if problem is not None:
                await _refuse(send, *problem)
                return
        await self.app(scope, receive, send)

    @staticmethod
    def _write_problem(scope: Scope, headers: dict[str, str], raw_host: str) -> tuple[int, str] | None:
        own = _default_port(f"{scope.get('scheme', 'http')}://{raw_host.strip().lower()}")
        origin = headers.get("origin")
        if origin is not None:
            sender = None if origin.strip().lower() == "null" else _origin_of(origin)
        elif "referer" in headers:
            sender = _origin_of(headers["referer"])
        elif headers.get("sec-fetch-site", "same-origin") != "same-origin":
            sender = None
        else:
            sender = own  # no page named: not a browser's page, so not a forgery
        if sender is None or _default_port(sender) != own:
            return 403, ("refused: the request comes from another web page (another site or port), which may "
                         "not change this server; use the server's own pages")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return 415, "a change to this server is sent as application/json (the server's pages do that)"
        return None
