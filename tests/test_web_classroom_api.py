"""The classroom's API: players that fit the machine's game, games whose page died, the queue,
the teacher stopping a game."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import Invoke
from starlette.testclient import TestClient

from menace.web.app import create_app


@pytest.fixture
def two_games(sqlite_menace: Invoke, sqlite_url: str) -> str:
    sqlite_menace("init")
    sqlite_menace("-m", "her", "init", "--game", "hexapawn")
    sqlite_menace("-m", "her2", "init", "--game", "hexapawn")
    return sqlite_url


@pytest.fixture
def client(two_games: str) -> Iterator[TestClient]:
    with TestClient(create_app(two_games, "menace")) as c:
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
