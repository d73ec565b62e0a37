"""Rich & Knight's Program 1: a table of 19,683 boards, one for every board read in base 3.

A board's index is the number its nine cells spell in base 3, with the seed's digits (0 blank,
1 X, 2 O, which are also ours) and square 1 (``a1``) the most significant digit, square 9 (``c3``)
the least. The entry at that index is the board after the move. The seed warns that typing the
table in by hand is slow and error-prone, so we generate it from perfect play (the deterministic
Program 3: the lowest-numbered best move).

Entries for boards where there is no move to make (a game already won or full, or counts of X
and O that no game can reach) hold the board unchanged.

>>> TABLE = movetable()
>>> len(TABLE), board_index((0, 0, 0, 0, 0, 0, 0, 0, 1))
(19683, 1)
"""

from __future__ import annotations

import functools
import itertools

from menace.core.game import Move, State
from menace.games.tictactoe import CELLS, TICTACTOE
from menace.players.base import RulePlayer
from menace.players.perfect import solver

SIZE = 3**CELLS
"""19,683 boards."""


def board_index(board: State) -> int:
    """The board read as a base-3 number, square 1 (``a1``) first and most significant."""
    index = 0
    for cell in board:
        index = index * 3 + cell
    return index


def index_board(index: int) -> State:
    """The board whose base-3 reading is ``index``; the inverse of :func:`board_index`."""
    if not 0 <= index < SIZE:
        raise ValueError(f"a board index runs from 0 to {SIZE - 1}, not {index}")
    cells = []
    for _ in range(CELLS):
        index, cell = divmod(index, 3)
        cells.append(cell)
    return tuple(reversed(cells))


def _has_a_move(board: State) -> bool:
    xs, os_ = board.count(1), board.count(2)
    return xs - os_ in (0, 1) and TICTACTOE.outcome(board) is None


@functools.cache
def movetable() -> tuple[State, ...]:
    """The whole table, generated once per process from deterministic perfect play."""
    perfect = solver(TICTACTOE)
    table: list[State] = []
    for board in itertools.product(range(3), repeat=CELLS):
        if _has_a_move(board):
            # A board without a line and with sane counts is always reachable: playing its
            # marks in any order never completes a line early.
            move = perfect.best_moves(board)[0]
            table.append(TICTACTOE.play(board, move))
        else:
            table.append(board)
    return tuple(table)


class MovetablePlayer(RulePlayer):
    """Looks the board up and plays whatever square the entry fills."""

    name = "movetable"

    def __init__(self) -> None:
        self.table = movetable()

    def options(self, state: State) -> tuple[Move, ...]:
        after = self.table[board_index(state)]
        return tuple(s for s in range(CELLS) if after[s] != state[s])
