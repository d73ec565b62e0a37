"""The JSON API of ``menace serve``, through Starlette's TestClient."""

from __future__ import annotations

import html
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Invoke, built_database, owner, train_300, wait_until
from held_training import Held
from starlette.testclient import TestClient

from menace.app.history import learning_series
from menace.app.machines import init_machine, settings_for
from menace.app.transfer import export_machine
from menace.web.app import create_app
from menace.web.training import Trainer
from menace.web.training_process import NICENESS

BASE = "http://127.0.0.1:8000"
"""A name the server answers to (it refuses others, such as TestClient's own 'testserver')."""
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def trained(request: pytest.FixtureRequest, db_url: str) -> str:
    return built_database(request, db_url, "smart-300", train_300)


@pytest.fixture
def client(trained: str) -> Iterator[TestClient]:
    with TestClient(create_app(trained, "menace"), base_url=BASE) as c:
        yield c


def test_health_and_info(client: TestClient) -> None:
    assert client.get("/api/health").json()["ok"] is True
    info = client.get("/api/info").json()
    assert info["machine"] == "menace" and info["token_required"] is False
    assert info["shape"]["rows"] == 3 and info["shape"]["glyphs"] == ["", "X", "O"]
    assert [c["letter"] for c in info["colours"]] == list("WKASGYBVP")


def test_wall_has_every_box_with_generic_beads(client: TestClient) -> None:
    w = client.get("/api/machines/menace/boxes").json()
    assert len(w["boxes"]) == 304 and w["games_played"] == 300
    first = dict(zip(w["box_fields"], w["boxes"][0]))
    assert first["number"] == 1 and first["move"] == 1 and first["side"] == "X" and first["cells"] == [0] * 9
    beads = [dict(zip(w["bead_fields"], row)) for row in first["beads"]]
    assert [b["bead"] for b in beads] == [0, 1, 4]
    bead = beads[2]
    assert w["move_cells"][bead["bead"]] == [None, 4] and bead["initial"] == 4
    assert w["colours"][bead["colour"]] == {"index": 4, "letter": "G", "name": "green", "hex": "#009e73",
                                                "ink": "#ffffff"}
    assert w["move_names"][4] == "b2"


def test_box_series_is_sampled(client: TestClient) -> None:
    s = client.get("/api/machines/menace/boxes/1/series?points=50").json()
    assert len(s["games"]) <= 50 and s["games"][0] == 0 and s["games"][-1] == 300
    wall_now = client.get("/api/machines/menace/boxes").json()["boxes"][0][4]
    assert [c["counts"][-1] for c in s["series"]] == [row[1] for row in wall_now]


def test_learning_series_is_sampled_and_consistent(client: TestClient) -> None:
    s = client.get("/api/machines/menace/learning?points=40").json()
    assert s["games_played"] == 300 and len(s["games"]) <= 40
    assert s["wins"] + s["draws"] + s["losses"] == 300
    assert s["games"][0] == 1 and s["games"][-1] == 300
    full = client.get("/api/machines/menace/learning?points=2000").json()
    assert full["cumulative"][-1] == s["cumulative"][-1] == 3 * s["wins"] + s["draws"] - s["losses"]
    zoom = client.get("/api/machines/menace/learning?points=10&first=100&last=120").json()
    assert zoom["games"][0] == 100 and zoom["games"][-1] == 120


def test_learning_follows_new_games_and_undo(menace: Invoke, trained: str) -> None:
    """Nothing per game is kept between requests: each answer matches the history as it is now."""
    with TestClient(create_app(trained, "menace"), base_url=BASE) as c:
        before = c.get("/api/machines/menace/learning?points=50").json()
        menace("tournament", "--vs", "random", "-n", "50", "--seed", "2")
        after = c.get("/api/machines/menace/learning?points=50").json()
        assert after["games_played"] == before["games_played"] + 50 == after["last"]
        menace("undo", "--games", "70")
        undone = c.get("/api/machines/menace/learning?points=50").json()
    fresh = learning_series(owner(trained), "menace", points=50)
    assert undone["games_played"] == 280 and undone["cumulative"] == fresh.cumulative.tolist()
    assert undone["rate_games"] == fresh.rate_games.tolist() and undone["win"] == [round(w, 4) for w in fresh.win_rate]


def test_unknown_things_are_404_with_one_line(client: TestClient) -> None:
    for path in ("/api/machines/nope/boxes", "/api/machines/menace/boxes/999/series", "/api/machines/nope/learning"):
        r = client.get(path)
        assert r.status_code == 404
        assert set(r.json()) == {"error"} and "\n" not in r.json()["error"]


@pytest.mark.parametrize("body, status, words", [
    ({"name": "a", "beads": "x"}, 400, "schedule"),
    ({"name": "a", "preset": "nope"}, 400, "unknown preset"),
    ({"name": "a", "game": "chess"}, 400, "chess"),
    ({"name": "a", "side": "Z"}, 400, "side"),
    ({"name": "../etc"}, 400, "a machine's name is 1 to 64 letters"),
    ({"name": "menace"}, 409, "exists"),
    ({"name": 3}, 400, "must be text"),
    ({"name": "a", "symmetry": "no"}, 400, "true or false"),
    ({"name": "a", "empty_box": "explode"}, 400, "empty policy"),
])
def test_bad_create_requests_are_4xx(client: TestClient, body: dict[str, object], status: int, words: str) -> None:
    r = client.post("/api/machines", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]


def test_bad_bodies_are_400(client: TestClient) -> None:
    assert client.post("/api/machines", content=b"{nope", headers=JSON).status_code == 400
    assert client.post("/api/machines", content=b"[1, 2]", headers=JSON).json() == {
        "error": "the request body must be a JSON object"}
    assert client.post("/api/machines", content=b"[" * 100_000, headers=JSON).status_code == 413
    assert client.get("/api/machines/menace/learning?points=abc").status_code == 400


def test_create_with_every_option_and_switch(client: TestClient) -> None:
    r = client.post("/api/machines", json={"name": "second", "preset": "michie", "side": "O", "beads": "8,4,2,1",
                                           "reinforce": "3,0,-1", "all_squares": True, "symmetry": True,
                                           "empty_box": "restock"})
    assert r.status_code == 201
    s = r.json()
    assert s["boxes"] == 289 and s["side"] == "O" and s["settings"]["empty box"] == "restock"
    assert s["settings"]["initial beads"] == "8,4,2,1" and s["preset"] == "michie, modified"
    names = [m["name"] for m in client.get("/api/machines").json()["machines"]]
    assert names == ["menace", "second"]
    assert client.post("/api/machines/current", json={"name": "second"}).status_code == 200
    assert client.get("/api/info").json()["machine"] == "second"
    assert client.post("/api/machines/current", json={"name": "ghost"}).status_code == 404


def test_no_symmetry_machine_has_2201_boxes(client: TestClient) -> None:
    r = client.post("/api/machines", json={"name": "big", "symmetry": False})
    assert r.json()["boxes"] == 2201
    assert len(client.get("/api/machines/big/boxes").json()["boxes"]) == 2201


def test_export_then_import_round_trip(client: TestClient) -> None:
    r = client.get("/api/machines/menace/export")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    r2 = client.post("/api/import?as=copy", content=r.content, headers=JSON)
    assert r2.status_code == 201 and r2.json() == {"name": "copy", "boxes": 304, "games": 300, "odds": False}
    again = client.post("/api/import?as=copy", content=r.content, headers=JSON)
    assert again.status_code == 409


def test_damaged_file_is_refused_and_changes_nothing(client: TestClient, trained: str) -> None:
    body = export_machine(owner(trained), "menace")
    body["boxes"][0]["beads"]["b2"]["count"] += 1
    r = client.post("/api/import?as=bad&filename=menace.json", content=json.dumps(body).encode(), headers=JSON)
    assert r.status_code == 422 and "checksum" in r.json()["error"] and "menace.json" in r.json()["error"]
    r = client.post("/api/import?as=bad", content=b'{"format": "menace-machine", "version": 1', headers=JSON)
    assert r.status_code == 422 and "damaged or truncated" in r.json()["error"]
    names = [m["name"] for m in client.get("/api/machines").json()["machines"]]
    assert names == ["menace"]


def test_upload_over_the_limit_is_413(trained: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import menace.web.api as api

    monkeypatch.setattr(api, "UPLOAD_LIMIT", 1000)
    with TestClient(create_app(trained, "menace"), base_url=BASE) as c:
        r = c.post("/api/import", content=b" " * 5000, headers=JSON)
        assert r.status_code == 413 and "limit" in r.json()["error"]


def test_a_visitor_without_the_token_cannot_write(trained: str) -> None:
    with TestClient(create_app(trained, "menace", token="s3cret"), base_url=BASE) as c:
        assert c.get("/api/machines/menace/boxes").status_code == 200
        for path, body in (("/api/machines", {"name": "x"}), ("/api/train", {"games": 5}),
                           ("/api/machines/current", {"name": "menace"}), ("/api/import", {}),
                           ("/api/machines/menace/boxes/1/reconcile", {"counts": [{"bead": 0, "count": 1}]})):
            r = c.post(path, json=body)
            assert r.status_code == 403 and "token" in r.json()["error"], path
        r = c.post("/api/machines", json={"name": "x"}, headers={"X-Menace-Token": "wrong"})
        assert r.status_code == 403
        r = c.post("/api/machines", json={"name": "x"}, headers={"X-Menace-Token": "s3cret"})
        assert r.status_code == 201
        assert "menace-token" not in r.headers.get("set-cookie", "").lower()


def test_reconcile_sets_the_counted_beads_as_a_correction(client: TestClient, menace: Invoke) -> None:
    box = client.get("/api/machines/menace/boxes").json()["boxes"][0]
    beads = {row[0]: row[1] for row in box[4]}
    r = client.post("/api/machines/menace/boxes/1/reconcile", json={"counts": [{"bead": 4, "count": 7}]})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["changes"] == ([{"bead": 4, "before": beads[4], "after": 7}] if beads[4] != 7 else [])
    assert {row[0]: row[1] for row in body["beads"]} == {**beads, 4: 7}
    assert {row[0]: row[1] for row in client.get("/api/machines/menace/boxes").json()["boxes"][0][4]} == {**beads, 4: 7}
    again = client.post("/api/machines/menace/boxes/1/reconcile", json={"counts": [{"bead": 4, "count": 7}]}).json()
    assert again["changes"] == []
    menace("check")  # exits 0: the history and the corrections replay to the beads stored


@pytest.mark.parametrize(("body", "status", "words"), [
    ({}, 400, "give 'counts'"),
    ({"counts": [{"bead": 8, "count": 1}]}, 400, "holds no beads for c3"),
    ({"counts": [{"bead": 0, "count": -1}]}, 400, "from 0 to 1,000,000"),
    ({"counts": [{"bead": 0, "count": 10**7}]}, 400, "from 0 to 1,000,000"),
    ({"counts": [{"bead": 0, "count": "3"}]}, 400, "whole number"),
    ({"counts": [{"bead": 0, "count": 1}, {"bead": 0, "count": 2}]}, 400, "counted twice"),
    ({"counts": [1]}, 400, "object"),
])
def test_bad_reconcile_requests_are_4xx(client: TestClient, body: dict[str, object], status: int, words: str) -> None:
    r = client.post("/api/machines/menace/boxes/1/reconcile", json=body)
    assert r.status_code == status and words in r.json()["error"], r.text
    assert client.post("/api/machines/menace/boxes/999/reconcile",
                       json={"counts": [{"bead": 0, "count": 1}]}).status_code == 404
    assert client.post("/api/machines/nope/boxes/1/reconcile",
                       json={"counts": [{"bead": 0, "count": 1}]}).status_code == 404


def test_reconcile_is_refused_while_the_machine_plays(client: TestClient) -> None:
    assert client.post("/api/play", json={}).status_code in (200, 201)
    r = client.post("/api/machines/menace/boxes/1/reconcile", json={"counts": [{"bead": 0, "count": 1}]})
    assert r.status_code == 409 and "recount it afterwards" in r.json()["error"]


def test_train_runs_the_tournament_and_stops(client: TestClient) -> None:
    r = client.post("/api/train", json={"opponent": "random", "games": 5_000_000, "seed": 3})
    assert r.status_code == 202 and r.json()["running"]
    assert client.post("/api/train", json={"opponent": "random", "games": 10}).status_code == 409
    wait_until(lambda: client.get("/api/train").json()["games"] > 0, "the first games of the tournament")
    stopped = client.post("/api/train/stop", json={}).json()
    assert not stopped["running"] and stopped["stopped"] == "stopped from the page"
    played = client.get("/api/machines/menace").json()["games"]
    assert played == 300 + stopped["games"] and stopped["games"] > 0
    assert stopped["wins"] + stopped["draws"] + stopped["losses"] == stopped["games"]


def test_the_pages_are_answered_while_the_server_trains(trained: str) -> None:
    """A class asks for the summary, the wall and the learning curve while the server trains the machine
    (issue 31: the pages starved). The tournament is held at a known point, its first games stored: the
    pages answer, showing them, and the tournament is played in a process of its own, not in a thread
    that takes the server's interpreter from the pages."""
    held = Held()
    app = create_app(trained, "menace")
    with TestClient(app, base_url=BASE) as client:
        state = app.state.menace
        state.trainer = Trainer(state.hub.publish, play=held)
        r = client.post("/api/train", json={"opponent": "random", "seconds": 3600, "seed": 3})
        assert r.status_code == 202
        assert held.reached.wait(120), "the tournament never stored its first games"
        try:
            summary = client.get("/api/machines/menace")
            assert summary.status_code == 200 and summary.json()["games"] >= 300 + held.games.value
            assert client.get("/api/machines/menace/boxes").status_code == 200
            assert client.get("/api/machines/menace/learning").json()["games_played"] == summary.json()["games"]
            assert client.get("/api/train").json()["running"]
            assert held.pid.value != os.getpid()
            # ...at a lower priority than the server's: when both want the CPU (a laptop's two cores shared
            # with a database server), the pages are answered first (p50 1.6 ms against 0.7 at rest before)
            own = os.getpriority(os.PRIO_PROCESS, 0)
            assert os.getpriority(os.PRIO_PROCESS, held.pid.value) == min(19, own + NICENESS)
        finally:
            held.release.set()
        stopped = client.post("/api/train/stop", json={}).json()
        assert not stopped["running"] and stopped["stopped"] == "stopped from the page"
        assert client.get("/api/machines/menace").json()["games"] == 300 + stopped["games"] == stopped["total_games"]


def test_the_tournaments_states_are_numbered_so_a_page_can_drop_an_older_one(trained: str) -> None:
    """The stop's answer and the events travel apart, so a page can be handed the last progress
    (running) after the stop's answer (stopped). Every state published and answered is numbered in
    the order it was published, so the page drops the older one; the answers are the newest."""
    published: list[dict[str, Any]] = []
    trainer = Trainer(lambda event, data, *, remember=True: published.append(data) if event == "train" else None)
    started = trainer.start(owner(trained), "menace", "random", games=None, seconds=60.0, seed=3)
    wait_until(lambda: len(published) >= 3, "the tournament's progress")
    stopped = trainer.stop()
    numbers = [state["update"] for state in published]
    assert numbers == sorted(set(numbers)), numbers
    assert published[0] == started and started["running"]
    assert published[-1] == stopped == trainer.latest() and not stopped["running"]
    assert stopped["stopped"] == "stopped from the page"
    assert {state["server"] for state in published} == {stopped["server"]}
    restarted = Trainer(lambda *_args, **_kwargs: None)  # a server started again is told apart
    assert restarted.latest()["server"] != stopped["server"]


def test_train_refuses_bad_requests(client: TestClient) -> None:
    assert client.post("/api/train", json={"opponent": "nobody"}).status_code == 400
    assert client.post("/api/train", json={"games": 0}).status_code == 400
    assert client.post("/api/train", json={"games": "many"}).status_code == 400
    assert client.post("/api/train", json={"machine": "ghost", "games": 5}).status_code == 404
    assert client.post("/api/train", json={"opponent": "td:abc", "games": 5}).status_code in (202, 400)


def test_train_finishes_with_counts(client: TestClient) -> None:
    client.post("/api/train", json={"opponent": "smart", "games": 500, "seed": 4})
    deadline = time.monotonic() + 20
    while client.get("/api/train").json()["running"] and time.monotonic() < deadline:
        time.sleep(0.05)
    s = client.get("/api/train").json()
    assert s["games"] == 500 and s["total_games"] == 800 and s["error"] is None


def test_downloads(client: TestClient) -> None:
    r = client.get("/api/machines/menace/labels.pdf")
    assert r.status_code == 200 and r.content.startswith(b"%PDF")
    r = client.get("/api/machines/menace/plots/learning.svg")
    assert r.status_code == 200 and b"<svg" in r.content[:2000]
    assert client.get("/api/machines/menace/plots/learning.gif").status_code == 404
    assert client.get("/api/machines/menace/plots/secret.png").status_code == 404


def test_events_stream_replays_the_last_of_each_kind(client: TestClient) -> None:
    app_state = client.app.state.menace  # type: ignore[attr-defined]
    app_state.hub.publish("train", {"games": 7})
    with client.stream("GET", "/api/events?limit=1") as r:
        text = "".join(r.iter_text())
    assert "event: train" in text and '"games":7' in text


def test_pages_render(client: TestClient) -> None:
    for path in ("/", "/play", "/train", "/learning", "/console", "/audience", "/machines"):
        r = client.get(path)
        assert r.status_code == 200 and "<main>" in r.text, path


def test_the_pages_take_the_machine_name_rule_from_the_library(client: TestClient) -> None:
    """The rule for a machine's name is written once (menace.core.names): every page is given it, the
    build form checks a name by it, and no script or template writes it out again."""
    import re

    from menace.core.names import MACHINE_NAME

    page = client.get("/machines").text
    shown = html.unescape(re.search(r'data-name-pattern="([^"]*)"', page).group(1))  # type: ignore[union-attr]
    form = html.unescape(re.search(r'<input name="name"[^>]* pattern="([^"]*)"', page).group(1))  # type: ignore[union-attr]
    assert shown == form == MACHINE_NAME.pattern
    web = Path(__file__).parents[1] / "menace" / "web"
    copies = [p.name for p in [*web.glob("static/*.js"), *web.glob("templates/*.html")] if "{0,63}" in p.read_text()]
    assert copies == []


def test_settings_for_matches_init_options() -> None:
    game, s, label = settings_for("tictactoe", "rubyquiz", side="both", reinforcement="2,0,-1", symmetry=True)
    assert s.side == "both" and (s.win, s.draw, s.loss) == (2, 0, -1) and s.symmetry and label == "rubyquiz, modified"
    assert settings_for()[2] == "michie"


def test_a_hexapawn_wall_sends_moves_as_arrows(client: TestClient) -> None:
    pytest.importorskip("menace.games.hexapawn", reason="Hexapawn has not landed on this branch yet")
    assert client.post("/api/machines", json={"name": "her", "game": "hexapawn"}).status_code == 201
    w = client.get("/api/machines/her/boxes").json()
    assert w["shape"]["game"] == "hexapawn" and len(w["boxes"]) == 19
    moves = [w["move_cells"][row[0]] for box in w["boxes"] for row in box[4]]
    assert all(start is not None and start != end for start, end in moves)


def test_learning_series_of_a_machine_without_games(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'e.db'}"
    init_machine(owner(url), "fresh", settings_for()[1], "michie")
    with TestClient(create_app(url, "fresh"), base_url=BASE) as c:
        s = c.get("/api/machines/fresh/learning").json()
    assert s["games_played"] == 0 and s["games"] == [] and s["cumulative"] == [] and s["win"] == []


def test_a_nim_wall_sends_cups_with_captions_and_named_moves(client: TestClient) -> None:
    assert client.post("/api/machines", json={"name": "nim", "game": "nim"}).status_code == 201
    w = client.get("/api/machines/nim/boxes").json()
    shape = w["shape"]
    assert shape["game"] == "nim" and shape["grid"] is False and shape["moves_on_board"] is False
    assert shape["move_texts"] == ["take 1", "take 2", "take 3"] and w["box_fields"][-1] == "caption"
    assert len(w["boxes"]) == 20 and sum(len(box[4]) for box in w["boxes"]) == 59
    assert [box[5] for box in w["boxes"]][:2] == ["21 sticks", "20 sticks"]
    # A variant by its name, with its rules; and a preset of another game is refused.
    made = client.post("/api/machines", json={"name": "n15", "game": "nim-15-4-normal", "side": "second"})
    assert made.status_code == 201, made.text
    assert client.get("/api/machines/n15/boxes").json()["shape"]["title"].startswith("Nim (15 sticks, take 1-4")
    bad = client.post("/api/machines", json={"name": "n2", "game": "nim", "preset": "michie"})
    assert bad.status_code == 400 and "michie is a preset for tictactoe, not nim" in bad.text
    # The train page offers only the players of the machine's game.
    players = client.get("/api/opponents?game=nim-15-4-normal").json()["players"]
    assert [p["name"] for p in players] == ["random", "perfect"] and players[0]["games"] is None
    assert client.get("/api/opponents?game=chess").status_code == 400
