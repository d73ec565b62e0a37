"""The Starlette application behind ``menace serve``: pages, the JSON API, events, errors.

The web is a front end only: each endpoint parses the request, calls a use case of
:mod:`menace.app` and presents the result. Library errors become a 4xx answer with a one-line
``{"error": "..."}`` in exactly one place, :func:`error_response`.
"""

from __future__ import annotations

import asyncio
import hmac
import importlib
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
from menace.app.downloads import DownloadError
from menace.app.machines import BoxNotFoundError
from menace.app.transfer import MachineFileError
from menace.app.wall import LearningCache
from menace.core.colours import ColourError
from menace.core.game import IllegalMoveError
from menace.core.learner import SettingsError
from menace.core.replay import GameNotFoundError, ReplayError, UnknownBoxError
from menace.players import PlayerParamError, UnknownPlayerError
from menace.storage.database import StorageError
from menace.storage.repository import MachineBusyError, MachineExistsError, UnknownMachineError
from menace.web.hub import Hub
from menace.web.tables import GameTables, SessionGoneError, SessionUnavailableError
from menace.web.training import Trainer, TrainingBusyError

HERE = Path(__file__).parent
TOKEN_HEADER = "X-Menace-Token"
UPLOAD_LIMIT = 32 * 1024 * 1024
"""The largest machine file accepted (a million-game machine's file is about 5 MB)."""
BODY_LIMIT = 64 * 1024
"""The largest JSON body of any other request."""
MACHINE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""A machine's name, as ``menace -m`` takes it."""
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class BadRequestError(ValueError):
    """A request the API cannot read (bad JSON, a missing or mistyped field)."""


class ForbiddenError(PermissionError):
    """A write without the access token."""


class TooLargeError(ValueError):
    """A request body over the size limit."""


def _library_errors() -> list[tuple[type[BaseException], int]]:
    """Library exceptions a visitor's input can cause, and the status each gets."""
    found: list[tuple[type[BaseException], int]] = [
        (ForbiddenError, 403), (TooLargeError, 413), (BadRequestError, 400),
        (UnknownMachineError, 404), (BoxNotFoundError, 404), (UnknownBoxError, 404), (GameNotFoundError, 404),
        (SessionGoneError, 404), (MachineExistsError, 409), (MachineBusyError, 409), (TrainingBusyError, 409),
        (SessionUnavailableError, 503), (StorageError, 400), (SettingsError, 400), (IllegalMoveError, 400),
        (UnknownPlayerError, 400), (PlayerParamError, 400), (MachineFileError, 400), (ColourError, 400),
        (ReplayError, 400), (DownloadError, 404),
    ]
    try:  # the library's common base, once it exists
        base = getattr(importlib.import_module("menace.core.errors"), "MenaceError", None)
    except ImportError:
        base = None
    if isinstance(base, type) and issubclass(base, BaseException):
        found.append((base, 400))
    try:
        from menace.render.plots import PlotError

        found.append((PlotError, 400))
    except ImportError:
        pass
    return found


ERRORS = _library_errors()


async def error_response(request: Request, exc: Exception) -> Response:
    """The one place errors become answers: ``{"error": "one line"}`` with a 4xx status."""
    if isinstance(exc, HTTPException):
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)
    status = next((code for cls, code in ERRORS if isinstance(exc, cls)), 400)
    message = " ".join(str(exc).split()) or type(exc).__name__
    return JSONResponse({"error": message}, status_code=status)


@dataclass
class ServerState:
    """What the running server holds: where the database is, which machine is shown, the token."""

    url: str
    machine: str
    token: str | None
    hub: Hub = field(default_factory=Hub)
    cache: LearningCache = field(default_factory=LearningCache)
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
    from menace.web import api, pages

    templates = Jinja2Templates(directory=str(HERE / "templates"))
    state = ServerState(url, machine, token)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.hub.bind(asyncio.get_running_loop())
        try:
            yield
        finally:
            state.hub.close()
            assert state.trainer is not None and state.tables is not None
            await asyncio.to_thread(state.trainer.stop)
            await asyncio.to_thread(state.tables.close_all)

    routes = [
        *pages.routes(templates),
        Mount("/api", routes=api.routes()),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    handlers: dict[Any, Any] = {cls: error_response for cls, _ in ERRORS}
    handlers[HTTPException] = error_response
    middleware = [Middleware(GZipMiddleware, minimum_size=2000)]
    app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan, middleware=middleware)
    app.state.menace = state
    app.state.version = __version__
    return app


def route(path: str, endpoint: Any, methods: list[str] | None = None) -> Route:
    return Route(path, endpoint, methods=methods or ["GET"])
