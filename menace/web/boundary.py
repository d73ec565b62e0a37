"""The web's boundary, shared by every endpoint module: the server's state, who may do what (the
tokens), the limits on what a request may send, reading a request's body and fields, and the one
place where library errors become answers (:func:`error_response`).

:mod:`menace.web.app` builds the application; :mod:`menace.web.api`, :mod:`menace.web.play` and
:mod:`menace.web.history` hold the endpoints; all of them import this module, and it imports none
of them, so that no import of the web goes in a circle.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, overload

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from menace.app.database import Database
from menace.core.errors import (
    ConflictError,
    DamagedError,
    InvalidInputError,
    MenaceError,
    NotFoundError,
    UnavailableError,
)
from menace.core.names import MachineNameError, check_machine_name
from menace.web.guard import (
    LOOPBACK_NAMES,
    Access,
    Role,
    TokenLimiter,
    Tokens,
    host_of,
    is_loopback_address,
)
from menace.web.hub import Hub
from menace.web.tables import GameTables
from menace.web.training import Trainer

T = TypeVar("T")

HERE = Path(__file__).parent
TOKEN_HEADER = "X-Menace-Token"
UPLOAD_LIMIT = 32 * 1024 * 1024
"""The largest machine file accepted (a million-game machine's file is about 5 MB)."""
BODY_LIMIT = 64 * 1024
"""The largest JSON body of any other request."""
LOOPBACK = LOOPBACK_NAMES


class BadRequestError(InvalidInputError):
    """A request the API cannot read (bad JSON, a missing or mistyped field)."""


class ForbiddenError(MenaceError):
    """A write without the token its role needs."""

    kind = "forbidden"


class WrongTokenError(ForbiddenError):
    """A token that is neither of the server's."""


class TooManyAttemptsError(MenaceError):
    """A client that gave too many wrong tokens, told to wait."""

    kind = "too many attempts"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ConfirmationNeededError(ConflictError):
    """A destructive request without its explicit confirmation; ``loses`` says what it would lose."""

    def __init__(self, message: str, loses: dict[str, Any]) -> None:
        super().__init__(message)
        self.loses = loses


class TooLargeError(InvalidInputError):
    """A request body over the size limit."""

    kind = "too large"


class RequestTimeoutError(InvalidInputError):
    """A request body that stopped coming."""

    kind = "timeout"


STATUS = {
    TooManyAttemptsError: 429, ForbiddenError: 403, RequestTimeoutError: 408, TooLargeError: 413,
    InvalidInputError: 400, NotFoundError: 404, ConflictError: 409,
    DamagedError: 422, UnavailableError: 409, MenaceError: 400,
}
"""The HTTP status of each kind of library error (the first class that matches, in this order)."""


async def error_response(request: Request, exc: Exception) -> Response:
    """The one place errors become answers: ``{"error": "one line"}`` with a 4xx status.

    The library's errors say what went wrong and, apart, what to do (``hint``); both go on the
    one line. Anything else that reaches here is a bug and stays a 500 (Starlette's own page).
    """
    if isinstance(exc, HTTPException):
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)
    status = next((code for cls, code in STATUS.items() if isinstance(exc, cls)), 400)
    text = str(exc)
    hint = getattr(exc, "hint", None)
    if hint:
        text = f"{text}; {hint}"
    message = "".join(ch for ch in " ".join(text.split()) if ch.isprintable()) or type(exc).__name__
    body: dict[str, Any] = {"error": message}
    headers: dict[str, str] = {}
    if isinstance(exc, ConfirmationNeededError):
        body["loses"] = exc.loses
    if isinstance(exc, TooManyAttemptsError):
        headers["Retry-After"] = str(exc.retry_after)
    if isinstance(exc, (RequestTimeoutError, TooLargeError)):
        headers["Connection"] = "close"  # the rest of the body is not read: this connection is done
    return JSONResponse(body, status_code=status, headers=headers)


class EncodedAnswers:
    """The JSON sent for the answers the database's owner keeps: :meth:`Database.kept` gives back the
    same object until the database changes, and its JSON is made once for it instead of once per
    request (that was most of a kept request's CPU, in the event loop). Keyed by the object itself,
    the most recent :data:`ENCODED_ANSWERS`; an owner that keeps nothing hands out new objects, made
    again each time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: OrderedDict[int, tuple[object, bytes]] = OrderedDict()

    def response(self, answer: T, present: Callable[[T], Any]) -> Response:
        """``present(answer)`` as a JSON response, made once while ``answer`` is the one kept."""
        with self._lock:
            found = self._made.get(id(answer))
            if found is not None and found[0] is answer:
                self._made.move_to_end(id(answer))
                return Response(found[1], media_type="application/json")
        body = json.dumps(present(answer), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
        with self._lock:
            self._made[id(answer)] = (answer, body)  # held with it: its id stays its own meanwhile
            while len(self._made) > ENCODED_ANSWERS:
                self._made.popitem(last=False)
        return Response(body, media_type="application/json")


ENCODED_ANSWERS = 64
"""The most answers whose JSON :class:`EncodedAnswers` holds: a class's machines, walls and curves."""


@dataclass
class ServerState:
    """What the running server holds: the database (one owner for the process), which machine is
    shown, the tokens."""

    db: Database
    machine: str
    tokens: Tokens = field(default_factory=lambda: Tokens(None, None))
    trust_loopback: bool = False
    """Whether a visitor at this computer (a loopback client asking by a loopback name) is the
    teacher at the laptop, who needs no token."""
    limiter: TokenLimiter = field(default_factory=TokenLimiter)
    body_timeout: float = 30.0
    """Seconds a request's body may pause before the request is refused (408)."""
    hub: Hub = field(default_factory=Hub)
    encoded: EncodedAnswers = field(default_factory=EncodedAnswers)
    """The JSON of the kept answers last sent."""
    trainer: Trainer = field(init=False)
    """The tournaments run in this server (one at a time per machine)."""
    tables: GameTables = field(init=False)
    """The games in progress in the browser, their queues and heartbeats."""

    def __post_init__(self) -> None:
        self.trainer = Trainer(self.hub.publish)
        self.tables = GameTables(self.db, self.hub.publish)

    @property
    def token(self) -> str | None:
        """The admin token (None: everyone may do everything)."""
        return self.tokens.admin


def state_of(request: Request) -> ServerState:
    st = request.app.state.menace
    if not isinstance(st, ServerState):
        raise RuntimeError("the application has no server state")
    return st


def access(request: Request) -> Access:
    """What this request may do: by its token (header ``X-Menace-Token``), or as the person at the
    laptop. A wrong token is :class:`WrongTokenError` (and counts against the client); a client
    that failed too often is :class:`TooManyAttemptsError` until its wait is over."""
    st = state_of(request)
    tokens = st.tokens
    if st.trust_loopback and is_loopback_address(request.client.host if request.client else None) \
            and host_of(request.headers.get("host", "")) in LOOPBACK_NAMES:
        return Access(Role.ADMIN, "loopback")
    given = request.headers.get(TOKEN_HEADER)
    if not given or not tokens.any:  # a token left from another server is no matter here
        return Access(tokens.open_role(), "open" if tokens.open_role() is Role.ADMIN else "none")
    client = request.client.host if request.client else "unknown"
    wait = st.limiter.wait(client)
    if wait:
        raise TooManyAttemptsError(f"too many wrong tokens from this device; try again in {wait} s", wait)
    role = tokens.role_of(given)
    if role is None:
        st.limiter.failed(client)
        raise WrongTokenError("the token entered is wrong: check it against the one the teacher gave out "
                              "(menace serve printed it)")
    st.limiter.succeeded(client)
    return Access(max(role, tokens.open_role()), "ok")


ROLE_WORDS = {Role.PLAY: "the play token (to play)", Role.ADMIN: "the admin token (the teacher's)"}


async def authorize(request: Request, role: Role = Role.ADMIN) -> Access:
    """Refuse a request that may not do what ``role`` may (a wrong token is named as wrong)."""
    have = access(request)
    if have.role < role:
        if have.token == "ok":
            raise ForbiddenError(f"this needs {ROLE_WORDS[role]}; the token entered lets you "
                                 f"{'play and watch' if have.role is Role.PLAY else 'watch'} only")
        raise ForbiddenError(f"this needs {ROLE_WORDS[role]}: enter it at the top of the page "
                             f"(menace serve printed it)")
    return have


def needs_token(host: str) -> bool:
    """Listening beyond this computer: visitors must not be able to write without a token."""
    return host not in LOOPBACK


def route(path: str, endpoint: Any, methods: list[str] | None = None) -> Route:
    return Route(path, endpoint, methods=methods or ["GET"])


# -- reading requests ----------------------------------------------------------------------------
async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused with :class:`TooLargeError` once it passes ``limit`` bytes, and
    with :class:`RequestTimeoutError` when it pauses for longer than the server allows."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLargeError(f"the upload is over the limit of {limit // (1024 * 1024) or 1} MB")
    chunks: list[bytes] = []
    size = 0
    pieces = request.stream()
    wait = state_of(request).body_timeout
    while True:
        try:
            chunk = await asyncio.wait_for(anext(pieces), wait)
        except StopAsyncIteration:
            break
        except TimeoutError:
            raise RequestTimeoutError(f"the request's body stopped coming for {wait:g} s; send it again") from None
        size += len(chunk)
        if size > limit:
            raise TooLargeError(f"the upload is over the limit of {limit // (1024 * 1024) or 1} MB")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (an empty body is ``{}``)."""
    raw = await read_body(request, BODY_LIMIT)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, RecursionError):  # JSONDecodeError, UnicodeDecodeError, an integer of 4,300 digits or more
        raise BadRequestError("the request body is not valid JSON (or holds a number too long to read)") from None
    if not isinstance(body, dict):
        raise BadRequestError("the request body must be a JSON object")
    return body


def field_of(body: dict[str, Any], name: str, kind: type, default: Any = None, *, required: bool = False) -> Any:
    """``body[name]`` checked to be of ``kind`` (an int is not a bool here)."""
    value = body.get(name, default)
    if value is None:
        if required:
            raise BadRequestError(f"give {name!r}")
        return None
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadRequestError(f"{name!r} must be a whole number")
    if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise BadRequestError(f"{name!r} must be a number")
    if kind in (str, bool) and not isinstance(value, kind):
        raise BadRequestError(f"{name!r} must be {'text' if kind is str else 'true or false'}")
    return value


def machine_name(text: str) -> str:
    """A machine name from a request, checked as the CLI checks ``-m``."""
    try:
        return check_machine_name(text)
    except MachineNameError as exc:
        raise BadRequestError(exc.message) from None


@overload
def query_int(request: Request, name: str, default: int, low: int = 0, high: int = 2**62) -> int: ...
@overload
def query_int(request: Request, name: str, default: None, low: int = 0, high: int = 2**62) -> int | None: ...
def query_int(request: Request, name: str, default: int | None, low: int = 0, high: int = 2**62) -> int | None:
    """The query parameter ``name`` as a whole number from ``low`` to ``high``; ``default`` when it
    is absent or empty; :class:`BadRequestError` naming it otherwise."""
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    if not re.fullmatch(r"\d{1,19}", text) or not low <= int(text) <= high:
        raise BadRequestError(f"{name!r} must be a whole number from {low:,} to {high:,}")
    return int(text)


# -- reading ------------------------------------------------------------------------------------
def busy_machines(request: Request) -> set[str]:
    st = state_of(request)
    return st.trainer.busy_machines() | st.tables.busy_machines()
