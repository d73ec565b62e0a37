"""The HTML pages: each is a template with a little script; the data comes from the API."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from starlette.templating import Jinja2Templates

from menace import __version__
from menace.core.names import MACHINE_NAME

PAGES = [
    ("wall", "/", "Matchbox wall"),
    ("play", "/play", "Play"),
    ("train", "/train", "Train"),
    ("learning", "/learning", "Learning"),
    ("history", "/history", "Games"),
    ("console", "/console", "Festival console"),
    ("audience", "/audience", "Audience view"),
    ("machines", "/machines", "Machines"),
    ("lesson", "/lesson", "Lesson"),
    ("scoreboard", "/scoreboard", "Scoreboard"),
    ("join", "/join", "Join"),
]


def routes(templates: Jinja2Templates) -> list[BaseRoute]:
    """One route per page of :data:`PAGES`."""

    def page(name: str, title: str) -> Any:
        async def endpoint(request: Request) -> Response:
            st = request.app.state.menace
            return templates.TemplateResponse(request, f"{name}.html", {
                "page": name, "title": title, "pages": PAGES, "machine": st.machine,
                "token_required": st.tokens.any, "version": __version__, "name_pattern": MACHINE_NAME.pattern,
            })

        endpoint.__doc__ = f"The {title.lower()} page."
        return endpoint

    return [Route(path, page(name, title), methods=["GET"]) for name, path, title in PAGES]
