"""What a front end shows of a stored machine: its wall of boxes, one box's beads over the games,
and its learning curve, each sampled down to what a screen can show.

These read only. A learning curve of a million games is built from the games' header bytes
(:func:`menace.core.records.outcome_codes`), never from decoded games, and a
:class:`LearningCache` keeps the codes read so far, so a curve redrawn while a tournament runs
reads only the new blocks.

>>> sample_indices(10, 4)
[0, 3, 6, 9]
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from menace.app.history import beads_series
from menace.core.colours import BeadColour, parse_colours
from menace.core.game import Game
from menace.core.learner import DRAWN, Box, Settings
from menace.core.records import CorruptHistoryError, outcome_codes
from menace.core.replay import UnknownBoxError, rule_text
from menace.games import find_game
from menace.storage import history_repo as hrepo
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
    return Wall(stored.name, find_game(stored.game), stored.settings, stored.preset, played, stored.boxes, colours)


def sample_indices(n: int, points: int) -> list[int]:
    """At most ``points`` indices spread evenly over ``0..n-1``, the first and last included."""
    if n <= 0:
        return []
    if n <= points or points < 2:
        return list(range(n)) if n <= max(points, 1) else [n - 1]
    return sorted({round(i * (n - 1) / (points - 1)) for i in range(points)})


# -- one box's beads over the games -----------------------------------------------------------
@dataclass(frozen=True)
class BoxSeries:
    """A box's bead counts after the game numbers in :attr:`games` (0: as built), one list per
    colour in :attr:`beads` (squares of the box's drawing)."""

    box: Box
    beads: tuple[int, ...]
    games: list[int]
    counts: list[list[int]]
    games_played: int
    game: Game
    colours: tuple[BeadColour, ...] | None


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
    finally:
        db.dispose()
    data = beads_series(url, name, number, points)
    series = data.series
    counts = [[row[j] for row in series.counts] for j in range(len(series.beads))]
    colours = parse_colours(stored.colours) if stored.colours else None
    return BoxSeries(series.box, series.beads, list(series.games), counts, data.games_played,
                     find_game(stored.game), colours)


# -- the learning curve -----------------------------------------------------------------------
@dataclass
class _Codes:
    machine_id: int
    blocks: list[hrepo.BlockSpan] = field(default_factory=list)
    codes: bytearray = field(default_factory=bytearray)


class LearningCache:
    """Each game's outcome code per machine, read once and extended as games are added.

    Safe to share between threads. A history that changed under it (an undo, a machine
    replaced) is noticed by its block list and read again from where it differs.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_key: dict[tuple[str, str], _Codes] = {}

    def codes(self, url: str, name: str) -> tuple[repo.StoredMachine, bytes, list[tuple[int, str]]]:
        """The machine, every game's code (``menace_side << 2 | winner``) and the opponent changes."""
        db = open_database(url)
        try:
            with session_scope(db) as s, self._lock:
                stored = repo.load_machine(s, name)
                blocks = hrepo.block_index(s, stored.id)
                runs = hrepo.runs(s, stored.id)
                have = self._by_key.get((url, name))
                if have is None or have.machine_id != stored.id:
                    have = _Codes(stored.id)
                    self._by_key[(url, name)] = have
                same = 0
                while (same < len(have.blocks) and same < len(blocks) and have.blocks[same] == blocks[same]):
                    same += 1
                if same < len(have.blocks):
                    keep = sum(b.n_games for b in have.blocks[:same])
                    del have.codes[keep:]
                    del have.blocks[same:]
                if same < len(blocks):
                    start = len(have.codes) + 1
                    for first, data, kept, n, tally in hrepo.block_data(s, stored.id, start):
                        if kept:
                            try:
                                raw = zlib.decompress(data)
                            except zlib.error as exc:
                                raise CorruptHistoryError(f"stored games are damaged: {exc}") from None
                            codes = bytes(outcome_codes(raw))
                        else:
                            codes = summary_codes(n, tally)
                        have.codes.extend(codes[max(start - first, 0):])
                    have.blocks[:] = blocks
                changes: list[tuple[int, str]] = []
                for b in blocks:
                    run = runs[b.run_id]
                    label = run.opponent if run.kind == "tournament" else f"{run.opponent} ({run.kind})"
                    if not changes or changes[-1][1] != label:
                        changes.append((b.first_game, label))
                return stored, bytes(have.codes), changes
        finally:
            db.dispose()


WIN_CODE, DRAW_CODE, LOSS_CODE = 1 << 2 | 1, 1 << 2 | DRAWN, 1 << 2 | 2
"""Outcome codes of a win, a draw and a loss (as X) for a summarized block's games."""


def summary_codes(n: int, tally: tuple[int, int, int]) -> bytes:
    """Codes for the ``n`` games of a summarized block (its games are not kept): its wins, draws and
    losses spread evenly over it, so that the curve is exact at the block's ends.

    >>> list(summary_codes(4, (2, 1, 1))) == [WIN_CODE, DRAW_CODE, LOSS_CODE, WIN_CODE]
    True
    """
    keys = [(np.arange(c, dtype=np.float64) + 0.5) / c for c in tally if c > 0]
    codes = [np.full(c, code, dtype=np.uint8) for c, code in zip(tally, (WIN_CODE, DRAW_CODE, LOSS_CODE)) if c > 0]
    if not keys:
        return b""
    order = np.argsort(np.concatenate(keys), kind="stable")
    out = np.concatenate(codes)[order][:n]
    return out.tobytes()


@dataclass(frozen=True)
class LearningSeries:
    """The learning curve between games ``first`` and ``last``, sampled.

    ``cumulative`` is the running total of the machine's rule (win/draw/loss beads per bead);
    ``win``/``draw``/``loss`` the share of each result over the ``window`` games up to each
    sampled game (fewer at the very start).
    """

    machine: str
    rule: str
    games_played: int
    wins: int
    draws: int
    losses: int
    window: int
    first: int
    last: int
    games: list[int]
    cumulative: list[int]
    win: list[float]
    draw: list[float]
    loss: list[float]
    opponents: list[tuple[int, str]]


def default_window(games: int) -> int:
    """100 games, fewer for a short history, more (0.5 %) for a very long one."""
    if games >= 20_000:
        return games // 200
    return max(1, min(100, games // 10))


def learning_series(url: str, name: str, points: int = 600, first: int | None = None, last: int | None = None,
                    window: int | None = None, cache: LearningCache | None = None) -> LearningSeries:
    """The machine's learning curve, sampled to at most ``points`` games between ``first`` and
    ``last`` (default: the whole history)."""
    stored, codes, opponents = (cache or LearningCache()).codes(url, name)
    settings = stored.settings
    n = len(codes)
    points = max(2, min(points, MAX_POINTS))
    arr = np.frombuffer(codes, dtype=np.uint8)
    side = arr >> 2
    winner = arr & 3
    # 0 win, 1 draw, 2 loss, from MENACE's side
    results = np.where(winner == DRAWN, 1, np.where(winner == side, 0, 2)).astype(np.int8)
    values = np.array([settings.win, settings.draw, settings.loss], dtype=np.int64)
    cumulative = np.cumsum(values[results]) if n else np.zeros(0, dtype=np.int64)
    w = default_window(n) if window is None else max(1, window)
    lo = 1 if first is None else max(1, min(first, n))
    hi = n if last is None else max(lo, min(last, n))
    at = [lo - 1 + i for i in sample_indices(hi - lo + 1, points)] if n else []
    idx = np.asarray(at, dtype=np.int64)
    rates: list[list[float]] = []
    for code in range(3):
        running = np.concatenate(([0], np.cumsum(results == code, dtype=np.int64)))
        if not n:
            rates.append([])
            continue
        end = idx + 1
        begin = np.maximum(end - w, 0)
        rates.append(np.round((running[end] - running[begin]) / (end - begin), 4).tolist())
    counts = [int(np.count_nonzero(results == c)) for c in range(3)]
    return LearningSeries(
        stored.name, rule_text(settings), n, counts[0], counts[1], counts[2], w, lo if n else 0, hi if n else 0,
        [i + 1 for i in at], cumulative[idx].tolist() if n else [], rates[0], rates[1], rates[2], opponents,
    )


def wall_box_numbers(boxes: Sequence[Box]) -> dict[int, list[int]]:
    """Box numbers grouped by MENACE's move, in order."""
    groups: dict[int, list[int]] = {}
    for b in sorted(boxes, key=lambda b: b.number):
        groups.setdefault(b.move_number, []).append(b.number)
    return dict(sorted(groups.items()))
