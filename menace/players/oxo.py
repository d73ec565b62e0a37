"""W. W. McLean's OXO, the APL noughts-and-crosses player.

In order: complete its own line, else block the opponent's (the first such line in the APL's
order, rows then columns then diagonals, which is :data:`~menace.games.tictactoe.LINES`), else the
centre, else a free corner at random, else the first free square. The APL only ever plays O; this
player plays whichever side is to move, with that side's mark.

>>> from menace.games.tictactoe import TICTACTOE
>>> OxoPlayer().options(TICTACTOE.decode("X........"))
(4,)
"""

from __future__ import annotations

from menace.core.game import Move, State
from menace.games.tictactoe import CENTRE, CORNERS, EMPTY, TICTACTOE
from menace.players.base import RulePlayer
from menace.players.basic import completing_squares


class OxoPlayer(RulePlayer):
    """The APL OXO's rules; the random corner is uniform among the free ones."""

    name = "oxo"

    def options(self, state: State) -> tuple[Move, ...]:
        legal = TICTACTOE.legal_moves(state)
        if not legal:
            return ()
        me = TICTACTOE.to_move(state)
        for side in (me, me.other):
            squares = completing_squares(state, side)
            if squares:
                return squares[:1]
        if state[CENTRE] == EMPTY:
            return (CENTRE,)
        # The APL shuffles the corners and takes the first free one: uniform among free corners.
        corners = tuple(c for c in CORNERS if state[c] == EMPTY)
        return corners or legal[:1]
