"""End to end in Chromium: the pages of ``menace serve`` driven by clicks, as a teacher would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Invoke, owner
from web_browser_helpers import click_through_game, page_at

from menace.app.machines import find_box, list_machines
from menace.app.transfer import export_machine
from menace.web.server import BackgroundServer

pytestmark = pytest.mark.browser


def pages(browser: Any, count: int = 1) -> Any:
    """``count`` laptop-sized pages (see :func:`web_browser_helpers.page_at`)."""
    return page_at(browser, count=count, timeout=10_000)


@pytest.fixture
def machine(menace: Invoke, db_url: str) -> str:
    menace("init")
    return db_url


def test_wall_draws_every_box(machine: str, browser: Any) -> None:
    with BackgroundServer(machine, "menace") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/")
        page.wait_for_selector("#wall[data-ready='1']")
        assert page.locator("section.wall-group").count() == 4
        assert "304 boxes" in page.inner_text("#wall-summary")
        page.locator("canvas.wall-canvas").first.click(position={"x": 40, "y": 60})
        page.wait_for_selector("#box-detail[open]")
        assert "Box 1" in page.inner_text("#detail-title")


# An event stream that lags (a busy page on a loaded machine): each message is handled a little
# late, so the stop's answer, on its own connection, comes before the last progress events.
LAGGING_EVENTS = """
const RealEventSource = window.EventSource;
window.EventSource = function (...args) {
  const source = new RealEventSource(...args);
  const listen = source.addEventListener.bind(source);
  source.addEventListener = (name, handler, ...rest) => listen(name, (e) => setTimeout(() => {
    handler(e);
    if (name === "train") window.handledTrain = JSON.parse(e.data).update;
  }, 120), ...rest);
  return source;
};
"""

# Every state #train-state shows, in order.
RECORD_TRAIN_STATE = """
window.trainStates = [];
new MutationObserver(() => {
  const e = document.getElementById("train-state");
  const now = e && [e.dataset.running, e.textContent];
  const last = window.trainStates[window.trainStates.length - 1];
  if (now && (!last || last[0] !== now[0] || last[1] !== now[1])) window.trainStates.push(now);
}).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
"""


def test_training_from_the_page_with_the_curve_updated(machine: str, browser: Any) -> None:
    with BackgroundServer(machine, "menace") as srv, pages(browser) as [page]:
        page.add_init_script(LAGGING_EVENTS)
        page.add_init_script(RECORD_TRAIN_STATE)
        page.goto(srv.base + "/train")
        page.wait_for_selector("#opponent option[value='random']", state="attached")
        page.select_option("#opponent", "random")
        page.fill("#games", "100000000")
        page.click("#train-start")
        page.wait_for_function("Number(document.getElementById('count-games').textContent.replace(/,/g, '')) >= 2000")
        page.click("#train-stop")
        page.wait_for_function("""(() => { const e = document.getElementById('train-state');
            return e.dataset.running === '0' && e.textContent.includes('stopped from the page'); })()""")
        played = srv.app.state.menace.trainer.status.total_games
        assert played >= 2000
        page.wait_for_function(f"document.getElementById('learning-chart').dataset.games === '{played}'")
        # Once the tournament's last state has been handled (the events keep their order, so every
        # older one has been too), the page has never gone back to "Playing" after the stop.
        page.wait_for_function(f"window.handledTrain === {srv.app.state.menace.trainer.latest()['update']}")
        states = page.evaluate("window.trainStates")
        stopped_at = next(i for i, (running, text) in enumerate(states) if running == "0" and "stopped" in text)
        assert all(running == "0" for running, _text in states[stopped_at:]), states[stopped_at:]


def test_the_train_page_plays_without_learning(machine: str, browser: Any) -> None:
    before = export_machine(owner(machine), "menace")["boxes"]
    with BackgroundServer(machine, "menace") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/train")
        page.wait_for_selector("#opponent option[value='random']", state="attached")
        page.select_option("#opponent", "random")
        page.fill("#games", "300")
        page.check("#frozen")
        page.click("#train-start")
        page.wait_for_function("""(() => { const e = document.getElementById('train-state');
            return e.dataset.running === '0' && e.textContent.includes('Finished'); })()""")
        assert "300 games against random without learning" in page.inner_text("#train-state")
    assert export_machine(owner(machine), "menace")["boxes"] == before


def test_a_damaged_machine_file_is_refused_with_the_message(machine: str, browser: Any, tmp_path: Path) -> None:
    body = export_machine(owner(machine), "menace")
    body["boxes"][0]["beads"]["b2"]["count"] = 99
    bad = tmp_path / "damaged.json"
    bad.write_text(json.dumps(body))
    with BackgroundServer(machine, "menace") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#machine-table tbody tr")
        page.set_input_files("#import-file", str(bad))
        page.fill("#import-as", "copy")
        page.click("#import-form button[type=submit]")
        page.wait_for_selector("#import-result.error")
        text = page.inner_text("#import-result")
        assert "Refused" in text and "damaged.json is damaged: its checksum does not match" in text
        assert [m.name for m in list_machines(owner(machine))] == ["menace"]  # nothing stored


def test_a_visitor_without_the_token_is_refused_a_write(machine: str, browser: Any) -> None:
    with BackgroundServer(machine, "menace", token="tea-time") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#machine-table tbody tr")
        page.fill("#create-form input[name=name]", "visitor")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#flash.error")
        assert "admin token" in page.inner_text("#flash")
        page.fill("#token-input", "tea-time")
        page.press("#token-input", "Enter")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#machine-table tbody tr[data-name='visitor']")


# A page that is slow to act on what the server answered, as a browser on a busy machine is: the
# answer has arrived (Playwright has seen it) but the board is not drawn again yet.
SLOW_PAGE = """
const realFetch = window.fetch;
window.fetch = async (...args) => {
  const answer = await realFetch(...args);
  await new Promise((resolve) => setTimeout(resolve, 150));
  return answer;
};
"""


def test_a_whole_game_by_clicks_and_the_wall_shows_the_reinforcement(machine: str, browser: Any) -> None:
    with BackgroundServer(machine, "menace") as srv, pages(browser, 2) as [wall, play]:
        play.add_init_script(SLOW_PAGE)
        wall.goto(srv.base + "/")
        wall.wait_for_selector("#wall[data-ready='1']")
        wall.wait_for_selector("#wall[data-live='1']")  # the game's events are not kept for a late page
        before = wall.evaluate("window.menaceWallBox(1).beads.map(b => b.count)")
        play.goto(srv.base + "/play")
        play.wait_for_selector("body[data-ready='1']")
        play.click("#new-game")
        play.wait_for_selector("#turn h3")
        assert "MENACE opens box 1" in play.inner_text("#turn")
        click_through_game(play)
        play.wait_for_selector("#end table.ledger, #end h3.result")
        assert play.locator("#end button", has_text="Play again").count() == 1
        wall.wait_for_function("document.getElementById('wall').dataset.lastGame === '1'")
        rows = play.evaluate("""[...document.querySelectorAll('#end table.ledger tr')].map(
            tr => [...tr.querySelectorAll('td')].map(td => td.textContent.trim()))""")
        assert rows, "MENACE moves first: the ledger lists the boxes it opened"
        for box_text, colour_text, change_text, _ in rows:
            number, letter, after = int(box_text.split()[1]), colour_text.split()[0], int(change_text.split("→")[1])
            js = f"Object.fromEntries(window.menaceWallBox({number}).beads.map(b => [b.letter, b.count]))"
            counts = wall.evaluate(js)
            assert counts[letter] == after, (number, letter, counts)
        changed = rows[0][2].split()[0] != rows[0][2].split()[-1]
        assert (wall.evaluate("window.menaceWallBox(1).beads.map(b => b.count)") != before) == changed
        assert srv.app.state.menace.tables.busy_machines() == set()


def test_an_operated_game_followed_by_the_audience_view(machine: str, browser: Any) -> None:
    with BackgroundServer(machine, "menace") as srv, pages(browser, 2) as [audience, console]:
        console.add_init_script(SLOW_PAGE)
        audience.goto(srv.base + "/audience")
        audience.wait_for_selector("body[data-ready='1']")
        console.goto(srv.base + "/console")
        console.wait_for_selector("body[data-ready='1']")
        console.click("#new-game")
        console.wait_for_selector("#operate-card .colour-buttons button")
        assert "Open box 1" in console.inner_text("#operate-card")
        assert "move 1 shelf, row 1, place 1" in console.inner_text("#operate-card")
        audience.wait_for_function("document.getElementById('status').textContent.includes('opens box 1')")
        for _ in range(9):
            if console.get_attribute("body", "data-over") == "1":
                break
            if console.locator("#operate-card .colour-buttons button").count():
                with console.expect_response(lambda r: r.url.endswith("/bead")) as answer:
                    console.locator("#operate-card .colour-buttons button").first.click()
            else:
                with console.expect_response(lambda r: r.url.endswith("/other")) as answer:
                    console.locator("#board .cell.clickable").first.click()
            moves = len(answer.value.json()["moves"])
            audience.wait_for_function(f"Number(document.body.dataset.moves) === {moves}")
            console.wait_for_function(f"document.querySelectorAll('#board .piece').length === {moves}")
        assert console.get_attribute("body", "data-over") == "1"
        assert "bead ledger" in console.inner_text("#end")
        audience.wait_for_function("document.getElementById('last-result').textContent.length > 0")
        audience.wait_for_function("document.getElementById('learning-caption').textContent.includes('after 1 game:')")


def test_a_box_recounted_from_the_wall_with_the_token(machine: str, browser: Any) -> None:
    with BackgroundServer(machine, "menace", token="tea-time") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/")
        page.wait_for_selector("#wall[data-ready='1']")
        page.locator("canvas.wall-canvas").first.click(position={"x": 40, "y": 60})
        page.wait_for_selector("#box-detail[open] #recount-fields input")
        assert page.inner_text("#recount-box") == "1"
        page.fill("#recount-fields input[data-bead='4']", "9")
        page.click("#recount-form button[type=submit]")
        page.wait_for_selector("#recount-result.error")
        assert "admin token" in page.inner_text("#recount-result")
        assert find_box(owner(machine), "menace", "1").box.beads[4] == 4  # nothing stored
        page.evaluate("sessionStorage.setItem('menace-token', 'tea-time')")
        page.click("#recount-form button[type=submit]")
        page.wait_for_selector("#recount-result.ok")
        assert "G 4 → 9" in page.inner_text("#recount-result")
        assert page.evaluate("window.menaceWallBox(1).beads.find(b => b.bead === 4).count") == 9


def test_a_hexapawn_move_by_clicking_a_pawn_then_its_square(menace: Invoke, db_url: str, browser: Any) -> None:
    menace("-m", "her", "init", "--game", "hexapawn")
    with BackgroundServer(db_url, "her") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/play")
        page.wait_for_selector("body[data-ready='1']")
        page.click("#new-game")
        page.wait_for_selector("#board .cell.clickable")
        # The pawns drawn from the server's description of them (as the labels and plots draw them):
        # three white pawns, three black, a white one filled white.
        assert page.locator("#board .piece[data-piece='white pawn']").count() == 3
        assert page.locator("#board .piece[data-piece='black pawn']").count() == 3
        assert page.locator("#board .piece[data-piece='white pawn'] circle").first.get_attribute("fill") == "#ffffff"
        assert "Click one of your pieces" in page.inner_text("#how-to-move")
        page.click("#board .cell[data-cell='7']")  # White's middle pawn, b1
        page.wait_for_selector("#board .cell.picked[data-cell='7']")
        with page.expect_response(lambda r: r.url.endswith("/move") and r.request.method == "POST") as answer:
            page.click("#board .cell[data-cell='4']")  # b1-b2
        assert answer.value.status == 200, answer.value.text()
        page.wait_for_selector("#turn h3")
        assert "MENACE opens box" in page.inner_text("#turn")


def test_nim_cups_on_the_wall_and_a_game_by_clicking_how_many_to_take(menace: Invoke, db_url: str,
                                                                        browser: Any) -> None:
    menace("-m", "nim", "init", "--game", "nim", "--side", "second")
    with BackgroundServer(db_url, "nim") as srv, pages(browser, 2) as [wall, page]:
        wall.goto(srv.base + "/?machine=nim")
        wall.wait_for_selector("#wall[data-ready='1']")
        assert "19 boxes" in wall.inner_text("#wall-summary")
        first = wall.evaluate("window.menaceWallBox(1)")
        assert first["caption"] == "20 sticks" and [b["name"] for b in first["beads"]] == ["take 1", "take 2", "take 3"]
        page.goto(srv.base + "/play?machine=nim")
        page.wait_for_selector("body[data-ready='1']")
        page.click("#new-game")
        page.wait_for_selector("#board button.move:not([disabled])")
        assert "Click a move below the drawing" in page.inner_text("#how-to-move")
        assert "21 sticks" in page.inner_text("#board")
        assert page.locator("#board .piece[data-piece='stick']").count() == 21
        # The person (first) takes 1 by clicking; MENACE answers from a cup; until the game ends.
        opened = []
        while page.locator("#end h3.result").count() == 0:
            before = page.text_content("#board .caption")
            with page.expect_response(lambda r: r.url.endswith("/move") and r.request.method == "POST") as answer:
                page.click("#board button.move[data-move='0']")
            assert answer.value.status == 200, answer.value.text()
            # The heap drawn anew (fewer sticks), not the old drawing still on the page.
            page.wait_for_function("([before]) => document.querySelector('#board .caption').textContent !== before",
                                   arg=[before])
            opened.append("MENACE opens box" in page.inner_text("#turn"))
        assert any(opened)  # the last move may be forced (one stick left): no cup for it
        assert srv.app.state.menace.tables.busy_machines() == set()


def test_the_browser_checks_a_machine_name_by_the_librarys_rule(machine: str, browser: Any) -> None:
    """The build form refuses a name that breaks the rule before sending it (the pattern the server
    hands the page is one the browser can use), and a page asked for a machine by a bad name shows the
    server's machine."""
    with BackgroundServer(machine, "menace") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/machines")
        name = page.locator("input[name='name']")
        valid = {text: name.evaluate("(el, text) => { el.value = text; return el.checkValidity(); }", text)
                 for text in ("group-2", "v1.0_b", "-dash", "two words", "a" * 65)}
        assert valid == {"group-2": True, "v1.0_b": True, "-dash": False, "two words": False, "a" * 65: False}
        page.goto(srv.base + "/play?machine=..%2Fsecret")
        page.wait_for_selector("body[data-ready='1']")
        assert page.inner_text("#machine-name") == "menace"


def test_a_pegasus_box_shows_its_chances_and_no_recount_or_build_kit(menace: Invoke, db_url: str,
                                                                     browser: Any) -> None:
    """A machine of the Pegasus rule keeps odds: its box's history is drawn in %, and the recount of a
    real box's beads (there are none) is not offered."""
    menace("init", "--rule", "pegasus")
    menace("tournament", "--vs", "random", "-n", "200", "--seed", "3")
    with BackgroundServer(db_url, "menace") as srv, pages(browser) as [page]:
        page.goto(srv.base + "/")
        page.wait_for_selector("#wall[data-ready='1']")
        page.locator("canvas.wall-canvas").first.click(position={"x": 40, "y": 60})
        page.wait_for_selector("#box-detail[open]")
        page.wait_for_function("document.getElementById('detail-caption').textContent.includes('200 games')")
        assert page.inner_text("#detail-caption").startswith("Its chances over 200 games")
        assert not page.is_visible("#recount-form")
        # The machines page offers no build kit for it (the server refuses one: it has no beads to label)
        # and calls its opening box's plot what it draws.
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#downloads a")
        downloads = page.locator("#downloads a").all_inner_texts()
        assert "Opening box's chances (PNG)" in downloads
        assert not [t for t in downloads if "kit" in t or "beads" in t], downloads
