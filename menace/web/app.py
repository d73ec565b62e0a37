"""The Starlette application behind ``menace serve``: pages, the JSON API, events, errors.

The web is a front end only: each endpoint parses the request, calls a use case of
:mod:`menace.app` and presents the result. Library errors become a 4xx answer with a one-line
``{"error": "..."}`` in exactly one place, :func:`error_response`.
"""

from __future__ import annotations

import asyncio
import hmac
import re
import secrets
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
from menace.core.errors import (
    ConflictError,
    DamagedError,
    InvalidInputError,
    MenaceError,
    NotFoundError,
    UnavailableError,
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
MACHINE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""A machine's name, as ``menace -m`` takes it."""
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class BadRequestError(InvalidInputError):
    """A request the API cannot read (bad JSON, a missing or mistyped field)."""


class ForbiddenError(MenaceError):
    """A write without the access token."""

    kind = "forbidden"


class TooLargeError(InvalidInputError):
    """A request body over the size limit."""

    kind = "too large"


STATUS = {
    ForbiddenError: 403, TooLargeError: 413, InvalidInputError: 400, NotFoundError: 404, ConflictError: 409,
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
    return JSONResponse({"error": message}, status_code=status)


@dataclass
class ServerState:
    """What the running server holds: where the database is, which machine is shown, the token."""

    url: str
    machine: str
    token: str | None
    hub: Hub = field(default_factory=Hub)
    trainer: Trainer | None = None
    tables: GameTables | None = None

    def __post_init__(self) -> None:
        self.trainer = Trainer(self.hub.publish)
        self.tables = GameTables(self.url, self.hub.publish)


def state_of(request: Request) -> ServerState:
    st = request.app.state.menace
    assert isinstance(st, ServerState)
    return st


async def authorize(request: Request, form_token: str | None = None) -> None:
    """Refuse a write without the access token (header ``X-Menace-Token`` or form field ``token``)."""
    token = state_of(request).token
    if token is None:
        return
    given = request.headers.get(TOKEN_HEADER) or form_token or ""
    if not hmac.compare_digest(given.encode(), token.encode()):
        raise ForbiddenError("this server needs its access token to play, train, create or import; "
                             "enter it on the page (menace serve printed it)")


def needs_token(host: str) -> bool:
    """Listening beyond this computer: visitors must not be able to write without a token."""
    return host not in LOOPBACK


def new_token() -> str:
    return secrets.token_urlsafe(16)


def create_app(url: str, machine: str, token: str | None = None) -> Starlette:
    """The application for the database at ``url``, showing ``machine`` first.

    With ``token``, every write (play, train, create, import, ...) must carry it.
    """
    from menace.web import api, lesson, pages

    templates = Jinja2Templates(directory=str(HERE / "templates"))
    templates.env.globals["lesson_html"] = lesson.lesson_html
    state = ServerState(url, machine, token)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.hub.bind(asyncio.get_running_loop())
        await asyncio.to_thread(warm_up, url, machine)
        try:
            yield
        finally:
            state.hub.close()
            assert state.trainer is not None and state.tables is not None
            await asyncio.to_thread(state.trainer.stop)
            await asyncio.to_thread(state.tables.close_all)

    routes = [
        *pages.routes(templates),
        *lesson.routes(),
        Mount("/api", routes=api.routes()),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    handlers: dict[Any, Any] = {MenaceError: error_response, HTTPException: error_response}
    middleware = [Middleware(GZipMiddleware, minimum_size=2000, compresslevel=1)]
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan, middleware=middleware)
    app.state.menace = state
    app.state.version = __version__
    return app


def warm_up(url: str, machine: str) -> None:
    """Read a little of the machine once before the first visitor does: the first use of each query
    (SQLAlchemy compiles and caches it) and of the database file costs a visitor's first request
    tens of milliseconds otherwise. A machine that is not there yet is no matter here."""
    from menace.app import history, wall

    try:
        wall.machine_wall(url, machine)
        history.learning_series(url, machine, points=2, first=1, last=1, allow_empty=True)
    except MenaceError:
        pass


def route(path: str, endpoint: Any, methods: list[str] | None = None) -> Route:
    return Route(path, endpoint, methods=methods or ["GET"])
