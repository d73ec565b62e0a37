"""Seed 000's SmartPlayer (menace/players/basic.py), rule by rule."""

from __future__ import annotations

from menace.games.tictactoe import TICTACTOE
from menace.players.basic import RandomPlayer, SmartPlayer

G = TICTACTOE
SMART = SmartPlayer()


def opts(board: str) -> tuple[int, ...]:
    return SMART.options(G.decode(board))


def test_win_before_block() -> None:
    assert opts("XX.OO.X..") == (5,)  # O completes the middle row, not a block on a3
    assert opts("OO.XX.X.O") == (5,)  # X completes the middle row


def test_block_when_there_is_no_win() -> None:
    assert opts("XX.O.....") == (2,)


def test_centre() -> None:
    assert opts("X........") == (4,)
    assert opts(".........") == (4,)


def test_opposite_corner() -> None:
    assert opts("O...X....") == (8,)  # X answers O on a1 with c3
    assert opts("..X.O..X.") == (6,)  # O answers X on a3 with c1


def test_x_o_x_diagonal_defence_picks_a_free_edge() -> None:
    for board in ("X...O...X", "..X.O.X.."):
        assert opts(board) == (1, 3, 5, 7)


def test_else_any_free_square() -> None:
    state = G.decode("XOX.O.OX.")
    assert SMART.options(state) == G.legal_moves(state) == RandomPlayer(G).options(state)
