"""The two players of the Ruby Quiz MENACE: a random player and its SmartPlayer."""

from __future__ import annotations

from menace.core.game import Game, Move, Side, State
from menace.games.tictactoe import CENTRE, EDGES, LINES, TICTACTOE, winner
from menace.players.base import RulePlayer


class RandomPlayer(RulePlayer):
    """Any legal move, uniformly at random, in any game."""

    name = "random"

    def __init__(self, game: Game) -> None:
        self.game = game

    def options(self, state: State) -> tuple[Move, ...]:
        return self.game.legal_moves(state)


def completing_squares(state: State, side: Side) -> tuple[Move, ...]:
    """Empty squares that would give ``side`` three in a line, in line order, no repeats."""
    found: list[Move] = []
    for line in LINES:
        marks = [state[s] for s in line]
        if marks.count(side) == 2 and marks.count(0) == 1:
            sq = line[marks.index(0)]
            if sq not in found:
                found.append(sq)
    return tuple(found)


class SmartPlayer(RulePlayer):
    """Seed 000's SmartPlayer, in its order of rules.

    1. Complete a line of its own (win), else block the opponent's.
    2. Take the centre.
    3. Answer an opponent's corner with the opposite corner (corners a1, c3, c1, a3 in turn).
    4. As O, with X on both ends of a diagonal and O in the centre: a random free edge.
    5. Else any free square at random.

    The Ruby original takes the first line with two alike in a row, whoever owns it; we take a
    win before a block, as its own comment intends. Its X-O-X test also suffers an operator
    precedence slip that can pick an occupied edge; ours picks only free edges.
    """

    name = "smart"

    def options(self, state: State) -> tuple[Move, ...]:
        legal = TICTACTOE.legal_moves(state)
        if not legal or winner(state) is not None:
            return ()
        me = TICTACTOE.to_move(state)
        them = me.other
        for side in (me, them):
            squares = completing_squares(state, side)
            if squares:
                return (squares[0],)
        if state[CENTRE] == 0:
            return (CENTRE,)
        for corner, opposite in ((0, 8), (8, 0), (2, 6), (6, 2)):
            if state[corner] == them and state[opposite] == 0:
                return (opposite,)
        if me is Side.O and state.count(Side.X) == 2 and state.count(Side.O) == 1 and state[CENTRE] == Side.O:
            if (state[0] == state[8] == Side.X) or (state[2] == state[6] == Side.X):
                free_edges = tuple(e for e in EDGES if state[e] == 0)
                if free_edges:
                    return free_edges
        return legal
