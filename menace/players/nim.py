"""The Nim player that knows the winning rule: leave the opponent a multiple of ``take + 1`` sticks
(normal play) or one more than a multiple (misère play); from a heap where no move does that, any
move at random. It never loses a game it can win, as minimax would not, but it does not drag out
a lost game: a teacher's "perfect" opponent, the one the class is told the rule of.

>>> from menace.games.nim import NIM
>>> NimPerfectPlayer(NIM).options(NIM.decode("7"))  # take 2, leaving 5 = 4 + 1
(1,)
>>> NimPerfectPlayer(NIM).options(NIM.decode("5"))  # lost: any move
(0, 1, 2)
"""

from __future__ import annotations

from menace.core.game import Move, State
from menace.games.nim import Nim
from menace.players.base import RulePlayer


class NimPerfectPlayer(RulePlayer):
    """The winning move when there is one, else any move; the first of them if deterministic."""

    name = "perfect"

    def __init__(self, game: Nim, deterministic: bool = False) -> None:
        self.game = game
        self.deterministic = deterministic

    def options(self, state: State) -> tuple[Move, ...]:
        moves = self.game.winning_moves(state) or self.game.legal_moves(state)
        return moves[:1] if self.deterministic else moves
