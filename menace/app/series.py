"""The series behind the pictures: a box's beads over the games, the learning curve, the wall.

Pure data (numbers a test can compare with the history), computed here for every front end: the
command line draws them with matplotlib (:mod:`menace.render.plots`), the web sends them to the
browser. Nothing here draws.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from menace.core.errors import InvalidInputError
from menace.core.game import Game, Result
from menace.core.learner import Box, Settings
from menace.core.replay import BeadSeries, rule_text

T = TypeVar("T")


class PlotError(InvalidInputError):
    """A plot that cannot be drawn as asked (an unknown file type, no games yet, ...)."""


@dataclass(frozen=True)
class BeadsData:
    """The beads of one box over the games played (a step series, see :class:`BeadSeries`)."""

    game: Game
    machine: str
    settings: Settings
    series: BeadSeries
    opponents: list[tuple[int, str]] = field(default_factory=list)
    """``(first game, opponent)`` for the first game and every change of opponent."""

    @property
    def box(self) -> Box:
        return self.series.box

    @property
    def games_played(self) -> int:
        return self.series.games[-1]


def beads_data(
    game: Game, machine: str, settings: Settings, series: BeadSeries, opponents: Sequence[tuple[int, str]] = (),
) -> BeadsData:
    return BeadsData(game, machine, settings, series, list(opponents))


class OpponentTracker:
    """Passes games through, noting ``(game number, opponent)`` wherever the opponent changes."""

    def __init__(self) -> None:
        self.changes: list[tuple[int, str]] = []

    def follow(self, games: Iterable[tuple[T, str]]) -> Iterator[T]:
        previous: str | None = None
        for n, (item, opponent) in enumerate(games, start=1):
            if opponent != previous:
                self.changes.append((n, opponent))
                previous = opponent
            yield item


@dataclass(frozen=True)
class LearningData:
    """Per game (index 0 is game 1): the result code (0 win, 1 draw, 2 loss) and the running
    total of the rule's value; rolling rates over ``window`` games from game ``window`` on;
    the game numbers where the opponent changes.
    """

    machine: str
    settings: Settings
    results: npt.NDArray[np.int8]
    cumulative: npt.NDArray[np.int64]
    window: int
    rate_games: npt.NDArray[np.int64]
    win_rate: npt.NDArray[np.float64]
    draw_rate: npt.NDArray[np.float64]
    loss_rate: npt.NDArray[np.float64]
    opponents: list[tuple[int, str]]
    """``(first game, opponent)`` for the first game and every change of opponent."""

    @property
    def games(self) -> npt.NDArray[np.int64]:
        return np.arange(1, len(self.results) + 1, dtype=np.int64)

    @property
    def rule(self) -> str:
        return rule_text(self.settings)


RESULT_CODE = {Result.WIN: 0, Result.DRAW: 1, Result.LOSS: 2}


def default_window(games: int) -> int:
    """100 games, fewer for a short history, more (0.5 %) for a very long one."""
    if games >= 20_000:
        return games // 200
    return max(min(games, 10), min(100, games // 10))  # never fewer than 10: no 0/50/100% zigzag


def learning_data(
    machine: str, settings: Settings, games: Iterable[tuple[Result, str]], window: int | None = None,
) -> LearningData:
    """The learning curve of ``games``, in order: each one's result for MENACE and its opponent."""
    tracker = OpponentTracker()
    codes = bytearray(RESULT_CODE[result] for result in tracker.follow(games))
    if not codes:
        raise PlotError(f"{machine!r} has played no games yet: nothing to plot")
    results = np.frombuffer(bytes(codes), dtype=np.int8)
    values = np.array([settings.win, settings.draw, settings.loss], dtype=np.int64)
    cumulative = np.cumsum(values[results])
    n = len(results)
    w = default_window(n) if window is None else window
    if w < 1:
        raise PlotError("the window must be at least 1 game")
    w = min(w, n)
    rates = []
    for code in range(3):
        running = np.concatenate(([0], np.cumsum(results == code, dtype=np.int64)))
        rates.append((running[w:] - running[:-w]) / w)
    return LearningData(machine, settings, results, cumulative, w, np.arange(w, n + 1, dtype=np.int64),
                        rates[0], rates[1], rates[2], tracker.changes)


@dataclass(frozen=True)
class BoxesData:
    """Every box with its beads now, grouped by MENACE's move."""

    game: Game
    machine: str
    games_played: int
    groups: list[tuple[int, list[Box]]]

    @property
    def boxes(self) -> list[Box]:
        return [b for _, group in self.groups for b in group]


def boxes_data(game: Game, machine: str, boxes: Sequence[Box], games_played: int) -> BoxesData:
    groups: dict[int, list[Box]] = {}
    for b in sorted(boxes, key=lambda b: b.number):
        groups.setdefault(b.move_number, []).append(b)
    return BoxesData(game, machine, games_played, sorted(groups.items()))


MIN_DOT = 0.05
"""The smallest dot, as a fraction of a full one: a single bead must still show."""


def dot_fraction(count: int, most: int) -> float:
    """The area of a bead's dot as a fraction of a full one: ``count`` beads of that colour in a
    box whose most plentiful colour has ``most``. The box's favourite move is a full dot.
    """
    if count <= 0:
        return 0.0
    return max(count / max(most, 1), MIN_DOT)
