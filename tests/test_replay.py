"""Replaying the stored history from the initial beads gives back the stored beads."""

from __future__ import annotations

import random

import pytest
from conftest import owner
from history_helpers import play_person_games, stored_corrections, stored_machine, stored_records

from menace.app.check import check_database
from menace.app.history import undo_games
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import run_tournament
from menace.core.game import Side
from menace.core.learner import GameRecord, build_boxes
from menace.core.replay import (
    GameNotFoundError,
    Replayer,
    ReplayError,
    UnknownBoxError,
    bead_history,
    compare,
    fresh_learner,
    game_detail,
    replay_all,
)
from menace.core.settings import MICHIE, RUBYQUIZ, EmptyPolicy, Settings
from menace.games.tictactoe import SYMMETRIES, TICTACTOE
from menace.players import RulePlayer, find_player
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope

RESTOCKING = Settings(schedule=(1,), loss=-3, empty_policy=EmptyPolicy.RESTOCK)
"""One bead per colour and a harsh loss: boxes empty all the time and are restocked."""


def assert_replay_equals_stored(url: str) -> int:
    report = check_database(owner(url), "menace")
    assert report.faults == []
    games = report.games
    stored = stored_machine(url)
    counts = replay_all(TICTACTOE, stored.settings, stored.boxes, stored_records(url),
                        corrections=stored_corrections(url))
    assert compare(stored.boxes, counts) == []
    return games


@pytest.mark.parametrize(
    "settings",
    [MICHIE, RUBYQUIZ, RESTOCKING, Settings(side="both"), Settings(side="O", loss=-2)],
    ids=["michie-resign", "rubyquiz-keep-last", "restock", "both-sides", "second-player"],
)
def test_replay_of_play_tournaments_and_undos_equals_stored_beads(db_url: str, settings: Settings) -> None:
    init_machine(owner(db_url), "menace", settings, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        play_person_games(m, 3, seed=1)
        played = 3 + run_tournament(m, "random", games=400, seed=2).games
        play_person_games(m, 2, seed=3)
        played += 2 + run_tournament(m, "smart", games=300, seed=4).games
    undo_games(owner(db_url), "menace", 3)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        played += run_tournament(m, "smart", games=50, seed=5).games - 3
        play_person_games(m, 2, seed=6)
    undo_games(owner(db_url), "menace")
    games = assert_replay_equals_stored(db_url)
    # a tournament stops early when a first-move box empties (under resign), so count what was played
    assert games == played + 2 - 1 > 100


def test_restocked_boxes_replay_exactly(db_url: str) -> None:
    init_machine(owner(db_url), "menace", RESTOCKING, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "smart", games=500, seed=9)
    stored = stored_machine(db_url)
    # The history really did restock boxes: some game met an empty box.
    r = Replayer(TICTACTOE, stored.settings, stored.boxes)
    empties = 0
    for record in stored_records(db_url):
        detail_before = [not any(c) for c in r.counts]
        drawn = r.apply(record)
        empties += sum(1 for b, _ in drawn if detail_before[b])
    assert empties > 0
    assert compare(stored.boxes, r.counts) == []


def test_resignations_replay_exactly(db_url: str) -> None:
    harsh = Settings(schedule=(1,), loss=-3)  # resign: boxes empty and MENACE resigns
    init_machine(owner(db_url), "menace", harsh, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        result = run_tournament(m, "smart", games=2000, seed=3)
    records = stored_records(db_url)
    resigned = [r for r in records if TICTACTOE.outcome(_board(r.moves)) is None]
    assert resigned, "the harsh machine should have resigned at least once"
    assert result.games == len(records)
    assert_replay_equals_stored(db_url)


def _board(moves: list[int]) -> tuple[int, ...]:
    state = TICTACTOE.initial()
    for m in moves:
        state = TICTACTOE.play(state, m)
    return state


@pytest.mark.parametrize("settings", [MICHIE, RUBYQUIZ, RESTOCKING, Settings(side="both")])
def test_fast_replay_draws_the_beads_the_engine_draws(settings: Settings) -> None:
    boxes = build_boxes(TICTACTOE, settings)
    player = fresh_learner(TICTACTOE, settings, boxes)
    rng = random.Random(7)
    random_player = find_player("random").create(TICTACTOE, rng)
    assert isinstance(random_player, RulePlayer)
    table = player.options_table(random_player.options)
    slow = fresh_learner(TICTACTOE, settings, boxes)
    fast = Replayer(TICTACTOE, settings, boxes)
    for i in range(2000):
        side = settings.sides[i % len(settings.sides)]
        winner, moves = player.play_table(side, table, rng)
        record = GameRecord(side, moves, winner)
        drawn = slow.replay(record)
        slow.reinforce(drawn, record.result)
        assert fast.apply(record) == [(d.box, d.bead) for d in drawn]
    assert fast.counts == slow.counts == player.counts


def test_an_illegal_stored_move_is_refused() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    r = Replayer(TICTACTOE, MICHIE, boxes)
    with pytest.raises(ReplayError, match="game 1: move 2"):
        r.apply(GameRecord(Side.X, [4, 4], 1))
    with pytest.raises(ReplayError):
        Replayer(TICTACTOE, MICHIE, boxes).apply(GameRecord(Side.O, [4, 0], 1))


def test_bead_history_recovers_any_box_at_any_game(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=300, seed=11)
    stored = stored_machine(db_url)
    records = stored_records(db_url)
    checkpoints = {n: replay_all(TICTACTOE, stored.settings, stored.boxes, records[:n]) for n in (1, 17, 150, 299)}
    for box_index in (0, 5, 40):
        series = bead_history(TICTACTOE, stored.settings, stored.boxes, records, box_index)
        assert series.games[0] == 0 and series.games[-1] == len(records)
        assert series.games == sorted(set(series.games))
        assert series.at(0) == stored.boxes[box_index].initial
        assert series.at(len(records)) == stored.boxes[box_index].beads
        for n, counts in checkpoints.items():
            row = counts[box_index]
            assert series.at(n) == {m: row[m] for m in stored.boxes[box_index].initial}
    with pytest.raises(UnknownBoxError):
        bead_history(TICTACTOE, stored.settings, stored.boxes, records, 304)


def test_game_detail_shows_boxes_symmetries_and_beads(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=60, seed=12)
    stored = stored_machine(db_url)
    records = stored_records(db_url)
    by_name = {s.name: s for s in SYMMETRIES}
    for number in (1, 30, 60):
        d = game_detail(TICTACTOE, stored.settings, stored.boxes, records, number)
        assert d.record == records[number - 1]
        assert [p.square for p in d.plies] == records[number - 1].moves
        r = Replayer(TICTACTOE, stored.settings, stored.boxes)
        r.apply_all(records[: number - 1])
        for ply in d.plies:
            if ply.box_number is None:
                continue
            assert ply.by_menace and ply.bead is not None and ply.symmetry is not None
            assert by_name[ply.symmetry].real_move(ply.bead) == ply.square
            assert ply.beads == {m: r.counts[ply.box_number - 1][m] for m in ply.beads}
            assert ply.beads[ply.bead] > 0
        for line in d.reinforcement:
            assert line.change == d.delta or (line.after == 0 and d.delta < 0)
    with pytest.raises(GameNotFoundError):
        game_detail(TICTACTOE, stored.settings, stored.boxes, records, 61)


def test_corrections_take_effect_after_their_game(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=100, seed=13)
        box_id = m.stored.box_ids[0]
    db = open_database(db_url)
    try:
        with session_scope(db, write=True) as s:
            repo.add_corrections(s, repo.machine_id(s, "menace"), 100, [(box_id, 4, 50)], "test")
    finally:
        db.dispose()
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        assert m.learner.counts[0][4] == 50
        run_tournament(m, "random", games=100, seed=14)
    assert_replay_equals_stored(db_url)
    stored = stored_machine(db_url)
    fixes = stored_corrections(db_url)
    assert [(f.after_game, f.box_number, f.move, f.count) for f in fixes] == [(100, 1, 4, 50)]
    series = bead_history(TICTACTOE, stored.settings, stored.boxes, stored_records(db_url), 0, corrections=fixes)
    assert series.at(100)[4] == 50
    assert series.at(200) == stored.boxes[0].beads
