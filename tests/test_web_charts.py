"""The web pages' charts (uPlot, vendored): the legend reads out the hovered game, dragging across
zooms in (the learning curve's cumulative reinforcement going on from its true value), live updates
reuse the plots, a window that widens lays them out again, and nothing is fetched from outside."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import built_database, invoker
from paced_training import pace_server
from web_browser_helpers import RECORD_TEXT, chart_legend, page_at, text_collisions

from menace.web.server import BackgroundServer

pytestmark = pytest.mark.browser


def drawn_text(page: Any) -> list[dict[str, Any]]:
    """The texts drawn on the page's canvases (``window.textBoxes``, recorded by RECORD_TEXT), sent as one
    JSON string: the wall's thousands of boxes sent as Playwright values cost half a second of CPU a read."""
    boxes: list[dict[str, Any]] = json.loads(page.evaluate("JSON.stringify(window.textBoxes)"))
    return boxes


GAMES = 600  # fewer than the points the learning page asks for: its curve holds every game
X_SCALE = "document.getElementById('learning-chart').menaceChart.plots[0].scales.x"  # the games shown
GAME_SHOWN = "Number(document.querySelector('#learning-chart .u-legend .u-value').textContent.replace(/,/g, ''))"


def _train(url: str) -> None:
    menace = invoker(url)
    menace("init")
    menace("tournament", "--vs", "random", "-n", str(GAMES), "--seed", "5")


@pytest.fixture
def trained(request: pytest.FixtureRequest, sqlite_url: str) -> str:
    """A machine after GAMES games against random (seed 5), built once per worker and copied for each test."""
    return built_database(request, sqlite_url, f"web-charts-random-{GAMES}", _train)


def _plot_area(page: Any, chart: str, panel: int) -> dict[str, float]:
    """The plotting area (uPlot's .u-over) of a chart's panel, in page pixels."""
    over = page.locator(f"#{chart} .uplot").nth(panel).locator(".u-over")
    over.scroll_into_view_if_needed()
    box: dict[str, float] = over.bounding_box()
    return box


def _hover(page: Any, chart: str, panel: int, share: float) -> None:
    area = _plot_area(page, chart, panel)
    page.mouse.move(area["x"] + area["width"] * share, area["y"] + area["height"] / 2, steps=4)


def _drag(page: Any, chart: str, panel: int, start: float, end: float) -> None:
    area = _plot_area(page, chart, panel)
    y = area["y"] + area["height"] / 2
    page.mouse.move(area["x"] + area["width"] * start, y)
    page.mouse.down()
    page.mouse.move(area["x"] + area["width"] * end, y, steps=8)
    page.mouse.up()


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _curve(page: Any) -> dict[str, Any]:
    # as one JSON string: thousands of numbers as Playwright values cost a tenth of a second or more
    curve: dict[str, Any] = json.loads(page.evaluate("M.api('/machines/menace/learning?points=800')"
                                                     ".then((c) => JSON.stringify(c))"))
    assert curve["games"] == list(range(1, GAMES + 1))  # every game: the values below are exact
    return curve


def _open_learning(page: Any, base: str) -> None:
    page.goto(base + "/learning")
    page.wait_for_function(f"document.getElementById('learning-chart').dataset.games === '{GAMES}'")
    page.wait_for_function("document.getElementById('growth-caption').textContent.startsWith('Box 1')")


def test_the_learning_pages_charts_read_out_the_hovered_game_and_zoom_by_dragging(trained: str,
                                                                                  browser: Any) -> None:
    """One page, on a laptop: the learning chart's legend follows the mouse and comes back; a drag zooms
    in, the cumulative reinforcement going on from its true value, and a double-click shows the whole
    history again. Then, loaded afresh on a phone, the bead chart zooms by dragging and back."""
    with BackgroundServer(trained, "menace") as srv, page_at(browser) as [page]:
        _open_learning(page, srv.base)
        curve = _curve(page)
        _hover_reads_out(page, curve)
        _drag_zooms_in(page, curve)
        page.set_viewport_size({"width": 390, "height": 844})
        _open_learning(page, srv.base)
        _bead_chart_zooms(page)


def _hover_reads_out(page: Any, curve: dict[str, Any]) -> None:
    top, rates = chart_legend(page, "learning-chart")
    assert top == {"game": f"{GAMES:,}", "total": f"{curve['cumulative'][-1]:,}"}  # the latest, at rest
    assert set(rates) == {"game", "wins", "draws", "losses"}
    _hover(page, "learning-chart", 0, 0.5)
    page.wait_for_function(f"{GAME_SHOWN} !== {GAMES}")
    top, rates = chart_legend(page, "learning-chart")
    game = _number(top["game"])
    assert GAMES * 0.4 < game < GAMES * 0.6
    assert top["total"] == f"{curve['cumulative'][game - 1]:,}"
    # the panel below follows the same game (the rates start once a window of games is full)
    assert _number(rates["game"]) == game
    at = curve["rate_games"].index(game)
    for name, key in (("wins", "win"), ("draws", "draw"), ("losses", "loss")):
        assert rates[name] == f"{curve[key][at] * 100:.1f}%"
    # the mouse gone, the legend shows the latest values again
    page.mouse.move(2, 2)
    page.wait_for_function(f"{GAME_SHOWN} === {GAMES}")


def _drag_zooms_in(page: Any, curve: dict[str, Any]) -> None:
    _drag(page, "learning-chart", 1, 0.4, 0.6)
    page.wait_for_function(f"{X_SCALE}.max - {X_SCALE}.min < 200")
    first, last = page.evaluate(f"[{X_SCALE}.min, {X_SCALE}.max]")
    assert GAMES * 0.35 < first < last < GAMES * 0.65, (first, last)
    assert page.inner_text("#learning-summary").count(f"games {first:,} to {last:,}") == 1
    assert curve["cumulative"][first - 2] != 0  # a curve started again at 0 would read otherwise
    _hover(page, "learning-chart", 0, 0.5)
    page.wait_for_function(f"{GAME_SHOWN} > {first} && {GAME_SHOWN} < {last}")
    top, _rates = chart_legend(page, "learning-chart")
    game = _number(top["game"])
    assert top["total"] == f"{curve['cumulative'][game - 1]:,}"  # the whole history's value there
    # double-click: the whole history again
    area = _plot_area(page, "learning-chart", 0)
    page.mouse.dblclick(area["x"] + area["width"] / 2, area["y"] + area["height"] / 2)
    page.wait_for_function(f"{X_SCALE}.min === 1 && {X_SCALE}.max === {GAMES}")


def _bead_chart_zooms(page: Any) -> None:
    """The bead chart zooms by dragging, and back by a double click."""
    scale = "document.getElementById('growth-chart').menaceChart.plots[0].scales.x"
    assert page.evaluate(f"[{scale}.min, {scale}.max]") == [0, GAMES]
    _drag(page, "growth-chart", 0, 0.2, 0.5)
    page.wait_for_function(f"{scale}.max - {scale}.min < {GAMES} / 2")
    lo, hi = page.evaluate(f"[{scale}.min, {scale}.max]")
    assert GAMES * 0.1 < lo < hi < GAMES * 0.6, (lo, hi)
    _hover(page, "growth-chart", 0, 0.5)
    (legend,) = chart_legend(page, "growth-chart")
    assert lo <= _number(legend["game"]) <= hi
    area = _plot_area(page, "growth-chart", 0)
    page.mouse.dblclick(area["x"] + area["width"] / 2, area["y"] + area["height"] / 2)
    page.wait_for_function(f"{scale}.min === 0 && {scale}.max === {GAMES}")


def test_a_live_training_run_updates_the_same_plots(trained: str, browser: Any) -> None:
    with BackgroundServer(trained, "menace") as srv, page_at(browser) as [page]:
        pace_server(srv.app.state.menace)  # its events as often: a small share of a core
        page.goto(srv.base + "/train")
        page.wait_for_selector("#opponent option[value='random']", state="attached")
        page.wait_for_function(f"document.getElementById('learning-chart').dataset.games === '{GAMES}'")
        page.evaluate("""const chart = document.getElementById('learning-chart');
            window.plotsBefore = chart.menaceChart.plots.slice();
            window.curveGames = new Set();
            new MutationObserver(() => window.curveGames.add(chart.dataset.games))
              .observe(chart, { attributes: true, attributeFilter: ['data-games'] });""")
        page.fill("#seconds", "600")
        page.click("#train-start")
        page.wait_for_selector("#train-state[data-running='1']")
        page.wait_for_function("window.curveGames.size >= 2", timeout=30_000)  # redrawn at least twice while it runs
        assert page.get_attribute("#train-state", "data-running") == "1"
        page.click("#train-stop")  # then stopped from the page, as a teacher does
        page.wait_for_selector("#train-state[data-running='0']", timeout=30_000)
        same = page.evaluate("""(() => { const now = document.getElementById('learning-chart').menaceChart.plots;
            return now.length === plotsBefore.length && now.every((u, i) => u === plotsBefore[i])
              && document.querySelectorAll('#learning-chart .uplot').length === plotsBefore.length; })()""")
        assert same


# Every chart with games drawn as wide as its place on the page.
LAID_OUT = """(() => [...document.querySelectorAll('.chart')]
  .filter((el) => el.menaceChart && el.menaceChart.spec && el.menaceChart.spec.xs.length).every((el) =>
  el.menaceChart.plots.length && el.menaceChart.plots.every((u) =>
    Math.abs(u.root.querySelector('canvas').getBoundingClientRect().width - el.clientWidth) < 1)))()"""

# Each chart's panels plot the games between the same two pixels: their x axes line up.
LINED_UP = """(() => [...document.querySelectorAll('.chart')].filter((el) => el.menaceChart).every((el) => {
  const [first, ...rest] = el.menaceChart.plots.map((u) => [u.bbox.left, u.bbox.width]);
  return rest.every(([left, width]) => left === first[0] && width === first[1]); }))()"""


def test_charts_lay_out_again_as_the_window_widens_and_the_chart_pages_fetch_nothing_from_outside(
        trained: str, browser: Any) -> None:
    with BackgroundServer(trained, "menace") as srv, page_at(browser, (390, 844)) as [page]:
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url))
        page.add_init_script(RECORD_TEXT)
        _open_learning(page, srv.base)
        assert page.evaluate("typeof uPlot") == "function"
        page.wait_for_function(LAID_OUT)
        page.wait_for_function(LINED_UP)
        widths = []
        for w, h in ((1366, 768), (1920, 1080)):
            page.set_viewport_size({"width": w, "height": h})
            page.wait_for_function(f"document.getElementById('learning-chart').clientWidth > {w} * 0.8")
            page.wait_for_function(LAID_OUT)
            page.wait_for_function(LINED_UP)
            widths.append(page.evaluate("document.querySelector('#learning-chart canvas').clientWidth"))
            assert text_collisions(drawn_text(page)) == []
        assert widths[0] < widths[1]
        for w, h in ((1366, 768), (390, 844)):  # the audience view's larger type, and its own axes
            page.set_viewport_size({"width": w, "height": h})
            page.goto(srv.base + "/audience")
            page.wait_for_selector("body[data-ready='1']")
            page.wait_for_function(LAID_OUT)
            page.wait_for_function(LINED_UP)
            assert text_collisions(drawn_text(page)) == []
        for path in ("/train", "/scoreboard"):  # the other pages with charts
            page.goto(srv.base + path)
            page.wait_for_load_state("load")
        outside = [u for u in asked if not u.startswith(srv.base + "/") and not u.startswith("data:")]
        assert outside == []
        assert any(u.endswith("/static/uPlot.iife.min.js") for u in asked)
        assert any(u.endswith("/static/uPlot.min.css") for u in asked)


def _three_groups(url: str) -> None:
    """Three groups' machines: 20,000 games, 300 games and none."""
    menace = invoker(url)
    for n in (1, 2, 3):
        menace("-m", f"group-{n}", "init")
    menace("-m", "group-1", "tournament", "--vs", "random", "-n", "20000", "--seed", "1")
    menace("-m", "group-2", "tournament", "--vs", "random", "-n", "300", "--seed", "1")


def test_the_scoreboards_small_charts_keep_their_text_whole_and_apart(request: pytest.FixtureRequest, sqlite_url: str,
                                                                      browser: Any) -> None:
    built_database(request, sqlite_url, "web-charts-three-groups", _three_groups)
    with BackgroundServer(sqlite_url, "group-1") as srv, page_at(browser) as [page]:
        page.add_init_script(RECORD_TEXT)
        for size in ((390, 844), (1366, 768)):  # a phone's and a laptop's
            page.set_viewport_size({"width": size[0], "height": size[1]})
            page.goto(srv.base + "/scoreboard")  # loaded afresh at this size
            page.wait_for_selector("body[data-ready='1']")
            page.wait_for_function(LAID_OUT)
            page.wait_for_function(LINED_UP)
            drawn = drawn_text(page)
            assert {b["canvas"].split(":")[0] for b in drawn} == {"chart-group-1", "chart-group-2"}, size
            assert text_collisions(drawn) == [], size
            # an axis's tick labels alike: 5k beside 10k, not 5,000
            assert "5,000" not in {b["text"] for b in drawn}, size
            assert page.evaluate("tickLabels([0, 5000, 10000, 15000])") == ["0", "5k", "10k", "15k"]
            assert chart_legend(page, "chart-group-3") == [], size  # no games: no chart, a line saying so
            assert page.inner_text("#chart-group-3") == "No games yet: train or play the machine."
