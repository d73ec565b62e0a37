"""Checkpoints, summarized blocks and the incremental check: the history still says exactly what the
beads are, and the commands that read it start from the nearest checkpoint."""

from __future__ import annotations

import gc
import random
import shutil
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import owner, query
from history_helpers import play_person_games, stored_beads, stored_machine, stored_records

import menace.app.machines as machines
import menace.app.tournament as tournament
from menace.app.check import CHANGED, check_database
from menace.app.history import (
    NothingToUndoError,
    SummarizedGameError,
    beads_series,
    learning_series,
    replay_game,
    undo_games,
)
from menace.app.machines import init_machine, machine_summary, open_machine
from menace.app.transfer import export_machine, import_machine
from menace.core.game import Side
from menace.core.learner import Learner, build_boxes
from menace.core.records import CorruptHistoryError, GameBuffer, decode_games, pack_beads, unpack_beads, unpack_box
from menace.core.replay import Replayer, game_detail
from menace.core.settings import MICHIE, EmptyPolicy, Scope, Settings
from menace.games.tictactoe import TICTACTOE
from menace.players import RulePlayer, find_player

SETTINGS = [
    MICHIE,
    Settings(schedule=(1,), loss=-3, empty_policy=EmptyPolicy.RESTOCK),
    Settings(loss=-2, empty_policy=EmptyPolicy.KEEP_LAST),
    Settings(scope=Scope.LAST),
]


@pytest.fixture
def small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of a few hundred games and a checkpoint every 500 games, so short tests have many."""
    monkeypatch.setattr(machines, "CHECKPOINT_GAMES", 500)
    monkeypatch.setattr(tournament, "FLUSH_BYTES", 2_000)


def blocks(url: str) -> list[tuple[int, int, int, bool, bool, bool]]:
    """(id, first game, games, has a checkpoint, kept, verified) of every block, in order."""
    return [(i, f, n, b is not None, bool(k), d is not None) for i, f, n, b, k, d in query(
        url, "SELECT id, first_game, n_games, beads, kept, digest FROM game_blocks ORDER BY first_game")]


def train(url: str, games: int, keep: int | None = None, seed: int = 1, opponent: str = "random") -> None:
    with open_machine(owner(url), "menace", holder="a test") as m:
        tournament.run_tournament(m, opponent, games=games, seed=seed, keep_games=keep)


# -- the core ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("settings", SETTINGS, ids=["michie", "restock", "keep-last", "last-bead"])
def test_replay_from_the_stored_bytes_equals_replay_game_by_game(settings: Settings) -> None:
    learner = Learner(TICTACTOE, settings, build_boxes(TICTACTOE, settings))
    rng = random.Random(5)
    player = find_player("random").create(TICTACTOE, rng)
    assert isinstance(player, RulePlayer)
    table = learner.options_table(player.options)
    buf = GameBuffer()
    for _ in range(3000):
        res, moves = learner.play_table(Side.X, table, rng)
        buf.add(int(Side.X), moves, res)
    raw = bytes(buf.data)
    by_record = Replayer(TICTACTOE, settings, build_boxes(TICTACTOE, settings))
    by_record.apply_all(decode_games(raw))
    by_bytes = Replayer(TICTACTOE, settings, build_boxes(TICTACTOE, settings))
    at = by_bytes.apply_packed(raw, 0, 1234)
    by_bytes.apply_packed(raw, at)
    assert by_bytes.games == by_record.games == 3000
    assert by_bytes.counts == by_record.counts == learner.counts


def test_beads_pack_and_unpack_exactly() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    r = Replayer(TICTACTOE, MICHIE, boxes)
    counts = [list(row) for row in r.counts]
    counts[0][4] = 2**40  # far past a 32-bit integer
    packed = pack_beads(counts, r.layout())
    assert unpack_beads(packed, r.layout(), 9) == counts
    # one box alone, as a bead series reads it from each checkpoint
    assert [unpack_box(packed, r.layout(), i, 9) for i in range(len(boxes))] == counts
    with pytest.raises(CorruptHistoryError, match="truncated"):
        unpack_box(packed[:-3], r.layout(), 0, 9)
    with pytest.raises(CorruptHistoryError, match=r"holds \d+ counts, not \d+"):
        unpack_box(pack_beads(counts, [*r.layout()[:-1], r.layout()[-1][:-1]]), r.layout(), 0, 9)


# -- checkpoints -------------------------------------------------------------------------------------
def test_tournaments_write_checkpoints_and_undo_from_them_equals_a_full_replay(
        db_url: str, small_blocks: None) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 3000)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        play_person_games(m, 3, seed=2)
    train(db_url, 2000, seed=3)
    found = blocks(db_url)
    assert sum(b[3] for b in found) >= 8  # a checkpoint every 500 games or so
    records = stored_records(db_url)
    stored = stored_machine(db_url)
    for n in (1, 7, 1500):
        expected = Replayer(TICTACTOE, MICHIE, stored.boxes)
        expected.apply_all(records[: len(records) - n])
        undo_games(owner(db_url), "menace", n)
        assert [list(b.values()) for b in stored_beads(db_url)] == [
            [expected.counts[i][m] for m in sorted(box.initial)] for i, box in enumerate(stored.boxes)]
        records = records[: len(records) - n]
        assert check_database(owner(db_url), "menace", full=True).faults == []


def test_replay_of_a_game_from_a_checkpoint_equals_the_replay_from_game_one(db_url: str, small_blocks: None) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 2600)
    records = stored_records(db_url)
    stored = stored_machine(db_url)
    for number in (1, 499, 500, 501, 2600):
        shown = replay_game(owner(db_url), "menace", number).detail
        assert shown == game_detail(TICTACTOE, MICHIE, stored.boxes, records, number)


def test_a_bead_series_ends_at_the_stored_beads_and_starts_at_the_first(db_url: str, small_blocks: None,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import menace.app.history as history

    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 4000)
    stored = stored_machine(db_url)
    replayed = beads_series(owner(db_url), "menace", 1, points=50)
    monkeypatch.setattr(history, "REPLAY_GAMES", 0)  # served from the checkpoints alone
    served = beads_series(owner(db_url), "menace", 1, points=50)
    for data in (replayed, served):
        s = data.series
        assert s.games[0] == 0 and s.games[-1] == 4000 and len(s.games) <= 50
        assert s.at(0) == stored.boxes[0].initial and s.at(4000) == stored.boxes[0].beads
    points = dict(zip(replayed.series.games, replayed.series.counts))
    assert all(points[g] == c for g, c in zip(served.series.games, served.series.counts) if g in points)


# -- the incremental check ---------------------------------------------------------------------------
def test_check_remembers_what_it_verified_and_replays_only_the_new_games(db_url: str,
                                                                        small_blocks: None) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 3000)
    first = check_database(owner(db_url), "menace")
    assert first.ok and first.replayed == 3000
    assert any(b[5] for b in blocks(db_url))
    again = check_database(owner(db_url), "menace")
    assert again.ok and again.replayed < 500
    train(db_url, 1000, seed=2)
    later = check_database(owner(db_url), "menace")
    assert later.ok and later.games == 4000 and later.replayed < 1500
    assert check_database(owner(db_url), "menace", full=True).replayed == 4000




def test_incremental_check_catches_a_changed_block_and_a_changed_checkpoint(db_url: str,
                                                                          small_blocks: None) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 3000)
    assert check_database(owner(db_url), "menace").ok
    early = blocks(db_url)[1]
    # Another block's games in place of this one's: every game legal, only the history is different.
    other = blocks(db_url)[2]
    data, n = query(db_url, "SELECT data, n_games FROM game_blocks WHERE id = :i", i=other[0])[0]
    query(db_url, "UPDATE game_blocks SET data = :d, n_games = :n WHERE id = :i", d=data, n=n, i=early[0])
    report = check_database(owner(db_url), "menace")
    # The rows are read first: the block's tally and numbering no longer add up, named before any replay.
    assert any(f"the block from game {early[1]}" in f for f in report.faults)
    query(db_url, "DELETE FROM game_blocks")
    init_machine(owner(db_url), "menace", MICHIE, None, replace=True)
    train(db_url, 3000)
    assert check_database(owner(db_url), "menace").ok
    checkpointed = [b for b in blocks(db_url) if b[3]]
    target = checkpointed[len(checkpointed) // 2]
    boxes = stored_machine(db_url).boxes
    r = Replayer(TICTACTOE, MICHIE, boxes)
    counts = [list(row) for row in r.counts]
    counts[0][0] += 1
    query(db_url, "UPDATE game_blocks SET beads = :b WHERE id = :i", b=pack_beads(counts, r.layout()), i=target[0])
    report = check_database(owner(db_url), "menace")
    assert any("has changed since it was verified" in f for f in report.faults)
    assert any(f"checkpoint after game {target[1] + target[2] - 1:,} differs" in f for f in report.faults)
    assert not check_database(owner(db_url), "menace", full=True).ok


# -- summarized blocks -------------------------------------------------------------------------------
def test_summarized_blocks_keep_the_curve_undo_to_a_block_and_check(db_url: str,
                                                                   small_blocks: None) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 3000, keep=1000)
    found = blocks(db_url)
    summaries = [b for b in found if not b[4]]
    assert summaries and all(b[3] for b in summaries) and summaries[0][1] > 1000
    assert check_database(owner(db_url), "menace").ok
    assert check_database(owner(db_url), "menace", full=True).ok
    assert machine_summary(owner(db_url), "menace").games == 3000
    curve = learning_series(owner(db_url), "menace")
    assert curve.last == 3000 and sum(curve.totals) == 3000
    last = found[-1]
    with pytest.raises(NothingToUndoError, match="kept only as a summary"):
        undo_games(owner(db_url), "menace", 1)
    with pytest.raises(SummarizedGameError):
        replay_game(owner(db_url), "menace", 2999)
    done = undo_games(owner(db_url), "menace", last[2])
    assert done.played == 3000 - last[2]
    assert check_database(owner(db_url), "menace", full=True).ok
    assert replay_game(owner(db_url), "menace", 1000).detail.number == 1000
    train(db_url, 500, seed=4, keep=None)  # kept games after summaries replay from their checkpoint
    assert check_database(owner(db_url), "menace", full=True).ok
    assert check_database(owner(db_url), "menace").ok


def test_export_import_carries_checkpoints_and_summaries_exactly(db_url: str, new_db_url: Callable[[], str],
                                                                small_blocks: None) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 2500, keep=1200)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        m.correct(0, {0: 9}, "a recount")
    train(db_url, 600, seed=2, keep=None)
    body = export_machine(owner(db_url), "menace")
    assert body["version"] == 2
    assert any(b.get("kept") is False for b in body["history"]["blocks"])
    assert any("beads" in b for b in body["history"]["blocks"])
    other = new_db_url()
    import_machine(owner(other), body)
    assert export_machine(owner(other), "menace")["history"] == body["history"]
    assert check_database(owner(other), "menace", full=True).ok
    # A checkpoint that does not follow from the games before it is refused.
    kept = next(b for b in body["history"]["blocks"] if "beads" in b and b.get("kept", True))
    boxes = stored_machine(db_url).boxes
    r = Replayer(TICTACTOE, MICHIE, boxes)
    import base64

    from menace.app.transfer import MachineFileError, checksum

    kept["beads"] = base64.b64encode(pack_beads(r.counts, r.layout())).decode("ascii")
    body["checksum"] = checksum(body)
    with pytest.raises(MachineFileError, match="do not follow"):
        import_machine(owner(new_db_url()), body)


def test_migrations_down_and_up_keep_checkpoints_and_summaries(db_url: str, small_blocks: None) -> None:
    from menace.storage.database import downgrade, make_engine, upgrade

    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 2000, keep=800)
    assert check_database(owner(db_url), "menace").ok
    before = export_machine(owner(db_url), "menace")
    db = make_engine(db_url)
    downgrade(db, "0004")
    upgrade(db)
    downgrade(db, "base")
    upgrade(db)
    db.dispose()
    assert export_machine(owner(db_url), "menace") == before
    assert check_database(owner(db_url), "menace").replayed == 0  # the verified checksum came back too


# -- bounded memory ----------------------------------------------------------------------------------
def test_series_memory_does_not_grow_with_the_history(db_url: str, small_blocks: None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import menace.core.replay as replay

    monkeypatch.setattr(replay, "CACHE_GAMES", 100)  # the one store that grows with distinct games: bounded
    init_machine(owner(db_url), "menace", MICHIE, None)
    peaks = []
    for games in (4000, 16000):
        train(db_url, games - (peaks and 4000 or 0), seed=len(peaks) + 1)
        tracemalloc.start()
        learning_series(owner(db_url), "menace", points=200)
        beads_series(owner(db_url), "menace", 1, points=200)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 6 * 2**20
    assert peaks[1] < peaks[0] * 1.5  # four times the games, not four times the memory


def test_a_thinned_learning_series_draws(db_url: str, tmp_path: Path) -> None:
    from menace.render.plots import render_learning

    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 3000)
    data = learning_series(owner(db_url), "menace", points=50)
    assert len(data.games) == 50 and data.played == 3000
    render_learning(data, tmp_path / "learning.svg")
    assert (tmp_path / "learning.svg").read_bytes().startswith(b"<?xml")


def test_a_box_at_any_game_comes_from_the_nearest_checkpoint(db_url: str, small_blocks: None) -> None:
    from menace.app.history import box_at

    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 2200)
    stored = stored_machine(db_url)
    records = stored_records(db_url)
    for number in (0, 1, 999, 1500, 2200):
        r = Replayer(TICTACTOE, MICHIE, stored.boxes)
        r.apply_all(records[:number])
        for box in (1, 5):
            assert box_at(owner(db_url), "menace", box, number) == {
                m: r.counts[box - 1][m] for m in sorted(stored.boxes[box - 1].initial)}
    assert box_at(owner(db_url), "menace", 1, 2200) == stored.boxes[0].beads


def test_the_strict_file_check_takes_version_2_and_still_reads_version_1(db_url: str, new_db_url: Callable[[], str],
                                                                         small_blocks: None,
                                                                         tmp_path: Path) -> None:
    import json

    from menace.app.transfer import (
        MachineFileError,
        checksum,
        parse_machine_file,
        read_machine_file,
        write_machine_file,
    )

    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 2500, keep=1200)
    # Version 2 through the bounded loader the web uses, and export -> import -> export byte-identical.
    first = tmp_path / "first.json"
    write_machine_file(export_machine(owner(db_url), "menace"), first)
    other = new_db_url()
    import_machine(owner(other), parse_machine_file(first.read_bytes(), "first.json"))
    second = tmp_path / "second.json"
    write_machine_file(export_machine(owner(other), "menace"), second)
    assert first.read_bytes() == second.read_bytes()
    body = read_machine_file(first)
    # A summary's tally cannot be recomputed from its games: it must at least add up to them.
    summary = next(b for b in body["history"]["blocks"] if b.get("kept") is False)
    summary["wins"] += 1
    body["checksum"] = checksum(body)
    with pytest.raises(MachineFileError, match="add up"):
        import_machine(owner(new_db_url()), body)
    summary["wins"] -= 1
    summary["data"] = body["history"]["blocks"][0]["data"]  # a summary holds no games
    body["checksum"] = checksum(body)
    with pytest.raises(MachineFileError):
        import_machine(owner(new_db_url()), body)
    # A version-1 file (every game kept, no checkpoints) reads as before.
    plain = new_db_url()
    init_machine(owner(plain), "menace", MICHIE, None)
    train(plain, 300)
    v1 = export_machine(owner(plain), "menace")
    assert all("beads" not in b and "kept" not in b for b in v1["history"]["blocks"])
    v1["version"] = 1
    v1["checksum"] = checksum(v1)
    third = new_db_url()
    import_machine(owner(third), parse_machine_file(json.dumps(v1).encode(), "v1.json"))
    assert check_database(owner(third), "menace", full=True).ok


def test_check_trusts_a_summarys_tally_only_when_it_adds_up(db_url: str, small_blocks: None) -> None:
    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 2500, keep=1000)
    assert check_database(owner(db_url), "menace", full=True).ok  # summaries' tallies cannot be recomputed: trusted
    summary = next(b for b in blocks(db_url) if not b[4])
    query(db_url, "UPDATE game_blocks SET wins = wins + 1 WHERE id = :i", i=summary[0])
    report = check_database(owner(db_url), "menace")
    assert any(f"the block from game {summary[1]} is a summary" in f and "forged" in f for f in report.faults)
    query(db_url, "UPDATE game_blocks SET wins = wins - 1, beads = NULL WHERE id = :i", i=summary[0])
    report = check_database(owner(db_url), "menace")
    assert any("without the beads after it" in f for f in report.faults)


def test_an_incremental_check_does_not_inflate_the_blocks_it_verified_before(
        db_url: str, small_blocks: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The blocks a check verified are trusted by their checksum: the next check reads them, but neither
    inflates them nor counts their games again (flat in the history's length). A tally forged since is
    caught all the same: the checksum no longer holds, and everything is read again."""
    import menace.app.check as check

    init_machine(owner(db_url), "menace", MICHIE, None)
    train(db_url, 3000)
    assert check_database(owner(db_url), "menace").ok
    train(db_url, 400, seed=2)
    inflated: list[int] = []
    real = check.unpack_block_bounded

    def counting(data: bytes, n: int) -> bytes:
        inflated.append(n)
        return real(data, n)

    monkeypatch.setattr(check, "unpack_block_bounded", counting)
    report = check_database(owner(db_url), "menace")
    assert report.ok and report.games == 3400
    # only the blocks after the last verified checkpoint
    newer = sum(n for _, first, n, _, _, verified in blocks(db_url) if first > 3000 - 500)
    assert 0 < sum(inflated) <= newer
    old = blocks(db_url)[1]
    query(db_url, f"UPDATE game_blocks SET wins = wins - 1, losses = losses + 1 WHERE id = {old[0]}")
    report = check_database(owner(db_url), "menace")
    assert any(CHANGED in f for f in report.faults)
    assert any(f"the block from game {old[1]} says" in f and "forged" in f for f in report.faults)


def test_export_streams_the_file_byte_for_byte_in_memory_that_does_not_grow(
        db_url: str, small_blocks: None, tmp_path: Path) -> None:
    """export_to_file writes exactly the file write_machine_file writes from export_machine's structure
    (checkpoints, summaries, corrections, no games at all), with the blocks streamed out: its memory
    does not grow with the history."""
    from menace.app.transfer import export_to_file, write_machine_file

    init_machine(owner(db_url), "menace", MICHIE, None)

    def both(label: str) -> int:
        write_machine_file(export_machine(owner(db_url), "menace"), tmp_path / f"{label}-whole.json")
        tracemalloc.start()
        export_to_file(owner(db_url), "menace", tmp_path / f"{label}-streamed.json")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert (tmp_path / f"{label}-streamed.json").read_bytes() == (tmp_path / f"{label}-whole.json").read_bytes()
        return peak

    both("empty")
    train(db_url, 2500, keep=1200)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        m.correct(0, {0: 9}, "a recount")
    train(db_url, 3000, seed=2, keep=None)
    small = both("small")
    train(db_url, 24000, seed=3, keep=None)
    large = both("large")
    assert (tmp_path / "large-streamed.json").stat().st_size > 2 * (tmp_path / "small-streamed.json").stat().st_size
    assert large < small * 1.5 + 200_000


@pytest.mark.slow
def test_import_holds_the_file_once(sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   sqlite_template: Path) -> None:
    """menace import reads the file a chunk at a time and holds a few blocks of it at a time (hashing the
    checksum as it goes, storing the blocks in batches of bounded size): its memory grows by well under half a
    byte per byte of file between these two small files, and not at all beyond (see the next test). It
    grew by 1.6 bytes when import held the file's JSON whole, and by more than two before that. On
    SQLite: a server's driver holds the rows it sends on its own."""
    import menace.app.machine_file as machine_file
    import menace.core.replay as replay
    import menace.storage.transfer_repo as transfer_repo
    from menace.app.transfer import export_to_file, import_file

    # What the import holds at a time is bounded apart, and made small here so that both files already fill
    # it: then the files can be small (the import replays their games under tracemalloc, ten times slower
    # than without). Left at their sizes, each would pass for growth between files of under a megabyte:
    monkeypatch.setattr(replay, "CACHE_GAMES", 100)  # the replay's cache of distinct games
    monkeypatch.setattr(transfer_repo, "BYTES_AT_ONCE", 16_384)  # a batch of blocks being stored (256 kB)
    monkeypatch.setattr(machine_file, "CHUNK", 16_384)  # the chunk of the file being read (256 kB)
    monkeypatch.setattr(tournament, "FLUSH_GAMES", 2_000)  # a block (20,000 games; ~70 kB in the file)
    db_url = sqlite_url
    # Every database here starts as a copy of an empty one at the newest schema (conftest's template):
    # the migrations that would make each file anew are not the import, and under tracemalloc they took
    # most of this test's CPU (they are tested in test_storage and test_reliability_migrations).
    shutil.copyfile(sqlite_template, db_url.removeprefix("sqlite:///"))
    init_machine(owner(db_url), "menace", MICHIE, None)
    points = []
    for games in (8_000, 40_000):
        # Against perfect the games repeat more than against random, so the import (which replays them
        # under tracemalloc) takes less CPU for each byte of file; the file is the same kind of file.
        train(db_url, games - (points and 8_000 or 0), seed=len(points) + 1, opponent="perfect")
        path = tmp_path / f"m{games}.json"
        export_to_file(owner(db_url), "menace", path)
        shutil.copyfile(sqlite_template, tmp_path / f"imported{games}.db")
        gc.collect()  # both imports start with no garbage of the training waiting to be collected
        tracemalloc.start()
        import_file(owner(f"sqlite:///{tmp_path / f'imported{games}.db'}"), path)
        points.append((path.stat().st_size, tracemalloc.get_traced_memory()[1]))
        tracemalloc.stop()
    (small_file, small_peak), (large_file, large_peak) = points
    assert large_file - small_file > 100_000  # a file of 20 blocks more
    assert (large_peak - small_peak) / (large_file - small_file) < 0.5, points


_IMPORTS_IN_A_CHILD = """
import sys
from pathlib import Path
from menace.app.database import Database
from menace.app.transfer import import_file

def peak():
    # This process image's own peak (its ru_maxrss starts at the forking parent's, pytest's).
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))

def imported(url, path):
    with Database(url) as db:
        import_file(db, Path(path))

imported(sys.argv[1], sys.argv[2])  # the start-up: every module the import needs, a database made
start = peak()
for url, path in zip(sys.argv[3::2], sys.argv[4::2]):  # the files from the smaller: each peak above the start
    imported(url, path)
    print(peak() - start)
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)")
def test_import_runs_in_memory_that_does_not_grow_with_the_file(sqlite_url: str, tmp_path: Path,
                                                                sqlite_template: Path) -> None:
    """menace import holds a few blocks of the history at a time, never the file: in a process of its
    own, importing a file of 6 MB or then one of 24 MB takes the same memory above its start-up, under a
    bound the second file's JSON alone would break (before, it held the file's JSON and every block:
    about two bytes a byte of file). The blocks are summaries (a checkpoint each, stored uncompressed:
    12 kB), so that the file is long but quick to import: nothing to replay. The smaller file already
    fills what is bounded apart (SQLite's page cache of 2 MB, a batch of blocks being stored). One
    process imports both, the smaller first: the larger's peak is the process's only if it takes more
    than the smaller's did, by as much as it takes more."""
    import base64
    import zlib

    from menace.app.transfer import checksum, write_machine_file

    shutil.copyfile(sqlite_template, sqlite_url.removeprefix("sqlite:///"))
    init_machine(owner(sqlite_url), "menace", MICHIE, None)
    train(sqlite_url, 300, keep=0)
    body = export_machine(owner(sqlite_url), "menace")
    summary = dict(body["history"]["blocks"][-1])  # the beads after the last game
    assert summary.get("kept") is False
    summary["beads"] = base64.b64encode(zlib.compress(zlib.decompress(base64.b64decode(summary["beads"])), 0)).decode()
    write_machine_file(body, tmp_path / "start-up.json")

    def longer(summaries: int) -> Path:
        """The machine with ``summaries`` more summaries of one game each, the beads unchanged."""
        long = {**body, "history": {**body["history"], "blocks": list(body["history"]["blocks"])}}
        first = body["history"]["games"] + 1
        long["history"]["blocks"] += [{**summary, "first_game": first + i, "games": 1, "wins": 1, "draws": 0,
                                       "losses": 0} for i in range(summaries)]
        long["history"]["games"] += summaries
        long["checksum"] = checksum(long)
        path = tmp_path / f"m{summaries}.json"
        write_machine_file(long, path)
        return path

    files = [longer(summaries) for summaries in (500, 2000)]
    # Each import goes into a copy of an empty database at the newest schema (conftest's template): the
    # migrations that would make each file anew are not the import (they took a third of this test's CPU).
    for name in ("start-up", *(path.stem for path in files)):
        shutil.copyfile(sqlite_template, tmp_path / f"{name}.db")
    run = subprocess.run([sys.executable, "-c", _IMPORTS_IN_A_CHILD, f"sqlite:///{tmp_path / 'start-up.db'}",
                          str(tmp_path / "start-up.json"),
                          *(a for path in files for a in (f"sqlite:///{tmp_path / f'{path.stem}.db'}", str(path)))],
                         capture_output=True, text=True, check=True)
    grown = {path.stat().st_size: int(kib) * 1024 for path, kib in zip(files, run.stdout.split(), strict=True)}
    (small_file, small), (large_file, large) = sorted(grown.items())
    assert large_file > 3.5 * small_file and large_file > 20_000_000
    bound = 10 << 20
    assert small < bound and large < bound < large_file / 2, grown
    assert large - small < (large_file - small_file) / 10, grown


# -- blocks written a few at a time ------------------------------------------------------------------
def _counting_saves(m: machines.OpenMachine, saves: list[int]) -> None:
    save = m.save

    def counted(*args: object, **kwargs: object) -> None:
        save(*args, **kwargs)  # type: ignore[arg-type]
        saves.append(m.games_played)

    m.save = counted  # type: ignore[method-assign]


@pytest.mark.parametrize("held_bytes", [10**9, 6_000])
def test_blocks_cut_between_writes_go_to_the_database_together_each_with_its_checkpoint(
        db_url: str, monkeypatch: pytest.MonkeyPatch, held_bytes: int) -> None:
    """A tournament at full speed ends a block every FLUSH_GAMES games (25 a second on this machine);
    it writes them together on the clock, or once HELD_BYTES of them wait, not one commit each (each
    commit makes a server's pages read the machine again): the blocks are those of one commit a block,
    each with its own checkpoint, and undo, replay and check work from them."""
    monkeypatch.setattr(tournament, "FLUSH_GAMES", 500)
    monkeypatch.setattr(tournament, "FIRST_FLUSH_SECONDS", 1e9)  # no write on the clock
    monkeypatch.setattr(tournament, "HELD_BYTES", held_bytes)
    monkeypatch.setattr(machines, "CHECKPOINT_GAMES", 500)
    init_machine(owner(db_url), "menace", MICHIE, None)
    saves: list[int] = []
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        _counting_saves(m, saves)
        tournament.run_tournament(m, "random", games=5_000, seed=1, flush_seconds=1e9)
    found = blocks(db_url)
    assert [(b[1], b[2]) for b in found] == [(1 + 500 * i, 500) for i in range(10)], found
    assert all(b[3] and b[4] for b in found), found  # each kept, each with its checkpoint
    if held_bytes > 10**6:
        assert saves == [5_000], saves  # one commit at the end for ten blocks
    else:
        # ~3,500 bytes a block: two blocks wait, then both are written
        assert 2 <= len(saves) <= 6 and saves[-1] == 5_000 and all(n % 500 == 0 for n in saves), saves
    assert check_database(owner(db_url), "menace", full=True).faults == []
    records = stored_records(db_url)
    stored = stored_machine(db_url)
    for number in (499, 500, 501, 4_999):
        assert replay_game(owner(db_url), "menace", number).detail == game_detail(
            TICTACTOE, MICHIE, stored.boxes, records, number)
    undo_games(owner(db_url), "menace", 700)  # from the checkpoint of game 4,000
    expected = Replayer(TICTACTOE, MICHIE, stored.boxes)
    expected.apply_all(records[:4_300])
    assert [list(b.values()) for b in stored_beads(db_url)] == [
        [expected.counts[i][m] for m in sorted(box.initial)] for i, box in enumerate(stored.boxes)]


def test_two_machines_cut_their_blocks_together_and_write_them_each_in_one_commit(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Machine against machine: the partner's blocks are cut where the machine's are, each with its
    checkpoint, and both histories check."""
    monkeypatch.setattr(tournament, "FLUSH_GAMES", 400)
    monkeypatch.setattr(tournament, "FIRST_FLUSH_SECONDS", 1e9)
    monkeypatch.setattr(machines, "CHECKPOINT_GAMES", 400)
    init_machine(owner(db_url), "menace", MICHIE, None)
    init_machine(owner(db_url), "second", replace(MICHIE, side="O"), None)
    saves: list[int] = []
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        _counting_saves(m, saves)
        with machines.learning_partner(owner(db_url), "menace:second", m, None, "menace") as partner:
            tournament.run_tournament(m, "menace:second", games=2_000, seed=3, flush_seconds=1e9,
                                      resolve=lambda _name: partner)
    assert saves == [2_000], saves
    for name in ("menace", "second"):
        found = query(db_url, "SELECT b.first_game, b.n_games, b.beads IS NOT NULL FROM game_blocks b JOIN machines m "
                      "ON m.id = b.machine_id WHERE m.name = :n ORDER BY b.first_game", n=name)
        assert [tuple(r) for r in found] == [(1 + 400 * i, 400, True) for i in range(5)], (name, found)
        assert check_database(owner(db_url), name, full=True).faults == [], name


def test_a_write_of_sealed_blocks_that_fails_half_way_stores_them_once_when_tried_again(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The database is busy at the third block of a write of ten (its first two written in the
    transaction): the transaction is rolled back and tried again, and the ten blocks are stored once,
    none counted as stored before its write committed."""
    import menace.storage.repository as repository
    from menace.storage.database import DatabaseBusyError

    monkeypatch.setattr(tournament, "FLUSH_GAMES", 500)
    monkeypatch.setattr(tournament, "FIRST_FLUSH_SECONDS", 1e9)
    monkeypatch.setattr(tournament, "BUSY_RETRY_SECONDS", 0.0)
    monkeypatch.setattr(machines, "CHECKPOINT_GAMES", 500)
    written = repository.save_games
    calls: list[int] = []

    def busy_once(*args: object, **kwargs: object) -> None:
        calls.append(1)
        written(*args, **kwargs)  # type: ignore[arg-type]
        if len(calls) == 3:
            raise DatabaseBusyError("the database is busy (a test)")

    monkeypatch.setattr(repository, "save_games", busy_once)
    init_machine(owner(db_url), "menace", MICHIE, None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        result = tournament.run_tournament(m, "random", games=5_000, seed=1, flush_seconds=1e9)
        assert m.games_played == result.total_games == 5_000
    assert len(calls) == 3 + 10  # three in the write rolled back, then the ten again
    assert [(b[1], b[2]) for b in blocks(db_url)] == [(1 + 500 * i, 500) for i in range(10)]
    assert check_database(owner(db_url), "menace", full=True).faults == []
