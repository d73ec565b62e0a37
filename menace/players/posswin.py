"""Rich & Knight's Program 2 and 2': a rule for each turn, built on Make2, Posswin and Go.

The turn number is the count of marks on the board plus one: odd turns are X's, even turns O's.
The seed's squares are numbered 1 to 9 row by row, and so are they here until :func:`Go` turns
them into our moves 0..8.

Two boards give Posswin its answer:

* Program 2 writes the board as 2 (blank), 3 (X) and 5 (O): a line whose product is 18 (3*3*2)
  is one X can complete, 50 (5*5*2) one O can.
* Program 2' keeps, for each player, a list of the squares taken, numbered by the magic square
  8 3 4 / 1 5 9 / 6 7 2: two of a player's numbers that leave 15 - (x + y) blank name a win.

Where the seed leaves a choice open we decide:

* Posswin answers the lowest-numbered winning square when there are several, so that both boards
  agree.
* Make2's "any blank non-corner square" and turns 7 to 9's "anywhere that is blank" are uniform
  among all such squares.
* The rules assume Program 2 played every earlier move. Against other players a rule can name a
  taken square (turn 3 with both 9 and 3 taken, Make2 with no free edge): then it plays the first
  free square, so it always makes a legal move.

>>> from menace.games.tictactoe import TICTACTOE
>>> PosswinPlayer().options(TICTACTOE.initial())
(0,)
"""

from __future__ import annotations

import math
from typing import Protocol

from menace.core.game import Move, Side, State
from menace.games.tictactoe import CELLS, TICTACTOE
from menace.players.base import PlayerParamError, RulePlayer

BLANK, X_MARK, O_MARK = 2, 3, 5
"""Program 2's cell values."""

SEED_LINES = ((1, 2, 3), (4, 5, 6), (7, 8, 9), (1, 4, 7), (2, 5, 8), (3, 6, 9), (1, 5, 9), (3, 5, 7))
"""The eight lines in the seed's 1-based squares."""

MAGIC = (8, 3, 4, 1, 5, 9, 6, 7, 2)
"""``MAGIC[n - 1]`` is square ``n``'s number in the magic square; every line sums to 15."""

CENTRE_SQUARE = 5
EDGE_SQUARES = (2, 4, 6, 8)


class Board(Protocol):
    """What the turn rules need to know of a board, whichever way it is stored."""

    def blank(self, square: int) -> bool:
        """Whether the 1-based ``square`` is empty."""
        ...

    def posswin(self, side: Side) -> int:
        """The lowest square where ``side`` would complete a line now, or 0 if there is none."""
        ...


class ProductBoard:
    """Program 2's board: nine cells of 2, 3 or 5; a line's product tells whether it can be won."""

    def __init__(self, state: State) -> None:
        code = {0: BLANK, int(Side.X): X_MARK, int(Side.O): O_MARK}
        self.cells = [0] + [code[v] for v in state]  # index 0 unused: squares are 1..9

    def blank(self, square: int) -> bool:
        return self.cells[square] == BLANK

    def posswin(self, side: Side) -> int:
        mark = X_MARK if side is Side.X else O_MARK
        target = mark * mark * BLANK
        wins = [
            next(s for s in line if self.cells[s] == BLANK)
            for line in SEED_LINES
            if math.prod(self.cells[s] for s in line) == target
        ]
        return min(wins, default=0)


class MagicBoard:
    """Program 2''s board: each player's list of squares, as magic-square numbers."""

    def __init__(self, state: State) -> None:
        self.played = {
            side: [MAGIC[i] for i in range(CELLS) if state[i] == side] for side in (Side.X, Side.O)
        }
        self.taken = set(self.played[Side.X]) | set(self.played[Side.O])

    def blank(self, square: int) -> bool:
        return MAGIC[square - 1] not in self.taken

    def posswin(self, side: Side) -> int:
        mine = self.played[side]
        wins = []
        for i, x in enumerate(mine):
            for y in mine[i + 1:]:
                z = 15 - (x + y)
                if 1 <= z <= 9 and z not in self.taken:
                    wins.append(MAGIC.index(z) + 1)
        return min(wins, default=0)


def first_free(board: Board) -> tuple[Move, ...]:
    """Our fallback: the first blank square."""
    return (next(n for n in range(1, CELLS + 1) if board.blank(n)) - 1,)


def go(board: Board, square: int) -> tuple[Move, ...]:
    """Play the 1-based ``square``; if it is taken, the first blank square instead."""
    return (square - 1,) if board.blank(square) else first_free(board)


def make2(board: Board) -> tuple[Move, ...]:
    """The centre if it is blank, else any blank edge (uniformly); the first blank if none."""
    if board.blank(CENTRE_SQUARE):
        return (CENTRE_SQUARE - 1,)
    edges = tuple(n - 1 for n in EDGE_SQUARES if board.blank(n))
    return edges or first_free(board)


def anywhere(board: Board) -> tuple[Move, ...]:
    return tuple(n - 1 for n in range(1, CELLS + 1) if board.blank(n))


def win_or_block(board: Board, me: Side) -> tuple[Move, ...]:
    """Complete a line of ``me``'s if there is one, else block the opponent's; ``()`` if neither."""
    for side in (me, me.other):
        square = board.posswin(side)
        if square:
            return (square - 1,)
    return ()


def turn_rule(board: Board, turn: int) -> tuple[Move, ...]:
    """The seed's strategy for turn ``turn`` (1..9), X on odd turns and O on even ones."""
    if turn == 1:
        return go(board, 1)
    if turn == 2:
        return go(board, 5 if board.blank(5) else 1)
    if turn == 3:
        return go(board, 9 if board.blank(9) else 3)
    if turn == 4:
        square = board.posswin(Side.X)  # O cannot have two in a line yet: only block
        return go(board, square) if square else make2(board)
    me = Side.X if turn % 2 else Side.O
    urgent = win_or_block(board, me)
    if urgent:
        return urgent
    if turn == 5:
        return go(board, 7 if board.blank(7) else 3)
    if turn == 6:
        return make2(board)
    return anywhere(board)


class PosswinPlayer(RulePlayer):
    """Program 2 (``magic=False``) or Program 2' (``magic=True``); both choose the same moves."""

    name = "posswin"

    def __init__(self, magic: bool = False) -> None:
        self.magic = magic

    def options(self, state: State) -> tuple[Move, ...]:
        if TICTACTOE.outcome(state) is not None:
            return ()
        board: Board = MagicBoard(state) if self.magic else ProductBoard(state)
        turn = sum(1 for v in state if v) + 1
        return turn_rule(board, turn)


def parse_param(param: str | None) -> bool:
    """Whether ``posswin:PARAM`` asks for Program 2' (the magic square)."""
    if param is None:
        return False
    if param.strip().lower() == "magic":
        return True
    raise PlayerParamError(f"posswin takes 'magic' (Program 2') or nothing, not {param!r}")
