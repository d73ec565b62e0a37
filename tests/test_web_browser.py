"""End to end in Chromium: the pages of ``menace serve`` driven by clicks, as a teacher would."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Invoke
from web_browser_helpers import launch_browser

from menace.app.transfer import export_machine
from menace.web.server import BackgroundServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, errors


@pytest.fixture
def machine(menace: Invoke, db_url: str) -> str:
    menace("init")
    return db_url


def test_wall_draws_every_box(machine: str, page: Any) -> None:
    with BackgroundServer(machine, "menace") as srv:
        page.goto(srv.base + "/")
        page.wait_for_selector("#wall[data-ready='1']")
        assert page.locator("canvas.wall-canvas").count() == 4
        assert "304 boxes" in page.inner_text("#wall-summary")
        page.locator("canvas.wall-canvas").first.click(position={"x": 40, "y": 60})
        page.wait_for_selector("#box-detail[open]")
        assert "Box 1" in page.inner_text("#detail-title")


def test_training_from_the_page_with_the_curve_updated(machine: str, page: Any) -> None:
    with BackgroundServer(machine, "menace") as srv:
        page.goto(srv.base + "/train")
        page.wait_for_selector("#opponent option[value='random']", state="attached")
        page.select_option("#opponent", "random")
        page.fill("#games", "100000000")
        page.click("#train-start")
        page.wait_for_function("Number(document.getElementById('count-games').textContent.replace(/,/g, '')) >= 2000")
        page.click("#train-stop")
        page.wait_for_selector("#train-state[data-running='0']")
        assert "stopped from the page" in page.inner_text("#train-state")
        played = srv.app.state.menace.trainer.status.total_games
        assert played >= 2000
        page.wait_for_function(f"document.getElementById('learning-chart').dataset.games === '{played}'")


def test_a_damaged_machine_file_is_refused_with_the_message(machine: str, page: Any, tmp_path: Path) -> None:
    body = export_machine(machine, "menace")
    body["boxes"][0]["beads"]["b2"]["count"] = 99
    bad = tmp_path / "damaged.json"
    bad.write_text(json.dumps(body))
    with BackgroundServer(machine, "menace") as srv:
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#machine-table tbody tr")
        page.set_input_files("#import-file", str(bad))
        page.fill("#import-as", "copy")
        page.click("#import-form button[type=submit]")
        page.wait_for_selector("#import-result.error")
        text = page.inner_text("#import-result")
        assert "Refused" in text and "damaged.json is damaged: its checksum does not match" in text
        assert page.locator("#machine-table tbody tr").count() == 1


def test_a_visitor_without_the_token_is_refused_a_write(machine: str, page: Any) -> None:
    with BackgroundServer(machine, "menace", token="tea-time") as srv:
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#machine-table tbody tr")
        page.fill("#create-form input[name=name]", "visitor")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#flash.error")
        assert "access token" in page.inner_text("#flash")
        page.fill("#token-input", "tea-time")
        page.press("#token-input", "Enter")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#machine-table tbody tr[data-name='visitor']")
