"""TTTML's temporal-difference learner: a value for each afterstate, learned by self-play.

An afterstate is the board just after a move; its value is how good that board has turned out to
be for the player who made the move: towards 1 a win, towards 0 a loss, 0.5 a draw or not known
yet. A position and its seven rotations and reflections share one value, keyed by the least of
their eight codes, where a board's code reads the cells as base-3 digits, first square most
significant, with 2 for X, 1 for an empty square and 0 for O (the seed's ``3⊥S+1`` with S = 1,
0, ¯1).

The player moves to the afterstate worth most (the first such square on ties). After a game,
each player's afterstates are taken from the last to the first, and each moves a fifth of the
way towards a target: for the player's final afterstate, the result (1 won, 0 lost, 0.5 drawn);
before that, 0.9 times the value of that player's next afterstate, just updated.

It trains by playing itself when made, exploring with a random move one time in ten, and it goes
on learning, without exploring, from every game it plays afterwards (``learn=False`` freezes it).

>>> from menace.games.tictactoe import TICTACTOE
>>> [position_code(TICTACTOE, TICTACTOE.decode(board)) for board in ("X........", "..X......", ".X.......")]
[9842, 9842, 9844]
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from menace.core.errors import known
from menace.core.game import Game, Move, Outcome, Result, Side, State, once_per_game
from menace.core.tree import DRAWN, O_WINS, X_WINS, game_tree
from menace.players.base import PlayerParamError

UNKNOWN = 0.5
"""The value of an afterstate not met before."""
STEP = 0.2
"""How far a value moves towards its target after each game."""
DISCOUNT = 0.9
"""A sooner win is worth more than a later one."""
EPSILON = 0.1
"""How often self-play makes a random move instead of the best one."""
TRAINING_GAMES = 3000

TARGET = {Result.WIN: 1.0, Result.DRAW: 0.5, Result.LOSS: 0.0}
DIGIT = {0: 1, int(Side.X): 2, int(Side.O): 0}
"""Our cell values (0 empty, 1 X, 2 O) as the seed's base-3 digits (S + 1)."""


class Codes:
    """A game's afterstate codes, memoized: each position is coded once per process."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self._code: dict[State, int] = {}
        self._after: dict[State, tuple[tuple[Move, int], ...]] = {}

    def code(self, state: State) -> int:
        """The least base-3 code of the eight images of ``state`` (the seed's CODES)."""
        known = self._code.get(state)
        if known is None:
            known = min(_base3(sym.apply(state)) for sym in self.game.symmetries)
            self._code[state] = known
        return known

    def after(self, state: State) -> tuple[tuple[Move, int], ...]:
        """Each legal move in ``state``, in order, with the code of the board it leads to."""
        known = self._after.get(state)
        if known is None:
            game = self.game
            known = tuple((m, self.code(game.play(state, m))) for m in game.legal_moves(state))
            self._after[state] = known
        return known


def _base3(cells: State) -> int:
    code = 0
    for cell in cells:
        code = code * 3 + DIGIT[cell]
    return code


codes = once_per_game(Codes)
"""The one :class:`Codes` of a game in this process."""


def position_code(game: Game, state: State) -> int:
    """The seed's CODES for one board."""
    return codes(game).code(state)


@dataclass(frozen=True)
class TrainingTally:
    """How a run of self-play games ended, as the seed's TRAIN counts them."""

    x_wins: int
    o_wins: int
    draws: int


class TdPlayer:
    """A TTTML value table behind the :class:`~menace.players.Player` interface."""

    name = "td"

    def __init__(self, game: Game, learn: bool = True, epsilon: float = 0.0) -> None:
        self.game = game
        self.learn = learn
        self.epsilon = epsilon
        """Exploration while playing others; self-play uses :data:`EPSILON`."""
        self.codes = codes(game)
        self.values: dict[int, float] = {}
        self.version = 0
        """Counts the changes of :attr:`values` made by learning or training (a game that leaves every
        value as it was, as most do once they have settled, changes nothing): a tree opponent's kept
        choices hold while it stays the same, so whoever writes a value by hand adds one to it."""
        self._mine: list[int] = []
        self._side: Side | None = None
        self._marks = 0

    # -- the seed's VALUE and CHOOSE ----------------------------------------------------------
    def value(self, state: State) -> float:
        """What the afterstate ``state`` is worth to the player who just moved."""
        return self.values.get(self.codes.code(state), UNKNOWN)

    def best_move(self, state: State) -> Move:
        """The move whose afterstate is worth most to the mover; the first such on ties."""
        values = self.values
        best_move, best_value = -1, -1.0
        for move, code in self.codes.after(state):
            v = values.get(code, UNKNOWN)
            if v > best_value:
                best_move, best_value = move, v
        if best_move < 0:
            raise ValueError("there is no move to make: the game is over")
        return best_move

    # -- the seed's LEARN -----------------------------------------------------------------------
    def learn_from(self, codes: Sequence[int], result: Result) -> None:
        """Update one player's afterstates of a game, given in order, from that player's result."""
        self.learn_towards(codes, TARGET[result])

    def learn_towards(self, codes: Sequence[int], target: float) -> None:
        """:meth:`learn_from` given the target of the last afterstate (1 won, 0 lost, 0.5 drawn)."""
        values = self.values
        changed = False
        for code in reversed(codes):
            old = values.get(code, UNKNOWN)
            new = old + STEP * (target - old)
            if new != old:
                changed = True
            values[code] = new
            target = DISCOUNT * new
        if changed:
            self.version += 1

    # -- the seed's GAME and TRAIN --------------------------------------------------------------
    def self_play(self, rng: random.Random, epsilon: float = EPSILON) -> Outcome:
        """One game against itself, exploring with probability ``epsilon``; then learn from it."""
        game = self.game
        state = game.initial()
        history: list[int] = []
        while (outcome := game.outcome(state)) is None:
            move = self.best_move(state)
            if rng.random() < epsilon:
                legal = game.legal_moves(state)
                move = legal[int(rng.random() * len(legal))]
            state = game.play(state, move)
            history.append(self.codes.code(state))
        self.learn_from(history[0::2], outcome.for_side(Side.X))
        self.learn_from(history[1::2], outcome.for_side(Side.O))
        return outcome

    def train(self, games: int, rng: random.Random, epsilon: float = EPSILON) -> TrainingTally:
        """Forget everything, then learn from ``games`` games of self-play."""
        self.values.clear()
        self.version += 1
        counts = {Side.X: 0, Side.O: 0, None: 0}
        for _ in range(games):
            counts[self.self_play(rng, epsilon).winner] += 1
        return TrainingTally(counts[Side.X], counts[Side.O], counts[None])

    # -- the Player interface -------------------------------------------------------------------
    def choose(self, state: State, rng: random.Random) -> Move:
        game = self.game
        marks = sum(1 for v in state if v)
        side = game.to_move(state)
        if side is not self._side or marks < self._marks:
            self._mine = []  # a new game (its last one was never closed with game_over)
        move = self.best_move(state)
        if self.epsilon and rng.random() < self.epsilon:
            legal = game.legal_moves(state)
            move = legal[int(rng.random() * len(legal))]
        self._side, self._marks = side, marks + 1
        self._mine.append(self.codes.code(game.play(state, move)))
        return move

    def tree_opponent(self) -> TdTreeOpponent:
        """This player for a tournament's hot loop (it shares the value table)."""
        return TdTreeOpponent(self)

    def game_over(self, state: State, outcome: Outcome) -> None:
        if self.learn and self._mine and self._side is not None:
            self.learn_from(self._mine, outcome.for_side(self._side))
        self._mine, self._side, self._marks = [], None, 0


def trained(game: Game, rng: random.Random, games: int = TRAINING_GAMES) -> TdPlayer:
    """A TD player that has played itself ``games`` times."""
    player = TdPlayer(game)
    player.train(games, rng)
    return player


def parse_param(param: str | None) -> int:
    """The number of self-play games in ``td:PARAM``."""
    if param is None:
        return TRAINING_GAMES
    text = param.strip().replace("_", "").replace(",", "")
    if not (text.isascii() and text.isdigit()) or len(text) > 12:
        raise PlayerParamError(f"td takes a number of training games (td:5000), not {param!r}")
    games = int(text)
    if games > MAX_TRAINING_GAMES:
        raise PlayerParamError(f"td trains on at most {MAX_TRAINING_GAMES:,} games before play, not {games:,}")
    return games


MAX_TRAINING_GAMES = 1_000_000_000
"""A night of self-play at most: more is a typing slip (td:10**30 would train for ever)."""


class TdTreeOpponent:
    """A :class:`TdPlayer` moving by position index in the game's tree, for a tournament's hot loop
    (:meth:`menace.core.learner.Learner.play_batch_against`): the same moves, the same learning, the same
    random numbers as through :meth:`TdPlayer.choose` and :meth:`TdPlayer.game_over`."""

    def __init__(self, player: TdPlayer) -> None:
        self.player = player
        self._states = game_tree(player.game).states
        self._after: list[tuple[tuple[Move, int], ...] | None] = [None] * len(self._states)
        """Per tree position, once met: each legal move with the code of the board it leads to."""
        self._best: list[tuple[Move, int, int] | None] = [None] * len(self._states)
        """Per tree position, once met: the best move there, the code of its board, and the player's
        :attr:`TdPlayer.version` it was found at (it holds while that stays the same)."""
        self._mine: list[int] = []
        self._side: Side | None = None
        self._targets: tuple[float, ...] = ()
        self._targets_of = tuple((0.0, *(TARGET[Result.DRAW if w == DRAWN else Result.WIN if w == side else
                                          Result.LOSS] for w in (X_WINS, O_WINS, DRAWN))) for side in (Side.X, Side.O))
        """Per side (X, O), the target of its last afterstate by winner code (ONGOING, X_WINS, O_WINS, DRAWN)."""

    def start(self, side: Side) -> None:
        self._mine = []
        self._side = side
        self._targets = self._targets_of[side - 1]

    def move(self, k: int, rng: random.Random) -> Move:
        p = self.player
        version = p.version
        best = self._best[k]
        if best is not None and best[2] == version:
            best_move, best_code = best[0], best[1]
        else:
            after = self._after[k]
            if after is None:
                after = self._after[k] = p.codes.after(self._states[k])
            get = p.values.get
            best_move, best_code, best_value = -1, -1, -1.0
            for move, code in after:
                v = get(code, UNKNOWN)
                if v > best_value:
                    best_move, best_code, best_value = move, code, v
            self._best[k] = (best_move, best_code, version)
        if p.epsilon and rng.random() < p.epsilon:
            after = known(self._after[k], "the moves of a position met before")
            best_move, best_code = after[int(rng.random() * len(after))]
        self._mine.append(best_code)
        return best_move

    def finish(self, winner: int) -> None:
        p = self.player
        mine = self._mine
        if p.learn and mine and self._side is not None:
            p.learn_towards(mine, self._targets[winner])
        self._mine, self._side = [], None
