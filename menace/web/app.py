"""The Starlette application behind ``menace serve``: pages, the JSON API, events, errors.

The web is a front end only: each endpoint parses the request, calls a use case of
:mod:`menace.app` and presents the result. Library errors become a 4xx answer with a one-line
``{"error": "..."}`` in exactly one place, :func:`error_response`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from menace import __version__
from menace.app.database import Database
from menace.core.errors import (
    MenaceError,
)
from menace.web import api, lesson, pages
from menace.web.boundary import (
    HERE,
    ServerState,
    error_response,
    needs_token,
)
from menace.web.guard import (
    GuardMiddleware,
    HostPolicy,
    Tokens,
)

__all__ = ["create_app", "needs_token", "warm_up"]


def create_app(db: Database | str, machine: str, token: str | None = None, *, play_token: str | None = None,
               bound: str = "127.0.0.1", hosts: tuple[str, ...] | list[str] = (),
               trust_loopback: bool = False, body_timeout: float = 30.0, keep: bool = True) -> Starlette:
    """The application for the database ``db`` (or at the URL ``db``, then owned by the application
    and closed when it stops), showing ``machine`` first.

    ``token`` is the admin token (train, build, replace, import, recount, stop a game) and
    ``play_token`` the play token (play and watch); a role without a token is open to all. The
    server answers only to the loopback names, ``bound`` (the address it listens on: every IP
    address when that is 0.0.0.0 or ::) and the names in ``hosts``. With ``trust_loopback``, a
    visitor at this computer needs no token. :class:`ValueError` for a token that is not URL-safe.

    With ``keep`` (the default), the database's owner keeps the machines' summaries, walls and
    learning curves in memory and reads them again only once the database has changed
    (:meth:`Database.kept`); off, every request reads them (the benchmarks compare the two).
    """

    owned = isinstance(db, str)
    database = Database(db) if isinstance(db, str) else db
    database.keep = keep
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


