"""The pegboard core: board geometry, hole names, jumps, the game count and the solver."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from menace.puzzles import pegboard as pb

BOARD = pb.Board(5)
SEED_START = BOARD.hole_at(3, 2)

SEED_TABLE = {1: 1_550, 2: 20_686, 3: 62_736, 4: 46_728, 5: 5_688, 6: 374, 7: 82, 10: 2}


def test_board_sizes() -> None:
    assert [pb.Board(rows).hole_count for rows in (3, 4, 5, 6)] == [6, 10, 15, 21]
    with pytest.raises(pb.BoardSizeError):
        pb.Board(2)


def test_jumps_follow_the_three_lines() -> None:
    jumps = {(j.start + 1, j.over + 1, j.end + 1) for j in BOARD.jumps}
    assert len(jumps) == 36
    # Along a row, down to the left and down to the right, both ways.
    assert {(11, 12, 13), (13, 12, 11), (1, 2, 4), (4, 2, 1), (1, 3, 6), (6, 3, 1)} <= jumps
    # Not along a line: the lecture's diagonal that leans the other way.
    assert (4, 3, 1) not in jumps and (11, 8, 6) not in jumps


def test_the_seed_start_is_its_pair_two_one_counting_from_zero() -> None:
    assert BOARD.seed_pair(SEED_START) == (2, 1)
    assert BOARD.row_pos(SEED_START) == (3, 2)
    assert SEED_START + 1 == 5
    assert pb.DEFAULT_EMPTY == (3, 2)


def test_count_reproduces_the_lecture_table() -> None:
    tally = pb.count_games(BOARD, SEED_START)
    assert dict(tally.games) == SEED_TABLE
    assert tally.total == 137_846
    assert round(tally.fraction(3), 2) == 0.46


@pytest.mark.parametrize(
    ("empty", "total", "one_peg"),
    [((1, 1), 568_630, 29_760), ((2, 1), 294_543, 14_880), ((3, 1), 1_149_568, 85_258)],
)
def test_count_from_other_holes(empty: tuple[int, int], total: int, one_peg: int) -> None:
    tally = pb.count_games(BOARD, BOARD.hole_at(*empty))
    assert (tally.total, tally.games[1]) == (total, one_peg)


def test_count_is_the_same_for_symmetric_holes() -> None:
    counts = {pb.count_games(BOARD, BOARD.hole_at(*hole)).total for hole in [(3, 2), (4, 2), (4, 3)]}
    assert counts == {137_846}


def test_other_board_sizes() -> None:
    four = pb.Board(4)
    assert pb.count_games(four, four.hole_at(2, 1)).games[1] == 14
    assert pb.count_games(four, four.hole_at(1, 1)).games == {3: 48}
    # No peg can jump into the middle of the third row on four rows: one game, no jumps.
    assert pb.count_games(four, four.hole_at(3, 2)).games == {9: 1}
    six = pb.Board(6)
    tally = pb.count_games(six, six.hole_at(3, 2))
    assert tally.total == 254_097_562_320
    assert tally.games[1] == 29_235_690_234


def test_seven_rows_are_refused_not_hung() -> None:
    seven = pb.Board(7)
    with pytest.raises(pb.BoardTooLargeError, match="6 rows or fewer"):
        pb.count_games(seven, 0)
    with pytest.raises(pb.BoardTooLargeError):
        pb.hint(seven, seven.start(0))


@pytest.mark.parametrize(
    ("pegs_left", "words"),
    [
        (1, "You're Genius"),
        (2, "You're Purty Smart"),
        (3, "Just Plain Dumb"),
        (4, "Just Plain Eg-no-ra-moose"),
        (10, "Just Plain Eg-no-ra-moose"),
    ],
)
def test_ratings(pegs_left: int, words: str) -> None:
    assert pb.rating(pegs_left) == words


def test_one_peg_game_is_legal_and_leaves_one_peg() -> None:
    start = BOARD.start(SEED_START)
    game = pb.one_peg_game(BOARD, start)
    assert game is not None and len(game) == 13
    *_, final = pb.replay(BOARD, start, game)
    assert pb.peg_count(final) == 1
    assert pb.is_over(BOARD, final)


def test_no_one_peg_game_when_none_exists() -> None:
    four = pb.Board(4)
    assert pb.one_peg_game(four, four.start(0)) is None
    assert pb.hint(four, four.start(0)) is None


def test_hint_keeps_a_one_peg_finish_possible() -> None:
    pegs = BOARD.start(SEED_START)
    while (jump := pb.hint(BOARD, pegs)) is not None:
        pegs = pb.apply_jump(BOARD, pegs, jump)
    assert pb.peg_count(pegs) == 1


@pytest.mark.parametrize(("text", "hole"), [("3,2", 4), (" 3 , 2 ", 4), ("5", 4), ("1,1", 0), ("15", 14)])
def test_parse_hole(text: str, hole: int) -> None:
    assert pb.parse_hole(BOARD, text) == hole


@pytest.mark.parametrize("text", ["0", "16", "6,1", "3,4", "0,0", "x", "3,"])
def test_parse_hole_rejects_non_holes(text: str) -> None:
    with pytest.raises(pb.BadHoleError):
        pb.parse_hole(BOARD, text)


@pytest.mark.parametrize("text", ["4 2 1", "4-1", "4->1", "4 to 1", "from 4 over 2 to 1", "3,1 2,1 1,1", "3,1-1,1"])
def test_parse_jump_forms(text: str) -> None:
    assert pb.parse_jump(BOARD, text) == pb.Jump(3, 1, 0)


@pytest.mark.parametrize(("text", "message"), [("4 3 1", "goes over"), ("1-3", "not two holes"), ("4", "not a jump")])
def test_parse_jump_rejects_non_jumps(text: str, message: str) -> None:
    with pytest.raises(pb.BadJumpError, match=message):
        pb.parse_jump(BOARD, text)


def test_apply_jump_says_why_a_jump_is_illegal() -> None:
    start = BOARD.start(SEED_START)
    with pytest.raises(pb.IllegalJumpError, match="not empty"):
        pb.apply_jump(BOARD, start, pb.parse_jump(BOARD, "4-1"))
    with pytest.raises(pb.IllegalJumpError, match="no peg in hole 12"):
        pb.apply_jump(BOARD, start & ~(1 << 11), pb.parse_jump(BOARD, "12-5"))
    with pytest.raises(pb.IllegalJumpError, match="no peg to jump over"):
        pb.apply_jump(BOARD, start & ~(1 << 7), pb.parse_jump(BOARD, "12-5"))


def test_format_board_draws_the_triangle_with_numbers() -> None:
    drawn = pb.format_board(BOARD, BOARD.start(SEED_START), numbers=True).splitlines()
    assert len(drawn) == 5
    assert drawn[2].split() == ["4", "5", "6", "o", ".", "o"]
    assert drawn[4].split() == ["11", "12", "13", "14", "15", "o", "o", "o", "o", "o"]


positions = st.integers(min_value=0, max_value=BOARD.full)


@given(positions)
def test_every_legal_jump_removes_one_peg(pegs: int) -> None:
    for jump in pb.legal_jumps(BOARD, pegs):
        assert pb.peg_count(pb.apply_jump(BOARD, pegs, jump)) == pb.peg_count(pegs) - 1
    assert pb.is_over(BOARD, pegs) == (not pb.legal_jumps(BOARD, pegs))


@given(st.sampled_from(range(15)))
def test_hole_names_round_trip(hole: int) -> None:
    assert pb.parse_hole(BOARD, pb.hole_name(BOARD, hole)) == hole
    assert pb.parse_hole(BOARD, str(hole + 1)) == hole
