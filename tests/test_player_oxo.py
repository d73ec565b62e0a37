"""McLean's APL OXO (seed 002): win, block, centre, a random corner, the first free square."""

from __future__ import annotations

import random
from collections import Counter

from menace.games.tictactoe import TICTACTOE
from menace.players import find_player
from menace.players.oxo import OxoPlayer

G = TICTACTOE
OXO = OxoPlayer()


def opts(board: str) -> tuple[int, ...]:
    return OXO.options(G.decode(board))


def test_win_comes_before_block() -> None:
    # O (to move) can finish the middle row; X threatens the top row.
    assert opts("XX.OO.X..") == (5,)


def test_block_comes_before_the_centre() -> None:
    assert opts("XX.O.....") == (2,)


def test_the_first_line_in_the_apl_order_wins_ties() -> None:
    # X can finish the top row (on a3) and the left column (on c1): rows come first.
    assert opts("XX.XOO.O.") == (2,)


def test_centre_comes_before_a_corner() -> None:
    assert opts("X........") == (4,)


def test_a_random_free_corner_when_the_centre_is_taken() -> None:
    assert opts("....X....") == (0, 2, 6, 8)
    assert opts("X...X...O") == (2, 6)
    rng = random.Random(3)
    seen = Counter(OXO.choose(G.decode("....X...."), rng) for _ in range(400))
    assert set(seen) == {0, 2, 6, 8} and min(seen.values()) > 60


def test_else_the_first_free_square() -> None:
    # Centre and corners taken, nothing to win or block: the APL takes the first '.' (BOARD⍳'.').
    assert opts("XOX.X.OXO") == (3,)


def test_it_plays_x_as_well_as_o() -> None:
    assert opts(".........") == (4,)  # X to move: the centre
    assert opts("XO.OX....") == (8,)  # X wins on c3
    assert opts("OX..O.X..") == (8,)  # X blocks O's diagonal
    assert isinstance(find_player("oxo").create(G), OxoPlayer)
