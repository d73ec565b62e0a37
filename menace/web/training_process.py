"""A tournament from the browser played in a process of its own, beside the server.

The tournament's loop is pure Python and never waits: in a thread of the server it held the
server's interpreter lock for all but the 5 ms slices the other threads forced from it, so every
request of a class took turns with it (issue 31: the pages starved while the server trained). In
a process of its own it has a core of its own, and the server's threads have the interpreter to
themselves; it runs at a lower priority (:data:`NICENESS`), so that when the cores are all busy
the server's answers come first. The process opens its own owner of the database (by its URL) and writes there as
``menace tournament`` does from a terminal; the server's kept answers follow its commits through the
database's own change signal (:meth:`menace.app.database.Database.kept`).

The server's side (:func:`play_apart`, called from the :class:`~menace.web.training.Trainer`'s
thread) hears the tournament's progress and its end through a pipe, and sends the stop down it. A
process started by a fork server (``forkserver`` where there is one, else ``spawn``) shares
nothing with the server's threads, its open database connections included. The process ignores
Ctrl-C (the terminal sends it to the server too, which asks the tournament to stop), stops and saves
when the server's end of the pipe closes (the server died) or on SIGTERM, and saves every finished
game before it ends.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import traceback
from collections.abc import Callable
from dataclasses import astuple
from multiprocessing.connection import Connection
from types import FrameType
from typing import Any

from menace.app.database import Database
from menace.app.tournament import OpeningEmptyError, Progress, StopFlag, Training, train
from menace.core.errors import MenaceError

Play = Callable[..., Training]
"""What the process calls: :func:`menace.app.tournament.train`'s signature (tests hand in one that
pauses at a known point; it must be importable by name, as every target of a process is)."""

SERVER_GONE = "the server stopped"

NICENESS = 10
"""How much less of the CPU the tournament's process asks for than the server's when both want it:
the pages answer first and the games take the rest (a laptop whose cores the tournament and a
database server share with the server answers a class later otherwise)."""


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        # the fork server imports the tournament once; each run is then a fork of it (milliseconds)
        ctx.set_forkserver_preload([__name__])
        return ctx
    return multiprocessing.get_context("spawn")


PROCESSES: Any = _context()
"""The multiprocessing context the tournaments are started in (also for a test's events)."""


class TournamentRefusedError(MenaceError):
    """The tournament's process refused the run (its one-line reason, as :func:`train` gave it)."""


class TournamentFailedError(Exception):
    """The tournament's process failed with a bug; :attr:`details` is its traceback there."""

    def __init__(self, message: str, details: str) -> None:
        super().__init__(message)
        self.details = details


class Apart:
    """The server's end of a running tournament's process: stop it (:meth:`stop`, safe in a signal
    handler: one small write to the pipe)."""

    def __init__(self) -> None:
        self._conn: Connection | None = None
        self._why: str | None = None

    def stop(self, why: str) -> None:
        if self._why is None:
            self._why = why
        conn = self._conn
        if conn is not None:
            self._send(conn, why)

    @staticmethod
    def _send(conn: Connection, why: str) -> None:
        try:
            conn.send(why)
        except (OSError, ValueError):  # the process has ended (or its pipe is closed): nothing to stop
            pass

    def attach(self, conn: Connection) -> None:
        self._conn = conn
        if self._why is not None:  # a stop asked before the process was there
            self._send(conn, self._why)


def play_apart(url: str, machine: str, opponent: str, apart: Apart, progress: Callable[[Progress], None],
               play: Play = train, **options: Any) -> tuple[int, int, str | None]:
    """Play ``play(db, machine, opponent, stop=..., progress=..., **options)`` in a process of its own
    on the database at ``url``; ``progress`` hears its progress here. The run's total games, seed and
    why it stopped early; :class:`OpeningEmptyError`'s message, a refusal
    (:class:`TournamentRefusedError`) or a bug (:class:`TournamentFailedError`) raised here."""
    here, there = PROCESSES.Pipe()
    process = PROCESSES.Process(target=_run, args=(there, url, machine, opponent, play, options),
                                name=f"tournament {machine}", daemon=True)
    process.start()
    there.close()
    apart.attach(here)
    try:
        while True:
            try:
                message = here.recv()
            except (EOFError, OSError):
                process.join()
                raise TournamentFailedError(f"the tournament's process ended without a word (exit code "
                                            f"{process.exitcode})", "") from None
            kind = message[0]
            if kind == "progress":
                progress(Progress(*message[1]))
            elif kind == "done":
                return message[1], message[2], message[3]
            elif kind == "opening empty":
                raise _OpeningEmpty(message[1])
            elif kind == "refused":
                raise TournamentRefusedError(message[1])
            else:
                raise TournamentFailedError(message[1], message[2])
    finally:
        process.join()
        here.close()


class _OpeningEmpty(OpeningEmptyError):
    """:class:`OpeningEmptyError` heard from the tournament's process (its machine stays there)."""

    def __init__(self, message: str) -> None:
        MenaceError.__init__(self, message)


def _run(conn: Connection, url: str, machine: str, opponent: str, play: Play, options: dict[str, Any]) -> None:
    """The tournament's process: play, telling the server through ``conn``; stop when it says so."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the server as well: it stops us
    if hasattr(os, "nice"):
        os.nice(NICENESS)
    flag = StopFlag()

    def stop(why: str) -> None:
        flag.signal_name = why  # named before it is requested: the loop reads the name once it sees the request
        flag.requested = True

    def on_term(_signum: int, _frame: FrameType | None) -> None:
        stop(SERVER_GONE)

    signal.signal(signal.SIGTERM, on_term)

    def listen() -> None:
        try:
            why = conn.recv()
        except (EOFError, OSError):  # the server's end closed: it is gone
            why = SERVER_GONE
        stop(str(why))

    threading.Thread(target=listen, name="stop", daemon=True).start()
    try:
        with Database(url) as db:
            result = play(db, machine, opponent, stop=flag,
                          progress=lambda p: conn.send(("progress", astuple(p))), **options).result
        conn.send(("done", result.total_games, result.seed, result.stopped))
    except OpeningEmptyError as exc:
        conn.send(("opening empty", str(exc)))
    except MenaceError as exc:  # a refusal, in one line
        conn.send(("refused", str(exc) or type(exc).__name__))
    except Exception as exc:  # a bug: its traceback goes to the server's log
        conn.send(("failed", str(exc) or type(exc).__name__, traceback.format_exc()))
