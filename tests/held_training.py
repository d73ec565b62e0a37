"""Tournaments for the server's tests that run in its tournament process as the real one does
(:mod:`menace.web.training_process`), handed to a ``Trainer`` as ``play``: importable by name, as
every target of a process must be."""

from __future__ import annotations

import os
from typing import Any

from menace.app.database import Database
from menace.app.tournament import Progress, Training, train
from menace.web.training_process import PROCESSES


class Held:
    """:func:`~menace.app.tournament.train`, held at a known point: once its first games are stored it
    says so (:attr:`reached`, with its process's id and the games stored) and waits for
    :attr:`release` before it plays on."""

    def __init__(self) -> None:
        self.reached = PROCESSES.Event()
        self.release = PROCESSES.Event()
        self.pid = PROCESSES.Value("q", 0)
        self.games = PROCESSES.Value("q", 0)

    def __call__(self, db: Database, machine: str, opponent: str, *, progress: Any, **options: Any) -> Training:
        def paused(p: Progress) -> None:
            progress(p)
            if p.games and not self.reached.is_set():
                self.pid.value, self.games.value = os.getpid(), p.games
                self.reached.set()
                if not self.release.wait(120):
                    raise RuntimeError("the test never released the tournament")

        return train(db, machine, opponent, progress=paused, **options)


def broken(*_args: Any, **_kwargs: Any) -> Training:
    """A tournament with a bug."""
    raise ZeroDivisionError("a bug")
