"""What a front end shows of a stored machine: its wall of boxes and one box's beads over the
games, sampled down to what a screen can show (the learning curve is
:func:`menace.app.history.learning_series`). These read only.
"""

from __future__ import annotations

from dataclasses import dataclass

from menace.app.database import Database
from menace.app.history import beads_series
from menace.app.machines import machine_now
from menace.core.colours import BeadColour, parse_colours
from menace.core.game import Game
from menace.core.learner import Box
from menace.core.replay import UnknownBoxError
from menace.core.settings import Settings
from menace.games import find_game
from menace.storage import repository as repo

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


def machine_wall(db: Database, name: str) -> Wall:
    """The machine's boxes and beads as stored now, and how many games it has played (kept by a
    server's owner until the database changes: see :meth:`Database.kept`)."""
    return db.kept(("wall", name), lambda: _machine_wall(db, name))


def _machine_wall(db: Database, name: str) -> Wall:
    now = machine_now(db, name)  # read once for the wall and the summary
    stored, played = now.stored, now.games
    colours = parse_colours(stored.colours) if stored.colours else None
    return Wall(stored.name, find_game(stored.game), stored.settings, stored.preset, played, stored.boxes, colours)


# -- one box's beads over the games -----------------------------------------------------------
@dataclass(frozen=True)
class BoxSeries:
    """A box's bead counts after the game numbers in :attr:`games` (0: as built), one list per
    colour in :attr:`beads` (squares of the box's drawing)."""

    box: Box
    beads: tuple[int, ...]
    games: list[int]
    counts: list[list[float]]
    games_played: int
    game: Game
    colours: tuple[BeadColour, ...] | None
    odds: bool = False
    """A machine of the Pegasus rule: :attr:`counts` are each move's chance in % (one decimal), not beads."""


def box_series(db: Database, name: str, number: int, points: int = 400) -> BoxSeries:
    """Box ``number``'s beads over the whole history, sampled to ``points`` game numbers: replayed
    from the nearest checkpoints (:func:`menace.app.history.beads_series`), in memory bounded by
    ``points`` however long the history, summarized blocks included.

    The counts are a step function: the value at a sampled game is the count after that game.
    """
    points = max(2, min(points, MAX_POINTS))
    with db.reading() as s:
        stored = repo.load_machine(s, name)
        if not 1 <= number <= len(stored.boxes):
            raise UnknownBoxError(f"no box {number}: {name!r} has boxes 1 to {len(stored.boxes)}")
    data = beads_series(db, name, number, points)
    series = data.series
    odds = stored.settings.pegasus is not None
    rows = [[round(100 * c / max(sum(row), 1), 1) for c in row] for row in series.counts] if odds else series.counts
    counts = [[row[j] for row in rows] for j in range(len(series.beads))]
    colours = parse_colours(stored.colours) if stored.colours else None
    return BoxSeries(series.box, series.beads, list(series.games), counts, data.games_played,
                     find_game(stored.game), colours, odds)
