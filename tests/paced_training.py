"""A tournament for the browser tests that watch a run, played in the server's tournament process as
the real one is (:mod:`menace.web.training_process`), handed to a ``Trainer`` as ``play``: importable by
name, as every target of a process must be.

Those tests need the run's events (a progress report every 0.2 s, its games stored each second),
not its thousands of games a second: :func:`paced` rests after each progress report, so the
reports still come every 0.2 s (the tournament counts 0.2 s from the one before, rest included)
and the tournament takes a small share of a core instead of a whole one, as on a slower computer.
Resting in the server's own thread instead does not slow the run: its process plays on at full
speed and its reports wait in the pipe.
"""

from __future__ import annotations

import time
from typing import Any

from menace.app.database import Database
from menace.app.tournament import Progress, Training, train

PAUSE = 0.18
"""Seconds of rest after each progress report (reports come every 0.2 s)."""


def paced(db: Database, machine: str, opponent: str, *, progress: Any, **options: Any) -> Training:
    """:func:`~menace.app.tournament.train`, resting :data:`PAUSE` seconds after each progress report."""
    def resting(p: Progress) -> None:
        progress(p)
        time.sleep(PAUSE)

    return train(db, machine, opponent, progress=resting, **options)


def pace_server(state: Any) -> None:
    """Make the server's tournaments (``srv.app.state.menace``) paced ones: a new ``Trainer`` that
    plays :func:`paced`, before any run starts."""
    from menace.web.training import Trainer

    assert not state.trainer.running
    state.trainer = Trainer(state.hub.publish, play=paced)
