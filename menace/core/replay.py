"""The history replayed: every bead count a machine ever held, recovered from its games. Pure.

Only the games are stored, not the bead counts after each one: the learning rule is
deterministic once a game's moves are known, so the machine's initial beads and its games,
applied in order, give back the beads of any box at any point (restocks of empty boxes
included). A :class:`Replayer` does that on the engine's tables, fast enough to replay a
million games in seconds.

>>> from menace.core.learner import GameRecord, X_WINS, build_boxes

>>> from menace.core.settings import MICHIE, Scope
>>> from menace.core.game import Side
>>> from menace.games import DEFAULT_GAME, find_game
>>> game = find_game(DEFAULT_GAME)
>>> boxes = build_boxes(game, MICHIE)
>>> won = GameRecord(Side.X, [4, 0, 8, 1, 2, 6, 5], X_WINS)  # X: b2 c3 a3 b3, three down the right
>>> counts = replay_all(game, MICHIE, boxes, [won])
>>> counts[0][4], boxes[0].initial[4]
(7, 4)
"""

from __future__ import annotations

import bisect
import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol

from menace.core.errors import DamagedError, NotFoundError
from menace.core.game import Game, Move, Result, Side, State, canonical
from menace.core.learner import Box, GameRecord, Learner
from menace.core.pegasus import chances
from menace.core.records import CorruptHistoryError, moves_start, record_end
from menace.core.settings import EmptyPolicy, Scope, Settings
from menace.core.tree import DRAWN, O_WINS, ONGOING, X_WINS
from menace.core.turns import LedgerLine


@contextmanager
def gc_paused() -> Iterator[None]:
    """The garbage collector off while a replay runs: a replay makes few objects, but a long one
    would otherwise wake full collections that walk everything the process holds."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

class GameNotFoundError(NotFoundError):
    """No game with that number in the machine's history."""


class UnknownBoxError(NotFoundError):
    """No box with that number in the machine."""


class ReplayError(DamagedError):
    """A stored game that cannot have been played on this machine (an illegal move)."""


def fresh_learner(game: Game, settings: Settings, boxes: Sequence[Box]) -> Learner:
    """An engine on ``boxes`` as they were built: every box holds its initial beads."""
    return Learner(game, settings, [replace(b, beads=dict(b.initial)) for b in boxes])


def bead_layout(boxes: Sequence[Box]) -> list[tuple[int, ...]]:
    """Per box, its bead colours (the moves of its initial beads, sorted): how checkpoints pack beads."""
    return [tuple(sorted(box.initial)) for box in boxes]


class Correction(Protocol):
    """A bead count set by hand after game ``after_game`` (see ``menace reconcile``)."""

    @property
    def after_game(self) -> int: ...

    @property
    def box_number(self) -> int: ...

    @property
    def move(self) -> int: ...

    @property
    def count(self) -> int: ...


NEVER = float("inf")
CACHE_GAMES = 50_000
"""Distinct games whose path through the boxes a :class:`Replayer` remembers (about 25 MB at most): a
tournament repeats the same games over and over (22,848 distinct among 5 million against ``smart``),
so most games are looked up, not walked."""

_SIDES = (None, Side.X, Side.O, None)

Path = tuple[tuple[tuple[list[int], int, int], ...], int, "tuple[list[int], int] | None", tuple[int, ...], int]
"""A game's path through the boxes: ``(counts, bead, box index)`` per bead drawn, the delta (under the
Pegasus rule: the outcome, +1, 0 or -1), ``(counts, box index)`` of the box MENACE resigned on when the
game ended that way (its beads must be gone at that moment), the ply of each bead drawn and the
game's length (which the Pegasus rule needs)."""

_RESULT_WORDS = {X_WINS: "a win for X", O_WINS: "a win for O", DRAWN: "a draw"}


def _resignation_fault(number: int, box: int, counts: Sequence[int]) -> CorruptHistoryError:
    held = ", ".join(f"{c:,}" for c in counts if c)
    return CorruptHistoryError(f"game {number:,} ends with MENACE resigning at box {box + 1}, which holds "
                               f"beads ({held}) at that moment: MENACE resigns only at an empty box")


def _early_end(learner: Learner, table: Sequence[object], number: int, side: Side, winner: int,
               k: int) -> tuple[list[int], int] | None:
    """Check how a game that reached position ``k`` ended; for a resignation by MENACE, the box it
    resigned on (its counts list and index). :class:`CorruptHistoryError` naming game ``number``
    for a result the board does not give, or an early end that was not a resignation."""
    decided = learner.result[k]
    if decided != ONGOING:
        if winner != decided:
            raise CorruptHistoryError(f"game {number:,} is stored as {_RESULT_WORDS.get(winner, 'nothing')}, but "
                                      f"its board is {_RESULT_WORDS[decided]}")
        return None
    # Stopped on an undecided board: only a resignation, which the side to move loses.
    to_move = learner.to_move[k]
    if to_move != side:
        if winner != side:
            raise CorruptHistoryError(f"game {number:,} stops with the other side to move and is stored as "
                                      f"{_RESULT_WORDS.get(winner, 'nothing')}: only a resignation ends a game "
                                      f"early, and the side that resigns loses")
        return None
    ent = table[k]
    if not isinstance(ent, tuple):
        raise CorruptHistoryError(f"game {number:,} stops where MENACE's move is forced (no box): MENACE resigns "
                                  f"only at an empty box")
    b = ent[2]
    if winner == side or winner == DRAWN:
        raise CorruptHistoryError(f"game {number:,} ends with MENACE resigning at box {b + 1} but is stored as "
                                  f"{_RESULT_WORDS[winner]}: a resignation is a loss")
    if learner.refill[b]:
        raise CorruptHistoryError(f"game {number:,} ends with MENACE resigning at box {b + 1}, which this "
                                  f"machine refills when it is empty: MENACE never resigns there")
    return ent[0], b


class Replayer:
    """A machine on its initial beads that learns from stored games, one after another.

    Games must be applied in order from the first; :attr:`games` counts them and
    :attr:`counts` holds every box's beads after the last one (box index = number - 1,
    colour = square of the box's drawing). Bead counts set by hand (``corrections``) take
    effect after the game they follow, in the order they were made.
    """

    def __init__(
        self, game: Game, settings: Settings, boxes: Sequence[Box], corrections: Sequence[Correction] = (),
    ) -> None:
        self.learner = fresh_learner(game, settings, boxes)
        self.settings = settings
        self.games = 0
        self._fixes = sorted(corrections, key=lambda c: c.after_game)  # stable: same game, made in order
        self._fix_at = 0
        self.corrected: list[tuple[Correction, int]] = []
        """Every correction applied so far with the count it replaced, in the order applied."""
        self._next_fix: float = NEVER
        # Per side and position: (the box's counts, real square -> bead, box index) or None
        # (not MENACE's turn, finished, or a forced move without a box).
        self._tables: dict[Side, list[tuple[list[int], tuple[int, ...], int] | None]] = {}
        inverses: dict[tuple[int, ...], tuple[int, ...]] = {}  # one per symmetry of the board
        for side, entries in self.learner.entry.items():
            table: list[tuple[list[int], tuple[int, ...], int] | None] = [None] * len(entries)
            for k, e in enumerate(entries):
                if isinstance(e, tuple):
                    counts, real, b = e
                    inverse = inverses.get(real)
                    if inverse is None:
                        inverse = inverses[real] = tuple(sorted(range(len(real)), key=real.__getitem__))
                    table[k] = (counts, inverse, b)
            self._tables[side] = table
        self._paths: dict[bytes, Path] = {}
        self._win, self._draw, self._loss = settings.win, settings.draw, settings.loss
        self._settle()

    def layout(self) -> list[tuple[int, ...]]:
        """Per box, its bead colours, as checkpoints pack them (see :func:`bead_layout`)."""
        return bead_layout(self.learner.boxes)

    def resume(self, games: int, counts: Sequence[Sequence[int]]) -> None:
        """Carry on from a checkpoint: ``counts`` are the beads after game ``games`` (corrections made
        after that game not yet applied: they are, now)."""
        if self.settings.keeps_mean and games:
            raise ReplayError("a machine learning by the refined Pegasus rule is replayed from its first game: a "
                              "checkpoint of its odds lacks its mean outcome")
        for row, new in zip(self.learner.counts, counts):
            row[:] = new
        self.learner.counts_changed()
        self.games = games
        fixes = self._fixes
        self._fix_at = 0
        while self._fix_at < len(fixes) and fixes[self._fix_at].after_game < games:
            self._fix_at += 1
        self._settle()

    @property
    def counts(self) -> list[list[int]]:
        return self.learner.counts

    def _settle(self) -> None:
        """Apply the corrections made after the games applied so far."""
        fixes = self._fixes
        while self._fix_at < len(fixes) and fixes[self._fix_at].after_game <= self.games:
            fix = fixes[self._fix_at]
            row = self.learner.counts[fix.box_number - 1]
            self.corrected.append((fix, row[fix.move]))
            row[fix.move] = fix.count
            self.learner.counts_changed()
            self._fix_at += 1
        self._next_fix = fixes[self._fix_at].after_game if self._fix_at < len(fixes) else NEVER

    def delta(self, record: GameRecord) -> int:
        """Beads added per bead drawn in ``record`` under this machine's rule (under the Pegasus rule:
        the outcome, +1, 0 or -1)."""
        if self.settings.pegasus is not None:
            return 0 if record.winner == DRAWN else 1 if record.winner == record.menace_side else -1
        if record.winner == DRAWN:
            return self.settings.draw
        return self.settings.win if record.winner == record.menace_side else self.settings.loss

    def apply(self, record: GameRecord, learn: bool = True) -> list[tuple[int, Move]]:
        """Play ``record`` on the boxes and learn from it (not when ``learn`` is false: a game the
        machine played frozen); the beads drawn as (box index, bead)."""
        drawn = self.learn(record, learn)
        if self.games >= self._next_fix:
            self._settle()
        return drawn

    def learn(self, record: GameRecord, learn: bool = True) -> list[tuple[int, Move]]:
        """Play ``record`` on the boxes and learn from it (unless ``learn`` is false: a game played
        frozen changes no bead), without the corrections that follow it."""
        e = self.learner
        e.counts_changed()
        refill = e.refill
        kids = e.kids
        try:
            table = self._tables[record.menace_side]
        except KeyError:
            raise ReplayError(f"game {self.games + 1}: this machine has no boxes for "
                              f"{self.learner.game.side_names[record.menace_side]}") from None
        mine = 0 if record.menace_side is Side.X else 1
        drawn: list[tuple[int, Move]] = []
        plies: list[int] = []
        k = e.root
        for ply, move in enumerate(record.moves):
            if ply & 1 == mine:
                ent = table[k]
                if ent is not None:
                    counts, inverse, b = ent
                    if refill[b] and not any(counts):
                        counts[:] = e.initial[b]
                    drawn.append((b, inverse[move]))
                    plies.append(ply)
            k = kids[k][move] if 0 <= move < len(kids[k]) else -1
            if k < 0:
                raise ReplayError(f"game {self.games + 1}: move {ply + 1} ({move}) is not legal")
        resigned = _early_end(e, table, self.games + 1, record.menace_side, record.winner, k)
        if resigned is not None and any(resigned[0]):
            raise _resignation_fault(self.games + 1, resigned[1], resigned[0])
        # The engine's own learning loop, so that replay and play cannot drift apart.
        if learn and e.pegasus is not None:
            made = [(b, m, ply) for (b, m), ply in zip(drawn, plies)]
            e.pegasus.learn(e.counts, made, len(record.moves), self.delta(record))
        elif learn:
            e.apply(drawn, self.delta(record))
        self.games += 1
        return drawn

    def _path(self, packed: bytes) -> Path:
        """A packed game's path through the boxes, checked move by move (see :meth:`apply_packed`)."""
        head = packed[0]
        side = _SIDES[head >> 2 & 3]
        winner = head & 3
        if side is None or not winner:
            raise CorruptHistoryError(f"game {self.games + 1}: bad game record")
        table = self._tables.get(side)
        if table is None:
            raise ReplayError(f"game {self.games + 1}: this machine has no boxes for "
                              f"{self.learner.game.side_names[side]}")
        kids = self.learner.kids
        drawn: list[tuple[list[int], int, int]] = []
        plies: list[int] = []
        k = self.learner.root
        mine = side == 1  # X moves on even plies
        first = moves_start(packed, 0)
        for ply in range(1, len(packed) - first + 1):
            move = packed[first + ply - 1]
            row = kids[k]
            nxt = row[move] if move < len(row) else -1
            if nxt < 0:
                raise ReplayError(f"game {self.games + 1}: move {ply} ({move}) is not legal")
            if (ply & 1) == mine:
                ent = table[k]
                if ent is not None:
                    drawn.append((ent[0], ent[1][move], ent[2]))
                    plies.append(ply - 1)
            k = nxt
        resigned = _early_end(self.learner, table, self.games + 1, side, winner, k)
        if self.learner.pegasus is not None:
            delta = 0 if winner == DRAWN else 1 if winner == side else -1
        else:
            delta = self._draw if winner == DRAWN else self._win if winner == side else self._loss
        return tuple(drawn), delta, resigned, tuple(plies), len(packed) - first

    def settle(self) -> None:
        """Apply the corrections made after the games applied so far (see ``settle_end``)."""
        self._settle()

    def apply_packed(self, raw: bytes, start: int = 0, limit: int | None = None, settle_end: bool = True,
                     learn: bool = True) -> int:
        """Learn from the games packed in ``raw`` (a block's bytes, decompressed) from byte ``start``,
        ``limit`` games at most; the byte where it stopped. With ``learn`` false (the block of a
        run played frozen) each game is followed and checked, restocks applied, but no bead changes.

        The same learning as :meth:`apply`, straight from the stored bytes: no object per game, and a
        game met before is looked up, not walked again. With ``settle_end`` false, the corrections made
        after the last game applied wait for :meth:`settle` (a checkpoint is taken before them).
        """
        e = self.learner
        e.counts_changed()
        refill, initial = e.refill, e.initial
        any_refill = any(refill)
        last_only = self.settings.scope is Scope.LAST
        keep_last = self.settings.empty_policy is EmptyPolicy.KEEP_LAST
        pegasus = e.pegasus
        paths = self._paths
        find = paths.get
        size = len(raw)
        i = start
        left = size if limit is None else limit
        games = self.games
        next_fix = self._next_fix
        try:
            while i < size and left > 0:
                end = record_end(raw, i)
                if end > size:
                    raise CorruptHistoryError(f"game {games + 1}: a game record runs past the end of its block")
                key = raw[i:end]
                path = find(key)
                if path is None:
                    self.games = games
                    path = self._path(key)
                    if len(paths) < CACHE_GAMES:
                        paths[key] = path
                drawn, delta, resigned, plies, length = path
                if resigned is not None and any(resigned[0]):
                    raise _resignation_fault(games + 1, resigned[1], resigned[0])
                if any_refill:
                    for counts, _, b in drawn:
                        if refill[b] and not any(counts):
                            counts[:] = initial[b]
                if last_only:
                    drawn = drawn[-1:]
                if not learn:
                    pass
                elif pegasus is not None:
                    pegasus.learn(e.counts, [(b, m, p) for (_, m, b), p in zip(drawn, plies)], length, delta)
                elif delta >= 0:
                    for counts, m, _ in drawn:
                        counts[m] += delta
                elif keep_last:
                    for counts, m, _ in drawn:
                        take = min(-delta, counts[m], sum(counts) - 1)
                        if take > 0:
                            counts[m] -= take
                else:
                    for counts, m, _ in drawn:
                        c = counts[m] + delta
                        counts[m] = c if c > 0 else 0
                games += 1
                left -= 1
                i = end
                if games >= next_fix and (settle_end or (left > 0 and i < size)):
                    self.games = games
                    self._settle()
                    next_fix = self._next_fix
        finally:
            self.games = games
        return i

    def apply_all(self, records: Iterable[GameRecord]) -> int:
        """Apply every record in order; how many were applied."""
        apply = self.apply
        n = 0
        for record in records:
            apply(record)
            n += 1
        return n


def replay_all(
    game: Game, settings: Settings, boxes: Sequence[Box], games: Iterable[GameRecord],
    corrections: Sequence[Correction] = (),
) -> list[list[int]]:
    """Every box's bead counts after ``games``, replayed from the initial beads."""
    r = Replayer(game, settings, boxes, corrections)
    r.apply_all(games)
    return r.counts


@dataclass(frozen=True)
class BeadDifference:
    """A bead count that the stored beads and the replayed history disagree on."""

    box_number: int
    bead: Move
    stored: int
    replayed: int


def compare(boxes: Sequence[Box], counts: Sequence[Sequence[int]]) -> list[BeadDifference]:
    """Where ``boxes`` (as stored) differ from replayed ``counts``; empty when they agree."""
    out = []
    for box, row in zip(boxes, counts):
        for m, c in box.beads.items():
            if row[m] != c:
                out.append(BeadDifference(box.number, m, c, row[m]))
    return out


@dataclass
class BeadSeries:
    """One box's beads over the history, as a step function of the game number.

    Point ``i`` holds the counts (one per colour in :attr:`beads`) after game ``games[i]``,
    unchanged until the next point. The first point is game 0 (the initial beads), the last is
    the last game played; in between there is a point wherever the box changed.
    """

    box: Box
    beads: tuple[Move, ...]
    """The box's bead colours: squares of its drawing, in order."""
    games: list[int] = field(default_factory=list)
    counts: list[tuple[int, ...]] = field(default_factory=list)

    def at(self, game_number: int) -> dict[Move, int]:
        """The box's beads after game ``game_number`` (0: as built)."""
        if game_number < 0 or (self.games and game_number > self.games[-1]):
            raise GameNotFoundError(f"no game {game_number}: the history has {self.games[-1]} games")
        i = bisect.bisect_right(self.games, game_number) - 1
        return dict(zip(self.beads, self.counts[i]))

    def column(self, bead: Move) -> list[int]:
        """The count of one colour at every point."""
        j = self.beads.index(bead)
        return [c[j] for c in self.counts]


def bead_history(
    game: Game, settings: Settings, boxes: Sequence[Box], games: Iterable[GameRecord], box_index: int,
    corrections: Sequence[Correction] = (),
) -> BeadSeries:
    """The beads of box ``box_index`` (number - 1) after each game, replayed from the start."""
    if not 0 <= box_index < len(boxes):
        raise UnknownBoxError(f"no box {box_index + 1}: the machine has boxes 1 to {len(boxes)}")
    r = Replayer(game, settings, boxes, corrections)
    box = boxes[box_index]
    beads = tuple(sorted(box.initial))
    row = r.counts[box_index]
    series = BeadSeries(box, beads, [0], [tuple(row[m] for m in beads)])
    last = list(row)
    apply = r.apply
    n = 0
    for n, record in enumerate(games, start=1):  # noqa: B007 - n is the last game's number
        apply(record)
        if row != last:
            series.games.append(n)
            series.counts.append(tuple(row[m] for m in beads))
            last = list(row)
    if series.games[-1] != n:
        series.games.append(n)
        series.counts.append(series.counts[-1])
    return series


@dataclass(frozen=True)
class Ply:
    """One move of a replayed game."""

    number: int
    """1, 2, ... in the game."""
    side: Side
    by_menace: bool
    square: Move
    """The real square played."""
    board: State
    """The real board after the move."""
    box_number: int | None = None
    """MENACE's box (None for the opponent's moves and for forced moves)."""
    symmetry: str | None = None
    """How to turn or flip the real board (before the move) to match the box's drawing."""
    box_position: State | None = None
    beads: dict[Move, int] = field(default_factory=dict)
    """The box's beads before the draw, by square of its drawing (before any restock)."""
    bead: Move | None = None
    """The bead drawn: a square of the box's drawing."""
    restocked: bool = False


@dataclass(frozen=True)
class GameDetail:
    """A stored game move by move, with the boxes MENACE opened and what it learnt."""

    number: int
    record: GameRecord
    plies: list[Ply]
    result: Result
    delta: int
    """Beads added (negative: taken) per bead drawn, under the machine's rule."""
    reinforcement: list[LedgerLine]
    """Every bead the rule reinforced: each bead drawn, or only the last one under last-bead scope."""
    resigned_box: int | None = None
    """The empty box MENACE resigned on, if the game ended that way."""
    last_only: bool = False
    """True when the rule reinforces only the bead of MENACE's last move (Gardner's scope)."""
    frozen: bool = False
    """The machine played it without learning: nothing was reinforced."""
    chances: list[tuple[float, float]] = field(default_factory=list)
    """Under the Pegasus rule: per line of :attr:`reinforcement`, the move's chance in percent before and
    after the game's learning."""


def _detail(r: Replayer, record: GameRecord, number: int, learn: bool = True) -> GameDetail:
    e = r.learner
    game = e.game
    state = game.initial()
    plies: list[Ply] = []
    for i, move in enumerate(record.moves, start=1):
        side = game.to_move(state)
        found = e.box_for(state) if side is record.menace_side else None
        if side is not record.menace_side or found is None:
            state = game.play(state, move)
            plies.append(Ply(i, side, side is record.menace_side, move, state))
            continue
        b, real = found
        box = e.boxes[b]
        counts = e.counts[b]
        sym = canonical(game, state)[1] if r.settings.symmetry else game.symmetries[0]
        before = {m: counts[m] for m in box.initial}
        restocked = e.refill[b] and not any(counts)
        state = game.play(state, move)
        plies.append(Ply(i, side, True, move, state, box.number, sym.name, box.position, before,
                         real.index(move), restocked))
    resigned: int | None = None
    if game.outcome(state) is None and game.to_move(state) is record.menace_side:
        found = e.box_for(state)
        resigned = None if found is None else found[0] + 1
    counts_before = [list(c) for c in e.counts]
    drawn = r.learn(record, learn)  # not apply: a correction made after this game is not its learning
    if not learn:
        drawn = []  # played frozen: no bead was reinforced
    last_only = r.settings.scope is Scope.LAST
    if last_only:
        drawn = drawn[-1:]
    ledger: list[LedgerLine] = []
    odds: list[tuple[float, float]] = []
    seen: set[tuple[int, Move]] = set()
    for b, m in drawn:
        if (b, m) in seen:
            continue
        seen.add((b, m))
        # After a restock the count before learning is the initial one, not the empty box's.
        before_learning = e.initial[b][m] if e.refill[b] and not any(counts_before[b]) else counts_before[b][m]
        ledger.append(LedgerLine(b + 1, m, before_learning, e.counts[b][m]))
        if r.settings.pegasus is not None:
            odds.append((chances(counts_before[b])[m], chances(e.counts[b])[m]))
    return GameDetail(number, record, plies, record.result, r.delta(record) if learn else 0, ledger, resigned,
                      last_only, frozen=not learn, chances=odds)


def game_detail(
    game: Game, settings: Settings, boxes: Sequence[Box], games: Iterable[GameRecord], number: int,
    corrections: Sequence[Correction] = (),
) -> GameDetail:
    """Game ``number`` (1 = the first of ``games``) move by move, replayed on the beads it met."""
    if number < 1:
        raise GameNotFoundError(f"no game {number}: games are numbered from 1")
    r = Replayer(game, settings, boxes, corrections)
    it: Iterator[GameRecord] = iter(games)
    for record in it:
        if r.games == number - 1:
            return _detail(r, record, number)
        r.apply(record)
    raise GameNotFoundError(f"no game {number}: the machine has played {r.games:,} games")


def next_game_detail(r: Replayer, record: GameRecord, learn: bool = True) -> GameDetail:
    """The game after the ``r.games`` that ``r`` has learnt from, move by move (and learnt from, unless
    ``learn`` is false: the machine played it frozen)."""
    return _detail(r, record, r.games + 1, learn)
