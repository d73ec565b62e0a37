"""Play and operate in the browser: routes over :class:`~menace.web.tables.GameTables`."""

from __future__ import annotations

from starlette.routing import BaseRoute


def play_routes() -> list[BaseRoute]:
    """The routes of games in progress (play and the festival console)."""
    return []
