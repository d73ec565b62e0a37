"""A stale lease whose pid was reused by an unrelated process, and ``menace unlock``.

The lease's expiry is authoritative: a holder that stopped renewing its lease is taken over once
it has expired, whatever process now has its pid. Before that, ``menace unlock`` removes it, after
asking, and only the lease it showed (never one taken meanwhile by somebody else).
"""

from __future__ import annotations

import socket
import sqlite3
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from menace.cli import cli
from menace.storage.leases import LEASE_SECONDS, PLACE


def now() -> datetime:
    """UTC now: SQLite's clock, which the leases go by, is this host's."""
    return datetime.now(UTC).replace(tzinfo=None)


def _menace(db: Path, *args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], input=input)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.fixture
def unrelated() -> Iterator[int]:
    """A live process that is not menace: the pid a crashed holder had, now reused."""
    proc = subprocess.Popen(["sleep", "600"])
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def _plant_lease(db: Path, pid: int, age: float) -> None:
    """A lease left by a holder on this host that crashed ``age`` seconds after its last renewal."""
    con = sqlite3.connect(db)
    try:
        t = now() - timedelta(seconds=age)
        con.execute("DELETE FROM machine_locks")
        con.execute("INSERT INTO machine_locks (machine_id, holder, host, pid, acquired_at, heartbeat_at, place) "
                    "SELECT id, 'a tournament', ?, ?, ?, ?, ? FROM machines", (socket.gethostname(), pid, t, t, PLACE))
        con.commit()
    finally:
        con.close()


def _leases(db: Path) -> list[tuple[Any, ...]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT holder, pid FROM machine_locks").fetchall()
    finally:
        con.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "m.db"
    assert _menace(path, "init")[0] == 0
    return path


def test_a_lease_whose_pid_was_reused_is_taken_over_once_it_expired(db: Path, unrelated: int) -> None:
    _plant_lease(db, unrelated, age=1)  # the pid is alive: only the expiry can tell
    code, out = _menace(db, "tournament", "-n", "5")
    assert code == 1 and f"pid {unrelated}" in out
    _plant_lease(db, unrelated, age=LEASE_SECONDS + 5)
    for args in (("tournament", "-n", "5"), ("undo",), ("init", "--replace")):
        _plant_lease(db, unrelated, age=LEASE_SECONDS + 5)
        code, out = _menace(db, *args, input="y\n")
        assert code == 0, out
    assert _leases(db) == []
    assert _menace(db, "check")[0] == 0


def test_unlock_asks_first_and_says_whether_the_holder_still_runs(db: Path, unrelated: int) -> None:
    assert _menace(db, "unlock") == (0, "Nobody holds 'menace'.\n")
    _plant_lease(db, unrelated, age=2)
    code, out = _menace(db, "unlock", input="n\n")
    assert code == 0 and "Left as it is." in out
    assert "a tournament" in out and f"pid {unrelated}" in out
    assert "process with that id is running" in out  # the pid is alive (reused or not): say so before removing
    assert _leases(db) == [("a tournament", unrelated)]
    code, out = _menace(db, "unlock", input="y\n")
    assert code == 0 and "Removed the lease" in out and _leases(db) == []
    _plant_lease(db, unrelated, age=2)
    code, out = _menace(db, "unlock", "--yes")
    assert code == 0 and "Removed the lease" in out and _leases(db) == []
    assert _menace(db, "tournament", "-n", "5")[0] == 0


def test_unlock_removes_only_the_lease_it_showed(db: Path, unrelated: int, monkeypatch: pytest.MonkeyPatch) -> None:
    _plant_lease(db, unrelated, age=LEASE_SECONDS - 1)

    def confirm(*args: Any, **kwargs: Any) -> bool:
        # While the person reads the question, the lease expires and a new holder takes the machine.
        con = sqlite3.connect(db)
        try:
            con.execute("UPDATE machine_locks SET holder = 'a game at the terminal', pid = 1, "
                        "acquired_at = ?, heartbeat_at = ?", (now(), now()))
            con.commit()
        finally:
            con.close()
        return True

    monkeypatch.setattr(click, "confirm", confirm)
    code, out = _menace(db, "unlock")
    assert code == 1 and "changed hands" in out, out
    assert _leases(db) == [("a game at the terminal", 1)]  # the newcomer keeps its lease
