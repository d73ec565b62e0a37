"""Chromium for the browser tests: Debian's, through Playwright (its own download cannot work here)."""

from __future__ import annotations

import functools
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch_browser() -> Iterator[Any]:
    """A headless Chromium, or a skip (a failure when env CI is set) when there is none."""
    path = chromium_path()
    if path is None:
        message = "chromium is not installed (apt-get install -y chromium): browser tests skipped"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


class SharedBrowser:
    """One Chromium for a run of browser tests in a worker, started for the first and closed when the
    run ends (:meth:`close`): launching Chromium and Playwright's driver costs most of a second of CPU.
    It is not kept for the rest of the worker's tests: while Playwright's sync API is up it marks its
    event loop as the thread's running loop, which ``asyncio.run`` refuses.

    The tests' pages are new pages of one browser context (:func:`page_at`): a new context costs
    ~0.35 s of CPU more than a new page in a kept one. Pages are not used again by the next test: a
    page used by an earlier test made a later test's clicks wait seconds for the element to be
    "stable" (the classroom file took 76 s instead of 66 s, one test 10 s instead of 2 s, and one
    took 48 s in a full run). What a test leaves in the context goes when the test ends
    (:meth:`_release`): its init scripts and listeners are removed, the storage of each page's site
    and the context's cookies are cleared, and its pages are closed. Each test's server listens on a
    port of its own, so a test's pages are of an origin no earlier test had (sessionStorage,
    localStorage, caches and permissions are per origin).

    The context keeps one blank page open all along (``_keeper``, never handed to a test): a page
    opened, loaded and closed in a context with no other page open cost Chromium twice the CPU of
    one beside a blank page (0.8 s against 0.4 s a load of the wall page, the renderer's share 0.5 s
    against 0.2 s: benchmarks/browser_page_cost.py), and the tests' pages were alone between tests.
    Each page still gets a renderer process of its own; the blank page runs no script, loads nothing."""

    def __init__(self) -> None:
        self._running: Iterator[Any] | None = None
        self._browser: Any = None
        self._context: Any = None
        self._keeper: Any = None

    def get(self) -> Any:
        if self._browser is None:
            running = launch_browser()
            self._browser = next(running)  # a skip (or, under CI, a failure) when there is no Chromium
            self._running = running
        return self._browser

    def pages(self, count: int) -> list[Any]:
        """``count`` new pages of the shared context."""
        if self._context is None:
            self._context = self.get().new_context()
            self._keeper = self._context.new_page()  # about:blank, kept open (see the class)
        return [self._context.new_page() for _ in range(count)]

    def _release(self, pages: list[Any], undo: list[Callable[[], Any]]) -> None:
        """Close the pages a test used, the context clean for the next (see the class)."""
        try:
            for step in reversed(undo):
                step()
            for pg in pages:
                if pg.is_closed():
                    continue
                pg.evaluate("() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} }")
                pg.close()
            self._context.clear_cookies()
        except Exception:
            context, self._context, self._keeper = self._context, None, None
            context.close()
            raise

    def close(self) -> None:
        running, self._running, self._browser = self._running, None, None
        self._context = self._keeper = None
        if running is not None:
            running.close()  # its finally: the browser closed, then Playwright's driver stopped


SHARED_BROWSER = SharedBrowser()


POLL_MS = 100
"""``polling`` for a ``wait_for_function`` that waits seconds (a training run's redraws): its condition
checked every 100 ms instead of at every frame, Playwright's default, which keeps Chromium drawing
60 frames a second while it waits (0.065 s of CPU a second of waiting against 0.012 s, load 5). Only
for a condition that, once true, stays true (a count that only grows, a run's last state), which a
check 100 ms later still sees."""


RECORD_TEXT = """
// Every text drawn on a canvas, as a box in the canvas's CSS pixels: (canvas, frame, text, box).
// A frame ends when the canvas is cleared (a chart drawn anew); the wall's chunks are drawn once.
// A chart's canvases (uPlot's, one per panel) are named by the chart: "learning-chart:0", ":1"...
window.textBoxes = [];
(() => {
  const proto = CanvasRenderingContext2D.prototype, fill = proto.fillText, clear = proto.clearRect;
  // frames numbered across canvases: a chart built anew (new canvases under the same name) is newer
  let ids = 0, frames = 0;
  proto.clearRect = function (...args) {
    this.canvas.__frame = ++frames;
    return clear.apply(this, args);
  };
  proto.fillText = function (text, x, y, ...rest) {
    const c = this.canvas, m = this.measureText(text), t = this.getTransform();
    if (!c.__id) {
      const chart = c.closest(".chart[id]");
      const panel = chart ? [...chart.querySelectorAll(".uplot canvas")].indexOf(c) : -1;
      c.__id = c.id || (chart ? chart.id + ":" + panel : "canvas-" + (++ids));
    }
    const sx = c.clientWidth ? c.width / c.clientWidth : 1, sy = c.clientHeight ? c.height / c.clientHeight : 1;
    const l = x - m.actualBoundingBoxLeft, r = x + m.actualBoundingBoxRight;
    const top = y - m.actualBoundingBoxAscent, bottom = y + m.actualBoundingBoxDescent;
    const xs = [], ys = [];
    for (const [px, py] of [[l, top], [r, top], [l, bottom], [r, bottom]]) {
      xs.push((t.a * px + t.c * py + t.e) / sx); ys.push((t.b * px + t.d * py + t.f) / sy);
    }
    if (String(text).trim()) window.textBoxes.push({ canvas: c.__id, frame: c.__frame || 0, text: String(text),
      x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys),
      w: c.clientWidth, h: c.clientHeight });
    return fill.call(this, text, x, y, ...rest);
  };
})();
"""

SVG_TEXT = """(root) => {
  // every text of the SVGs under root, as boxes in page pixels, with the box of its SVG
  const out = [];
  document.querySelectorAll(root + " svg").forEach((svg, i) => {
    const s = svg.getBoundingClientRect();
    svg.querySelectorAll("text").forEach((t) => {
      const r = t.getBoundingClientRect();
      if (t.textContent.trim()) out.push({ canvas: "svg-" + i, frame: 0, text: t.textContent,
        x0: r.left - s.left, y0: r.top - s.top,
        x1: r.right - s.left, y1: r.bottom - s.top, w: s.width, h: s.height });
    });
  });
  return out;
}"""


LEGEND = """(chart) => {
  // each panel's legend under the chart #chart (uPlot's): {label: value} of the rows one can see
  return [...document.querySelectorAll("#" + chart + " .u-legend")].map((table) => {
    const rows = {};
    for (const row of table.querySelectorAll("tr.u-series")) {
      const r = row.getBoundingClientRect();
      if (!r.width || !r.height || getComputedStyle(row).display === "none") continue;
      rows[row.querySelector(".u-label").textContent] = row.querySelector(".u-value").textContent;
    }
    return rows;
  });
}"""


def chart_legend(page: Any, chart: str) -> list[dict[str, str]]:
    """The legend of each panel of the chart with id ``chart``, as one reads it: {series: value}, the
    x value under "game" (the hovered game's values, or the latest ones when the mouse is elsewhere)."""
    legends: list[dict[str, str]] = page.evaluate(LEGEND, chart)
    return legends


def text_collisions(boxes: list[dict[str, Any]], slack: float = 0.5) -> list[str]:
    """Texts that run into each other, or out of their canvas: for each canvas its last frame."""
    last: dict[str, int] = {}
    for b in boxes:
        last[b["canvas"]] = max(last.get(b["canvas"], 0), b["frame"])
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for b in boxes:
        if b["frame"] == last[b["canvas"]]:
            seen[(b["canvas"], b["text"], round(b["x0"]), round(b["y0"]))] = b
    kept = list(seen.values())
    problems = []
    for b in kept:
        if b["x0"] < -slack or b["y0"] < -slack or b["x1"] > b["w"] + slack or b["y1"] > b["h"] + slack:
            problems.append(f"{b['text']!r} leaves its canvas {b['canvas']} ({b['x0']:.0f},{b['y0']:.0f})-"
                            f"({b['x1']:.0f},{b['y1']:.0f}) of {b['w']}x{b['h']}")
    by_canvas: dict[str, list[dict[str, Any]]] = {}
    for b in kept:
        by_canvas.setdefault(b["canvas"], []).append(b)
    for items in by_canvas.values():
        items.sort(key=lambda b: b["x0"])
        for i, a in enumerate(items):
            for b in items[i + 1:]:
                if b["x0"] >= a["x1"] - slack:
                    break
                if min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > slack:
                    problems.append(f"{a['text']!r} and {b['text']!r} overlap in {a['canvas']}")
    return problems


@contextmanager
def page_at(browser: Any, size: tuple[int, int] = (1366, 768), count: int = 1,
            timeout: float = 15_000) -> Iterator[list[Any]]:
    """``count`` pages of ``size``, clean (of the shared context: see :class:`SharedBrowser`, or of a
    context of their own for another browser). Used inside the server's ``with``, so they are left
    before the server stops (never left asking a server that has gone); a script error on any of
    them fails the test."""
    shared = browser is SHARED_BROWSER._browser
    context = None if shared else browser.new_context()
    made = SHARED_BROWSER.pages(count) if shared else [context.new_page() for _ in range(count)]
    errors: list[str] = []
    undo: list[Callable[[], Any]] = []

    def on_error(error: Any) -> None:
        errors.append(str(error))

    for pg in made:
        pg.set_viewport_size({"width": size[0], "height": size[1]})
        pg.set_default_timeout(timeout)
        pg.on("pageerror", on_error)
        undo.append(functools.partial(pg.remove_listener, "pageerror", on_error))
        if shared:
            _record_what_is_added(pg, undo)
    try:
        yield made
    finally:
        if shared:
            SHARED_BROWSER._release(made, undo)
        else:
            context.close()
    assert not errors, errors


def _record_what_is_added(page: Any, undo: list[Callable[[], Any]]) -> None:
    """Have the test's init scripts and listeners on ``page`` noted in ``undo``, to be removed when it ends."""
    cls = type(page)

    def add_init_script(*args: Any, **kwargs: Any) -> Any:
        added = cls.add_init_script(page, *args, **kwargs)
        undo.append(added.close)
        return added

    def listen(method: Callable[..., Any]) -> Callable[..., Any]:
        def add(event: str, handler: Any) -> Any:
            undo.append(functools.partial(_forget, page, event, handler))
            return method(page, event, handler)
        return add

    page.add_init_script = add_init_script
    page.on, page.once = listen(cls.on), listen(cls.once)
    undo.append(lambda: [page.__dict__.pop(name, None) for name in ("add_init_script", "on", "once")])


def _forget(page: Any, event: str, handler: Any) -> None:
    try:
        page.remove_listener(event, handler)
    except (KeyError, ValueError):  # a ``once`` listener that has been called
        pass


def click_through_game(page: Any) -> dict[str, Any]:
    """Click the first free square until the game is over, each time waiting for the board drawn anew
    from the move's answer (never for a count the board had before), so no click lands on a board
    that is being replaced and no check reads the page before it has drawn the answer. The game as
    the server last answered it comes back (its end, the winning line's cells)."""
    last: dict[str, Any] = {}
    for _ in range(6):
        if page.get_attribute("body", "data-over") == "1":
            return last
        with page.expect_response(lambda r: r.url.endswith("/move") and r.request.method == "POST") as answer:
            page.locator("#board .cell.clickable").first.click()
        last = answer.value.json()
        page.wait_for_function(f"document.querySelectorAll('#board .piece').length === {len(last['moves'])}")
    assert page.get_attribute("body", "data-over") == "1"
    return last


def pace(trainer: Any, pause: float = 0.15) -> None:
    """Run the tournaments ``trainer`` starts (``srv.app.state.menace.trainer``) at a quarter of this
    machine's pace, as on a slower one: after each progress report (one per 0.2 s of play) the
    tournament's thread rests ``pause`` seconds. The reports still come every 0.2 s (the tournament
    counts 0.2 s from the one before, rest included), so a page sees a timed run's events at the
    same pace and for as long; the tournament takes a quarter of the CPU it would (a test of a
    page drawing a run needs the run's events, not its thousands of games a second)."""
    report = trainer._progress

    def slowly(progress: Any) -> None:
        report(progress)
        time.sleep(pause)

    trainer._progress = slowly
