"""Leases across hosts and writers that never abort each other.

Another host is a process in its own UTS namespace (``unshare -u``) with another host name:
it cannot see whether the holder's process is alive, so only the lease's heartbeat tells it.
"""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import owner, wait_until

from menace.app import tournament as tour
from menace.app.check import check_database
from menace.app.machines import OpenMachine, init_machine, open_machine
from menace.app.tournament import Progress, SaveWaitError, StopFlag, run_tournament
from menace.core.settings import MICHIE
from menace.storage import database


def now() -> datetime:
    """UTC now: SQLite's clock, which the leases go by, is this host's."""
    return datetime.now(UTC).replace(tzinfo=None)


LEASE = 2.0
"""The lease's length in these tests (the real one is 30 s), the same in every process."""


def _menace(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).with_name("short_lease_menace.py")), str(LEASE), *args]


def _other_host(*args: str) -> list[str]:
    inner = " ".join(_quote(a) for a in _menace(*args))
    return ["unshare", "-u", "sh", "-c", f"hostname other-host-b && exec {inner}"]


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-u", "true"], capture_output=True).returncode == 0


def _lock_rows(db: Path) -> list[tuple[str, int]]:
    con = sqlite3.connect(db)
    try:
        return [(str(h), int(p)) for h, p in con.execute("SELECT host, pid FROM machine_locks")]
    finally:
        con.close()


def _lease_times(db: Path) -> tuple[datetime, datetime]:
    """The one lease's ``acquired_at`` and ``heartbeat_at`` (UTC, as the leases write them)."""
    con = sqlite3.connect(db)
    try:
        acquired, heartbeat = con.execute("SELECT acquired_at, heartbeat_at FROM machine_locks").fetchone()
        return datetime.fromisoformat(acquired), datetime.fromisoformat(heartbeat)
    finally:
        con.close()


def _write_lock_free(db: Path) -> bool:
    con = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        con.close()


def _stopped(pid: int) -> bool:
    """Every thread of ``pid`` stopped (the heartbeat runs in a thread of its own, and each thread
    stops on its own: the process's state is its main thread's)."""
    return all(stat.read_text().rsplit(")", 1)[1].split()[0] in ("T", "t")
               for stat in Path(f"/proc/{pid}/task").glob("*/stat"))


def _suspend_between_writes(proc: subprocess.Popen[str], db: Path) -> None:
    """SIGSTOP ``proc`` at a moment it holds no write lock on ``db``. Stopped inside its heartbeat's
    transaction, it would keep SQLite's lock while suspended, and the other host would find the file
    busy rather than the lease run out."""
    for _ in range(200):
        proc.send_signal(signal.SIGSTOP)
        wait_until(lambda: _stopped(proc.pid), "the holder to stop")
        if _write_lock_free(db):
            return
        proc.send_signal(signal.SIGCONT)
        time.sleep(0.01)  # a poll interval: let the heartbeat finish its write
    pytest.fail("the holder was inside a write each of 200 times it was stopped")


@pytest.mark.slow
@pytest.mark.skipif(not _can_unshare(), reason="needs unshare -u (root or user namespaces)")
def test_a_lease_holds_across_hosts_and_a_holder_that_lost_it_keeps_its_game(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    lease = LEASE
    env = {**os.environ, "MENACE_DB": str(db)}
    subprocess.run(_menace("init"), env=env, check=True, capture_output=True)
    a = subprocess.Popen(_menace("play", "--games", "1", "--seed", "3"), env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: bool(_lock_rows(db)) or a.poll() is not None, "the game to take the machine", timeout=30)
        assert a.poll() is None, "the game ended before it took the machine"
        def renewed_for() -> float:
            acquired, heartbeat = _lease_times(db)
            return (heartbeat - acquired).total_seconds()

        # Heartbeats have kept the lease half a second past its first term: only they hold it now.
        wait_until(lambda: renewed_for() > lease + 0.5, "heartbeats to keep the lease past its first term")
        b = subprocess.run(_other_host("reconcile", "1", "--count", "W=50"), env=env, capture_output=True,
                           text=True, timeout=60)
        assert b.returncode == 1, b.stdout + b.stderr
        assert "is in use by a game at the terminal" in b.stderr and "Traceback" not in b.stderr
        # The holder falls silent (a suspended laptop, a network cut): the other host takes over.
        _suspend_between_writes(a, db)
        last_heartbeat = _lease_times(db)[1]
        wait_until(lambda: (now() - last_heartbeat).total_seconds() > lease + 0.5,
                   "the lease to run out half a second past the silent holder's last heartbeat")
        b = subprocess.run(_other_host("reconcile", "1", "--count", "W=50"), env=env, capture_output=True,
                           text=True, timeout=60, input="\n\n\n")
        assert b.returncode == 0, b.stdout + b.stderr
        a.send_signal(signal.SIGCONT)
        out, err = a.communicate("\n".join("123456789" * 3) + "\n", timeout=60)
    finally:
        if a.poll() is None:
            a.kill()
            a.communicate()  # and its pipes closed: a failure here is this test's, not the next one's
    assert a.returncode == 1, out + err
    assert "Traceback" not in err
    assert "This game was NOT stored" in err  # the moves, for the person to keep
    assert err.strip().splitlines()[-1].startswith("Error: machine 'menace' was taken over by another writer")
    report = check_database(owner(f"sqlite:///{db}"))
    assert report.ok, report.faults
    con = sqlite3.connect(db)
    try:
        assert con.execute("SELECT count(*) FROM game_blocks").fetchone()[0] == 0  # A wrote nothing
        assert con.execute("SELECT count FROM corrections").fetchone()[0] == 50  # B's recount stands
    finally:
        con.close()


def _hold_write_lock(path: Path, start: threading.Event, release: threading.Event | float,
                     held: threading.Event | None = None) -> None:
    """Hold SQLite's write lock on ``path`` from ``start`` for ``release`` seconds, or until
    ``release`` is set (a test's signal that it has seen what it waited for)."""
    con = sqlite3.connect(path, isolation_level=None, timeout=30)
    start.wait()
    con.execute("BEGIN IMMEDIATE")
    if held is not None:
        held.set()  # the readiness signal: the write lock is taken
    if isinstance(release, threading.Event):
        release.wait(30)
    else:
        time.sleep(release)  # a writer that takes this long: the duration is what the test is about
    con.execute("ROLLBACK")
    con.close()


def _writer_after_the_run_starts(m: OpenMachine, go: threading.Event, held: threading.Event) -> None:
    """Let the long writer take the write lock once the tournament's run has started (its row
    written), and go on only when it holds it: the tournament's first flush then meets it."""
    run = m.start_run

    def start_run(kind: str, opponent: str, seed: int | None, frozen: bool = False) -> int:
        run_id = run(kind, opponent, seed, frozen)
        go.set()
        assert held.wait(30), "the long writer never took the write lock"
        return run_id

    m.start_run = start_run  # type: ignore[method-assign]


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 100)
    monkeypatch.setattr(tour, "BUSY_RETRY_SECONDS", 0.05)


@pytest.mark.slow
def test_a_long_writer_on_another_machine_never_drops_a_tournaments_games(
        tmp_path: Path, short_busy_timeout: None) -> None:
    path = tmp_path / "two.db"
    url = f"sqlite:///{path}"
    init_machine(owner(url), "a", MICHIE, "michie")
    init_machine(owner(url), "b", MICHIE, "michie")
    go, held, release = threading.Event(), threading.Event(), threading.Event()
    # A write transaction much longer than the busy timeout (an undo of millions of games, say): it
    # takes the write lock once the run has started and lets go once the tournament has waited for it
    # five busy timeouts (not after a fixed time, which on a busy computer could pass before the
    # tournament's first flush: then it never met the busy database, and ran its whole 60 s).
    long_writer = threading.Thread(target=_hold_write_lock, args=(path, go, release, held))
    long_writer.start()
    waits: list[tuple[float, float, int]] = []
    shown: list[Progress] = []
    stop = StopFlag()
    after: list[int] = []  # the stored games shown once the long writer has let go

    def waiting(waited: float, limit: float, games: int) -> None:
        waits.append((waited, limit, games))
        if waited >= 5 * database.BUSY_TIMEOUT_MS / 1000:
            release.set()

    def progress(p: Progress) -> None:
        shown.append(p)
        # Stopped once it has met the busy database, the long writer has let go and more games are
        # stored after that (it played for a fixed 1.5 s: the CPU of what followed proved nothing more).
        if waits and not long_writer.is_alive():
            after.append(p.games)
            if p.games > after[0]:
                stop.requested = True

    with open_machine(owner(url), "b", holder="a tournament") as m:
        _writer_after_the_run_starts(m, go, held)
        try:
            result = run_tournament(m, "random", seconds=60, seed=1, flush_seconds=0.1, stop=stop,
                                    waiting=waiting, progress=progress)
        finally:
            go.set()
            release.set()
    long_writer.join()
    assert result.stopped == "stopped"  # by the flag, not the 60 s
    assert waits, "the flush never met the busy database"
    con = sqlite3.connect(path)
    try:
        stored = con.execute("SELECT sum(n_games) FROM game_blocks").fetchone()[0]
        ended = con.execute("SELECT count(*) FROM runs WHERE ended_at IS NULL").fetchone()[0]
    finally:
        con.close()
    assert stored == result.games > 0 and ended == 0
    assert max(p.games for p in shown) <= stored  # nothing shown that is not stored
    assert check_database(owner(url), "b").ok


@pytest.mark.slow
def test_a_database_busy_past_the_bound_stops_with_one_line_and_shows_only_stored_games(
        tmp_path: Path, short_busy_timeout: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tour, "BUSY_WAIT_SECONDS", 0.4)
    path = tmp_path / "busy.db"
    url = f"sqlite:///{path}"
    init_machine(owner(url), "b", MICHIE, "michie")
    go, held, seen = threading.Event(), threading.Event(), threading.Event()
    long_writer = threading.Thread(target=_hold_write_lock, args=(path, go, seen, held))
    shown: list[Progress] = []
    with open_machine(owner(url), "b", holder="a tournament") as m:
        long_writer.start()
        _writer_after_the_run_starts(m, go, held)
        try:
            with pytest.raises(SaveWaitError, match=r"stayed busy .* could not be stored"):
                run_tournament(m, "random", seconds=3.0, seed=1, flush_seconds=0.1, progress=shown.append)
        finally:
            seen.set()  # the long writer lets go once the tournament has given up (or failed)
    long_writer.join()
    con = sqlite3.connect(path)
    try:
        stored = con.execute("SELECT coalesce(sum(n_games), 0) FROM game_blocks").fetchone()[0]
    finally:
        con.close()
    assert all(p.games <= stored for p in shown)
    assert check_database(owner(url), "b").ok
