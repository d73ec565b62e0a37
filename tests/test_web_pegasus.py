"""The web front end for a machine that learns by the Pegasus rule, and training without learning."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import Invoke, query, wait_until
from starlette.testclient import TestClient

from menace.web.app import create_app


@pytest.fixture
def client(menace: Invoke, db_url: str) -> Iterator[TestClient]:
    menace("init", "-m", "peg", "--rule", "pegasus")
    menace("tournament", "-m", "peg", "--vs", "random", "-n", "200", "--seed", "1")
    with TestClient(create_app(db_url, "peg")) as c:
        yield c


def test_the_wall_shows_each_moves_chance_in_percent(client: TestClient) -> None:
    w = client.get("/api/machines/peg/boxes").json()
    assert w["unit"] == "%" and len(w["boxes"]) == 304
    for row in w["boxes"]:
        beads = [dict(zip(w["bead_fields"], b)) for b in row[4]]
        assert abs(sum(b["count"] for b in beads) - 100) <= 0.05 * len(beads) + 0.01
        assert all(abs(b["initial"] - 100 / len(beads)) < 0.1 for b in beads)
    first = [dict(zip(w["bead_fields"], b)) for b in w["boxes"][0][4]]
    assert max(b["count"] for b in first) > 34  # the opening box has learnt something in 200 games
    summary = client.get("/api/machines/peg").json()
    assert summary["rule"] == "pegasus" and summary["pegasus"]["A"] == "1.025"


def test_a_boxs_history_is_its_chances(client: TestClient) -> None:
    s = client.get("/api/machines/peg/boxes/1/series?points=20").json()
    assert s["unit"] == "%" and s["games"][0] == 0 and s["games"][-1] == 200
    assert [round(c["counts"][0], 1) for c in s["series"]] == [33.3, 33.3, 33.3]
    wall_now = client.get("/api/machines/peg/boxes").json()["boxes"][0][4]
    assert [round(c["counts"][-1], 1) for c in s["series"]] == [row[1] for row in wall_now]


def test_training_without_learning_from_the_page(client: TestClient, db_url: str) -> None:
    before = client.get("/api/machines/peg/boxes").json()["boxes"]
    r = client.post("/api/train", json={"opponent": "random", "games": 300, "seed": 2, "frozen": True})
    assert r.status_code == 202 and r.json()["frozen"] is True
    wait_until(lambda: not client.get("/api/train").json()["running"], "the tournament's end")
    status = client.get("/api/train").json()
    assert status["games"] == 300 and status["error"] is None
    assert client.get("/api/machines/peg/boxes").json()["boxes"] == before
    assert query(db_url, "SELECT count(*) FROM runs WHERE frozen")[0][0] == 1
    assert client.post("/api/train", json={"games": 5, "frozen": "yes"}).status_code == 400


def test_a_game_in_the_browser_shows_the_odds_it_chose_by(client: TestClient, db_url: str) -> None:
    games = query(db_url, "SELECT count(*) FROM game_blocks")[0][0]
    t = client.post("/api/play", json={"machine": "peg", "seed": 4}).json()
    turn = t["turns"][0]
    assert turn["unit"] == "%" and abs(sum(b["count"] for b in turn["beads"]) - 100) < 0.5
    while not t["over"]:
        t = client.post(f"/api/play/{t['id']}/move", json={"move": t["legal"][0]}).json()
    assert t["end"]["ledger"] == [] and "Pegasus rule" in t["end"]["note"]
    assert query(db_url, "SELECT count(*) FROM game_blocks")[0][0] == games + 1
