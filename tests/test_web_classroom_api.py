"""The classroom's API: players that fit the machine's game, games whose page died, the queue,
the teacher stopping a game."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from conftest import Invoke, built_database, invoker, train_300, wait_until
from starlette.testclient import TestClient

from menace.web.app import create_app


def _machines_of_two_games(url: str) -> None:
    menace = invoker(url)
    menace("init")
    menace("-m", "her", "init", "--game", "hexapawn")
    menace("-m", "her2", "init", "--game", "hexapawn")


@pytest.fixture
def two_games(request: pytest.FixtureRequest, sqlite_url: str) -> str:
    """A noughts-and-crosses machine and two of Hexapawn, built once per worker and copied for each test."""
    return built_database(request, sqlite_url, "web-classroom-api-two-games", _machines_of_two_games)


@pytest.fixture
def client(two_games: str) -> Iterator[TestClient]:
    with TestClient(create_app(two_games, "menace"), base_url="http://127.0.0.1:8000") as c:
        yield c


# -- 4. players that fit the machine's game ---------------------------------------------------------
def test_a_hexapawn_machine_is_offered_only_players_of_hexapawn_with_a_default_that_works(client: TestClient) -> None:
    o = client.get("/api/opponents?machine=her").json()
    names = [p["name"] for p in o["players"]]
    assert "smart" not in names and "random" in names
    assert "menace:her2" in names and "menace:menace" not in names
    assert o["default"] in names and o["default"] != "smart"
    tic = client.get("/api/opponents?machine=menace").json()
    assert tic["default"] == "smart" and "menace:her" not in [p["name"] for p in tic["players"]]


@pytest.mark.parametrize("opponent", ["smart", "menace:menace", "menace:her", "menace:nobody", "nobody"])
def test_an_opponent_that_cannot_play_the_machine_is_refused_with_400(client: TestClient, opponent: str) -> None:
    r = client.post("/api/train", json={"machine": "her", "opponent": opponent, "games": 10})
    assert r.status_code == 400, r.text
    assert "\n" not in r.json()["error"]
    assert client.get("/api/train").json()["running"] is False


def test_the_default_opponent_trains_a_hexapawn_machine(client: TestClient) -> None:
    default = client.get("/api/opponents?machine=her").json()["default"]
    r = client.post("/api/train", json={"machine": "her", "opponent": default, "games": 20})
    assert r.status_code == 202, r.text


# -- 3. one game at a time, a queue, games whose page died, the teacher's stop -----------------------
def test_the_next_player_waits_in_a_queue_and_starts_when_the_game_ends(client: TestClient) -> None:
    first = client.post("/api/play", json={"machine": "menace"})
    assert first.status_code == 201, first.text
    second = client.post("/api/play", json={"machine": "menace"})
    assert second.status_code == 409 and "queue" in second.json()["error"]
    place = client.post("/api/queue", json={"machine": "menace"}).json()
    assert place["position"] == 1 and place["busy"] and not place["turn"]
    assert place["message"] == "you are next; a game is in progress"
    third = client.post("/api/queue", json={"machine": "menace"}).json()
    assert third["position"] == 2 and third["message"] == "1 ahead of you; a game is in progress"
    client.post(f"/api/play/{first.json()['seat']}/abandon", json={})
    assert client.get(f"/api/queue/{place['ticket']}").json()["turn"] is True
    # the machine is the first in the queue's: nobody else jumps in, the third still waits
    jump = client.post("/api/play", json={"machine": "menace", "ticket": third["ticket"]})
    assert jump.status_code == 409 and "1 player waits" in jump.json()["error"]
    mine = client.post("/api/play", json={"machine": "menace", "ticket": place["ticket"]})
    assert mine.status_code == 201, mine.text
    assert client.get(f"/api/queue/{third['ticket']}").json()["message"] == "you are next; a game is in progress"
    other = client.post("/api/play", json={"machine": "her"})  # another machine is not held up
    assert other.status_code == 201, other.text


def test_a_game_whose_page_stops_answering_is_released(client: TestClient) -> None:
    tables = client.app.state.menace.tables  # type: ignore[attr-defined]
    tables.orphan_seconds = 0.6  # ORPHAN_SECONDS (45 s) in a real server
    # The tables' clock moves only when the test moves it, so that the game's page is quiet for
    # certain and the queued page never is, however busy the machine (the server's own sweeper
    # still does the releasing).
    now = [time.monotonic()]
    tables._clock = lambda: now[0]
    game = client.post("/api/play", json={"machine": "menace"}).json()
    place = client.post("/api/queue", json={"machine": "menace"}).json()
    assert place["busy"]
    now[0] += 0.3
    assert client.get(f"/api/queue/{place['ticket']}").json()["turn"] is False  # the queued page asks
    now[0] += 0.4  # the game's page was last heard from 0.7 s ago, the queued page's 0.4 s ago

    def released() -> bool:
        return client.get(f"/api/queue/{place['ticket']}").json()["turn"]  # the queued page keeps asking

    wait_until(released, "the quiet game to be released", timeout=30)
    assert tables.busy_machines() == set()
    assert client.get(f"/api/play/{game['id']}").status_code == 404
    assert client.post("/api/play", json={"machine": "menace", "ticket": place["ticket"]}).status_code == 201


def test_a_page_that_sends_its_heartbeat_keeps_its_game(client: TestClient) -> None:
    tables = client.app.state.menace.tables  # type: ignore[attr-defined]
    game = client.post("/api/play", json={"machine": "menace"}).json()
    tables.orphan_seconds = 0.6
    beats = 0
    sweeps_before = tables.busy_machines()
    while beats < 6:
        assert client.post(f"/api/play/{game['seat']}/alive", json={}).status_code == 200
        tables.sweep()
        beats += 1
    assert sweeps_before == tables.busy_machines() == {"menace"}


def test_the_defaults_release_a_dead_page_within_a_minute() -> None:
    from menace.web.tables import HEARTBEAT_SECONDS, ORPHAN_SECONDS

    # the sweeper looks every min(5, ORPHAN_SECONDS / 4) seconds
    assert ORPHAN_SECONDS + min(5.0, ORPHAN_SECONDS / 4) <= 60
    assert HEARTBEAT_SECONDS * 3 <= ORPHAN_SECONDS  # two heartbeats may be lost without losing the game


def test_the_teacher_stops_a_game_in_progress(client: TestClient) -> None:
    game = client.post("/api/play", json={"machine": "menace"}).json()
    listed = client.get("/api/tables").json()
    assert [g["id"] for g in listed["games"]] == [game["id"]] and listed["games"][0]["machine"] == "menace"
    r = client.post(f"/api/tables/{game['id']}/stop", json={})
    assert r.status_code == 200 and r.json()["stopped"] is True
    assert client.get("/api/tables").json()["games"] == []
    assert client.post(f"/api/play/{game['seat']}/move", json={"move": 0}).status_code == 404
    assert client.post(f"/api/tables/{game['id']}/stop", json={}).status_code == 404
    assert client.get("/api/machines/menace").json()["games"] == 0  # nothing stored


# -- the join page's address and QR code ------------------------------------------------------------
def test_the_join_address_and_its_qr_code(client: TestClient) -> None:
    j = client.get("/api/join").json()
    assert j["play"] == "http://127.0.0.1:8000/play" and j["urls"] == ["http://127.0.0.1:8000/"]
    assert j["qr_svg"].startswith("<svg") and "QR code for http://127.0.0.1:8000/play" in j["qr_svg"]
    client.app.state.join_urls = ["http://192.0.2.7:8000/", "http://198.51.100.3:8000/"]  # type: ignore[attr-defined]
    j = client.get("/api/join").json()
    assert j["play"] == "http://192.0.2.7:8000/play" and len(j["urls"]) == 2
    assert client.get("/join").status_code == 200


# -- 8. zooming the learning chart goes on with the cumulative reinforcement -------------------------
def test_a_zoomed_learning_curve_keeps_the_cumulative_reinforcement(request: pytest.FixtureRequest,
                                                                    sqlite_url: str) -> None:
    built_database(request, sqlite_url, "smart-300", train_300)  # init, then 300 games against smart (seed 1)
    with TestClient(create_app(sqlite_url, "menace"), base_url="http://127.0.0.1:8000") as c:
        whole = c.get("/api/machines/menace/learning?points=2000").json()
        at = dict(zip(whole["games"], whole["cumulative"]))
        assert len(at) == 300
        zoom = c.get("/api/machines/menace/learning?points=2000&first=101&last=200").json()
        assert zoom["games"][0] == 101 and zoom["games"][-1] == 200
        assert [at[g] for g in zoom["games"]] == zoom["cumulative"]
        assert zoom["cumulative"][0] != 0 or at[101] == 0


# -- groups: a machine per group in one step, and the class scoreboard -------------------------------
def test_groups_are_built_in_one_step_and_shown_on_the_scoreboard(client: TestClient) -> None:
    r = client.post("/api/groups", json={"count": 3, "game": "hexapawn"})
    assert r.status_code == 201, r.text
    assert [m["name"] for m in r.json()["machines"]] == ["group-1", "group-2", "group-3"]
    assert all(m["game"] == "hexapawn" and m["preset"] == "gardner" for m in r.json()["machines"])
    again = client.post("/api/groups", json={"count": 4})
    assert again.status_code == 409 and "group-1, group-2, group-3 are there already" in again.json()["error"]
    assert "group-4" not in [m["name"] for m in client.get("/api/machines").json()["machines"]]  # all or none
    game = client.post("/api/play", json={"machine": "group-2"}).json()
    assert game["machine"] == "group-2"
    board = client.get("/api/scoreboard").json()
    assert [g["machine"]["name"] for g in board["groups"]] == ["group-1", "group-2", "group-3"]
    assert all(g["learning"]["games"] == [] for g in board["groups"])
    assert client.post("/api/groups", json={"count": 41}).status_code == 400
    assert client.get("/api/scoreboard?prefix=-bad").status_code == 400


# -- the games: history, replay and undo through the API --------------------------------------------
def test_games_replay_and_undo(sqlite_menace: Invoke, sqlite_url: str) -> None:
    sqlite_menace("init")
    sqlite_menace("tournament", "--vs", "random", "-n", "12", "--seed", "3")
    with TestClient(create_app(sqlite_url, "menace"), base_url="http://127.0.0.1:8000") as c:
        listed = c.get("/api/machines/menace/games?last=5").json()
        assert [g["number"] for g in listed["games"]] == [12, 11, 10, 9, 8] and listed["played"] == 12
        one = c.get("/api/machines/menace/games/12").json()
        assert one["number"] == 12 and [p["move"] for p in one["plies"]] == listed["games"][0]["moves"]
        first = one["plies"][0]
        assert first["by_menace"] and first["box_number"] == 1 and first["bead"] in [b["bead"] for b in first["beads"]]
        assert c.get("/api/machines/menace/games/13").status_code == 404
        before = c.get("/api/machines/menace/boxes").json()["boxes"][0][4]
        undone = c.post("/api/machines/menace/undo", json={"games": 1}).json()
        assert undone["removed"] == [12] and undone["played"] == 11
        assert c.get("/api/machines/menace").json()["games"] == 11
        after = c.get("/api/machines/menace/boxes").json()["boxes"][0][4]
        box1 = [ch for ch in undone["changes"] if ch["box"] == 1]
        for ch in box1:
            assert [row[1] for row in before if row[0] == ch["bead"]] == [ch["before"]]
            assert [row[1] for row in after if row[0] == ch["bead"]] == [ch["after"]]
        game = c.post("/api/play", json={"machine": "menace"}).json()
        busy = c.post("/api/machines/menace/undo", json={"games": 1})
        assert busy.status_code == 409, busy.text
        c.post(f"/api/play/{game['seat']}/abandon", json={})
