"""The Starlette application behind ``menace serve``: pages, the JSON API, events, errors.

The web is a front end only: each endpoint parses the request, calls a use case of
:mod:`menace.app` and presents the result. Library errors become a 4xx answer with a one-line
``{"error": "..."}`` in exactly one place, :func:`error_response`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from menace import __version__
from menace.app.database import Database
from menace.core.errors import (
    ConflictError,
    DamagedError,
    InvalidInputError,
    MenaceError,
    NotFoundError,
    UnavailableError,
)
from menace.web.guard import (
    LOOPBACK_NAMES,
    Access,
    GuardMiddleware,
    HostPolicy,
    Role,
    TokenLimiter,
    Tokens,
    host_of,
    is_loopback_address,
)
from menace.web.hub import Hub
from menace.web.tables import GameTables
from menace.web.training import Trainer

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
    trainer: Trainer | None = None
    tables: GameTables | None = None

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


def create_app(db: Database | str, machine: str, token: str | None = None, *, play_token: str | None = None,
               bound: str = "127.0.0.1", hosts: tuple[str, ...] | list[str] = (),
               trust_loopback: bool = False, body_timeout: float = 30.0) -> Starlette:
    """The application for the database ``db`` (or at the URL ``db``, then owned by the application
    and closed when it stops), showing ``machine`` first.

    ``token`` is the admin token (train, build, replace, import, recount, stop a game) and
    ``play_token`` the play token (play and watch); a role without a token is open to all. The
    server answers only to the loopback names, ``bound`` (the address it listens on: every IP
    address when that is 0.0.0.0 or ::) and the names in ``hosts``. With ``trust_loopback``, a
    visitor at this computer needs no token. :class:`ValueError` for a token that is not URL-safe.
    """
    from menace.web import api, lesson, pages

    owned = isinstance(db, str)
    database = Database(db) if isinstance(db, str) else db
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals["lesson_html"] = lesson.lesson_html
    policy = HostPolicy.for_server(bound, hosts)
    state = ServerState(database, machine, Tokens(token, play_token), trust_loopback, body_timeout=body_timeout)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.hub.bind(asyncio.get_running_loop())
        await asyncio.to_thread(warm_up, database, machine)
        try:
            yield
        finally:
            state.hub.close()
            assert state.trainer is not None and state.tables is not None
            await asyncio.to_thread(state.trainer.stop)
            await asyncio.to_thread(state.tables.close_all)
            if owned:
                database.close()

    routes = [
        *pages.routes(templates),
        *lesson.routes(),
        Mount("/api", routes=api.routes()),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    handlers: dict[Any, Any] = {MenaceError: error_response, HTTPException: error_response}
    middleware = [Middleware(GuardMiddleware, hosts=policy),
                  Middleware(GZipMiddleware, minimum_size=2000, compresslevel=1)]
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan, middleware=middleware)
    app.state.menace = state
    app.state.version = __version__
    return app


def warm_up(db: Database, machine: str) -> None:
    """Read a little of the machine once before the first visitor does: the first use of each query
    (SQLAlchemy compiles and caches it) and of the database file costs a visitor's first request
    tens of milliseconds otherwise. A machine that is not there yet is no matter here."""
    from menace.app import history, wall

    try:
        wall.machine_wall(db, machine)
        history.learning_series(db, machine, points=2, first=1, last=1, allow_empty=True)
    except MenaceError:
        pass


def route(path: str, endpoint: Any, methods: list[str] | None = None) -> Route:
    return Route(path, endpoint, methods=methods or ["GET"])
