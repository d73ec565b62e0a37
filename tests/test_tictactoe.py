from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from menace.core.game import IllegalMoveError, Outcome, Side, canonical, distinct_moves
from menace.core.learner import walk
from menace.games.tictactoe import LINES, SYMMETRIES, TICTACTOE, parse_square, square_name, winner

boards = st.lists(st.sampled_from([0, 1, 2]), min_size=9, max_size=9).map(tuple)


def inverse(sym_cells: tuple[int, ...]) -> tuple[int, ...]:
    inv = [0] * 9
    for i, c in enumerate(sym_cells):
        inv[c] = i
    return tuple(inv)


def test_eight_distinct_symmetries_closed_under_composition() -> None:
    perms = {s.cells for s in SYMMETRIES}
    assert len(perms) == 8
    for a in perms:
        for b in perms:
            assert tuple(a[b[i]] for i in range(9)) in perms


@given(boards)
def test_transform_then_inverse_is_identity(board: tuple[int, ...]) -> None:
    for sym in SYMMETRIES:
        image = sym.apply(board)
        assert tuple(image[i] for i in inverse(sym.cells)) == board


@given(boards)
def test_canonical_is_idempotent_and_same_for_all_images(board: tuple[int, ...]) -> None:
    c, sym = canonical(TICTACTOE, board)
    assert sym.apply(board) == c
    assert canonical(TICTACTOE, c)[0] == c
    for s in SYMMETRIES:
        assert canonical(TICTACTOE, s.apply(board))[0] == c


def lines_won(board: tuple[int, ...]) -> set[int]:
    return {board[a] for a, b, c in LINES if board[a] and board[a] == board[b] == board[c]}


@given(boards)
def test_symmetries_keep_the_lines(board: tuple[int, ...]) -> None:
    for s in SYMMETRIES:
        assert lines_won(s.apply(board)) == lines_won(board)
    assert (winner(board) is None) == (not lines_won(board))


def test_golden_counts() -> None:
    assert len(walk(TICTACTOE, symmetric=False)) == 5478
    assert len(walk(TICTACTOE, symmetric=True)) == 765


def test_opening_moves_are_centre_corner_edge() -> None:
    assert sorted(distinct_moves(TICTACTOE, TICTACTOE.initial())) == [0, 1, 4]


def test_square_names_round_trip() -> None:
    for sq in range(9):
        assert parse_square(square_name(sq)) == sq
        assert parse_square(str(sq + 1)) == sq
    assert square_name(0) == "a1" and square_name(8) == "c3" and parse_square(" B2 ") == 4


@pytest.mark.parametrize("text", ["", "d1", "a4", "0", "10", "x", "a 1"])
def test_bad_square_names(text: str) -> None:
    with pytest.raises(IllegalMoveError):
        parse_square(text)


def test_outcome_and_play() -> None:
    b = TICTACTOE.decode("XXX.OO...")
    assert TICTACTOE.outcome(b) == Outcome(Side.X)
    assert TICTACTOE.outcome(TICTACTOE.decode("XOXXOOOXX")) == Outcome(None)
    assert TICTACTOE.legal_moves(b) == ()
    with pytest.raises(IllegalMoveError):
        TICTACTOE.play(TICTACTOE.decode("X........"), 0)
    assert TICTACTOE.play(TICTACTOE.initial(), 4) == TICTACTOE.decode("....X....")


@pytest.mark.parametrize("text", ["XXXXXXXXX", "OO.......", "abc", "X.O"])
def test_decode_refuses_impossible_boards(text: str) -> None:
    with pytest.raises(IllegalMoveError):
        TICTACTOE.decode(text)
