"""Who may write to a machine: a lease with a heartbeat, proven at every write.

One row of ``machine_locks`` per held machine names its holder (a tournament, a game at the
terminal, a game in a browser), the host and process, when it was taken and when it was last
renewed. The holder renews it while it works or waits (:class:`Heartbeat`), and every write it
makes first proves, inside the writing transaction, that the row is still its own
(:meth:`Lease.prove`): the row's ``token``, a random id the holder drew when it took the lease,
is the fencing token (a host name and a pid are not: two hosts may share a name, and pids repeat).
So a holder that fell silent for longer than :data:`LEASE_SECONDS` and was taken over can never
write over the newcomer's changes: its next write fails with :class:`LeaseLostError` and
changes nothing.

Every lease time is the database's clock, read and written in the same statements, never a
host's: a host whose clock is a minute or a year ahead neither takes over live leases nor leaves
one that outlives it by as much.

A lease is taken over when it has expired (its holder has not renewed it for
:data:`LEASE_SECONDS`: a killed process, another host gone quiet, a process whose pid was
reused), or at once when its holder's process ran where this one runs (the same boot of the same
host, the same pid namespace: :data:`PLACE`) and no longer exists.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    DateTime,
    Engine,
    Row,
    delete,
    func,
    insert,
    select,
    type_coerce,
    update,
)

from menace.core.errors import ConflictError
from menace.storage.models import lock_table, machine_table

log = logging.getLogger(__name__)


LEASE_SECONDS = 30.0
"""A lease not renewed for this long is abandoned and may be taken over. Read when used, so that
a program (a test's launcher, say) may set it before any lease is taken; every process sharing a
database must use the same value."""
HEARTBEAT_SHARE = 6
"""A holder renews its lease :data:`LEASE_SECONDS` / 6 after the last time (every 5 s) while it
waits for a person or a move."""


class MachineBusyError(ConflictError):
    """Another holder is writing to the machine."""


class LeaseLostError(ConflictError):
    """This holder's lease was taken over: it must not write."""


def database_clock(conn: Connection) -> ColumnElement[datetime]:
    """The database's time now, in UTC, as an SQL expression (to the microsecond where it keeps them)."""
    if conn.dialect.name == "sqlite":  # SQLite's %f is seconds with milliseconds: six digits, as SQLAlchemy reads them
        return type_coerce(func.strftime("%Y-%m-%d %H:%M:%f000", "now"), DateTime)
    if conn.dialect.name == "postgresql":  # the time of the statement, not of the transaction's start
        return type_coerce(func.timezone("UTC", func.clock_timestamp()), DateTime)
    return type_coerce(func.current_timestamp(), DateTime)


def database_now(conn: Connection) -> datetime:
    """The database's time now (UTC): what every lease time is measured on."""
    return conn.execute(select(database_clock(conn))).scalar_one()


def _place() -> str:
    """Where this process runs, as far as a pid means anything: this boot of this host (the kernel's
    boot id, shared by its containers) and this pid namespace. Elsewhere, the host name."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
        return f"boot {boot}, {os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return f"host {socket.gethostname()}"


PLACE = _place()
"""Where this process runs (see :func:`_place`): a lease whose holder ran here, with a pid that no
process here has, is taken over at once."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass(frozen=True)
class Lease:
    """A held machine: its row id, name, and the token that proves the lease is still ours."""

    machine_id: int
    machine: str
    holder: str
    token: str

    def _mine(self) -> list[ColumnElement[bool]]:
        return [lock_table.c.machine_id == self.machine_id, lock_table.c.token == self.token]

    def prove(self, conn: Connection) -> None:
        """Renew the lease inside the caller's transaction, or raise :class:`LeaseLostError`.

        Call it first in every transaction that writes to the machine: the write and the proof
        commit together or not at all.
        """
        renewed = conn.execute(update(lock_table).where(*self._mine()).values(heartbeat_at=database_clock(conn)))
        if renewed.rowcount != 1:
            raise LeaseLostError(
                f"machine {self.machine!r} was taken over by another writer while {self.holder} held it; "
                f"nothing more of it is written"
            )

    def release(self, conn: Connection) -> None:
        conn.execute(delete(lock_table).where(*self._mine()))


def _lock_row(conn: Connection, machine_id: int) -> Row[Any] | None:
    return conn.execute(select(lock_table).where(lock_table.c.machine_id == machine_id)).first()


def _refuse_if_held(conn: Connection, machine_id: int, machine: str) -> Row[Any] | None:
    """Raise :class:`MachineBusyError` if a live holder has the machine; else the lease row that may
    be taken over (expired, or its process on this host is gone), if any."""
    row = _lock_row(conn, machine_id)
    if row is None:
        return None
    expired = database_now(conn) - row.heartbeat_at > timedelta(seconds=LEASE_SECONDS)
    dead = row.place == PLACE and not _alive(row.pid)
    if not (expired or dead):
        raise MachineBusyError(
            f"machine {machine!r} is in use by {row.holder} (pid {row.pid} on {row.host}, "
            f"since {row.acquired_at:%H:%M:%S} UTC)",
            hint="wait for it to finish, or stop it",
        )
    return row


def refuse_if_held(conn: Connection, machine_id: int, machine: str) -> None:
    """What :func:`acquire` would refuse, refused without writing anything (before asking a person
    questions whose answers will need the machine)."""
    _refuse_if_held(conn, machine_id, machine)


def acquire(conn: Connection, machine_id: int, machine: str, holder: str) -> Lease:
    """Take the machine, or raise :class:`MachineBusyError` naming who holds it.

    A live lease is refused even when this very process holds it: a server holds one lease per
    game in progress, and a second game of the same machine must wait for the first.
    """
    token = secrets.token_hex(16)
    # Writers queue on the machine's row (SELECT ... FOR UPDATE on a server; SQLite's BEGIN
    # IMMEDIATE already queues every writer), so a second one reads the first one's lease
    # instead of inserting its own.
    conn.execute(select(machine_table.c.id).where(machine_table.c.id == machine_id).with_for_update())
    if _refuse_if_held(conn, machine_id, machine) is not None:
        conn.execute(delete(lock_table).where(lock_table.c.machine_id == machine_id))
    t = database_now(conn)
    conn.execute(insert(lock_table).values(machine_id=machine_id, holder=holder, host=socket.gethostname(),
                                           pid=os.getpid(), acquired_at=t, heartbeat_at=t, token=token, place=PLACE))
    return Lease(machine_id, machine, holder, token)


@dataclass(frozen=True)
class HeldLease:
    """A lease as ``menace unlock`` shows it: who, where, and whether its process looks alive."""

    holder: str
    host: str
    pid: int
    acquired_at: datetime
    renewed_seconds_ago: float
    running_here: bool
    """It was taken where this process runs (:data:`PLACE`) and a process with its pid runs (menace,
    or an unrelated process that got the pid of one that crashed: only the lease's expiry tells them
    apart)."""
    token: str = ""

    def __str__(self) -> str:
        return f"{self.holder} (pid {self.pid} on {self.host})"


def lease_on(conn: Connection, machine_id: int) -> HeldLease | None:
    """The machine's lease if it has not expired (an expired one is taken over by the next writer)."""
    row = _lock_row(conn, machine_id)
    if row is None:
        return None
    age = (database_now(conn) - row.heartbeat_at).total_seconds()
    if age > LEASE_SECONDS:
        return None
    return HeldLease(row.holder, row.host, row.pid, row.acquired_at, age, row.place == PLACE and _alive(row.pid),
                     row.token)


def break_lease(conn: Connection, machine_id: int, seen: HeldLease) -> bool:
    """Remove the lease ``seen`` (``menace unlock``), and only it: False when the machine's lease
    has changed hands since (a new holder is never thrown out unasked)."""
    lock = lock_table.c
    gone = conn.execute(delete(lock_table).where(
        lock.machine_id == machine_id, lock.token == seen.token, lock.acquired_at == seen.acquired_at))
    return gone.rowcount == 1


class Heartbeat:
    """Renews a lease every ``every`` seconds (:data:`LEASE_SECONDS` / :data:`HEARTBEAT_SHARE`
    unless given) from a background thread while its holder waits; :attr:`lost` is set when the
    lease turns out to be gone."""

    def __init__(self, engine: Engine, lease: Lease, every: float | None = None) -> None:
        self.db = engine
        self.lease = lease
        self.every = LEASE_SECONDS / HEARTBEAT_SHARE if every is None else every
        self.lost = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"lease {lease.machine}", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def _run(self) -> None:
        from menace.storage.database import session_scope

        while not self._stop.wait(self.every):
            try:
                with session_scope(self.db, write=True) as s:
                    self.lease.prove(s)
            except LeaseLostError:
                self.lost = True
                return
            except Exception:  # noqa: BLE001 - a busy database: try again at the next beat
                log.warning("the heartbeat of %s could not reach the database; trying again", self.lease,
                            exc_info=True)
                continue

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=self.every + 1)
