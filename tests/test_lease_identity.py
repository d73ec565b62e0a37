"""Who holds a lease and when it runs out: a random holder id, and the database's clock.

Two hosts may share a host name (containers, cloned machines) or a pid namespace may hide a
holder's process: a lease row that merely names this host and a pid not running here is not proof
that its holder is dead. And hosts' clocks disagree: a lease runs out by the database's clock,
so a host whose clock is ahead neither takes over live leases nor, dying, leaves one that lasts
as long as its clock was ahead.
"""

from __future__ import annotations

import shutil
import socket
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import owner
from freezegun import freeze_time

from menace.app.machines import init_machine, open_machine
from menace.core.settings import MICHIE
from menace.storage.leases import LEASE_SECONDS, MachineBusyError


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    init_machine(owner(f"sqlite:///{path}"), "menace", MICHIE, "michie")
    return path


def _dead_pid() -> int:
    """A pid that no process of this host has now (a process started and waited for)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _sql(db: Path, statement: str, *args: object) -> list[tuple[object, ...]]:
    con = sqlite3.connect(db)
    try:
        rows = con.execute(statement, args).fetchall()
        con.commit()
        return rows
    finally:
        con.close()


def _utc_now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def test_a_live_lease_of_another_host_with_the_same_name_is_not_taken_over(db: Path) -> None:
    """Written as a host of the same name whose process runs in another pid namespace would write
    it: this host name, a pid that no process here has, renewed just now."""
    now = _utc_now()
    _sql(db, "INSERT INTO machine_locks (machine_id, holder, host, pid, acquired_at, heartbeat_at) "
             "VALUES (1, 'a tournament', ?, ?, ?, ?)", socket.gethostname(), _dead_pid(), now, now)
    with pytest.raises(MachineBusyError, match="is in use by a tournament"):
        with open_machine(owner(f"sqlite:///{db}"), "menace", holder="a game at the terminal"):
            pass


def test_a_lease_of_a_dead_process_here_is_taken_over_at_once(db: Path) -> None:
    url = f"sqlite:///{db}"
    code = ("import sys, os; from menace.app.machines import open_machine; from menace.app.database import Database\n"
            "cm = open_machine(Database(sys.argv[1]), 'menace', holder='a tournament'); cm.__enter__()\n"
            "os._exit(0)")  # dies holding it
    subprocess.run([sys.executable, "-c", code, url], check=True)
    assert len(_sql(db, "SELECT * FROM machine_locks")) == 1
    with open_machine(owner(url), "menace", holder="a game at the terminal"):
        assert _sql(db, "SELECT holder FROM machine_locks") == [("a game at the terminal",)]


@pytest.mark.parametrize("ahead", [timedelta(seconds=60), timedelta(days=365)], ids=["a minute", "a year"])
def test_a_host_whose_clock_is_ahead_takes_over_no_live_lease(db: Path, ahead: timedelta) -> None:
    url = f"sqlite:///{db}"
    code = ("import sys, time; from menace.app.machines import open_machine; from menace.app.database import Database\n"
            "cm = open_machine(Database(sys.argv[1]), 'menace', holder='a tournament'); cm.__enter__()\n"
            "print('held', flush=True); sys.stdin.read()")
    holder = subprocess.Popen([sys.executable, "-c", code, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with freeze_time(_utc_now() + ahead, tick=True), pytest.raises(MachineBusyError):
            with open_machine(owner(url), "menace", holder="a game at the terminal"):
                pass
    finally:
        holder.communicate("")


def test_a_dead_holder_whose_clock_was_a_year_ahead_leaves_a_lease_that_runs_out_on_time(db: Path) -> None:
    url = f"sqlite:///{db}"
    with freeze_time(_utc_now() + timedelta(days=365), tick=True):
        lease = open_machine(owner(url), "menace", holder="a tournament")
        lease.__enter__()  # and never let go: it died, on another host (the lease names another host)
    _sql(db, "UPDATE machine_locks SET host = 'far-away'")
    with pytest.raises(MachineBusyError):  # alive as far as anyone can tell
        with open_machine(owner(url), "menace", holder="a game at the terminal"):
            pass
    # LEASE_SECONDS later (its last heartbeat moved back by that much rather than waited for):
    _sql(db, "UPDATE machine_locks SET heartbeat_at = strftime('%Y-%m-%d %H:%M:%f', heartbeat_at, ?)",
         f"-{LEASE_SECONDS + 1} seconds")
    with open_machine(owner(url), "menace", holder="a game at the terminal"):
        pass


def _can_unshare_pids() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-p", "-f", "--mount-proc", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _can_unshare_pids(), reason="needs unshare -p (root or user namespaces)")
def test_a_process_in_another_pid_namespace_runs_elsewhere() -> None:
    """Its pids are not this one's: a lease it took is never judged by whether its pid runs here."""
    from menace.storage.leases import PLACE

    code = "from menace.storage.leases import PLACE; print(PLACE)"
    there = subprocess.run(["unshare", "-p", "-f", "--mount-proc", sys.executable, "-c", code], capture_output=True,
                           text=True, check=True).stdout.strip()
    here = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert here == PLACE and there and there != PLACE
