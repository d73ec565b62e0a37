"""The teacher's lesson and its worksheets, served from the installed package: a classroom often
has no internet, so the pages ``menace serve`` shows carry what the teacher needs.

The lesson is the same Markdown file the documentation site shows (``menace/docs/lesson.md``),
turned into HTML here; the worksheets are drawn on request by :mod:`menace.render.worksheets`.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from menace.core.errors import InvalidInputError

LESSON = "lesson.md"
DOCS_LINK = re.compile(r"\]\((?!https?://|#)[^)]*?worksheets\.pdf\)")


def lesson_markdown() -> str:
    """The lesson's Markdown as installed with menace."""
    return (resources.files("menace") / "docs" / LESSON).read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def lesson_html() -> str:
    """The lesson as HTML: the documentation's own text, its worksheet link pointing at this server."""
    import markdown

    text = DOCS_LINK.sub("](/lesson/worksheets.pdf)", lesson_markdown())
    # The site's snippet markers (used to include the lesson in the docs) mean nothing here.
    text = "\n".join(line for line in text.splitlines() if not line.startswith("--8<--"))
    html: str = markdown.markdown(text, extensions=["fenced_code", "tables", "admonition", "attr_list", "toc"],
                                  output_format="html")
    # A block of code may scroll sideways on a phone: reachable by keyboard too.
    return html.replace("<pre>", '<pre tabindex="0">')


def worksheets_pdf(paper: str, games: int) -> bytes:
    """``menace worksheets --paper PAPER --games GAMES`` as bytes."""
    import io

    from menace.render.labels_layout import LabelLayoutError, find_paper
    from menace.render.worksheets import WorksheetError, WorksheetSpec, write_worksheets

    try:
        spec = WorksheetSpec(find_paper(paper), games)
    except (LabelLayoutError, WorksheetError) as exc:
        raise InvalidInputError(str(exc)) from None
    out = io.BytesIO()
    write_worksheets(out, spec)
    return out.getvalue()


def routes() -> list[BaseRoute]:
    """``/lesson/worksheets.pdf`` (``?paper=letter&games=60``); the page ``/lesson`` is one of
    :data:`menace.web.pages.PAGES`, its template calling :func:`lesson_html`."""

    async def worksheets(request: Request) -> Response:
        """The worksheets as PDF."""
        paper = request.query_params.get("paper", "a4")
        raw = request.query_params.get("games", "30")
        if not raw.isdigit() or len(raw) > 4:
            raise InvalidInputError(f"games must be a whole number, not {raw[:20]!r}")
        data = await run_in_threadpool(worksheets_pdf, paper, int(raw))
        return Response(data, media_type="application/pdf",
                        headers={"Content-Disposition": 'inline; filename="menace-worksheets.pdf"'})

    return [Route("/lesson/worksheets.pdf", worksheets, methods=["GET"])]
