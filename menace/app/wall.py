"""What a front end shows of a stored machine: its wall of boxes and one box's beads over the
games, sampled down to what a screen can show (the learning curve is
:func:`menace.app.history.learning_series`). These read only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from menace.app import pegasus_history
from menace.app.history import beads_series
from menace.core.colours import BeadColour, parse_colours
from menace.core.game import Game
from menace.core.learner import Box, Settings
from menace.core.pegasus import chances
from menace.core.replay import UnknownBoxError
from menace.games import find_game
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope

MAX_POINTS = 2000
"""The most points any series is sampled to."""


@dataclass(frozen=True)
class Wall:
    """Every box of a machine with its beads now."""

    machine: str
    game: Game
    settings: Settings
    preset: str | None
    games_played: int
    boxes: list[Box]
    colours: tuple[BeadColour, ...] | None
    """The machine's own bead colours (None: the standard set for its game)."""
    chances: list[dict[int, float]] | None = None
    """A Pegasus machine's chance of each move of each box, 0 to 1 (it has no beads to count)."""


def box_chances(stored: repo.StoredMachine) -> list[dict[int, float]] | None:
    """Each box's chance of each of its moves, for a machine that learns by the Pegasus rule; None otherwise."""
    if stored.rule is None or stored.odds is None:
        return None
    log_a = math.log(stored.rule.a)
    out = []
    for odds in stored.odds:
        moves = sorted(odds)
        out.append(dict(zip(moves, chances([odds[m] for m in moves], log_a))))
    return out


def machine_wall(url: str, name: str) -> Wall:
    """The machine's boxes and beads as stored now, and how many games it has played."""
    db = open_database(url)
    try:
        with session_scope(db) as s:
            stored = repo.load_machine(s, name)
            played = repo.games_played(s, stored.id)
    finally:
        db.dispose()
    colours = parse_colours(stored.colours) if stored.colours else None
    return Wall(stored.name, find_game(stored.game), stored.settings, stored.preset, played, stored.boxes, colours,
                box_chances(stored))


# -- one box's beads over the games -----------------------------------------------------------
@dataclass(frozen=True)
class BoxSeries:
    """A box's bead counts after the game numbers in :attr:`games` (0: as built), one list per
    colour in :attr:`beads` (squares of the box's drawing)."""

    box: Box
    beads: tuple[int, ...]
    games: list[int]
    counts: list[list[float]]
    """Per colour, its beads at each of :attr:`games`; for a Pegasus machine, its chance in percent."""
    games_played: int
    game: Game
    colours: tuple[BeadColour, ...] | None
    unit: str = ""
    """``"%"``: :attr:`counts` are a Pegasus machine's chances."""


def box_series(url: str, name: str, number: int, points: int = 400) -> BoxSeries:
    """Box ``number``'s beads over the whole history, sampled to ``points`` game numbers: replayed
    from the nearest checkpoints (:func:`menace.app.history.beads_series`), in memory bounded by
    ``points`` however long the history, summarized blocks included.

    The counts are a step function: the value at a sampled game is the count after that game.
    """
    points = max(2, min(points, MAX_POINTS))
    db = open_database(url)
    try:
        with session_scope(db) as s:
            stored = repo.load_machine(s, name)
            if not 1 <= number <= len(stored.boxes):
                raise UnknownBoxError(f"no box {number}: {name!r} has boxes 1 to {len(stored.boxes)}")
            if stored.rule is not None:
                return _chance_series(s, stored, number, points)
    finally:
        db.dispose()
    data = beads_series(url, name, number, points)
    series = data.series
    counts: list[list[float]] = [[row[j] for row in series.counts] for j in range(len(series.beads))]
    colours = parse_colours(stored.colours) if stored.colours else None
    return BoxSeries(series.box, series.beads, list(series.games), counts, data.games_played,
                     find_game(stored.game), colours)


def _chance_series(s: Connection, stored: repo.StoredMachine, number: int, points: int) -> BoxSeries:
    """A Pegasus machine's box: each move's chance (in percent) after the sampled games, replayed."""
    played = repo.games_played(s, stored.id)
    at = sorted({round(i * played / (points - 1)) for i in range(points)}) if played else [0]
    learner = pegasus_history.fresh(stored)
    b = number - 1
    moves = tuple(sorted(stored.boxes[b].initial))
    counts: list[list[float]] = [[] for _ in moves]
    want = iter(at)
    goal = next(want, None)

    def record() -> None:
        share = learner.chances(b)
        for col, m in zip(counts, moves):
            col.append(round(100 * share[m], 2))

    while goal == 0:
        record()
        goal = next(want, None)
    for n, frozen, game in pegasus_history.replay_records(s, stored):
        if not frozen:
            learner.learn(game)
        while goal is not None and goal <= n:
            record()
            goal = next(want, None)
    return BoxSeries(stored.boxes[b], moves, at, counts, played, find_game(stored.game),
                     parse_colours(stored.colours) if stored.colours else None, "%")


def wall_box_numbers(boxes: Sequence[Box]) -> dict[int, list[int]]:
    """Box numbers grouped by MENACE's move, in order."""
    groups: dict[int, list[int]] = {}
    for b in sorted(boxes, key=lambda b: b.number):
        groups.setdefault(b.move_number, []).append(b.number)
    return dict(sorted(groups.items()))
