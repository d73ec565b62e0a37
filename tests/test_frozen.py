"""A frozen machine: ``tournament --frozen``, ``play --frozen`` and the train page play without
learning; the games are kept in the history marked frozen, and undo, check, replay, history, stats,
export and import understand them, on both databases."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import Invoke, built_database, invoker, owner, query, train_300, wait_until
from history_helpers import stored_beads, stored_records
from starlette.testclient import TestClient

from menace.app.check import check_database
from menace.app.machines import init_machine, open_machine
from menace.app.session import PlaySession
from menace.app.tournament import FrozenOpponentError, run_tournament
from menace.core.errors import InvalidInputError
from menace.core.game import Side
from menace.core.learner import Learner, build_boxes
from menace.core.replay import Replayer
from menace.core.settings import MICHIE
from menace.games.tictactoe import TICTACTOE
from menace.web.app import create_app

EVERY_SQUARE = "\n".join(str(i) for i in range(1, 10)) + "\n"


@pytest.fixture
def trained(request: pytest.FixtureRequest, db_url: str) -> str:
    return built_database(request, db_url, "smart-300", train_300)


def frozen_flags(url: str) -> list[bool]:
    return [bool(f) for (f,) in query(url, "SELECT frozen FROM runs ORDER BY id")]


# -- the engine ---------------------------------------------------------------------------------------
def test_a_batch_played_without_learning_changes_no_bead_and_plays_the_same_games() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    learner = Learner(TICTACTOE, MICHIE, boxes)
    table = learner.opponent_table(lambda s: TICTACTOE.legal_moves(s), (Side.X,))
    before = learner.snapshot()
    data, outcomes = bytearray(), [0] * 16
    assert learner.play_batch(Side.X, table, random.Random(5), 200, data, outcomes, learn=False) == 200
    assert learner.snapshot() == before
    # The same games a learning machine would have played first (its first game is drawn from the same beads).
    learning = Learner(TICTACTOE, MICHIE, boxes)
    other = bytearray()
    learning.play_batch(Side.X, table, random.Random(5), 1, other, [0] * 16)
    assert data[:len(other)] == other
    assert learning.snapshot() != before


def test_a_replay_of_a_frozen_game_follows_it_and_learns_nothing() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    learner = Learner(TICTACTOE, MICHIE, boxes)
    table = learner.opponent_table(lambda s: TICTACTOE.legal_moves(s), (Side.X,))
    data = bytearray()
    learner.play_batch(Side.X, table, random.Random(2), 50, data, [0] * 16, learn=False)
    r = Replayer(TICTACTOE, MICHIE, boxes)
    assert r.apply_packed(bytes(data), learn=False) == len(data)
    assert r.games == 50 and r.counts == [list(c) for c in learner.counts]
    learnt = Replayer(TICTACTOE, MICHIE, boxes)
    learnt.apply_packed(bytes(data))
    assert learnt.counts != r.counts  # the same games learnt from do change beads


# -- tournaments ----------------------------------------------------------------------------------------
def test_a_frozen_tournament_keeps_its_games_marked_and_changes_no_bead(menace: Invoke, trained: str) -> None:
    before = stored_beads(trained)
    out = menace("tournament", "--vs", "random", "-n", "400", "--seed", "7", "--frozen").output
    assert "400 games against random" in out and "without learning (frozen)" in out
    assert "has played 700 games in all" in out
    assert stored_beads(trained) == before
    assert frozen_flags(trained) == [False, True]
    assert len(stored_records(trained)) == 700
    report = check_database(owner(trained), "menace", full=True)
    assert report.ok, report.faults
    assert "OK" in menace("check", "--full").output
    history = menace("history", "--last", "3").output
    assert re.search(r"^\s*700\s+tournament \(frozen\)\s+random", history, re.M), history
    assert "frozen: the machine played without learning; those games changed no bead." in history
    replay = menace("replay", "700").output
    assert "played without learning" in replay and "no bead changed" in replay
    assert "Learning rule" not in replay
    stats = menace("stats").output
    assert re.search(r"frozen\s+400 of them played without learning: \d+ won, \d+ drawn, \d+ lost", stats), stats


def test_replay_of_a_learning_game_after_a_frozen_run_meets_the_same_beads(menace: Invoke, trained: str) -> None:
    menace("tournament", "--vs", "random", "-n", "50", "--seed", "7", "--frozen")
    menace("tournament", "--vs", "smart", "-n", "20", "--seed", "8")
    assert check_database(owner(trained), "menace", full=True).ok
    out = menace("replay", "370").output
    assert "played without learning" not in out and "Learning rule" in out


def test_undo_takes_back_frozen_games_exactly(menace: Invoke, trained: str) -> None:
    menace("tournament", "--vs", "smart", "-n", "30", "--seed", "2")
    after_learning = stored_beads(trained)
    menace("tournament", "--vs", "random", "-n", "40", "--seed", "3", "--frozen")
    menace("tournament", "--vs", "smart", "-n", "25", "--seed", "4")
    assert stored_beads(trained) != after_learning
    out = menace("undo", "--games", "25").output
    assert "played without learning" not in out.splitlines()[0]
    assert stored_beads(trained) == after_learning
    out = menace("undo", "--games", "40").output
    assert "(tournament against random, played without learning" in out
    assert "No bead count changed" in out
    assert stored_beads(trained) == after_learning
    assert frozen_flags(trained) == [False, False]
    assert "OK" in menace("check", "--full").output


def test_a_frozen_machine_refuses_an_opponent_that_learns(menace: Invoke, trained: str) -> None:
    menace("-m", "other", "init")
    played = len(stored_records(trained))
    for vs in ("menace:other", "td:10"):
        result = menace("tournament", "--vs", vs, "-n", "5", "--frozen", ok=False)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert "plays without learning only against a player that does not learn" in result.output
        assert len([line for line in result.output.splitlines() if line.startswith("Error")]) == 1
    assert len(stored_records(trained)) == played and frozen_flags(trained) == [False]
    with open_machine(owner(trained), "menace", holder="a test") as m:
        with pytest.raises(FrozenOpponentError):
            run_tournament(m, "td:10", games=3, seed=1, frozen=True)


# -- games at the terminal --------------------------------------------------------------------------------
def test_play_frozen_stores_the_game_marked_and_changes_no_bead(menace: Invoke, db_url: str) -> None:
    menace("init")
    before = stored_beads(db_url)
    out = menace("play", "--seed", "4", "--frozen", "--games", "1", input=EVERY_SQUARE * 2).output
    assert "Played without learning (frozen): no bead changed." in out
    assert "Reinforcement (stored):" not in out
    assert stored_beads(db_url) == before
    assert frozen_flags(db_url) == [True]
    assert re.search(r"^\s*1\s+play \(frozen\)\s+person", menace("history").output, re.M)
    assert "OK" in menace("check", "--full").output


def test_an_operated_game_cannot_be_frozen(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with pytest.raises(InvalidInputError, match="cannot be played without learning"):
        PlaySession.open(owner(db_url), "menace", holder="a test", operated=True, frozen=True)


# -- export and import -----------------------------------------------------------------------------------
def test_export_and_import_carry_the_frozen_mark(menace: Invoke, trained: str, new_db_url: Callable[[], str],
                                                 tmp_path: Path) -> None:
    menace("tournament", "--vs", "random", "-n", "60", "--seed", "5", "--frozen")
    menace("tournament", "--vs", "smart", "-n", "10", "--seed", "6")
    path = tmp_path / "m.json"
    menace("export", str(path))
    body = json.loads(path.read_text())
    assert body["version"] == 3
    assert [r.get("frozen", False) for r in body["history"]["runs"]] == [False, True, False]
    other = new_db_url()
    again = invoker(other)
    again("import", str(path))
    assert frozen_flags(other) == [False, True, False]
    assert stored_beads(other) == stored_beads(trained)
    assert "OK" in again("check", "--full").output
    path2 = tmp_path / "again.json"
    again("export", str(path2))
    assert json.loads(path2.read_text())["history"] == body["history"]


def test_a_file_whose_frozen_mark_was_dropped_is_refused(menace: Invoke, trained: str, new_db_url: Callable[[], str],
                                                         tmp_path: Path) -> None:
    """The mark matters: without it the games would be learnt from, and the beads would not follow."""
    menace("tournament", "--vs", "random", "-n", "60", "--seed", "5", "--frozen")
    path = tmp_path / "m.json"
    menace("export", str(path))
    body = json.loads(path.read_text())
    del body["history"]["runs"][1]["frozen"]
    from menace.app.machine_file import checksum

    body["checksum"] = checksum(body)
    path.write_text(json.dumps(body))
    result = invoker(new_db_url())("import", str(path), ok=False)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "do not follow from the history" in result.output


def test_a_machine_that_always_learnt_is_still_written_as_version_2(menace: Invoke, trained: str,
                                                                    tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    menace("export", str(path))
    body = json.loads(path.read_text())
    assert body["version"] == 2 and all("frozen" not in r for r in body["history"]["runs"])


# -- the train page ------------------------------------------------------------------------------------------
def test_the_train_api_plays_without_learning(trained: str) -> None:
    before = stored_beads(trained)
    with TestClient(create_app(trained, "menace"), base_url="http://127.0.0.1:8000") as client:
        r = client.post("/api/train", json={"opponent": "random", "games": 200, "seed": 3, "frozen": True})
        assert r.status_code == 202 and r.json()["frozen"] is True
        wait_until(lambda: not client.get("/api/train").json()["running"], "the frozen tournament's end")
        s = client.get("/api/train").json()
        assert s["games"] == 200 and s["error"] is None and s["frozen"] is True
        assert client.post("/api/train", json={"opponent": "td", "games": 5, "frozen": True}).status_code == 400
        assert client.post("/api/train", json={"games": 5, "frozen": "yes"}).status_code == 400
        listed = client.get("/api/machines/menace/games?last=2").json()["games"]
        assert [g["frozen"] for g in listed] == [True, True] and listed[0]["number"] == 500
        assert client.get("/api/machines/menace/games/300").json()["frozen"] is False
        shown = client.get(f"/api/machines/menace/games/{listed[0]['number']}").json()
        assert shown["frozen"] is True and shown["reinforcement"] == []
    assert stored_beads(trained) == before
    assert frozen_flags(trained) == [False, True]
