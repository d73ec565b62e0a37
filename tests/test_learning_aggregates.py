"""The learning curve counts the results kept with each block (issue #31, item 2) and answers exactly
what a full recount of the stored games answers: after tournaments (kept blocks and summaries), a
game at the terminal, a frozen run, undo, a recount of a box, an import and a migration, on SQLite
and on PostgreSQL."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest
from conftest import owner, query, release
from history_helpers import play_person_games, stored_records

from menace.app import series, tournament
from menace.app.history import learning_series, undo_games
from menace.app.machines import init_machine, open_machine
from menace.app.transfer import export_machine, import_machine
from menace.core.game import Result
from menace.core.records import CorruptHistoryError, result_codes, result_planes, unpack_block
from menace.core.settings import MICHIE, Settings
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.database import downgrade, make_engine, open_database, session_scope, upgrade


@dataclass(frozen=True)
class Stored:
    """What a recount reads of a machine: read once, then every range is counted from it."""

    settings: Settings
    played: int
    blocks: list[hrepo.BlockInfo]
    """Every block, with its games (its checkpoint left out)."""
    runs: dict[int, hrepo.RunInfo]

    def holding(self, start: int, stop: int) -> list[hrepo.BlockInfo]:
        """The blocks holding games ``start`` to ``stop``, as ``hrepo.stream_blocks`` selects them."""
        return [b for b in self.blocks if b.first_game + b.n_games > start and b.first_game <= stop]


def stored(url: str, name: str) -> Stored:
    engine = open_database(url)
    try:
        with session_scope(engine) as s:
            machine_id, settings = repo.machine_settings(s, name)
            return Stored(settings, repo.games_played(s, machine_id),
                          list(hrepo.stream_blocks(s, machine_id, with_beads=False)), hrepo.runs(s, machine_id))
    finally:
        engine.dispose()


def recounted(history: Stored, name: str, window: int | None, points: int, first: int | None, last: int | None,
              from_start: bool) -> series.LearningData:
    """The learning curve as it was computed before the results were kept: every kept game's header
    read, a summary's tally interpolated (the reference the kept results must equal). The history is
    read once (:func:`stored`) for all the ranges a test compares: reading it again for each of them
    was three quarters of this file's CPU."""
    settings, played = history.settings, history.played
    lo = 1 if first is None else first
    hi = played if last is None else min(last, played)

    def fed(sampler: series.LearningSampler) -> series.LearningSampler:
        for b in history.holding(sampler.first, sampler.last):
            if b.kept:
                sampler.feed_games(b.first_game, unpack_block(b.data))
            else:
                sampler.feed_tally(b.first_game, b.n_games, b.tally)
        return sampler

    opponents: list[tuple[int, str]] = []
    for b in history.holding(lo, hi):
        run = history.runs[b.run_id]
        label = run.opponent if run.kind == "tournament" else f"{run.opponent} ({run.kind})"
        if not opponents or opponents[-1][1] != label:
            opponents.append((max(b.first_game, lo), label))
    data = fed(series.LearningSampler(lo, hi, window, points)).data(name, settings, opponents, played)
    if from_start and lo > 1:
        w, d, l_ = fed(series.LearningSampler(1, lo - 1, 1, 2)).totals[lo - 1]
        data = replace(data, cumulative=data.cumulative + w * settings.win + d * settings.draw
                       + l_ * settings.loss)
    return data


def same(a: series.LearningData, b: series.LearningData) -> None:
    for field in ("games", "cumulative", "rate_games", "win_rate", "draw_rate", "loss_rate"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert (a.window, a.opponents, a.totals, a.first, a.last, a.games_played) == \
        (b.window, b.opponents, b.totals, b.first, b.last, b.games_played)


def boundaries(url: str, name: str = "menace") -> list[int]:
    """The first and last game of every block: the numbers where counting can go wrong."""
    rows = query(url, "SELECT first_game, n_games FROM game_blocks b JOIN machines m ON m.id = b.machine_id "
                      "WHERE m.name = :n ORDER BY first_game", n=name)
    return sorted({g for f, n in rows for g in (f, f + n - 1)})


SAMPLED = [(points, window) for points in (2, 9, 5_000) for window in (None, 1, 13)]
"""How a curve is asked for: thinned to 2 or 9 points or every game, the window chosen by the range, 1 or 13."""
SAMPLED_FROM_GAME_1 = [(2, None), (9, 1), (5_000, 13)]
"""...and counted from game 1: three of those that between them take every value. Counting from game 1 adds
to the range's curve the reinforcement of the games before it, which depends on where the range starts
alone (it was asked with all nine, which counted the same games before each range nine times over)."""


def all_equal_a_recount(url: str, name: str = "menace") -> int:
    """Every curve asked of the machine equals its recount: the whole history and ranges cut at and
    beside block edges, thinned or not, any window, counted from the range or from game 1.
    (How many curves were compared.)"""
    edges = boundaries(url, name)
    played = edges[-1]
    picks = sorted({1, 2, played // 3, played // 2, *edges[1:4], *edges[len(edges) // 2:len(edges) // 2 + 3],
                    *edges[-3:]})
    ranges = [(None, None), (None, played // 2)] + [
        (a + da, b + db) for a in picks[:: max(len(picks) // 4, 1)] for b in picks[1::max(len(picks) // 3, 1)]
        for da, db in ((0, 0), (1, -1)) if 1 <= a + da < b + db <= played]
    asked: set[tuple[int, int]] = set()  # a range from game 1 asked once, by None or by 1
    compared = 0
    history = stored(url, name)
    for first, last in ranges:
        if (first or 1, last or played) in asked:
            continue
        asked.add((first or 1, last or played))
        for from_start, sampled in ((False, SAMPLED), (True, SAMPLED_FROM_GAME_1)):
            for points, window in sampled:
                got = learning_series(owner(url), name, window, points, first, last, from_start=from_start)
                same(got, recounted(history, name, window, points, first, last, from_start))
                compared += 1
    return compared


def results_are_the_games(url: str) -> None:
    """Each kept block's stored results are its games' results (and add up to its tally); a summary has none."""
    for kept, data, results, n, w, d, l_ in query(
            url, "SELECT kept, data, results, n_games, wins, draws, losses FROM game_blocks "
                 "LEFT JOIN block_results ON block_id = id"):
        if not kept:
            assert results is None
            continue
        assert bytes(results) == result_planes(result_codes(unpack_block(bytes(data))))
        planes = np.frombuffer(bytes(results), dtype="<u8").reshape(2, -1)
        assert (int(np.bitwise_count(planes[0]).sum()), int(np.bitwise_count(planes[1]).sum())) == (w, d)
        assert w + d + l_ == n


def naive_curve(url: str, name: str = "menace") -> list[int]:
    """The running reinforcement after every game, from the games one by one."""
    values = {Result.WIN: 3, Result.DRAW: 1, Result.LOSS: -1}
    return np.cumsum([values[r.result] for r in stored_records(url, name)]).tolist()


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 256 games, so a short history has several: a tournament looks at its waiting games
    every ``tournament.CHECK_EVERY`` (256) games, and writes them as a block whenever they are more than
    this many bytes (so always, whatever the clock says: the blocks are the same on a busy machine)."""
    monkeypatch.setattr(tournament, "FLUSH_BYTES", 300)


def test_the_kept_results_answer_as_a_full_recount(db_url: str, small_blocks: None) -> None:
    db = owner(db_url)
    init_machine(db, "menace", MICHIE, "michie")
    with open_machine(db, "menace", holder="a test") as m:
        tournament.run_tournament(m, "random", games=400, seed=1)
        play_person_games(m, 3, seed=2)
        tournament.run_tournament(m, "smart", games=150, seed=3, frozen=True)
        # past its first 200 games the run keeps only a summary of the rest
        tournament.run_tournament(m, "random", games=700, seed=4, keep_games=200, flush_seconds=1e9)
        tournament.run_tournament(m, "random", games=250, seed=5)
    assert query(db_url, "SELECT count(*) FROM game_blocks WHERE NOT kept")[0][0] >= 1
    results_are_the_games(db_url)
    assert all_equal_a_recount(db_url) > 100

    # undo: the block the new last game falls in is cut short, its results with it
    undo_games(db, "menace", 37)
    results_are_the_games(db_url)
    all_equal_a_recount(db_url)

    # a recount of a box (a correction) and games after it
    with open_machine(db, "menace", holder="a test") as m:
        m.correct(0, {0: 7, 1: 2}, "recount of box 1")
        tournament.run_tournament(m, "random", games=90, seed=6)
    results_are_the_games(db_url)
    all_equal_a_recount(db_url)

    # import: the copy's results are made from the file's games
    import_machine(db, export_machine(db, "menace"), rename="copy")
    results_are_the_games(db_url)
    all_equal_a_recount(db_url, "copy")
    same(learning_series(db, "copy", None, 300), replace(learning_series(db, "menace", None, 300), machine="copy"))


def test_every_game_of_a_short_history_is_its_own_point(db_url: str, small_blocks: None) -> None:
    db = owner(db_url)
    init_machine(db, "menace", MICHIE, "michie")
    with open_machine(db, "menace", holder="a test") as m:
        tournament.run_tournament(m, "random", games=300, seed=7)
        play_person_games(m, 2, seed=8)
        tournament.run_tournament(m, "smart", games=200, seed=9)
    undo_games(db, "menace", 5)
    curve = learning_series(db, "menace")
    naive = naive_curve(db_url)
    assert len(naive) == 497 and curve.games.tolist() == list(range(1, 498))
    assert curve.cumulative.tolist() == naive
    zoom = learning_series(db, "menace", first=123, last=456, from_start=True)
    assert zoom.cumulative.tolist() == naive[122:456]


def test_a_migrated_database_gets_the_results_its_blocks_would_be_written_with(
        db_url: str, small_blocks: None) -> None:
    db = owner(db_url)
    init_machine(db, "menace", MICHIE, "michie")
    with open_machine(db, "menace", holder="a test") as m:
        tournament.run_tournament(m, "random", games=500, seed=1)
        tournament.run_tournament(m, "random", games=600, seed=2, keep_games=100, flush_seconds=1e9)
    written = query(db_url, "SELECT block_id, results FROM block_results ORDER BY block_id")
    before = learning_series(db, "menace", points=50, first=77, last=1_000)
    release(db_url)
    engine = make_engine(db_url)
    try:
        downgrade(engine, "0008")  # as a database of the previous release is
        upgrade(engine)
    finally:
        engine.dispose()
    assert query(db_url, "SELECT block_id, results FROM block_results ORDER BY block_id") == written
    results_are_the_games(db_url)
    same(learning_series(owner(db_url), "menace", points=50, first=77, last=1_000), before)
    all_equal_a_recount(db_url)


def test_a_block_whose_results_are_missing_is_read_from_its_games(db_url: str, small_blocks: None) -> None:
    db = owner(db_url)
    init_machine(db, "menace", MICHIE, "michie")
    with open_machine(db, "menace", holder="a test") as m:
        tournament.run_tournament(m, "random", games=1_300, seed=3)  # six blocks (400 games made two)
    query(db_url, "DELETE FROM block_results WHERE block_id IN (SELECT id FROM game_blocks "
                  "ORDER BY first_game LIMIT 3 OFFSET 2)")
    assert [bool(has) for has, in query(db_url, "SELECT r.block_id IS NOT NULL FROM game_blocks b LEFT JOIN "
                                                "block_results r ON r.block_id = b.id ORDER BY b.first_game")] \
        == [True, True, False, False, False, True]  # a run of blocks without, between blocks with
    all_equal_a_recount(db_url)


def test_results_of_the_wrong_size_are_refused_as_damage(db_url: str) -> None:
    db = owner(db_url)
    init_machine(db, "menace", MICHIE, "michie")
    with open_machine(db, "menace", holder="a test") as m:
        tournament.run_tournament(m, "random", games=100, seed=3)
    query(db_url, "UPDATE block_results SET results = :r", r=b"\x00" * 8)
    with pytest.raises(CorruptHistoryError, match="results stored with games 1 to 100 are damaged"):
        learning_series(db, "menace")
