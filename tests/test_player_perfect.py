"""Program 3 (perfect) and Program 1 (movetable): exhaustive checks over every reachable position."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable

import pytest

from menace.core.game import Side, State
from menace.core.learner import walk
from menace.games.tictactoe import TICTACTOE
from menace.players import PlayerParamError, find_player
from menace.players.basic import completing_squares
from menace.players.movetable import SIZE, MovetablePlayer, board_index, index_board, movetable
from menace.players.perfect import PerfectPlayer

G = TICTACTOE
REACHABLE = walk(G, symmetric=False)
TO_MOVE = [s for s in REACHABLE if G.outcome(s) is None]


@functools.cache
def value(state: State) -> int:
    """Plain minimax, independent of the player's: +1 the side to move wins, 0 draw, -1 loses."""
    outcome = G.outcome(state)
    if outcome is not None:
        return 0 if outcome.winner is None else -1
    return max(-value(G.play(state, m)) for m in G.legal_moves(state))


def worst_case(player: PerfectPlayer, side: Side) -> Callable[[State], int]:
    """The worst result for ``side`` (+1, 0, -1) over every opponent reply and every move the
    player might pick."""

    @functools.cache
    def worst(state: State) -> int:
        outcome = G.outcome(state)
        if outcome is not None:
            return 0 if outcome.winner is None else (1 if outcome.winner is side else -1)
        moves = player.options(state) if G.to_move(state) is side else G.legal_moves(state)
        return min(worst(G.play(state, m)) for m in moves)

    return worst


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("side", [Side.X, Side.O])
def test_perfect_never_does_worse_than_the_position_allows(side: Side, deterministic: bool) -> None:
    player = PerfectPlayer(G, deterministic)
    worst = worst_case(player, side)
    mine = [s for s in TO_MOVE if G.to_move(s) is side]
    assert len(mine) == (2423 if side is Side.X else 2097)
    for state in mine:
        # Against every opponent it gets the game-theoretic value: it never loses a position
        # that is not already lost, and it always wins a won one.
        assert worst(state) == value(state), G.encode(state)


def test_perfect_never_loses_a_whole_game() -> None:
    for side in (Side.X, Side.O):
        assert worst_case(PerfectPlayer(G), side)(G.initial()) == 0


def test_perfect_takes_the_fastest_win() -> None:
    player = PerfectPlayer(G)
    # X on a1 and b2, O on a2 and b1: c3 wins at once, a3 only wins a move later (a fork).
    assert player.options(G.decode("XO.OX....")) == (8,)
    for state in TO_MOVE:
        now = completing_squares(state, G.to_move(state))
        if now:
            assert set(player.options(state)) <= set(now), G.encode(state)


def test_perfect_holds_out_longest_when_lost() -> None:
    player = PerfectPlayer(G)
    checked = 0
    for state in TO_MOVE:
        if value(state) >= 0:
            continue
        them = G.to_move(state).other
        holds = {m for m in G.legal_moves(state) if not completing_squares(G.play(state, m), them)}
        if holds:
            checked += 1
            assert set(player.options(state)) <= holds, G.encode(state)
    assert checked > 0


def test_perfect_chooses_among_all_best_moves_unless_deterministic() -> None:
    empty = G.initial()
    assert PerfectPlayer(G).options(empty) == tuple(range(9))  # every opening draws
    assert PerfectPlayer(G, deterministic=True).options(empty) == (0,)
    det = find_player("perfect").create(G, random.Random(0), "det")
    assert isinstance(det, PerfectPlayer) and det.deterministic
    with pytest.raises(PlayerParamError):
        find_player("perfect").create(G, random.Random(0), "fast")


def test_movetable_has_an_entry_for_every_base_3_number() -> None:
    table = movetable()
    assert SIZE == 19_683 and len(table) == SIZE
    assert all(len(entry) == 9 and set(entry) <= {0, 1, 2} for entry in table)


def test_board_index_reads_a1_as_the_most_significant_digit() -> None:
    assert board_index(G.initial()) == 0
    assert board_index(G.decode("X........")) == 3**8
    assert board_index((2, 0, 0, 0, 0, 0, 0, 0, 0)) == 2 * 3**8
    assert board_index(G.decode("........X")) == 1
    assert board_index((2,) * 9) == SIZE - 1
    for index in (0, 1, 5, 3**8, 12_345, SIZE - 1):
        assert board_index(index_board(index)) == index


def test_movetable_agrees_with_deterministic_perfect_play_everywhere_reachable() -> None:
    table = movetable()
    perfect = PerfectPlayer(G, deterministic=True)
    for state in TO_MOVE:
        assert table[board_index(state)] == G.play(state, perfect.options(state)[0]), G.encode(state)
    assert MovetablePlayer().options(G.decode("XO.OX....")) == (8,)


def test_movetable_leaves_boards_without_a_move_unchanged() -> None:
    table = movetable()
    reachable = {board_index(s) for s in TO_MOVE}
    for index, entry in enumerate(table):
        if index not in reachable:
            assert entry == index_board(index)
    assert len(reachable) == 4520
    assert table[board_index(G.decode("XXXOO...."))] == G.decode("XXXOO....")  # won already
    two_xs = (1, 1, 0, 0, 0, 0, 0, 0, 0)  # counts no game can reach
    assert table[board_index(two_xs)] == two_xs
