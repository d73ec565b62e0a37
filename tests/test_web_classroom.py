"""The web front end in a classroom and on a festival projector, in Chromium at a phone's, a
laptop's and a projector's size: the wall when the window widens, live training on a busy machine,
games whose browser died, the queue, players that fit the game, the audience view's size, legible
counts in the millions, charts on a phone."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from conftest import Invoke
from web_browser_helpers import launch_browser

from menace.web.server import BackgroundServer

pytestmark = pytest.mark.browser

PHONE, LAPTOP, PROJECTOR = (390, 844), (1366, 768), (1920, 1080)
SIZES = [PHONE, LAPTOP, PROJECTOR]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@contextmanager
def page_at(browser: Any, size: tuple[int, int], count: int = 1) -> Iterator[list[Any]]:
    """``count`` pages of ``size`` in a context of their own; a script error on any fails the test."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(15_000)
    errors: list[str] = []
    made = [context.new_page() for _ in range(count)]
    for pg in made:
        pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield made
    finally:
        context.close()
    assert not errors, errors


@pytest.fixture
def machine(sqlite_menace: Invoke, sqlite_url: str) -> str:
    sqlite_menace("init")
    return sqlite_url


# -- 1. the wall when the window gets wider ---------------------------------------------------------
@pytest.mark.parametrize("narrow", [900, 1280, 1366])
def test_the_wall_lays_out_again_when_the_window_widens(machine: str, browser: Any, narrow: int) -> None:
    with BackgroundServer(machine, "menace") as srv, page_at(browser, (narrow, 800)) as [page]:
        page.goto(srv.base + "/")
        page.wait_for_selector("#wall[data-ready='1']")
        page.set_viewport_size({"width": 1920, "height": 1080})
        page.wait_for_function("document.getElementById('wall').clientWidth > 1700")
        # every canvas of a group is as wide as the group's row of boxes, none left squashed
        page.wait_for_function("""(() => {
            const groups = [...document.querySelectorAll('section.wall-group')];
            return groups.every((g) => { const cs = [...g.querySelectorAll('canvas')];
              return cs.length && cs.every((c) => c.getBoundingClientRect().width === cs[0].getBoundingClientRect().width)
                && cs[0].getBoundingClientRect().width > 1500; }); })()""")
        page.set_viewport_size({"width": narrow, "height": 800})
        page.wait_for_function(f"document.getElementById('wall').clientWidth < {narrow}")
        page.evaluate("window.menaceWallDrawAll()")
