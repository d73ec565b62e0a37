"""``undo`` takes back the last games and their reinforcement exactly."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from datetime import datetime

import pytest
from conftest import Invoke, built_database, owner
from history_helpers import play_person_games, stored_beads, stored_corrections, stored_machine, stored_records
from sqlalchemy import insert

from menace.app.check import check_database
from menace.app.history import NothingToUndoError, list_games, undo_games
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import run_tournament
from menace.core.game import Result
from menace.core.replay import Replayer
from menace.core.settings import MICHIE, EmptyPolicy, Settings
from menace.games.tictactoe import TICTACTOE
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope
from menace.storage.leases import MachineBusyError
from menace.storage.models import block_table, lock_table, run_table

FLOORING = Settings(schedule=(1,), loss=-3, empty_policy=EmptyPolicy.RESTOCK)
"""A loss takes up to 3 beads from a colour holding 1: counts floor at 0 all the time."""


def rows(url: str) -> tuple[int, int, int]:
    """Games, blocks and runs stored."""
    from sqlalchemy import func, select

    db = open_database(url)
    try:
        with session_scope(db) as s:
            mid = repo.machine_id(s, "menace")
            blocks = s.scalar(select(func.count()).select_from(block_table).where(block_table.c.machine_id == mid))
            runs = s.scalar(select(func.count()).select_from(run_table).where(run_table.c.machine_id == mid))
            return repo.games_played(s, mid), int(blocks or 0), int(runs or 0)
    finally:
        db.dispose()


@pytest.mark.parametrize("settings", [MICHIE, FLOORING], ids=["michie", "floored-losses"])
def test_undo_five_times_returns_the_beads_of_five_games_earlier(db_url: str, settings: Settings) -> None:
    init_machine(owner(db_url), "menace", settings, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "smart", games=200, seed=1)
    before = stored_beads(db_url)
    played, blocks, runs = rows(db_url)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        play_person_games(m, 2, seed=2)  # two games at the terminal: a run each
        run_tournament(m, "smart", games=3, seed=3)
    assert rows(db_url)[0] == played + 5
    assert stored_beads(db_url) != before
    for i in range(5):
        done = undo_games(owner(db_url), "menace")
        assert [g.number for g in done.removed] == [played + 5 - i]
        assert done.played == played + 4 - i
    assert stored_beads(db_url) == before
    assert rows(db_url) == (played, blocks, runs)
    assert check_database(owner(db_url), "menace").faults == []


def floored_in_last_games(url: str, last: int) -> int:
    """How many beads the last ``last`` games' losses found too few of to take the rule's full toll."""
    stored = stored_machine(url)
    records = stored_records(url)
    r = Replayer(TICTACTOE, stored.settings, stored.boxes)
    r.apply_all(records[:-last])
    floored = 0
    for record in records[-last:]:
        before = [list(c) for c in r.counts]
        for b, m in r.apply(record):
            # The count the loss met: a box found empty was restocked with its first beads.
            met = before[b][m] if any(before[b]) else r.learner.initial[b][m]
            if record.result is Result.LOSS and met < -FLOORING.loss:
                assert r.counts[b][m] == 0
                floored += 1
    return floored


def test_undo_is_exact_where_a_loss_found_no_bead_to_take(db_url: str) -> None:
    init_machine(owner(db_url), "menace", FLOORING, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "smart", games=30, seed=4)
    for seed in range(5, 40):
        before = stored_beads(db_url)
        with open_machine(owner(db_url), "menace", holder="a test") as m:
            run_tournament(m, "random", games=5, seed=seed)
        if floored_in_last_games(db_url, 5):
            break
    else:
        pytest.fail("no loss floored a count at 0 in 35 tries")
    for _ in range(5):
        undo_games(owner(db_url), "menace")
    assert stored_beads(db_url) == before


def _history_of_151(url: str) -> None:
    """139 tournament games, one at the terminal, 11 more in a tournament."""
    init_machine(owner(url), "menace", MICHIE, None)
    with open_machine(owner(url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=139, seed=6)
        play_person_games(m, 1, seed=7)
        run_tournament(m, "smart", games=11, seed=8)


def test_undo_several_at_once_equals_one_at_a_time(request: pytest.FixtureRequest, db_url: str,
                                                    new_db_url: Callable[[], str]) -> None:
    one_by_one_url = new_db_url()
    for url in (db_url, one_by_one_url):  # the same history in two databases, built once and copied
        built_database(request, url, "undo-151", _history_of_151)
    assert stored_beads(db_url) == stored_beads(one_by_one_url)
    done = undo_games(owner(db_url), "menace", 12)
    assert [g.number for g in done.removed] == list(range(140, 152))
    assert {g.kind for g in done.removed} == {"tournament", "play"}
    for _ in range(12):
        undo_games(owner(one_by_one_url), "menace")
    assert stored_beads(db_url) == stored_beads(one_by_one_url)
    assert rows(db_url) == rows(one_by_one_url) == (139, 1, 1)
    assert list_games(owner(db_url), "menace").games == list_games(owner(one_by_one_url), "menace").games


def test_undo_with_no_games_or_too_many_is_refused(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with pytest.raises(NothingToUndoError, match="'menace' has played no games: nothing to undo"):
        undo_games(owner(db_url), "menace")
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=3, seed=1)
    with pytest.raises(NothingToUndoError, match="has played only 3 games; cannot undo 4"):
        undo_games(owner(db_url), "menace", 4)
    undo_games(owner(db_url), "menace", 3)
    assert rows(db_url) == (0, 0, 0)
    assert stored_beads(db_url) == [dict(b.initial) for b in stored_machine(db_url).boxes]


def correct(url: str, box_id: int, move: int, count: int, reason: str) -> None:
    """Set a bead count by hand after the last game, as an operator's correction does."""
    db = open_database(url)
    try:
        with session_scope(db, write=True) as s:
            mid = repo.machine_id(s, "menace")
            repo.add_corrections(s, mid, repo.games_played(s, mid), [(box_id, move, count)], reason)
    finally:
        db.dispose()


def test_undo_removes_corrections_made_after_the_games_it_takes_back(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=10, seed=2)
        box_id = m.stored.box_ids[0]
    correct(db_url, box_id, 0, 40, "kept: after game 10")
    before = stored_beads(db_url)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=10, seed=3)
    correct(db_url, box_id, 1, 30, "goes: after game 20")
    assert check_database(owner(db_url), "menace").faults == []
    undo_games(owner(db_url), "menace", 10)
    assert [f.reason for f in stored_corrections(db_url)] == ["kept: after game 10"]
    assert stored_beads(db_url) == before
    assert check_database(owner(db_url), "menace").faults == []


def test_undo_is_refused_while_another_process_holds_the_machine(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=5, seed=3)
    db = open_database(db_url)
    try:
        with session_scope(db, write=True) as s:
            now = datetime.now()
            s.execute(insert(lock_table).values(machine_id=repo.machine_id(s, "menace"), holder="a tournament",
                                                host=socket.gethostname(), pid=os.getppid(), acquired_at=now,
                                                heartbeat_at=now))
    finally:
        db.dispose()
    with pytest.raises(MachineBusyError, match="in use by a tournament"):
        undo_games(owner(db_url), "menace")
    assert rows(db_url)[0] == 5


def test_undo_says_which_recount_goes_with_the_games(menace: Invoke) -> None:
    menace("init")
    menace("tournament", "--vs", "smart", "-n", "5", "--seed", "1")
    menace("reconcile", "1", "--count", "W=9", "--count", "K=9", "--count", "G=9")
    out = menace("undo").output
    assert "The bead counts set by hand after game 5 went with the games (3 counts, box 1: recount of box 1" in out
    assert "-m menace reconcile 1" in out


def test_undo_names_a_dropped_recount_by_the_game_history_lists_it_after(menace: Invoke) -> None:
    """The recount history shows as "after game 4" is named so by undo, not by the games left (3)."""
    menace("init")
    menace("tournament", "--vs", "smart", "-n", "4", "--seed", "1")
    menace("reconcile", "1", "--count", "W=9", "--count", "K=9", "--count", "G=9")
    menace("tournament", "--vs", "smart", "-n", "1", "--seed", "2")
    listed = [line for line in menace("history").output.splitlines() if "recount of box 1" in line]
    assert len(listed) == 1 and listed[0].startswith("after game 4:"), listed
    out = menace("undo", "--games", "2").output
    assert "The bead counts set by hand after game 4 went with the games" in out, out
    assert "has played 3 games now" in out, out
