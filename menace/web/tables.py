"""Games in progress in the browser: one :class:`~menace.app.session.PlaySession` per table.

A game spans many requests, so the server keeps its session here under a random id. The
session holds the machine's lease; a page that goes away (the tab closed) abandons its game; a
page that stops answering (its browser died, the laptop slept) stops sending its heartbeat, and
its game is abandoned within :data:`ORPHAN_SECONDS` by a sweeper thread; a game nobody moves in
for :data:`IDLE_SECONDS` too. Nothing is reinforced or stored for an abandoned game.

A machine plays one game at a time, as the real one does: the next players wait in its
:class:`Queue` (each page keeps its ticket alive the same way), and the first in the queue gets the
machine when the game in progress ends.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from menace.app.database import Database
from menace.app.session import PlaySession
from menace.core.colours import DEFAULT_COLOURS, BeadColour, default_colours, parse_colours
from menace.core.errors import ConflictError, NotFoundError
from menace.render.beads import places_pieces
from menace.web.hub import Publish

logger = logging.getLogger(__name__)

IDLE_SECONDS = 15 * 60
"""A game nobody has moved in for this long is abandoned."""
ORPHAN_SECONDS = 45.0
"""A game (or a place in a queue) whose page has not been heard from for this long is given up:
the page sends a heartbeat every :data:`HEARTBEAT_SECONDS`."""
HEARTBEAT_SECONDS = 10.0
"""How often a page with a game or a place in a queue says it is still there."""


class SessionGoneError(NotFoundError):
    """No game in progress with that id (finished, abandoned or never started)."""


class MachineTakenError(ConflictError):
    """The machine is in a game (or others wait for it): join its queue."""


class TicketGoneError(NotFoundError):
    """No place in a queue with that id (given up, or never taken)."""


@dataclass
class Table:
    """One game in progress and what the pages have been shown of it."""

    id: str
    """Public: every page may hear of the game by it (the audience view, the teacher's list)."""
    machine: str
    operated: bool
    session: PlaySession
    colours: tuple[BeadColour, ...] = DEFAULT_COLOURS
    lock: threading.Lock = field(default_factory=threading.Lock)
    used: float = field(default_factory=time.monotonic)
    """When a move was last made."""
    seen: float = field(default_factory=time.monotonic)
    """When its page was last heard from (a move or a heartbeat)."""
    started: float = field(default_factory=time.time)
    heartbeat_seconds: float = HEARTBEAT_SECONDS
    """How often its page is to say it is still there."""
    turns: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None
    seat: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    """Secret: only the page that started the game is told it, and only it may move, end the game
    or say its page is still there."""


@dataclass
class Ticket:
    """A place in a machine's queue."""

    id: str
    machine: str
    seen: float = field(default_factory=time.monotonic)


class GameTables:
    """Every game in progress in this server, and who waits for each machine."""

    def __init__(self, db: Database, publish: Publish, clock: Callable[[], float] = time.monotonic,
                 sweep_every: float | None = None) -> None:
        self.db = db
        self.publish = publish
        self._clock = clock
        self._sweep_every = sweep_every
        self.orphan_seconds = ORPHAN_SECONDS
        self.heartbeat_seconds = HEARTBEAT_SECONDS
        self.idle_seconds: float = IDLE_SECONDS
        self._tables: dict[str, Table] = {}
        self._seats: dict[str, Table] = {}
        self._queues: dict[str, list[Ticket]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    def busy_machines(self) -> set[str]:
        with self._lock:
            return {t.machine for t in self._tables.values()}

    def tables(self) -> list[Table]:
        """The games in progress, oldest first."""
        with self._lock:
            return sorted(self._tables.values(), key=lambda t: t.started)

    def open(self, machine: str, *, holder: str, menace_side: Any = None, seed: int | None = None,
             operated: bool = False, ticket: str | None = None) -> Table:
        """Start a game (the session takes the machine's lease). Refused with
        :class:`MachineTakenError` while the machine is in a game here, or while others wait for it
        ahead of ``ticket``; the ticket's place is given up once the game starts."""
        self._start_sweeper()
        self.sweep()
        with self._lock:
            if any(t.machine == machine for t in self._tables.values()):
                raise MachineTakenError(f"a game is in progress on {machine!r}; wait in its queue")
            queue = self._queues.get(machine, [])
            if queue and queue[0].id != ticket:
                ahead = next((i for i, q in enumerate(queue) if q.id == ticket), len(queue))
                raise MachineTakenError(f"{ahead} {'player waits' if ahead == 1 else 'players wait'} for "
                                        f"{machine!r} before you; wait in its queue")
        session = PlaySession.open(self.db, machine, holder=holder, menace_side=menace_side, seed=seed,
                                   operated=operated)
        stored = session.machine.stored.colours
        colours = parse_colours(stored) if stored else default_colours(places_pieces(session.game))
        now = self._clock()
        table = Table(secrets.token_urlsafe(12), machine, operated, session, colours,
                      heartbeat_seconds=self.heartbeat_seconds, used=now, seen=now)
        with self._lock:
            self._tables[table.id] = table
            self._seats[table.seat] = table
            if ticket is not None:
                self._leave(machine, ticket)
        return table

    def get(self, table_id: str) -> Table:
        """The game of this public id, to look at."""
        with self._lock:
            table = self._tables.get(table_id)
        if table is None:
            raise SessionGoneError("no game in progress with that id: it finished, was abandoned or timed out")
        return table

    def seated(self, seat: str) -> Table:
        """The game of this seat, to play: its page is heard from."""
        table = self.alive(seat)
        table.used = table.seen
        return table

    def alive(self, seat: str) -> Table:
        """The page of this game is still there (its heartbeat)."""
        with self._lock:
            table = self._seats.get(seat)
        if table is None:
            raise SessionGoneError("no game in progress at that seat: it finished, was abandoned or timed out")
        table.seen = self._clock()
        return table

    def drop(self, table: Table, abandon: bool) -> None:
        """Forget the table; abandon its game first if asked; release the lease."""
        with self._lock:
            self._tables.pop(table.id, None)
            self._seats.pop(table.seat, None)
        try:
            if abandon:
                table.session.abandon()
        finally:
            table.session.close()
            self.publish("queue", {"machine": table.machine, "free": True}, remember=False)

    def stop(self, table_id: str, why: str) -> Table:
        """End a game storing nothing (the teacher stopped it, its page died, ...) and tell its page."""
        with self._lock:
            table = self._tables.get(table_id)
        if table is None:
            raise SessionGoneError("no game in progress with that id: it finished, was abandoned or timed out")
        with table.lock:
            if table.id not in self._tables:
                raise SessionGoneError("that game has just ended")
            self.drop(table, abandon=True)
        self.publish("table", {"id": table.id, "machine": table.machine, "abandoned": True, "why": why})
        return table

    def sweep(self, idle: float | None = None) -> None:
        """Abandon games whose page has not been heard from for :attr:`orphan_seconds`, or nobody
        has moved in for ``idle`` seconds (:attr:`idle_seconds`); give up queue places whose page
        has gone quiet."""
        idle = self.idle_seconds if idle is None else idle
        now = self._clock()
        with self._lock:
            stale = [(t, "its page stopped answering" if now - t.seen > self.orphan_seconds else "nobody moved")
                     for t in self._tables.values()
                     if now - t.used > idle or now - t.seen > self.orphan_seconds]
            for machine, queue in list(self._queues.items()):
                kept = [q for q in queue if now - q.seen <= self.orphan_seconds]
                if len(kept) != len(queue):
                    self._queues[machine] = kept
                    self.publish("queue", {"machine": machine, "waiting": len(kept)}, remember=False)
        for t, why in stale:
            try:
                self.stop(t.id, why)
            except SessionGoneError:
                pass

    def _start_sweeper(self) -> None:
        with self._lock:
            if self._sweeper is not None or self._stop.is_set():
                return
            self._sweeper = threading.Thread(target=self._sweep_loop, name="game-sweeper", daemon=True)
            self._sweeper.start()

    def _sweep_loop(self) -> None:
        every = self._sweep_every if self._sweep_every is not None else min(5.0, self.orphan_seconds / 4)
        while not self._stop.wait(every):
            try:
                self.sweep()
            except Exception:  # a sweep that failed is tried again; the thread must go on
                logger.exception("sweeping the games in progress failed")

    def close_all(self) -> None:
        """Abandon every game in progress (the server is stopping)."""
        self._stop.set()
        self.sweep(idle=-1)

    # -- the queue ----------------------------------------------------------------------------------
    def join(self, machine: str) -> Ticket:
        """Take a place at the end of ``machine``'s queue."""
        self._start_sweeper()
        ticket = Ticket(secrets.token_urlsafe(12), machine, seen=self._clock())
        with self._lock:
            self._queues.setdefault(machine, []).append(ticket)
        self.publish("queue", {"machine": machine}, remember=False)
        return ticket

    def place(self, ticket_id: str) -> dict[str, Any]:
        """Where a ticket stands (and its page is still there): its position (1: next), how many
        wait, whether a game is in progress, and a line to show."""
        with self._lock:
            for machine, queue in self._queues.items():
                for i, q in enumerate(queue):
                    if q.id == ticket_id:
                        q.seen = self._clock()
                        busy = any(t.machine == machine for t in self._tables.values())
                        position = i + 1
                        break
                else:
                    continue
                break
            else:
                raise TicketGoneError("that place in the queue was given up (its page was quiet too long)")
        if position == 1 and not busy:
            say = "your turn: the game starts"
        elif position == 1:
            say = "you are next; a game is in progress"
        else:
            say = f"{position - 1} ahead of you; a game is in progress" if busy else f"{position - 1} ahead of you"
        return {"ticket": ticket_id, "machine": machine, "position": position, "waiting": len(queue),
                "busy": busy, "turn": position == 1 and not busy, "message": say}

    def leave(self, ticket_id: str) -> None:
        with self._lock:
            for machine in list(self._queues):
                self._leave(machine, ticket_id)
        self.publish("queue", {"left": True}, remember=False)

    def _leave(self, machine: str, ticket_id: str) -> None:
        queue = self._queues.get(machine, [])
        self._queues[machine] = [q for q in queue if q.id != ticket_id]
        if not self._queues[machine]:
            del self._queues[machine]

    def waiting(self) -> dict[str, int]:
        """How many wait for each machine."""
        with self._lock:
            return {m: len(q) for m, q in self._queues.items()}
