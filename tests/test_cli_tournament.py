from __future__ import annotations

import signal
import time
import types
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import Invoke, catches, invoker, owner, query, stored_games, wait_until
from forked_menace import MenaceForks
from test_cli_play import bead_rows

import menace.app.tournament as tournament
from menace.app.machines import init_machine, open_machine
from menace.app.tournament import OPENING_EMPTY, StopFlag, run_tournament
from menace.cli import cli
from menace.core.settings import MICHIE, Settings


def test_init_reports_the_machine(menace: Invoke) -> None:
    out = menace("init").output
    assert "304 boxes (1 + 12 + 108 + 183 by move)" in out
    assert "1,720 beads (12 + 198 + 984 + 526 by move)" in out


def test_init_options_are_stored_and_shown(menace: Invoke) -> None:
    out = menace("-m", "second", "init", "--side", "O", "--beads", "8,4,2,1", "--reinforce", "3,1,-1",
                 "--empty-box", "restock").output
    assert "289 boxes (3 + 38 + 153 + 95 by move)" in out
    stats = menace("-m", "second", "stats").output
    assert "initial beads  8,4,2,1" in stats and "empty box      restock" in stats and "side           O" in stats
    assert "1,917 beads" in menace("-m", "all", "init", "--all-squares").output
    assert "2,201 boxes" in menace("-m", "raw", "init", "--no-symmetry").output


def test_same_seed_on_two_copies_gives_identical_beads(menace: Invoke, db_url: str,
                                                        new_db_url: Callable[[], str]) -> None:
    copy = new_db_url()
    menace("init")
    invoker(copy)("init")
    menace("tournament", "--vs", "smart", "-n", "2000", "--seed", "1")
    invoker(copy)("tournament", "--vs", "smart", "-n", "2000", "--seed", "1")
    assert bead_rows(db_url) == bead_rows(copy)


def test_different_seeds_differ(menace: Invoke, db_url: str, new_db_url: Callable[[], str]) -> None:
    copy = new_db_url()
    menace("init")
    invoker(copy)("init")
    menace("tournament", "--vs", "random", "-n", "500", "--seed", "1")
    invoker(copy)("tournament", "--vs", "random", "-n", "500", "--seed", "2")
    assert bead_rows(db_url) != bead_rows(copy)


def test_interrupted_tournament_keeps_its_games_and_resumes(db_url: str) -> None:
    init_machine(owner(db_url), "menace", MICHIE, "michie")
    flag = StopFlag()
    flag.requested = True
    flag.signal_name = "SIGINT"
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        result = run_tournament(m, "random", games=1000, seed=1, stop=flag)
        assert result.stopped == "SIGINT" and result.games == 1
        beads = m.learner.snapshot()
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        assert m.learner.snapshot() == beads and m.games_played == 1
        result = run_tournament(m, "random", games=100, seed=2)
        assert result.total_games == 101


def test_tournament_stops_when_the_opening_box_empties(db_url: str) -> None:
    init_machine(owner(db_url), "menace", Settings(win=0, draw=0, loss=-1), None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        # one opening bead left, never more: the first lost game takes it, and the tournament must stop there
        m.learner.counts[0][:] = [1, 0, 0, 0, 0, 0, 0, 0, 0]
        result = run_tournament(m, "random", games=100_000, seed=1)
        assert result.stopped == OPENING_EMPTY
        assert result.games < 100_000 and result.losses >= 1
        assert m.learner.opening_empty(m.learner.settings.sides[0])
        assert m.games_played == result.games  # every game up to the last one is stored


def test_tournament_output_and_options(menace: Invoke) -> None:
    menace("init")
    out = menace("tournament", "--vs", "random", "-n", "300", "--seed", "9").output
    assert "300 games against random" in out and "seed 9" in out
    assert "has played 300 games in all" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-n", "0"], "-n"),
        (["-n", "-5"], "-n"),
        (["--vs", "nobody"], "unknown opponent 'nobody'"),
        (["--for", "soon"], "not a duration"),
        (["-n", "5", "--for", "1h"], "not both"),
    ],
)
def test_bad_tournament_options(menace: Invoke, args: list[str], message: str) -> None:
    menace("init")
    result = menace("tournament", *args, ok=False)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_sigint_stops_after_the_current_game(db_url: str, forks: MenaceForks) -> None:
    assert CliRunner().invoke(cli, ["--db", db_url, "init"]).exit_code == 0  # setup: in this process
    # a process of its own (to be signalled), forked from one that imported menace once: its
    # start-up is not what is tested (test_reliability_interrupt tests signals during a real start-up)
    proc = forks.popen("tournament", "--vs", "random", "--for", "60s", url=db_url)
    # ready once the first block is stored: the games (and their signal handlers) have begun
    wait_until(lambda: stored_games(db_url) > 0, "the tournament's first stored block")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Stopped by SIGINT after game" in out and "every finished game is saved" in out
    games = int(out.split("has played ")[1].split(" games")[0].replace(",", ""))
    assert stored_games(db_url) == games > 0


def test_a_second_player_stops_when_a_first_move_box_empties(db_url: str) -> None:
    init_machine(owner(db_url), "menace", Settings(side="O", win=0, draw=0, loss=-1), None)
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        result = run_tournament(m, "smart", games=50_000, seed=3)
        assert result.stopped == OPENING_EMPTY and result.games < 50_000
        empty = [m.learner.boxes[i].number for i in m.learner.first_boxes(m.learner.settings.sides[0])
                 if not any(m.learner.counts[i])]
        assert empty


def test_a_tournament_between_machines_stops_when_the_other_ones_opening_empties(menace: Invoke) -> None:
    menace("init")
    menace("-m", "second", "init", "--side", "O", "--reinforce", "0,0,-1", "--empty-box", "resign")
    result = menace("tournament", "--vs", "menace:second", "-n", "20000", "--seed", "1", ok=False)
    assert result.exit_code == 3, result.output  # EXIT_STOPPED_EARLY
    out = result.output
    assert "Stopped early, after game" in out and "of 'second' is empty" in out
    assert "-m second reconcile" in out
    assert "OK" in menace("check", "--all").output


def test_signals_while_td_trains_stop_cleanly_with_nothing_stored(db_url: str, forks: MenaceForks) -> None:
    assert CliRunner().invoke(cli, ["--db", db_url, "init"]).exit_code == 0  # setup: in this process
    for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        # forked (see the test above): what runs from menace's first line on is a process's own
        proc = forks.popen("tournament", "--vs", "td:100000000", "-n", "5", url=db_url)
        # ready once it handles SIGTERM: it does from when td starts preparing (Python's own SIGINT
        # handler is there from the start, so SIGINT alone says nothing); start-up catches SIGTERM too
        # and lets go as the command begins, so a handler seen once the tournament holds the machine is
        # the tournament's
        wait_until(lambda p=proc: p.poll() is not None or (  # type: ignore[misc]
            query(db_url, "SELECT count(*) FROM machine_locks") == [(1,)] and catches(p.pid, signal.SIGTERM)),
            "td's signal handlers")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == code, err
        assert "while td:100000000 prepared: no game was played" in err and "Traceback" not in err
    assert query(db_url, "SELECT count(*) FROM game_blocks") == [(0,)]
    assert query(db_url, "SELECT count(*) FROM machine_locks") == [(0,)]


def test_progress_shows_stored_games_from_between_the_first_and_second_writes_on(
        sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first write comes after an eighth of a second and the gaps double up to a second, and
    progress is shown as the games are stored: a person (or the web page's curve, or `stats` in
    another terminal) sees the first games after the first write, long before the run ends, and a
    run killed early loses less.

    No clock of this machine is read: the tournament's clock is a counter here (each look at it is
    10 ms later), and the test checks the order of writes and reports: the first report comes
    between the first and the second write, and every report's games are in the database when it
    is shown."""
    monkeypatch.setattr(tournament, "FLUSH_GAMES", 10**9)  # only the clock decides when to write
    monkeypatch.setattr(tournament, "FLUSH_BYTES", 10**12)
    # A look at the clock every 8 games (256 in a real run): 1,200 games for the run's 150 looks.
    monkeypatch.setattr(tournament, "CHECK_EVERY", 8)
    ticks = iter(range(10**9))
    seen = [0.0]  # the clock as the tournament last read it

    def perf_counter() -> float:
        seen[0] = next(ticks) / 100
        return seen[0]

    clock = types.SimpleNamespace(perf_counter=perf_counter, monotonic=time.monotonic, sleep=time.sleep)
    monkeypatch.setattr(tournament, "time", clock)
    init_machine(owner(sqlite_url), "menace", MICHIE, "michie")
    events: list[tuple[str, float, int]] = []
    stored_when_shown: list[tuple[int, int]] = []

    def shown(p: tournament.Progress) -> None:
        events.append(("shown", p.seconds, p.games))
        stored_when_shown.append((p.games, stored_games(sqlite_url)))

    with open_machine(owner(sqlite_url), "menace", holder="a test") as m:
        save = m.save

        def logged_save(*args: Any, **kwargs: Any) -> None:
            save(*args, **kwargs)
            events.append(("write", seen[0], m.games_played))

        monkeypatch.setattr(m, "save", logged_save)
        run_tournament(m, "perfect", seconds=1.5, seed=1, progress=shown)
        blocks = [int(n) for (n,) in query(sqlite_url, "SELECT n_games FROM game_blocks ORDER BY first_game")]
    kinds = [kind for kind, _, _ in events]
    # the first report comes after the first write and before the second one (so long before the end)
    first_write = kinds.index("write")
    assert first_write < kinds.index("shown") < kinds.index("write", first_write + 1), events
    assert kinds.count("shown") > 2, events  # and reports go on during the run, not only at its end
    # every report shows games already in the database, and some
    assert all(0 < games == stored for games, stored in stored_when_shown), stored_when_shown
    # writes at 0.125, 0.375 and 0.875 s of the run's counted clock, then at the end (once a second: 2)
    writes = [t for kind, t, _ in events if kind == "write"]
    assert len(blocks) == len(writes) == 4, (blocks, events)
    gaps = [b - a for a, b in zip(writes, writes[1:-1])]
    assert writes[0] == pytest.approx(0.13) and gaps == pytest.approx([0.25, 0.5], abs=0.011), writes


def test_a_kept_block_holds_at_most_flush_games(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """README: blocks of at most 20,000 games (the loop looks at the clock every 256 games)."""
    monkeypatch.setattr(tournament, "FLUSH_GAMES", 1_000)
    init_machine(owner(sqlite_url), "menace", MICHIE, "michie")
    with open_machine(owner(sqlite_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=5_000, seed=1, flush_seconds=3600)
    blocks = [int(n) for (n,) in query(sqlite_url, "SELECT n_games FROM game_blocks ORDER BY first_game")]
    assert sum(blocks) == 5_000 and max(blocks) == 1_000, blocks


def test_history_says_who_resigned(menace: Invoke) -> None:
    menace("init")
    menace("-m", "second", "init", "--side", "O", "--reinforce", "0,0,-1", "--empty-box", "resign")
    menace("tournament", "--vs", "menace:second", "-n", "20000", "--seed", "1", ok=False)
    out = menace("history", "--last", "1").output
    assert "(menace:second resigns)" in out and "MENACE resigns" not in out, out
    assert " win " in out
    out = menace("-m", "second", "history", "--last", "1").output
    assert "(MENACE resigns)" in out and " loss " in out, out


def test_opponents_of_a_named_machine_play_its_game(menace: Invoke) -> None:
    menace("-m", "her", "init", "--game", "hexapawn")
    listed = {line.split()[0] for line in menace("-m", "her", "opponents").output.splitlines() if line[:1].strip()}
    assert {"random", "perfect"} <= listed and "smart" not in listed and "oxo" not in listed, listed
    assert "smart" in menace("opponents").output  # no machine named: every player


@pytest.mark.parametrize("keep", [600, 1_000, 1_100])
def test_no_kept_block_is_larger_than_a_flush_where_keeping_stops(keep: int, menace: Invoke, db_url: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept games are written in blocks of FLUSH_GAMES at most, the block that crosses the line where
    keeping stops too (a 10,100,000-game run once stored a kept block of 20,224 games)."""
    monkeypatch.setattr(tournament, "FLUSH_GAMES", 500)
    monkeypatch.setattr(tournament, "FIRST_FLUSH_SECONDS", 1e9)  # no write on the clock
    menace("init")
    with open_machine(owner(db_url), "menace", holder="a test") as m:
        run_tournament(m, "random", games=3_000, seed=1, keep_games=keep, flush_seconds=1e9)
    blocks = query(db_url, "SELECT n_games, kept FROM game_blocks ORDER BY first_game")
    kept = [n for n, k in blocks if k]
    assert kept and max(kept) <= 500, blocks
    assert sum(kept) >= keep and sum(n for n, _ in blocks) == 3_000, blocks
