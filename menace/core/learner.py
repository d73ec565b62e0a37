"""The learning machine: matchboxes, beads, a bead drawn at random, reinforcement. Pure, no I/O.

A :class:`~menace.core.settings.Settings` (its own module, with the presets) says how a machine is
built and how it learns; :func:`build_boxes` walks the positions where MENACE is to move, breadth
first, and fills one :class:`Box` per position (up to rotation and reflection unless ``symmetry`` is
off). An :class:`Learner` holds the boxes' bead
counts in plain lists and plays whole games against a tabulated opponent fast enough to train
overnight by the million.

>>> from menace.core.settings import MICHIE
>>> from menace.games import DEFAULT_GAME, find_game
>>> game = find_game(DEFAULT_GAME)
>>> boxes = build_boxes(game, MICHIE)
>>> len(boxes), sum(box.total for box in boxes)
(304, 1720)
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from menace.core.errors import InternalError, known
from menace.core.game import (
    Game,
    IllegalMoveError,
    Move,
    Outcome,
    Result,
    Side,
    State,
    Symmetry,
    canonical,
    distinct_moves,
    once_per_game,
)
from menace.core.pegasus import Reinforcer
from menace.core.settings import EmptyPolicy, Scope, Settings, SettingsError, format_numbers

# The result codes live with the tree and are the learner's too: imported from here everywhere.
from menace.core.tree import DRAWN as DRAWN
from menace.core.tree import O_WINS as O_WINS
from menace.core.tree import ONGOING as ONGOING
from menace.core.tree import WINNER_CODE as WINNER_CODE
from menace.core.tree import X_WINS as X_WINS
from menace.core.tree import game_tree


@dataclass
class Box:
    """A matchbox: a position where MENACE is to move, and beads for its moves."""

    number: int
    """1..N in walk order: the number on the label, the same everywhere."""
    position: State
    side: Side
    move_number: int
    """MENACE's 1st, 2nd, ... move of the game."""
    initial: dict[Move, int]
    beads: dict[Move, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.beads:
            self.beads = dict(self.initial)

    @property
    def total(self) -> int:
        return sum(self.beads.values())


def walk_with_depth(game: Game, symmetric: bool) -> list[tuple[State, int]]:
    """Every position reachable from the start, breadth first (canonical ones if ``symmetric``),
    each with its depth: the plies played to reach it first.

    Move numbers come from the depth, not from counting pieces: in a game where pieces move
    (Hexapawn) the pieces on the board do not tell how many moves were made. The walk depends on the
    rules alone, so a process walks each game once each way (a server or a test run builds many
    machines); every call gets its own list.
    """
    return list((_symmetric_walk if symmetric else _plain_walk)(game))


def _walk(game: Game, symmetric: bool) -> tuple[tuple[State, int], ...]:
    start = game.initial()
    depth = {start: 0}
    order = [(start, 0)]
    queue = deque([start])
    while queue:
        state = queue.popleft()
        for move in game.legal_moves(state):
            child = game.play(state, move)
            if symmetric:
                child = canonical(game, child)[0]
            if child not in depth:
                depth[child] = depth[state] + 1
                order.append((child, depth[child]))
                queue.append(child)
    return tuple(order)


@once_per_game
def _plain_walk(game: Game) -> tuple[tuple[State, int], ...]:
    return _walk(game, False)


@once_per_game
def _symmetric_walk(game: Game) -> tuple[tuple[State, int], ...]:
    return _walk(game, True)


def walk(game: Game, symmetric: bool) -> list[State]:
    """Every position reachable from the start, breadth first (canonical ones if ``symmetric``)."""
    return [state for state, _ in walk_with_depth(game, symmetric)]


def needs_box(game: Game, state: State, sides: Sequence[Side], forced: bool = False) -> bool:
    """MENACE is to move, the game is undecided and there is a choice (not one move left, unless
    ``forced`` boxes are wanted)."""
    return (
        game.to_move(state) in sides
        and game.outcome(state) is None
        and len(game.legal_moves(state)) > (0 if forced else 1)
    )


def build_boxes(game: Game, settings: Settings) -> list[Box]:
    """One box per position where MENACE is to move, numbered in breadth-first walk order."""
    boxes: list[Box] = []
    for state, side, move_number, moves in _box_plan(game, settings.symmetry, tuple(settings.sides),
                                                     settings.forced_boxes, settings.all_squares):
        count = settings.beads_for_move(move_number)
        boxes.append(Box(len(boxes) + 1, state, side, move_number, {m: count for m in moves}))
    return boxes


_BoxPlan = tuple[tuple[State, Side, int, tuple[Move, ...]], ...]
_box_plans: dict[tuple[str, bool, tuple[Side, ...], bool, bool], _BoxPlan] = {}


def _box_plan(game: Game, symmetric: bool, sides: tuple[Side, ...], forced: bool, all_moves: bool) -> _BoxPlan:
    """Each box's position, side, move number and moves: the rules and the machine's shape decide
    them, not its beads, so a process works them out once per shape (a few shapes a game)."""
    key = (game.name, symmetric, sides, forced, all_moves)
    plan = _box_plans.get(key)
    if plan is None and symmetric and swaps_sides(game):
        plan = _box_plans[key] = _shared_plan(game, sides, forced, all_moves)
    if plan is None:
        plan = _box_plans[key] = tuple(
            (state, game.to_move(state), depth // 2 + 1,
             tuple(game.legal_moves(state) if all_moves else distinct_moves(game, state)))
            for state, depth in walk_with_depth(game, symmetric) if needs_box(game, state, sides, forced)
        )
    return plan


def swaps_sides(game: Game) -> bool:
    """Whether one of the game's symmetries hands the move to the other side: an impartial game
    (Nim), where a box stands for its position whichever side is to move there."""
    start = game.initial()
    return any(game.to_move(sym.apply(start)) is not game.to_move(start) for sym in game.symmetries)


def _shared_plan(game: Game, sides: tuple[Side, ...], forced: bool, all_moves: bool) -> _BoxPlan:
    """The boxes of a game whose symmetry swaps the sides: one per canonical form of the positions
    where MENACE moves (on either of its sides), in the order a breadth-first walk first meets
    them, numbered as MENACE's move there when first met. The canonical walk would lose who moves."""
    first: dict[State, int] = {}
    for state, depth in walk_with_depth(game, False):
        if needs_box(game, state, sides, forced):
            first.setdefault(canonical(game, state)[0], depth)
    return tuple(
        (form, game.to_move(form), depth // 2 + 1,
         tuple(game.legal_moves(form) if all_moves else distinct_moves(game, form)))
        for form, depth in first.items()
    )


def check_schedule(settings: Settings, boxes: Sequence[Box]) -> None:
    """A new machine's bead schedule has one number per move with boxes, or a single number for every
    move; :class:`SettingsError` otherwise (a number too few or too many is a slip, not a wish).
    """
    moves_made = max((b.move_number for b in boxes), default=0)
    if len(settings.schedule) not in (1, moves_made):
        raise SettingsError(
            f"the bead schedule {format_numbers(settings.schedule)} has {len(settings.schedule)} numbers, but "
            f"this machine has boxes for {moves_made} moves: give {moves_made} numbers (one per move) or one "
            f"number for every move")


def outcome_of(code: int) -> Outcome:
    return Outcome({X_WINS: Side.X, O_WINS: Side.O, DRAWN: None}[code])


class EmptyBoxError(RuntimeError):
    """MENACE opened an empty box under the ``resign`` policy."""


class GameRecord(NamedTuple):
    """One finished game: MENACE's side, the moves in order, the winner code.

    The winner code is X_WINS, O_WINS or DRAWN. A game that ends with MENACE to move on an
    undecided board was a resignation (an empty box under ``resign``).
    """

    menace_side: Side
    moves: list[Move]
    winner: int

    @property
    def result(self) -> Result:
        return outcome_of(self.winner).for_side(self.menace_side)


@dataclass(frozen=True)
class Draw:
    """A bead taken from a box: the box index (number - 1) and the bead's move in box frame."""

    box: int
    bead: Move
    ply: int = -1
    """The move's place in the game, both sides' moves counted from 0 (-1: not known); the Pegasus
    rule needs it."""


@once_per_game
def _canonical_forms(game: Game) -> dict[State, tuple[State, Symmetry]]:
    """:func:`~menace.core.game.canonical` of the positions learners have looked up so far: a learner
    on a machine with symmetry finds each position's box through it, and a process works each out
    once per game however many learners it makes."""
    return {}


_SideLayout = tuple[list[int | None], list["Fast"], list[tuple[int, tuple[int, ...], tuple[int, ...], int]]]
_layouts: dict[tuple[str, tuple[Side, ...], bool, bool, tuple[State, ...]], dict[Side, _SideLayout]] = {}


def _layout(game: Game, settings: Settings, boxes: Sequence[Box]) -> dict[Side, _SideLayout]:
    """Per side, what a learner's tables hold whatever its beads: per position of the game tree
    where this side is to move, None (no move), the move when it is forced, or (in a third list)
    the box's index, the real move each bead colour stands for and the position it leads to.
    A learner fills in its own counts; a process works this out once per machine shape."""
    key = (game.name, tuple(settings.sides), settings.forced_boxes, settings.symmetry,
           tuple(box.position for box in boxes))
    layout = _layouts.get(key)
    if layout is not None:
        return layout
    tree = game_tree(game)
    states, result, to_move, legal_of, kids = tree.states, tree.result, tree.to_move, tree.legal, tree.kids
    forced = not settings.forced_boxes
    forms = _canonical_forms(game) if settings.symmetry else None
    identity = game.symmetries[0].moves
    box_at = {position: b for b, position in enumerate(key[4])}
    layout = {}
    for side in settings.sides:
        entry_rows: list[int | None] = [None] * len(states)
        fast_rows: list[Fast] = [None] * len(states)
        box_rows: list[tuple[int, tuple[int, ...], tuple[int, ...], int]] = []
        for i, s in enumerate(states):
            if result[i] or to_move[i] is not side:
                continue
            legal = legal_of[i]
            if forced and len(legal) == 1:
                entry_rows[i] = legal[0]
                fast_rows[i] = (legal[0], kids[i][legal[0]])
                continue
            if forms is not None:
                form = forms.get(s)
                if form is None:
                    form = forms[s] = canonical(game, s)
                b, real = box_at[form[0]], form[1].moves
            else:
                b, real = box_at[s], identity
            box_rows.append((i, real, tuple(map(kids[i].__getitem__, real)), b))
        layout[side] = (entry_rows, fast_rows, box_rows)
    _layouts[key] = layout
    return layout


OpponentRow = tuple[tuple[int, ...], int, tuple[int, ...]]
"""A tabulated opponent in one position: its choices, how many, and the position each leads to."""
_opponent_rows_of: dict[tuple[int, int], tuple[object, object, list[OpponentRow]]] = {}
"""The rows of the last few opponent tables, by the table and the game tree they were made for
(the objects themselves are kept, so that an id is never another table's)."""


class StopSignal(Protocol):
    """Anything with a ``requested`` flag that a signal handler may set (see ``Learner.play_batch``)."""

    requested: bool


Fast = tuple[int, int] | tuple[list[int], tuple[int, ...], tuple[int, ...], tuple[int, ...], int] | None
"""A row of :attr:`Learner.fast`: ``(move, next position)`` for a forced move, or ``(counts, colours,
real moves, next positions, box index)`` for a box; None where MENACE does not move."""


class Learner:
    """A machine's boxes in memory, tabulated for speed, plus the learning rule.

    Every reachable position gets a dense index; ``kids[i][move]`` is the position after the
    move. For positions where MENACE is to move, ``entry[i]`` is either the one legal move (no
    box: the move is forced) or ``(counts, real_moves, box_index)``, where ``counts`` is the
    box's bead list in the box's frame and ``real_moves[m]`` the real move bead ``m`` means.
    """

    def __init__(self, game: Game, settings: Settings, boxes: Sequence[Box]) -> None:
        self.game = game
        self.settings = settings
        self.boxes = list(boxes)
        n = game.move_count
        self.counts: list[list[int]] = []
        self.initial: list[list[int]] = []
        for box in self.boxes:
            counts = [0] * n
            initial = [0] * n
            for move, c in box.beads.items():
                counts[move] = c
            for move, c in box.initial.items():
                initial[move] = c
            self.counts.append(counts)
            self.initial.append(initial)
        self._width = range(n)
        policy = settings.empty_policy
        self.refill = [
            policy is EmptyPolicy.RESTOCK or (policy is EmptyPolicy.REVIVE and box.move_number == 1)
            for box in self.boxes
        ]
        """Per box: an empty box is refilled with its initial beads (else MENACE resigns on it)."""
        self.pegasus = None if settings.pegasus is None else Reinforcer(settings.pegasus)
        """The Pegasus rule's learning (odds, not beads: see :mod:`menace.core.pegasus`), or None."""
        self._rule = (settings.win, settings.draw, settings.loss,
                      settings.scope is Scope.EVERY and policy is not EmptyPolicy.KEEP_LAST
                      and self.pegasus is None)
        """The learning rule for the hot loops: win, draw, loss, and whether every bead drawn is
        reinforced with counts floored at zero (else :meth:`apply` handles the other rules)."""
        self._opponent: tuple[Sequence[tuple[int, ...]], list[OpponentRow]] | None = None
        self._totals: list[int] | None = None
        """Per box, its beads in all, as :meth:`play_table` keeps them; None: to be counted again."""
        self._tabulate()

    def _tabulate(self) -> None:
        tree = game_tree(self.game)
        self.states, self.index, self.root = tree.states, tree.index, tree.root
        self.result, self.kids = tree.result, tree.kids
        self.to_move = tree.to_move
        counts, initial = self.counts, self.initial
        colours = [tuple(m for m in self._width if start[m] or now[m]) for start, now in zip(initial, counts)]
        """Per box, the colours it holds or starts with (the same in every position it stands for)."""
        self.entry: dict[Side, list[tuple[list[int], tuple[int, ...], int] | int | None]] = {}
        self.fast: dict[Side, list[Fast]] = {}
        """The tables of the hot loops (:meth:`play_table`, :func:`play_learners`): per position, a
        forced move and the position after it, or the box's counts with only its colours to scan
        and, per bead, the real move and the position it leads to."""
        for side, (entry_rows, fast_rows, box_rows) in _layout(self.game, self.settings, self.boxes).items():
            entry: list[tuple[list[int], tuple[int, ...], int] | int | None] = [*entry_rows]
            fast = fast_rows.copy()
            for k, real, after, b in box_rows:
                c = counts[b]
                entry[k] = (c, real, b)
                fast[k] = (c, colours[b], real, after, b)
            self.entry[side], self.fast[side] = entry, fast

    # -- choosing -------------------------------------------------------------------------
    def box_for(self, state: State) -> tuple[int, tuple[int, ...]] | None:
        """The box index MENACE opens in ``state`` and its real-move map; None if forced."""
        e = self.entry[self.game.to_move(state)][self.index[state]]
        if e is None or isinstance(e, int):
            return None
        return e[2], e[1]

    def draw(self, state: State, rng: random.Random, ply: int = -1) -> tuple[Move, Draw | None]:
        """A bead drawn for ``state``: the real move and what was drawn (None if forced).

        Raises :class:`EmptyBoxError` when the box is empty and is not refilled.
        """
        e = self.entry[self.game.to_move(state)][self.index[state]]
        if e is None:
            raise ValueError("MENACE has no box for a position where it is not to move")
        if isinstance(e, int):
            return e, None
        counts, real, b = e
        total = sum(counts)
        if not total:
            if not self.refill[b]:
                raise EmptyBoxError(f"box {b + 1} is empty")
            counts[:] = self.initial[b]
            self._totals = None
            total = sum(counts)
        r = int(rng.random() * total)
        m = 0
        for m, c in enumerate(counts):  # noqa: B007 - m is the bead the loop stops on
            r -= c
            if r < 0:
                break
        return real[m], Draw(b, m, ply)

    # -- learning -------------------------------------------------------------------------
    def reinforce(self, drawn: Iterable[Draw], result: Result, length: int | None = None) -> None:
        """Apply the learning rule to every bead drawn in a game with ``result``. The Pegasus rule
        also needs the game's ``length`` (its moves, both sides') and each draw's ply."""
        if self.pegasus is not None:
            drawn = list(drawn)
            if length is None or any(d.ply < 0 for d in drawn):
                raise InternalError("the Pegasus rule needs each move's place in the game and its length")
            self._totals = None
            value = 1 if result is Result.WIN else -1 if result is Result.LOSS else 0
            self.pegasus.learn(self.counts, [(d.box, d.bead, d.ply) for d in drawn], length, value)
            return
        self.apply([(d.box, d.bead) for d in drawn], self.settings.delta(result))

    def _pegasus_learn(self, side: Side, moves: Sequence[int], drawn: Sequence[tuple[list[int], int, int]],
                       res: int) -> None:
        """The Pegasus rule after a game from a hot loop: ``drawn`` as ``(counts, bead, box)`` in the
        order drawn, their plies found again by walking ``moves`` (a box is opened where :attr:`fast`
        has one for ``side``)."""
        reinforcer = known(self.pegasus, "the Pegasus rule")
        if reinforcer.plain and res == DRAWN:  # the plain rule: a draw leaves the odds and keeps no mean
            return
        fast = self.fast[side]
        to_move, kids = self.to_move, self.kids
        made: list[tuple[int, int, int]] = []
        k = self.root
        j = 0
        for ply, move in enumerate(moves):
            if j == len(drawn):
                break
            if to_move[k] is side:
                ent = fast[k]
                if ent is not None and len(ent) == 5:
                    _, m, b = drawn[j]
                    made.append((b, m, ply))
                    j += 1
            k = kids[k][move]
        value = 0 if res == DRAWN else 1 if res == side else -1
        reinforcer.learn(self.counts, made, len(moves), value)


    def apply(self, drawn: Sequence[tuple[int, int]], delta: int) -> None:
        """Add ``delta`` beads (take, when negative) for the beads ``drawn`` as ``(box, bead)``,
        in the order drawn, under the machine's scope and empty-box policy."""
        self._totals = None
        if self.settings.scope is Scope.LAST:
            drawn = drawn[-1:]
        counts = self.counts
        if delta >= 0:
            for b, m in drawn:
                counts[b][m] += delta
            return
        keep_last = self.settings.empty_policy is EmptyPolicy.KEEP_LAST
        for b, m in drawn:
            box = counts[b]
            take = min(-delta, box[m])
            if keep_last:
                take = min(take, sum(box) - 1)
            if take > 0:
                box[m] -= take

    # -- whole games ----------------------------------------------------------------------
    def options_table(
        self, options: Callable[[State], Sequence[Move]], movers: Collection[Side] | None = None,
    ) -> list[tuple[int, ...]]:
        """Tabulate a stateless player's choices (``options(state)``) for every position (where one
        of ``movers`` is to move, if given: the opponent of a one-sided machine never moves elsewhere)."""
        to_move, result = self.to_move, self.result
        return [tuple(options(s)) if not result[i] and (movers is None or to_move[i] in movers) else ()
                for i, s in enumerate(self.states)]

    def opponent_table(
        self, options: Callable[[State], Sequence[Move]], sides: Collection[Side],
    ) -> list[tuple[int, ...]]:
        """:meth:`options_table` for an opponent of this machine playing one of ``sides``, tabulated
        only where such a game can take it: following every colour a box holds or is refilled with
        (the colours :attr:`fast` draws from) and the opponent's own choices; () elsewhere.

        Against Michie's machine as X, ``smart`` is asked in 592 of the 2,097 positions where O is to
        move. The table is good for :meth:`play_table` and :meth:`play_batch` as long as the boxes keep
        their colours (a learner's colours are fixed when it is made).
        """
        states, kids, result, to_move = self.states, self.kids, self.result, self.to_move
        found: list[tuple[int, ...] | None] = [None] * len(states)
        for side in sides:
            fast = self.fast[side]
            seen = bytearray(len(states))
            seen[self.root] = 1
            todo = [self.root]
            while todo:
                k = todo.pop()
                if result[k]:
                    continue
                if to_move[k] is side:
                    ent = fast[k]
                    if len(ent) == 2:  # type: ignore[arg-type]
                        after: Iterable[int] = (ent[1],)  # type: ignore[index]
                    else:
                        after = map(ent[3].__getitem__, ent[1])  # type: ignore[index]
                else:
                    opts = found[k]
                    if opts is None:
                        opts = found[k] = tuple(options(states[k]))
                    after = map(kids[k].__getitem__, opts)
                for c in after:
                    if not seen[c]:
                        seen[c] = 1
                        todo.append(c)
        return [() if t is None else t for t in found]

    def play_table(
        self,
        side: Side,
        opponent: Sequence[tuple[int, ...]],
        rng: random.Random,
        learn: bool = True,
    ) -> tuple[int, list[int]]:
        """One game of MENACE on ``side`` against an opponent who picks uniformly among
        ``opponent[i]`` in position ``i``; learns from it unless ``learn`` is false.

        Returns the winner code and the moves; this is the hot loop of every tournament, so
        it stays flat and builds no objects it does not need, and keeps each box's total from game
        to game instead of summing it at every draw (see :meth:`counts_changed`).
        """
        if self.pegasus is not None:
            return self._pegasus_table(side, opponent, rng, learn)
        rnd = rng.random
        res_t = self.result
        fast = self.fast[side]
        totals = self._totals
        if totals is None:
            totals = self._totals = [sum(c) for c in self.counts]
        opp = self._opponent_rows(opponent)
        moves: list[int] = []
        add = moves.append
        drawn: list[tuple[list[int], int, int]] = []
        took = drawn.append
        k = self.root
        res = ONGOING
        if side is Side.O:
            e, ln, nx = opp[k]
            i = int(rnd() * ln)
            add(e[i])
            k = nx[i]
        while True:
            ent = fast[k]
            if len(ent) == 2:  # type: ignore[arg-type]
                s, k = ent  # type: ignore[misc]
            else:
                counts, colours, real, nexts, b = ent  # type: ignore[misc]
                total = totals[b]
                if not total:
                    if self.refill[b]:
                        counts[:] = self.initial[b]
                        total = totals[b] = sum(counts)
                    else:
                        res = O_WINS if side is Side.X else X_WINS
                        break
                r = int(rnd() * total)
                for m in colours:
                    r -= counts[m]
                    if r < 0:
                        break
                took((counts, m, b))
                s = real[m]
                k = nexts[m]
            add(s)
            res = res_t[k]
            if res:
                break
            e, ln, nx = opp[k]
            i = int(rnd() * ln)
            add(e[i])
            k = nx[i]
            res = res_t[k]
            if res:
                break
        if learn:
            win, draw, loss, plain = self._rule
            d = draw if res == DRAWN else win if res == side else loss
            if not plain:
                self.apply([(b, m) for _, m, b in drawn], d)
                for counts, _, b in drawn:
                    totals[b] = sum(counts)
                self._totals = totals
            elif d >= 0:
                for counts, m, b in drawn:
                    counts[m] += d
                    totals[b] += d
            else:
                for counts, m, b in drawn:
                    c = counts[m]
                    new = c + d
                    if new < 0:
                        new = 0
                    counts[m] = new
                    totals[b] += new - c
        return res, moves

    def _opponent_rows(self, opponent: Sequence[tuple[int, ...]]) -> list[OpponentRow]:
        """Per position: the opponent's choices, how many, and the position each leads to (kept
        for the last opponent table seen, which a tournament passes game after game, and shared
        with the other learners of the process that are given the same table: a sweep's)."""
        if self._opponent is None or self._opponent[0] is not opponent:
            kids = self.kids
            known = _opponent_rows_of.get((id(opponent), id(kids)))
            if known is not None and known[0] is opponent and known[1] is kids:
                rows = known[2]
            else:
                none: OpponentRow = ((), 0, ())
                rows = [(e, len(e), tuple(map(kids[k].__getitem__, e))) if e else none
                        for k, e in enumerate(opponent)]
                if len(_opponent_rows_of) >= 16:
                    _opponent_rows_of.clear()
                _opponent_rows_of[id(opponent), id(kids)] = (opponent, kids, rows)
            self._opponent = (opponent, rows)
        return self._opponent[1]

    def counts_changed(self) -> None:
        """Say that the bead counts were changed from outside the learner's own methods (a
        correction, a restore, a replay): :meth:`play_table` keeps each box's total from game to
        game and must count them again. The learner's methods that change counts say it themselves."""
        self._totals = None

    def play_batch(
        self, side: Side, opponent: Sequence[tuple[int, ...]], rng: random.Random, n: int, data: bytearray,
        outcomes: list[int], stop: StopSignal | None = None, learn: bool = True,
    ) -> int:
        """Up to ``n`` games as :meth:`play_table` plays them (the same draws, beads and moves), each
        packed straight into ``data`` as :class:`~menace.core.records.GameBuffer` packs it and counted
        in ``outcomes[side << 2 | winner]``: the loop a tournament spends its night in. With ``learn``
        false the machine plays without learning (a frozen machine): no bead changes.

        Within a batch nothing else touches the counts, so box totals are kept as it goes instead of
        summed at every draw. It stops early after a game of at most one move (MENACE may have
        resigned at its first box) or once ``stop.requested`` is set; how many games it played.
        """

        if self.pegasus is not None:
            return self._pegasus_batch(side, opponent, rng, n, data, outcomes, stop, learn)
        rnd = rng.random
        res_t = self.result
        fast = self.fast[side]
        refill, initial = self.refill, self.initial
        win, draw, loss, plain = self._rule
        totals = self._totals if self._totals is not None else [sum(c) for c in self.counts]
        put = data.append
        side_bits = int(side) << 2
        root = self.root
        lose = O_WINS if side is Side.X else X_WINS
        o_first = side is Side.O
        opp = self._opponent_rows(opponent)
        played = 0
        while played < n:
            head = len(data)
            put(0)  # the header, written when the game ends
            add = put
            drawn: list[tuple[list[int], int, int]] = []
            took = drawn.append
            k = root
            if o_first:
                e, ln, nx = opp[k]
                i = int(rnd() * ln)
                add(e[i])
                k = nx[i]
            while True:
                ent = fast[k]
                if len(ent) == 2:  # type: ignore[arg-type]
                    s, k = ent  # type: ignore[misc]
                else:
                    counts, colours, real, nexts, b = ent  # type: ignore[misc]
                    total = totals[b]
                    if not total:
                        if refill[b]:
                            counts[:] = initial[b]
                            total = totals[b] = sum(counts)
                        else:
                            res = lose
                            break
                    r = int(rnd() * total)
                    for m in colours:
                        r -= counts[m]
                        if r < 0:
                            break
                    took((counts, m, b))
                    s = real[m]
                    k = nexts[m]
                add(s)
                res = res_t[k]
                if res:
                    break
                e, ln, nx = opp[k]
                i = int(rnd() * ln)
                add(e[i])
                k = nx[i]
                res = res_t[k]
                if res:
                    break
            d = draw if res == DRAWN else win if res == side else loss
            if not learn:
                pass
            elif not plain:
                self.apply([(b, m) for _, m, b in drawn], d)
                for _, _, b in drawn:
                    totals[b] = sum(self.counts[b])
            elif d >= 0:
                for counts, m, b in drawn:
                    counts[m] += d
                    totals[b] += d
            else:
                for counts, m, b in drawn:
                    c = counts[m]
                    new = c + d
                    if new < 0:
                        new = 0
                    counts[m] = new
                    totals[b] += new - c
            code = side_bits | res
            length = len(data) - head - 1
            if length < 15:
                data[head] = length << 4 | code
            else:  # a long game (Nim): its length in a byte of its own after the header
                data[head] = 15 << 4 | code
                data.insert(head + 1, length)
            outcomes[code] += 1
            played += 1
            if length <= 1 or (stop is not None and stop.requested):
                break
        self._totals = totals
        return played

    # -- the Pegasus rule's hot loops: the same draws as play_table and play_batch, each move's ply kept ---------
    def _pegasus_table(self, side: Side, opponent: Sequence[tuple[int, ...]], rng: random.Random,
                       learn: bool) -> tuple[int, list[int]]:
        """:meth:`play_table` for a machine learning by the Pegasus rule (see :meth:`_pegasus_learn_plies`)."""
        rnd = rng.random
        res_t = self.result
        fast = self.fast[side]
        totals = self._totals
        if totals is None:
            totals = self._totals = [sum(c) for c in self.counts]
        opp = self._opponent_rows(opponent)
        moves: list[int] = []
        add = moves.append
        drawn: list[tuple[list[int], int, int, int]] = []
        took = drawn.append
        k = self.root
        if side is Side.O:
            e, ln, nx = opp[k]
            i = int(rnd() * ln)
            add(e[i])
            k = nx[i]
        while True:
            ent = fast[k]
            if len(ent) == 2:  # type: ignore[arg-type]
                s, k = ent  # type: ignore[misc]
            else:
                counts, colours, real, nexts, b = ent  # type: ignore[misc]
                total = totals[b]
                if not total:  # never: a Pegasus box keeps a possible move
                    res = O_WINS if side is Side.X else X_WINS
                    break
                r = int(rnd() * total)
                for m in colours:
                    r -= counts[m]
                    if r < 0:
                        break
                took((counts, m, b, len(moves)))
                s = real[m]
                k = nexts[m]
            add(s)
            res = res_t[k]
            if res:
                break
            e, ln, nx = opp[k]
            i = int(rnd() * ln)
            add(e[i])
            k = nx[i]
            res = res_t[k]
            if res:
                break
        if learn:
            self._pegasus_learn_plies(drawn, len(moves), res, side, totals)
        return res, moves

    def _pegasus_batch(self, side: Side, opponent: Sequence[tuple[int, ...]], rng: random.Random, n: int,
                       data: bytearray, outcomes: list[int], stop: StopSignal | None, learn: bool) -> int:
        """:meth:`play_batch` for a machine learning by the Pegasus rule."""
        rnd = rng.random
        res_t = self.result
        fast = self.fast[side]
        totals = self._totals if self._totals is not None else [sum(c) for c in self.counts]
        put = data.append
        side_bits = int(side) << 2
        root = self.root
        lose = O_WINS if side is Side.X else X_WINS
        o_first = side is Side.O
        opp = self._opponent_rows(opponent)
        learn_plies = self._pegasus_learn_plies
        played = 0
        while played < n:
            head = len(data)
            put(0)  # the header, written when the game ends
            add = put
            drawn: list[tuple[list[int], int, int, int]] = []
            took = drawn.append
            k = root
            if o_first:
                e, ln, nx = opp[k]
                i = int(rnd() * ln)
                add(e[i])
                k = nx[i]
            while True:
                ent = fast[k]
                if len(ent) == 2:  # type: ignore[arg-type]
                    s, k = ent  # type: ignore[misc]
                else:
                    counts, colours, real, nexts, b = ent  # type: ignore[misc]
                    total = totals[b]
                    if not total:  # never: a Pegasus box keeps a possible move
                        res = lose
                        break
                    r = int(rnd() * total)
                    for m in colours:
                        r -= counts[m]
                        if r < 0:
                            break
                    took((counts, m, b, len(data) - head - 1))
                    s = real[m]
                    k = nexts[m]
                add(s)
                res = res_t[k]
                if res:
                    break
                e, ln, nx = opp[k]
                i = int(rnd() * ln)
                add(e[i])
                k = nx[i]
                res = res_t[k]
                if res:
                    break
            code = side_bits | res
            length = len(data) - head - 1
            if learn:
                learn_plies(drawn, length, res, side, totals)
            if length < 15:
                data[head] = length << 4 | code
            else:  # a long game (Nim): its length in a byte of its own after the header
                data[head] = 15 << 4 | code
                data.insert(head + 1, length)
            outcomes[code] += 1
            played += 1
            if length <= 1 or (stop is not None and stop.requested):
                break
        self._totals = totals
        return played

    def _pegasus_learn_plies(self, drawn: list[tuple[list[int], int, int, int]], length: int, res: int,
                             side: Side, totals: list[int]) -> None:
        """The Pegasus rule after a game of ``length`` moves that ended with winner code ``res``: ``drawn``
        holds ``(weights, move, box index, ply)`` per move from a box; box totals kept in ``totals``."""
        reinforcer = known(self.pegasus, "the Pegasus rule")
        if reinforcer.plain:
            if res != DRAWN:  # a draw leaves the odds
                reinforcer.learn_plain(drawn, length, res == side, totals)
            return
        value = 0 if res == DRAWN else 1 if res == side else -1
        reinforcer.learn(self.counts, [(b, m, ply) for _, m, b, ply in drawn], length, value)
        for weights, _, b, _ in drawn:
            totals[b] = sum(weights)

    def _learn(self, drawn: list[tuple[list[int], int, int]], res: int, side: Side, moves: Sequence[int]) -> None:
        """Reinforce the beads drawn in a game (its ``moves``) that ended with winner code ``res``."""
        self._totals = None
        if self.pegasus is not None:
            self._pegasus_learn(side, moves, drawn, res)
            return
        win, draw, loss, plain = self._rule
        d = draw if res == DRAWN else win if res == side else loss
        if not plain:
            self.apply([(b, m) for _, m, b in drawn], d)
        elif d >= 0:
            for counts, m, _ in drawn:
                counts[m] += d
        else:
            for counts, m, _ in drawn:
                c = counts[m] + d
                counts[m] = c if c > 0 else 0

    def play_against(self, side: Side, opponent: TreeOpponent, rng: random.Random) -> tuple[int, list[int]]:
        """One game of MENACE on ``side`` against an opponent that moves by tree position (and may
        learn: it hears the result); MENACE learns from it. The winner code and the moves."""
        rnd = rng.random
        res_t, kids = self.result, self.kids
        fast = self.fast[side]
        drawn: list[tuple[list[int], int, int]] = []
        moves: list[int] = []
        k = self.root
        opponent.start(side.other)
        mine = side is Side.X
        while True:
            if mine:
                step = _draw_fast(self, fast[k], rnd, drawn)
                if step is None:
                    res = O_WINS if side is Side.X else X_WINS
                    break
                s, k = step
            else:
                s = opponent.move(k, rng)
                k = kids[k][s]
            moves.append(s)
            res = res_t[k]
            if res:
                break
            mine = not mine
        self._learn(drawn, res, side, moves)
        opponent.finish(res)
        return res, moves

    def play_batch_against(
        self, sides: Sequence[Side], first: int, opponent: TreeOpponent, rng: random.Random, n: int,
        data: bytearray, outcomes: list[int], stop: StopSignal | None = None,
    ) -> tuple[int, int, int]:
        """Up to ``n`` games as :meth:`play_against` plays them one by one (the same draws, beads,
        moves and opponent's learning), in one loop, MENACE playing ``sides[(first + i) % len(sides)]``
        in game ``i``. Each is packed into ``data`` and counted in ``outcomes`` as :meth:`play_batch`
        packs it; box totals are kept from game to game.

        It stops early after a game of at most one move (MENACE may have resigned at its first box)
        or once ``stop.requested`` is set. Returns how many games it played, and the last one's winner
        code and number of moves.
        """
        rnd = rng.random
        res_t, kids = self.result, self.kids
        refill, initial = self.refill, self.initial
        totals = self._totals if self._totals is not None else [sum(c) for c in self.counts]
        start, move, finish = opponent.start, opponent.move, opponent.finish
        setups = [(side, self.fast[side], side.other, O_WINS if side is Side.X else X_WINS, side is Side.O,
                   int(side) << 2) for side in sides]
        nsides = len(setups)
        root = self.root
        put = data.append
        played = res = length = 0
        while played < n:
            side, fast, theirs, lose, o_first, side_bits = setups[(first + played) % nsides]
            head = len(data)
            put(0)  # the header, written when the game ends
            drawn: list[tuple[list[int], int, int]] = []
            start(theirs)
            k = root
            if o_first:
                s = move(k, rng)
                put(s)
                k = kids[k][s]
            while True:
                ent = fast[k]
                if len(ent) == 2:  # type: ignore[arg-type]
                    s, k = ent  # type: ignore[misc]
                else:
                    counts, colours, real, nexts, b = ent  # type: ignore[misc]
                    total = totals[b]
                    if not total:
                        if not refill[b]:
                            res = lose
                            break
                        counts[:] = initial[b]
                        total = totals[b] = sum(counts)
                    r = int(rnd() * total)
                    for m in colours:
                        r -= counts[m]
                        if r < 0:
                            break
                    drawn.append((counts, m, b))
                    s = real[m]
                    k = nexts[m]
                put(s)
                res = res_t[k]
                if res:
                    break
                s = move(k, rng)
                put(s)
                k = kids[k][s]
                res = res_t[k]
                if res:
                    break
            _reinforce_kept(self, drawn, res, side, totals)
            finish(res)
            code = side_bits | res
            length = len(data) - head - 1
            if length < 15:
                data[head] = length << 4 | code
            else:  # a long game (Nim): its length in a byte of its own after the header
                data[head] = 15 << 4 | code
                data.insert(head + 1, length)
            outcomes[code] += 1
            played += 1
            if length <= 1 or (stop is not None and stop.requested):
                break
        self._totals = totals
        return played, res, length

    def opening_empty(self, side: Side) -> bool:
        """A box for MENACE's first move on ``side`` is empty under ``resign``.

        As X that is the opening box, and MENACE would resign every game. As O there are three
        such boxes (one per X opening up to symmetry); with one empty, MENACE resigns every game
        in which X opens that way, which against most opponents is game after game.
        """
        if self.settings.empty_policy is not EmptyPolicy.RESIGN:
            return False
        return any(not any(self.counts[i]) for i in self.first_boxes(side))

    def first_boxes(self, side: Side) -> list[int]:
        """The indices of the boxes for MENACE's first move on ``side``."""
        return [i for i, box in enumerate(self.boxes) if box.side is side and box.move_number == 1]

    def snapshot(self) -> list[list[int]]:
        return [list(c) for c in self.counts]

    def replay(self, record: GameRecord) -> list[Draw]:
        """Follow a recorded game on the boxes: the beads MENACE drew, applying restocks.

        Learning is not applied; pass the result to :meth:`reinforce`. (The plain reference for
        :class:`menace.core.replay.Replayer`, which does the same on precomputed tables.)
        Raises :class:`IllegalMoveError` for a move that was not legal.
        """
        side = record.menace_side
        entry = self.entry[side]
        kids = self.kids
        to_move = self.game.to_move
        states = self.states
        k = self.root
        drawn: list[Draw] = []
        for ply, move in enumerate(record.moves):
            if self.result[k] or not 0 <= move < len(kids[k]) or kids[k][move] < 0:
                raise IllegalMoveError(f"move {move} is not legal in {self.game.encode(states[k])}")
            if to_move(states[k]) is side:
                e = entry[k]
                if isinstance(e, tuple):
                    counts, real, b = e
                    if self.refill[b] and not any(counts):
                        counts[:] = self.initial[b]
                        self._totals = None
                    drawn.append(Draw(b, real.index(move), ply))
            k = kids[k][move]
        return drawn


class TreeOpponent(Protocol):
    """An opponent that moves by position index in the game's tree (:func:`game_tree`), for the hot
    loop of :meth:`Learner.play_against`: no state tuples, no objects per move."""

    def start(self, side: Side) -> None:
        """A new game, the opponent playing ``side``."""

    def move(self, k: int, rng: random.Random) -> int:
        """The opponent's move in position ``k`` of the tree."""

    def finish(self, winner: int) -> None:
        """The game ended with winner code ``winner`` (X_WINS, O_WINS or DRAWN)."""


def _draw_fast(learner: Learner, ent: Fast, rnd: Callable[[], float],
               drawn: list[tuple[list[int], int, int]]) -> tuple[int, int] | None:
    """One move of MENACE from a row of :attr:`Learner.fast`: (move, next position); None: it resigns."""
    if len(ent) == 2:  # type: ignore[arg-type]
        return ent
    counts, colours, real, nexts, b = ent  # type: ignore[misc]
    total = sum(counts)
    if not total:
        if not learner.refill[b]:
            return None
        counts[:] = learner.initial[b]
        learner._totals = None
        total = sum(counts)
    r = int(rnd() * total)
    for m in colours:
        r -= counts[m]
        if r < 0:
            break
    drawn.append((counts, m, b))
    return real[m], nexts[m]


def play_learners(x: Learner, o: Learner, rng: random.Random, learn: bool = True) -> tuple[int, list[int]]:
    """One game between two machines of the same game, ``x`` moving first; both learn from it (unless
    ``learn`` is false). The winner code and the moves: the same draws, in the same order, as two
    :class:`~menace.core.match.MenacePlayer` in :func:`~menace.core.match.play_game`, without the objects.
    """
    rnd = rng.random
    res_t = x.result
    tables = (x.fast[Side.X], o.fast[Side.O])
    machines = (x, o)
    drawn: tuple[list[tuple[list[int], int, int]], list[tuple[list[int], int, int]]] = ([], [])
    moves: list[int] = []
    add = moves.append
    k = x.root
    turn = 0
    while True:
        ent = tables[turn][k]
        if len(ent) == 2:  # type: ignore[arg-type]
            s, k = ent  # type: ignore[misc]
        else:
            counts, colours, real, nexts, b = ent  # type: ignore[misc]
            total = sum(counts)
            if not total:
                machine = machines[turn]
                if not machine.refill[b]:
                    res = O_WINS if turn == 0 else X_WINS  # an empty box: that machine resigns
                    break
                counts[:] = machine.initial[b]
                machine._totals = None
                total = sum(counts)
            r = int(rnd() * total)
            for m in colours:
                r -= counts[m]
                if r < 0:
                    break
            drawn[turn].append((counts, m, b))
            s = real[m]
            k = nexts[m]
        add(s)
        res = res_t[k]
        if res:
            break
        turn ^= 1
    if learn:
        x._learn(drawn[0], res, Side.X, moves)
        o._learn(drawn[1], res, Side.O, moves)
    return res, moves


def play_learners_batch(
    me: Learner, other: Learner, sides: Sequence[Side], first: int, rng: random.Random, n: int,
    data: bytearray, outcomes: list[int], other_data: bytearray, other_outcomes: list[int],
    stop: StopSignal | None = None,
) -> tuple[int, int, int]:
    """Up to ``n`` games of ``me`` against ``other``, both learning: the games :func:`play_learners`
    plays one by one (the same draws, beads and moves), in one loop. In game ``i`` ``me`` plays
    ``sides[(first + i) % len(sides)]`` and ``other`` the other side. Each game is packed into
    ``data`` and counted in ``outcomes`` as :meth:`Learner.play_batch` packs it, for ``me``'s side,
    and the same into ``other_data`` and ``other_outcomes`` for ``other``'s: what each machine stores.

    Box totals are kept from game to game, as :meth:`Learner.play_batch` keeps them. It stops early
    after a game of at most two moves (a machine may have resigned at its first box) or once
    ``stop.requested`` is set. Returns how many games it played, and the last one's winner code and
    number of moves.
    """
    rnd = rng.random
    res_t = me.result
    root = me.root
    mine = me._totals if me._totals is not None else [sum(c) for c in me.counts]
    theirs = other._totals if other._totals is not None else [sum(c) for c in other.counts]
    setups = []
    for side in sides:
        x, o, tx, to = (me, other, mine, theirs) if side is Side.X else (other, me, theirs, mine)
        # Each machine's reinforcement by winner code (ONGOING, X_WINS, O_WINS, DRAWN), where the learning
        # rule is the plain one (every bead drawn, counts floored at zero); None: see _reinforce_kept.
        gx = (0, x._rule[0], x._rule[2], x._rule[1]) if x._rule[3] else None
        go = (0, o._rule[2], o._rule[0], o._rule[1]) if o._rule[3] else None
        setups.append((x.fast[Side.X], o.fast[Side.O], tx, to, x.refill, o.refill, x.initial, o.initial, x, o,
                       gx, go, int(side) << 2, (int(side) << 2) ^ (int(side.other) << 2)))
    nsides = len(setups)
    put = data.append
    played = res = length = 0
    while played < n:
        fx, fo, tx, to, rx, ro, ix, io, x, o, gx, go, bits, swap = setups[(first + played) % nsides]
        head = len(data)
        put(0)  # the header, written when the game ends
        dx: list[tuple[list[int], int, int]] = []
        do: list[tuple[list[int], int, int]] = []
        k = root
        while True:
            ent = fx[k]  # X moves
            if len(ent) == 2:  # type: ignore[arg-type]
                s, k = ent  # type: ignore[misc]
            else:
                counts, colours, real, nexts, b = ent  # type: ignore[misc]
                total = tx[b]
                if not total:
                    if not rx[b]:
                        res = O_WINS  # an empty box: that machine resigns
                        break
                    counts[:] = ix[b]
                    total = tx[b] = sum(counts)
                r = int(rnd() * total)
                for m in colours:
                    r -= counts[m]
                    if r < 0:
                        break
                dx.append((counts, m, b))
                s = real[m]
                k = nexts[m]
            put(s)
            res = res_t[k]
            if res:
                break
            ent = fo[k]  # O moves
            if len(ent) == 2:  # type: ignore[arg-type]
                s, k = ent  # type: ignore[misc]
            else:
                counts, colours, real, nexts, b = ent  # type: ignore[misc]
                total = to[b]
                if not total:
                    if not ro[b]:
                        res = X_WINS
                        break
                    counts[:] = io[b]
                    total = to[b] = sum(counts)
                r = int(rnd() * total)
                for m in colours:
                    r -= counts[m]
                    if r < 0:
                        break
                do.append((counts, m, b))
                s = real[m]
                k = nexts[m]
            put(s)
            res = res_t[k]
            if res:
                break
        if gx is not None and gx[res] >= 0:  # the common case, inline: beads added
            d = gx[res]
            for counts, m, b in dx:
                counts[m] += d
                tx[b] += d
        else:
            _reinforce_kept(x, dx, res, Side.X, tx)
        if go is not None and go[res] >= 0:
            d = go[res]
            for counts, m, b in do:
                counts[m] += d
                to[b] += d
        else:
            _reinforce_kept(o, do, res, Side.O, to)
        code = bits | res
        length = len(data) - head - 1
        if length < 15:
            data[head] = length << 4 | code
        else:  # a long game (Nim): its length in a byte of its own after the header
            data[head] = 15 << 4 | code
            data.insert(head + 1, length)
        outcomes[code] += 1
        at = len(other_data)
        other_data += data[head:]
        other_data[at] ^= swap  # the other machine's side in the header
        other_outcomes[code ^ swap] += 1
        played += 1
        if length <= 2 or (stop is not None and stop.requested):
            break
    me._totals, other._totals = mine, theirs
    return played, res, length


def _reinforce_kept(learner: Learner, drawn: list[tuple[list[int], int, int]], res: int, side: Side,
                    totals: list[int]) -> None:
    """:meth:`Learner._learn` for the batch loops, keeping the boxes' ``totals`` true."""
    win, draw, loss, plain = learner._rule
    d = draw if res == DRAWN else win if res == side else loss
    if not plain:
        learner.apply([(b, m) for _, m, b in drawn], d)
        for counts, _, b in drawn:
            totals[b] = sum(counts)
    elif d >= 0:
        for counts, m, b in drawn:
            counts[m] += d
            totals[b] += d
    else:
        for counts, m, b in drawn:
            c = counts[m]
            new = c + d
            if new < 0:
                new = 0
            counts[m] = new
            totals[b] += new - c
