"""The series behind the pictures: a box's beads over the games, the learning curve, the wall.

Pure data (numbers a test can compare with the history), computed here for every front end: the
command line draws them with matplotlib (:mod:`menace.render.plots`), the web sends them to the
browser. Nothing here draws.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from menace.core.errors import InvalidInputError
from menace.core.game import Game, Result
from menace.core.learner import Box
from menace.core.records import LONG, RESULT_WORD, CorruptHistoryError
from menace.core.replay import BeadSeries
from menace.core.settings import Settings


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
    played: int | None = None
    """Games in the whole history, when the series covers only a range of it."""

    @property
    def box(self) -> Box:
        return self.series.box

    @property
    def games_played(self) -> int:
        return self.series.games[-1] if self.played is None else self.played


def bead_growth(series: BeadSeries, points: int, first: int = 0,
                last: int | None = None) -> tuple[list[int], list[tuple[int, ...]]]:
    """Box growth to draw as a line through what the history knows, for every front end: the game
    numbers where the series knows the box's counts and those counts, within ``first``..``last``
    (with the known points just outside it, so the line reaches the edges), thinned to at most
    ``points`` of them. A count is never carried past where it was known (no staircase): between two
    known points the line goes straight from one to the other.

    >>> from menace.core.learner import Box
    >>> s = BeadSeries(Box(1, None, 1, 1, {0: 4}, {0: 4}), (0,), [0, 20_000, 40_000], [(12,), (64,), (90,)])
    >>> bead_growth(s, 2)
    ([0, 40000], [(12,), (90,)])
    >>> bead_growth(s, 10, 25_000)
    ([20000, 40000], [(64,), (90,)])
    """
    games, counts = series.games, series.counts
    if not games:
        return [], []
    hi = games[-1] if last is None else last
    start = max(bisect.bisect_right(games, first) - 1, 0)
    stop = min(bisect.bisect_left(games, hi) + 1, len(games))
    idx = list(range(start, stop))
    if len(idx) > max(points, 2):
        step = (len(idx) - 1) / (max(points, 2) - 1)
        idx = sorted({idx[round(k * step)] for k in range(max(points, 2))})
    return [games[i] for i in idx], [counts[i] for i in idx]


def beads_data(
    game: Game, machine: str, settings: Settings, series: BeadSeries, opponents: Sequence[tuple[int, str]] = (),
    played: int | None = None,
) -> BeadsData:
    return BeadsData(game, machine, settings, series, list(opponents), played)


@dataclass(frozen=True)
class LearningData:
    """The learning curve, thinned to a bounded number of points.

    ``games[i]`` is a game number and ``cumulative[i]`` the running total of the rule's value up to
    it (from the range's first game); the rolling rates over ``window`` games are at ``rate_games``
    (from game ``first + window - 1`` on). For a history no longer than the points asked for, every
    game is a point. ``opponents``: the game numbers where the opponent changes.
    """

    machine: str
    settings: Settings
    games: npt.NDArray[np.int64]
    cumulative: npt.NDArray[np.int64]
    window: int
    rate_games: npt.NDArray[np.int64]
    win_rate: npt.NDArray[np.float64]
    draw_rate: npt.NDArray[np.float64]
    loss_rate: npt.NDArray[np.float64]
    opponents: list[tuple[int, str]]
    """``(first game, opponent)`` for the first game and every change of opponent."""
    totals: tuple[int, int, int] = (0, 0, 0)
    """Wins, draws and losses over the range."""
    first: int = 1
    last: int = 0
    games_played: int = 0
    """Games in the whole history (the range may be part of it)."""

    @property
    def played(self) -> int:
        """Games in the range."""
        return self.last - self.first + 1


RESULT_CODE = {Result.WIN: 0, Result.DRAW: 1, Result.LOSS: 2}


def default_window(games: int) -> int:
    """100 games, fewer for a short history, more (0.5 %) for a very long one."""
    if games >= 20_000:
        return games // 200
    return max(min(games, 10), min(100, games // 10))  # never fewer than 10: no 0/50/100% zigzag


def sample_points(first: int, last: int, points: int) -> list[int]:
    """At most ``points`` game numbers evenly spread from ``first`` to ``last``, both included."""
    if last - first + 1 <= points:
        return list(range(first, last + 1))
    step = (last - first) / (points - 1)
    return sorted({first + round(i * step) for i in range(points)})


GAME_LANE = 64
"""Bytes of packed games walked per numpy lane by :func:`game_heads`."""


def game_heads(raw: bytes) -> npt.NDArray[np.int64]:
    """The offset of every game's header byte in packed games (see :mod:`menace.core.records`:
    a header ``n_moves << 4 | ...`` then ``n_moves`` bytes), found with numpy instead of a loop
    per game.

    The bytes are cut into lanes of :data:`GAME_LANE` bytes, all walked at once, each from where
    the lane before it left off in the previous round (the first lane from byte 0). A lane
    started from a true header stays on the true headers, so once a round changes no lane's exit
    every lane is right; a lane that started mid-game usually falls in step within a few games,
    so two or three rounds do.

    >>> game_heads(bytes([0x31, 4, 0, 8, 0x05, 0x23, 1, 2])).tolist()
    [0, 4, 5]
    """
    data = np.frombuffer(raw, dtype=np.uint8)
    size = int(data.size)
    if not size:
        return np.zeros(0, dtype=np.int64)
    step = (data >> 4).astype(np.int64) + 1
    # A long game's length is in the byte after its header (see records.LONG).
    after = np.append(data[1:], np.uint8(0)).astype(np.int64)
    step = np.where(step == LONG + 1, after + 2, step)
    starts = np.arange(0, size, GAME_LANE, dtype=np.int64)
    ends = np.minimum(starts + GAME_LANE, size)
    entry = starts
    exits: npt.NDArray[np.int64] | None = None
    while True:
        at = entry.copy()
        visited = []
        active = at < ends
        while active.any():
            visited.append(np.where(active, at, -1))
            at = np.where(active, at + step[np.minimum(at, size - 1)], at)
            active = at < ends
        if exits is not None and np.array_equal(at, exits):
            break
        exits = at
        entry = np.concatenate(([0], exits[:-1]))
    if int(exits[-1]) != size:
        raise CorruptHistoryError("the last stored game is cut short")
    heads = np.stack(visited, axis=1).ravel()
    return heads[heads >= 0]


def _result_counts() -> npt.NDArray[np.int64]:
    """For each header byte, a one-hot (win, draw, loss) from MENACE's side: the draw code is 3, a
    win when the winner is MENACE's side (bits 2-3)."""
    out = np.zeros((256, 3), dtype=np.int64)
    for head in range(256):
        winner = head & 3
        out[head, 1 if winner == 3 else 0 if winner == head >> 2 & 3 else 2] = 1
    return out


_RESULT_COUNTS = _result_counts()


class LearningSampler:
    """Running win/draw/loss totals at a bounded set of game numbers, fed block by block in order.

    Knowing the range up front, it decides which game numbers it needs (the points of the curve and,
    for each rate point, the game a window before it), so it never holds a value per game.
    """

    def __init__(self, first: int, last: int, window: int | None, points: int) -> None:
        n = last - first + 1
        w = default_window(n) if window is None else window
        if w < 1:
            raise PlotError("the window must be at least 1 game")
        self.first, self.last, self.window = first, last, min(w, n)
        self.curve = sample_points(first, last, points)
        self.rates = sample_points(first + self.window - 1, last, points)
        wanted = set(self.curve) | set(self.rates) | {g - self.window for g in self.rates}
        self.needed = sorted(wanted)
        """Game numbers (``first - 1`` meaning before the range) whose running totals are kept."""
        self.totals: dict[int, tuple[int, int, int]] = {}
        self._next = 0
        self._running = [0, 0, 0]
        self._at = first - 1
        self._take()

    def _take(self) -> None:
        needed = self.needed
        while self._next < len(needed) and needed[self._next] <= self._at:
            if needed[self._next] == self._at:
                self.totals[self._at] = (self._running[0], self._running[1], self._running[2])
            self._next += 1

    def inside(self, first: int, last: int) -> bool:
        """A game number wanted strictly inside the block of games ``first``..``last`` (its games
        must be read, not only its tally)."""
        i = self._next
        needed = self.needed
        while i < len(needed) and needed[i] < first:
            i += 1
        return i < len(needed) and needed[i] < last

    def feed_tally(self, first: int, n: int, tally: tuple[int, int, int]) -> None:
        """A block known only by its tally: points inside it are interpolated between its ends."""
        start = list(self._running)
        lo = max(first, self.first)
        hi = min(first + n - 1, self.last)
        if hi < lo:
            return
        share = (hi - lo + 1) / n  # a block cut by the range counts pro rata
        needed, totals = self.needed, self.totals
        (w0, d0, l0), (w, d, l_) = start, tally
        nxt = self._next
        while nxt < len(needed) and needed[nxt] < hi:
            g = needed[nxt]
            if g >= lo:
                f = (g - lo + 1) / n
                totals[g] = (w0 + round(w * f), d0 + round(d * f), l0 + round(l_ * f))
            nxt += 1
        self._next = nxt
        for k in range(3):
            self._running[k] = start[k] + round(tally[k] * share)
        self._at = hi
        self._take()

    def feed_games(self, first: int, raw: bytes) -> None:
        """A block's games, packed: each game's result is read from its header byte (found by
        :func:`game_heads`, in numpy: a block of 20,000 games in about a millisecond)."""
        head = np.frombuffer(raw, dtype=np.uint8)[game_heads(raw)]
        lo, hi = max(first, self.first), min(first + len(head) - 1, self.last)
        if hi < lo:
            self._at = max(self._at, min(first + len(head) - 1, self.last))
            return
        needed = self.needed
        nxt = self._next
        while nxt < len(needed) and needed[nxt] < lo:
            nxt += 1
        stop = nxt
        while stop < len(needed) and needed[stop] <= hi:
            stop += 1
        want = needed[nxt:stop]
        # win/draw/loss counts summed between the games wanted (one numpy call), then run on
        ends = np.array(want, dtype=np.int64) - lo
        starts = np.concatenate(([0], ends + 1))
        starts = starts[starts <= hi - lo]
        counts = np.add.reduceat(_RESULT_COUNTS[head[lo - first:hi - first + 1]], starts, axis=0)
        running = np.cumsum(counts, axis=0) + np.array(self._running, dtype=np.int64)
        for g, (w, d, l_) in zip(want, running[: len(want)].tolist()):
            self.totals[g] = (w, d, l_)
        self._next = stop
        self._running = [int(v) for v in running[-1]]
        self._at = hi

    def feed_results(self, blocks: Sequence[tuple[int, int, bytes]]) -> None:
        """Consecutive blocks known by their results, ``(first game, games, result planes)`` (see
        :func:`menace.core.records.result_planes`): the running totals at every game wanted among
        them, exact, by counting bits (all the blocks at once in numpy, never a loop per game)."""
        if not blocks:
            return
        firsts = np.array([b[0] for b in blocks], dtype=np.int64)
        sizes = np.array([b[1] for b in blocks], dtype=np.int64)
        words = (sizes + RESULT_WORD - 1) // RESULT_WORD
        for (first, n, stored), w in zip(blocks, words.tolist()):
            if len(stored) != 16 * w:
                raise CorruptHistoryError(f"the results stored with games {first:,} to {first + n - 1:,} are "
                                          f"damaged ({len(stored):,} bytes for {n:,} games)")
        both = np.frombuffer(b"".join(b[2] for b in blocks), dtype="<u8")
        # set bits before each word (32 bits hold a batch's: numpy sums them ten times faster than in 64);
        # a block's wins start at word wins[b], its draws at draws[b]
        counted = np.zeros(len(both) + 1, dtype=np.uint32)
        np.cumsum(np.bitwise_count(both), dtype=np.uint32, out=counted[1:])
        wins = 2 * np.concatenate(([0], np.cumsum(words)[:-1]))
        draws = wins + words
        ends = draws + words
        # wins, draws and games of the blocks before each
        won = np.concatenate(([0], np.cumsum(counted[draws] - counted[wins], dtype=np.int64)))
        drawn = np.concatenate(([0], np.cumsum(counted[ends] - counted[draws], dtype=np.int64)))
        before = np.concatenate(([0], np.cumsum(sizes)))

        def count(start: npt.NDArray[np.int64], k: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
            """Set bits among the first ``k`` of the plane from word ``start`` on."""
            word = start + k // RESULT_WORD
            mask = (np.uint64(1) << (k % RESULT_WORD).astype(np.uint64)) - np.uint64(1)
            partial = np.bitwise_count(both[np.minimum(word, len(both) - 1)] & mask).astype(np.int64)
            found: npt.NDArray[np.int64] = (counted[word] - counted[start]).astype(np.int64) + partial
            return found

        def tallies(games: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
            """Wins, draws and losses of the blocks' games up to each of ``games`` (one row each)."""
            block = np.searchsorted(firsts, games, side="right") - 1
            k = games - firsts[block] + 1
            w = won[block] + count(wins[block], k)
            d = drawn[block] + count(draws[block], k)
            return np.stack([w, d, before[block] + k - w - d], axis=1)

        lo = max(int(firsts[0]), self.first)
        hi = min(int(firsts[-1] + sizes[-1] - 1), self.last)
        if hi < lo:
            return
        needed = self.needed
        nxt = bisect.bisect_left(needed, lo, self._next)
        stop = bisect.bisect_right(needed, hi, nxt)
        want = np.array([*needed[nxt:stop], hi], dtype=np.int64)
        base = tallies(np.array([lo - 1], dtype=np.int64))[0] if lo > firsts[0] else np.zeros(3, dtype=np.int64)
        running = tallies(want) - base + np.array(self._running, dtype=np.int64)
        for g, (w, d, l_) in zip(needed[nxt:stop], running[:-1].tolist()):
            self.totals[g] = (w, d, l_)
        self._next = stop
        self._running = [int(v) for v in running[-1]]
        self._at = hi

    def data(self, machine: str, settings: Settings, opponents: Sequence[tuple[int, str]],
             games_played: int = 0) -> LearningData:
        values = np.array(settings.curve_values, dtype=np.int64)
        before = self.totals.get(self.first - 1, (0, 0, 0))
        curve = np.array([self.totals[g] for g in self.curve], dtype=np.int64).reshape(-1, 3)
        cumulative = (curve - np.array(before)) @ values
        ends = np.array([self.totals[g] for g in self.rates], dtype=np.int64).reshape(-1, 3)
        starts = np.array([self.totals[g - self.window] for g in self.rates], dtype=np.int64).reshape(-1, 3)
        rates = (ends - starts) / self.window
        final = self.totals[self.last]
        totals = (final[0] - before[0], final[1] - before[1], final[2] - before[2])
        return LearningData(
            machine, settings, np.array(self.curve, dtype=np.int64), cumulative, self.window,
            np.array(self.rates, dtype=np.int64), rates[:, 0], rates[:, 1], rates[:, 2], list(opponents),
            totals, self.first, self.last, games_played,
        )


def no_learning(machine: str, settings: Settings) -> LearningData:
    """The learning curve of a machine that has played no games: no points."""
    none = np.zeros(0, dtype=np.int64)
    return LearningData(machine, settings, none, none, 0, none, none.astype(np.float64), none.astype(np.float64),
                        none.astype(np.float64), [], (0, 0, 0), 1, 0, 0)


@dataclass(frozen=True)
class BoxesData:
    """Every box with its beads now, grouped by MENACE's move."""

    game: Game
    machine: str
    games_played: int
    groups: list[tuple[int, list[Box]]]
    odds: bool = False
    """The machine learns by the Pegasus rule: its boxes hold weights of odds, drawn as chances, not beads."""

    @property
    def boxes(self) -> list[Box]:
        return [b for _, group in self.groups for b in group]


def boxes_data(game: Game, machine: str, boxes: Sequence[Box], games_played: int, odds: bool = False) -> BoxesData:
    groups: dict[int, list[Box]] = {}
    for b in sorted(boxes, key=lambda b: b.number):
        groups.setdefault(b.move_number, []).append(b)
    return BoxesData(game, machine, games_played, sorted(groups.items()), odds)


MIN_DOT = 0.05
"""The smallest dot, as a fraction of a full one: a single bead must still show."""


def dot_fraction(count: int, most: int) -> float:
    """The area of a bead's dot as a fraction of a full one: ``count`` beads of that colour in a
    box whose most plentiful colour has ``most``. The box's favourite move is a full dot.
    """
    if count <= 0:
        return 0.0
    return max(count / max(most, 1), MIN_DOT)
