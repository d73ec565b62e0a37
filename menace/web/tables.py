"""Games in progress in the browser: one :class:`~menace.app.session.PlaySession` per table.

A game spans many requests, so the server keeps its session here under a random id. The
session holds the machine's lease; a page that goes away (the tab closed) abandons its game, and
a game left idle is abandoned by :meth:`GameTables.sweep`: nothing is reinforced or stored. The
sweep runs in a thread of its own while games are in progress, so an idle game gives its machine
back whether or not anyone else visits the server.
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
from menace.core.errors import NotFoundError
from menace.render.beads import places_pieces
from menace.web.hub import Publish

IDLE_SECONDS = 15 * 60
"""A game nobody has touched for this long is abandoned."""
SWEEP_SECONDS = 30.0
"""How often the server looks for idle games while any is in progress."""

log = logging.getLogger(__name__)


class SessionGoneError(NotFoundError):
    """No game in progress with that id (finished, abandoned or never started)."""


@dataclass
class Table:
    """One game in progress and what the pages have been shown of it."""

    id: str
    machine: str
    operated: bool
    session: PlaySession
    colours: tuple[BeadColour, ...] = DEFAULT_COLOURS
    lock: threading.Lock = field(default_factory=threading.Lock)
    used: float = 0.0
    """When a request last touched it (the tables' clock)."""
    turns: list[dict[str, Any]] = field(default_factory=list)
    end: dict[str, Any] | None = None


class GameTables:
    """Every game in progress in this server."""

    def __init__(self, db: Database, publish: Publish, clock: Callable[[], float] = time.monotonic,
                 sweep_every: float = SWEEP_SECONDS) -> None:
        self.db = db
        self.publish = publish
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()
        self._clock = clock
        self._sweep_every = sweep_every
        self._sweeper: threading.Thread | None = None
        self._closing = threading.Event()

    def _start_sweeper(self) -> None:
        """The thread that abandons idle games, started with the first game (under ``_lock``)."""
        if self._sweeper is None or not self._sweeper.is_alive():
            self._sweeper = threading.Thread(target=self._sweep_forever, name="idle games", daemon=True)
            self._sweeper.start()

    def _sweep_forever(self) -> None:
        while not self._closing.wait(self._sweep_every):
            try:
                self.sweep()
            except Exception:  # a database gone away, say: logged, and tried again at the next round
                log.exception("abandoning idle games failed")

    def busy_machines(self) -> set[str]:
        with self._lock:
            return {t.machine for t in self._tables.values()}

    def open(self, machine: str, *, holder: str, menace_side: Any = None, seed: int | None = None,
             operated: bool = False) -> Table:
        """Start a game (the session takes the machine's lease)."""
        self.sweep()
        session = PlaySession.open(self.db, machine, holder=holder, menace_side=menace_side, seed=seed,
                                   operated=operated)
        stored = session.machine.stored.colours
        colours = parse_colours(stored) if stored else default_colours(places_pieces(session.game))
        table = Table(secrets.token_urlsafe(12), machine, operated, session, colours, used=self._clock())
        with self._lock:
            self._tables[table.id] = table
            self._start_sweeper()
        return table

    def get(self, table_id: str) -> Table:
        with self._lock:
            table = self._tables.get(table_id)
        if table is None:
            raise SessionGoneError("no game in progress with that id: it finished, was abandoned or timed out")
        table.used = self._clock()
        return table

    def drop(self, table: Table, abandon: bool) -> None:
        """Forget the table; abandon its game first if asked; release the lease."""
        with self._lock:
            self._tables.pop(table.id, None)
        try:
            if abandon:
                table.session.abandon()
        finally:
            table.session.close()

    def sweep(self, idle: float = IDLE_SECONDS) -> None:
        """Abandon games nobody has touched for ``idle`` seconds."""
        now = self._clock()
        with self._lock:
            stale = [t for t in self._tables.values() if now - t.used > idle]
        for t in stale:
            with t.lock:
                if now - t.used > idle:  # not touched while this waited for its lock
                    self.drop(t, abandon=True)

    def close_all(self) -> None:
        """Abandon every game in progress (the server is stopping)."""
        self._closing.set()
        self.sweep(idle=-1)
