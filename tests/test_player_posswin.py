"""Program 2 and 2' (seed 001): the turn rules, the two Posswin tests, and the fallback."""

from __future__ import annotations

import itertools
import random

import pytest

from menace.core.game import Side
from menace.core.learner import walk
from menace.games.tictactoe import LINES, TICTACTOE
from menace.players import PlayerParamError, find_player
from menace.players.posswin import MAGIC, SEED_LINES, MagicBoard, PosswinPlayer, ProductBoard

G = TICTACTOE
TO_MOVE = [s for s in walk(G, symmetric=False) if G.outcome(s) is None]
P2 = PosswinPlayer()
P2_MAGIC = PosswinPlayer(magic=True)


def opts(board: str, player: PosswinPlayer = P2) -> tuple[int, ...]:
    """The options, as the seed's 1-based squares."""
    return tuple(m + 1 for m in player.options(G.decode(board)))


def test_the_seed_lines_and_the_magic_square() -> None:
    assert [tuple(s + 1 for s in line) for line in LINES] == list(SEED_LINES)
    assert sorted(MAGIC) == list(range(1, 10))
    assert all(sum(MAGIC[s - 1] for s in line) == 15 for line in SEED_LINES)
    # ... and no other three distinct numbers of 1..9 sum to 15 (8 triples in all).
    triples = [t for t in itertools.combinations(range(1, 10), 3) if sum(t) == 15]
    assert len(triples) == 8


def test_product_board_codes_and_product_test() -> None:
    board = ProductBoard(G.decode("XX.O....."))
    assert board.cells[1:] == [3, 3, 2, 5, 2, 2, 2, 2, 2]
    assert board.posswin(Side.X) == 3  # 3 * 3 * 2 == 18 on the top row
    assert board.posswin(Side.O) == 0
    assert ProductBoard(G.decode("XX.OO.X..")).posswin(Side.O) == 6  # 5 * 5 * 2 == 50
    assert MagicBoard(G.decode("XX.OO.X..")).posswin(Side.O) == 6


def test_posswin_takes_the_lowest_square_when_there_are_several() -> None:
    # X on 1, 5 and 7 (O on 2 and 6) threatens 3 (3-5-7), 4 (1-4-7) and 9 (1-5-9).
    state = G.decode("XO..XOX..")
    assert ProductBoard(state).posswin(Side.X) == MagicBoard(state).posswin(Side.X) == 3


def test_both_boards_agree_in_every_reachable_position() -> None:
    for state in TO_MOVE:
        product, magic = ProductBoard(state), MagicBoard(state)
        for side in (Side.X, Side.O):
            assert product.posswin(side) == magic.posswin(side), G.encode(state)
        assert all(product.blank(n) == magic.blank(n) for n in range(1, 10))
        assert P2.options(state) == P2_MAGIC.options(state), G.encode(state)


def test_turn_1_takes_the_top_left_corner() -> None:
    assert opts(".........") == (1,)


def test_turn_2_takes_the_centre_else_the_corner() -> None:
    assert opts("X........") == (5,)
    assert opts("....X....") == (1,)


def test_turn_3_takes_the_far_corner_else_the_top_right() -> None:
    assert opts("X...O....") == (9,)
    assert opts("X.......O") == (3,)


def test_turn_4_blocks_else_make2() -> None:
    assert opts("XX..O....") == (3,)  # block the top row
    assert opts("X....X..O") == (5,)  # Make2: the centre is blank
    assert opts("X...O...X") == (2, 4, 6, 8)  # Make2: centre taken, any blank edge


def test_turn_5_wins_blocks_else_plays_7_or_3() -> None:
    assert opts("XX.OO....") == (3,)  # win on 3 rather than block O on 6
    assert opts("XO..O...X") == (8,)  # block O's 2-5-8
    assert opts("XOX.....O") == (7,)  # nothing to win or block: 7, which makes a fork
    assert opts("XO...XO..") == (3,)  # 7 is taken: 3


def test_turn_6_wins_before_blocking_else_make2() -> None:
    assert opts("XX.OO.X..") == (6,)  # O wins on 6 rather than block X on 3
    assert opts("XX.O..X.O") == (3,)  # blocks X's top row
    assert opts("X..O..XXO") == (5,)  # Make2: the centre
    assert opts("X...OX.XO") == (2, 4)  # Make2: the blank edges


def test_turns_7_to_9_win_block_else_anywhere() -> None:
    assert opts("XO.OXO.X.") == (9,)  # turn 7: X wins on 9 (1-5-9)
    assert opts("XX.OOX.O.") == (3,)  # turn 8: O blocks X's top row (O has no line to finish)
    assert opts("X..O.XOXO") == (2, 3, 5)  # turn 7, nothing to win or block: any blank square
    assert opts("XOXXOOOX.") == (9,)  # turn 9: the last square


def test_every_answer_is_legal_and_the_fallback_is_the_first_free_square() -> None:
    # Turn 3 with 9 and 3 both taken (X did not open on 1): the first free square.
    assert opts("..X.....O") == (1,)
    # Turn 6 with the centre and every edge taken and nothing to win or block: Make2 has no
    # square, so again the first free square.
    assert opts(".X.XXO.O.") == (1,)
    for state in TO_MOVE:
        options = P2.options(state)
        assert options and set(options) <= set(G.legal_moves(state)), G.encode(state)


def test_registered_with_a_magic_parameter() -> None:
    spec = find_player("posswin")
    assert find_player("program2") is spec
    player = spec.create(G, random.Random(0), "magic")
    assert isinstance(player, PosswinPlayer) and player.magic
    with pytest.raises(PlayerParamError):
        spec.create(G, random.Random(0), "square")
