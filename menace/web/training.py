"""A tournament started from the browser: the use case :func:`~menace.app.tournament.train`, as at the terminal,
in a process of its own beside the server (:mod:`menace.web.training_process`: in a thread it took the
server's interpreter from the pages), watched by a thread of the server; its progress goes out as events.

Stopping sets the flag: the tournament ends after the current game and saves every finished
game, exactly as Ctrl-C does at the terminal.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import asdict, dataclass
from typing import Any

from menace.app.database import Database
from menace.app.tournament import (
    OPENING_EMPTY,
    PARTNER_EMPTY,
    OpeningEmptyError,
    Progress,
    check_opponent,
    train,
)
from menace.core.errors import ConflictError, MenaceError
from menace.core.game import Side
from menace.web.hub import Publish
from menace.web.training_process import Apart, Play, TournamentFailedError, play_apart

log = logging.getLogger(__name__)

HOLDER = "a tournament from the browser (menace serve)"


class TrainingBusyError(ConflictError):
    """A tournament is already running in this server."""


@dataclass
class TrainingStatus:
    """What the train page shows."""

    running: bool = False
    machine: str | None = None
    opponent: str | None = None
    games: int = 0
    target: int | None = None
    seconds: float = 0.0
    limit_seconds: float | None = None
    wins: int = 0
    draws: int = 0
    losses: int = 0
    rate: float = 0.0
    stopped: str | None = None
    error: str | None = None
    total_games: int | None = None
    seed: int | None = None
    frozen: bool = False
    """The machine plays without learning."""

    def json(self) -> dict[str, Any]:
        return asdict(self)


class Trainer:
    """At most one tournament at a time, played in a process of its own and watched by a daemon thread.

    Each state it announces is numbered (``update``, counting up in this server, named by
    ``server``): an answer and the events travel on different connections, so a page can be handed
    an older state after a newer one (the last progress after the stop's answer) and drops it.
    """

    def __init__(self, publish: Publish, play: Play = train) -> None:
        self._publish = publish
        self._play = play
        """What the tournament's process calls (:func:`~menace.app.tournament.train`; a test's own)."""
        self._thread: threading.Thread | None = None
        self._flag = Apart()
        self._lock = threading.Lock()
        self._announcing = threading.Lock()
        self._server = uuid.uuid4().hex[:12]
        self._updates = 0
        self.status = TrainingStatus()
        self._latest = self._numbered()

    def _numbered(self) -> dict[str, Any]:
        self._updates += 1
        return self.status.json() | {"server": self._server, "update": self._updates}

    def _announce(self) -> dict[str, Any]:
        """Number the current state and publish it. The numbers follow the states' order, but a
        page can still receive them out of order (an answer and the events travel apart; the hub
        sends a worker thread's events a little later than the event loop's): it keeps the newest."""
        with self._announcing:
            self._latest = self._numbered()
            self._publish("train", self._latest)
            return self._latest

    def latest(self) -> dict[str, Any]:
        """The state last announced, with its number."""
        return self._latest

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def busy_machines(self) -> set[str]:
        return {self.status.machine} if self.running and self.status.machine else set()

    def start(self, db: Database, machine: str, opponent: str, games: int | None, seconds: float | None,
              seed: int | None = None, side: Side | None = None, frozen: bool = False) -> dict[str, Any]:
        """Start a tournament; :class:`TrainingBusyError` if one runs. A bad opponent name fails here."""
        check_opponent(opponent)
        with self._lock:
            if self.running:
                raise TrainingBusyError(f"a tournament of {self.status.machine!r} against {self.status.opponent} "
                                        f"is running; stop it first")
            self._flag = Apart()
            self.status = TrainingStatus(True, machine, opponent, target=games, limit_seconds=seconds, seed=seed,
                                         frozen=frozen)
            self._thread = threading.Thread(
                target=self._run, args=(db, machine, opponent, games, seconds, seed, side, self._flag, frozen),
                name=f"tournament-{machine}", daemon=True,
            )
            started = self._announce()  # before the thread's first progress
            self._thread.start()
        return started

    def request_stop(self, why: str = "the server stopped") -> None:
        """Ask the tournament to stop after the current game and save, without waiting for it: safe
        in a signal handler, so that the run's last save overlaps the server's own shutdown."""
        self._flag.stop(why)

    def stop(self, wait: float | None = 30.0) -> dict[str, Any]:
        """Ask the tournament to stop after the current game; wait for it to save."""
        self.request_stop("stopped from the page")
        thread = self._thread
        if thread is not None:
            thread.join(wait)
        return self.latest()

    def _progress(self, p: Progress) -> None:
        s = self.status
        s.games, s.target, s.seconds, s.limit_seconds = p.games, p.target, p.seconds, p.limit_seconds
        s.wins, s.draws, s.losses = p.wins, p.draws, p.losses
        s.rate = round(p.games / p.seconds, 1) if p.seconds > 0 else 0.0
        self._announce()

    def _run(self, db: Database, machine: str, opponent: str, games: int | None, seconds: float | None,
             seed: int | None, side: Side | None, flag: Apart, frozen: bool = False) -> None:
        s = self.status
        try:
            s.total_games, s.seed, stopped = play_apart(
                db.url, machine, opponent, flag, self._progress, self._play, holder=HOLDER, games=games,
                seconds=seconds, seed=seed, side=side, frozen=frozen)
            if stopped == OPENING_EMPTY:
                s.stopped = "the opening box is empty: under 'resign' MENACE would resign every game"
            elif stopped == PARTNER_EMPTY:
                s.stopped = "the opponent machine's opening box is empty"
            else:
                s.stopped = stopped
        except OpeningEmptyError:
            s.stopped = "the opening box is empty: under 'resign' MENACE would resign every game"
        except MenaceError as exc:  # a refusal, in one line: shown on the page
            s.error = str(exc) or type(exc).__name__
        except TournamentFailedError as exc:  # a bug there: shown on the page, and its traceback in the server's log
            log.error("the tournament of %r against %s failed\n%s", machine, opponent, exc.details)
            s.error = str(exc)
        except Exception as exc:  # a bug here: the same
            log.exception("the tournament of %r against %s failed", machine, opponent)
            s.error = str(exc) or type(exc).__name__
        finally:
            s.running = False
            self._announce()
            self._publish("wall", {"machine": machine, "reason": "tournament", "at": time.time()}, remember=False)
