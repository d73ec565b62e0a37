"""Playing games between players, and MENACE as a player. Pure, no I/O."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from menace.core.game import Game, Move, Outcome, Result, Side, State
from menace.core.learner import WINNER_CODE, Draw, EmptyBoxError, GameRecord, Learner
from menace.core.player import Player


@dataclass
class MenacePlayer:
    """A MENACE machine taking its turns through the :class:`~menace.players.Player` interface.

    It remembers the beads it drew during a game and, unless ``learn`` is false (a frozen
    machine, as in the arena), reinforces them when it hears the outcome. When it must resign
    (an empty box under ``resign``), :meth:`choose` raises :class:`EmptyBoxError`.
    """

    learner: Learner
    side: Side
    learn: bool = True
    name: str = "menace"
    drawn: list[Draw] = field(default_factory=list)
    turns: int = 0
    """Moves made in the game so far: the sides alternate, so the ``t``-th is the game's move
    ``2t`` (X) or ``2t + 1`` (O), as the Pegasus rule needs to know."""

    def choose(self, state: State, rng: random.Random) -> Move:
        ply = 2 * self.turns + (self.side is Side.O)
        self.turns += 1
        move, draw = self.learner.draw(state, rng, ply)
        if draw is not None:
            self.drawn.append(draw)
        return move

    def game_over(self, state: State, outcome: Outcome) -> None:
        if self.learn:
            last = 2 * self.turns - 1 + (self.side is Side.O)
            # the game ended on the machine's last move, or on the other side's reply to it
            length = last + (1 if self.learner.game.to_move(state) is not self.side else 2)
            self.learner.reinforce(self.drawn, outcome.for_side(self.side), length)
        self.drawn = []
        self.turns = 0


@dataclass(frozen=True)
class PlayedGame:
    """A finished game between two players."""

    moves: tuple[Move, ...]
    outcome: Outcome
    resigned: Side | None = None
    """The side that resigned (a MENACE with an empty box), if the game ended that way."""

    def result_for(self, side: Side) -> Result:
        return self.outcome.for_side(side)

    def record(self, menace_side: Side) -> GameRecord:
        return GameRecord(menace_side, list(self.moves), WINNER_CODE[self.outcome.winner])


def play_game(game: Game, x: object, o: object, rng: random.Random) -> PlayedGame:
    """Play one game, X first; both players hear the outcome.

    ``x`` and ``o`` are :class:`~menace.players.Player` objects.
    """
    players: dict[Side, Player] = {}
    for side, p in ((Side.X, x), (Side.O, o)):
        if not isinstance(p, Player):
            raise TypeError(f"{p!r} is not a Player")
        players[side] = p
    state = game.initial()
    moves: list[Move] = []
    resigned: Side | None = None
    while (outcome := game.outcome(state)) is None:
        side = game.to_move(state)
        try:
            move = players[side].choose(state, rng)
        except EmptyBoxError:
            resigned = side
            outcome = Outcome(side.other)
            break
        state = game.play(state, move)
        moves.append(move)
    for p in players.values():
        p.game_over(state, outcome)
    return PlayedGame(tuple(moves), outcome, resigned)
