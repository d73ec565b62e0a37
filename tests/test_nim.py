"""Nim in cups: the rules, the box and bead counts against a count worked out here, the perfect
player's rule, long games in the history's packing, and learning over many seeds."""

from __future__ import annotations

import random
import statistics
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from menace.app.series import game_heads
from menace.core.errors import InvalidInputError
from menace.core.game import IllegalMoveError, Side, canonical
from menace.core.learner import O_WINS, X_WINS, GameRecord, Learner, build_boxes
from menace.core.records import (
    CorruptHistoryError,
    decode_block,
    decode_games,
    encode_block,
    encode_games,
    outcome_codes,
    skip_games,
    unpack_block_bounded,
)
from menace.core.settings import CLASSROOM, EmptyPolicy, Settings
from menace.games import find_game, game_with_options
from menace.games.nim import NIM, Nim, nim_variant
from menace.players import find_player

# -- the rules -------------------------------------------------------------------------------------


def test_the_classroom_game() -> None:
    assert find_game("nim") is NIM and (NIM.heap, NIM.take, NIM.misere) == (21, 3, True)
    start = NIM.initial()
    assert NIM.sticks(start) == 21 and NIM.to_move(start) is Side.X
    assert [NIM.move_text(m) for m in NIM.legal_moves(start)] == ["take 1", "take 2", "take 3"]
    two = NIM.decode("2:2")
    assert NIM.legal_moves(two) == (0, 1) and NIM.to_move(two) is Side.O
    # Misère: the second player takes both sticks, takes the last one and loses.
    end = NIM.play(two, NIM.parse_move("2"))
    assert NIM.outcome(end) is not None and NIM.outcome(end).winner is Side.X  # type: ignore[union-attr]
    assert NIM.legal_moves(end) == ()


def test_normal_play_the_last_stick_wins() -> None:
    game = nim_variant(5, 2, misere=False)
    assert game.name == "nim-5-2-normal" and find_game(game.name) is game
    end = game.play(game.decode("1:1"), 0)
    assert game.outcome(end).winner is Side.X  # type: ignore[union-attr]


def test_moves_and_positions_typed_wrong_are_refused_in_one_line() -> None:
    for text in ("0", "4", "x", "take", "1.5", ""):
        with pytest.raises(IllegalMoveError, match="is not a move"):
            NIM.parse_move(text)
    assert NIM.parse_move(" take 3 ") == NIM.parse_move("t3") == NIM.parse_move("3") == 2
    for text in ("22", "3:3", "a", "-1"):
        with pytest.raises(IllegalMoveError, match="not a position"):
            NIM.decode(text)
    with pytest.raises(IllegalMoveError, match="not legal with 2 sticks"):
        NIM.play(NIM.decode("2"), 2)


@pytest.mark.parametrize("rules,message", [
    ({"heap": 4}, "5 to 50 sticks, not 4"), ({"heap": 51}, "not 51"), ({"take": 1}, "2 to 5 sticks, not 1"),
    ({"take": 6}, "not 6"),
])
def test_rules_out_of_range_are_refused(rules: dict[str, int], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        game_with_options("nim", rules)


def test_a_rule_of_another_game_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="noughts and crosses has no rule 'heap'"):
        game_with_options("tictactoe", {"heap": 15})
    with pytest.raises(InvalidInputError, match="5 to 50 sticks, not 3"):
        find_game("nim-3-3-normal")
    with pytest.raises(InvalidInputError, match="unknown game 'nim-21-3'"):
        find_game("nim-21-3")


def test_one_cup_serves_both_players() -> None:
    """The symmetry hands the move to the other player: a position and its twin share a cup."""
    first, second = NIM.decode("13:1"), NIM.decode("13:2")
    assert canonical(NIM, second) == (first, NIM.symmetries[1])
    assert canonical(NIM, first)[0] == first


# -- box and bead counts, worked out here without the game module ---------------------------------


def expected_cups(heap: int, take: int, sides: set[int]) -> tuple[int, int]:
    """Cups and beads by a walk over (sticks, mover): a cup for every heap with a choice (2 sticks or
    more) that MENACE meets on one of its sides (1 first, 2 second); a bead per move it allows."""
    seen = {(heap, 1)}
    todo = [(heap, 1)]
    while todo:
        sticks, mover = todo.pop()
        for taken in range(1, min(take, sticks) + 1):
            nxt = (sticks - taken, 3 - mover)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    heaps = {sticks for sticks, mover in seen if mover in sides and sticks >= 2}
    return len(heaps), sum(min(take, h) for h in heaps)


def test_the_classroom_machine_has_20_cups_and_59_beads() -> None:
    boxes = build_boxes(NIM, CLASSROOM)
    assert (len(boxes), sum(b.total for b in boxes)) == (20, 59) == expected_cups(21, 3, {1, 2})
    assert sorted(NIM.sticks(b.position) for b in boxes) == list(range(2, 22))


@pytest.mark.parametrize("heap", [5, 6, 13, 21, 32, 50])
@pytest.mark.parametrize("take", [2, 3, 4, 5])
@pytest.mark.parametrize("side", ["X", "O", "both"])
def test_cups_and_beads_for_every_shape(heap: int, take: int, side: str) -> None:
    game = nim_variant(heap, take, misere=heap % 2 == 0)
    settings = Settings(side=side, schedule=(1,))
    boxes = build_boxes(game, settings)
    sides = {"X": {1}, "O": {2}, "both": {1, 2}}[side]
    assert (len(boxes), sum(b.total for b in boxes)) == expected_cups(heap, take, sides)
    assert len({game.sticks(b.position) for b in boxes}) == len(boxes)  # a heap size has one cup


def test_init_and_stats_say_the_counts(tmp_path: object) -> None:
    from pathlib import Path

    from click.testing import CliRunner

    from menace.cli import cli

    db = str(Path(str(tmp_path)) / "nim.db")
    out = CliRunner().invoke(cli, ["--db", db, "init", "--game", "nim", "--heap", "15", "--take", "4",
                                   "--side", "first"], catch_exceptions=False).output
    cups, beads = expected_cups(15, 4, {1})
    assert f"{cups} boxes" in out and f"{beads} beads" in out
    stats = CliRunner().invoke(cli, ["--db", db, "stats"], catch_exceptions=False).output
    assert f"matchboxes     {cups} " in stats and f"beads now      {beads} " in stats


# -- the perfect player ---------------------------------------------------------------------------


def brute_force_wins(heap: int, take: int, misere: bool) -> dict[int, bool]:
    """Whether the player to move wins from each heap, by working back from an empty heap."""
    wins = {0: misere}  # misère: the opponent took the last stick, so the player to move has won
    for sticks in range(1, heap + 1):
        wins[sticks] = any(not wins[sticks - t] for t in range(1, min(take, sticks) + 1))
    return wins


@pytest.mark.parametrize("take", [2, 3, 5])
@pytest.mark.parametrize("misere", [True, False])
def test_the_perfect_player_knows_the_winning_rule(take: int, misere: bool) -> None:
    game = nim_variant(30, take, misere)
    player = find_player("perfect", game).create(game, random.Random(1))
    wins = brute_force_wins(30, take, misere)
    for sticks in range(1, 31):
        state = game.state_of(sticks, Side.X)
        options = player.options(state)  # type: ignore[attr-defined]
        if wins[sticks]:
            assert options and all(not wins[sticks - m - 1] for m in options), sticks
        else:  # a lost heap: any move at random
            assert options == game.legal_moves(state), sticks


def test_only_random_and_perfect_play_nim() -> None:
    from menace.players import all_players

    assert [p.name for p in all_players(NIM)] == ["random", "perfect"]
    with pytest.raises(InvalidInputError, match="smart plays tictactoe only, not nim-15-3-misere"):
        find_player("smart", find_game("nim-15-3-misere"))


# -- long games in the history --------------------------------------------------------------------


@given(st.lists(st.tuples(st.sampled_from([1, 2]), st.integers(0, 60), st.sampled_from([1, 2, 3])), max_size=30))
def test_games_of_any_length_pack_and_unpack(games: list[tuple[int, int, int]]) -> None:
    records = [GameRecord(Side(side), [n % 5] * n, winner) for side, n, winner in games]
    raw = encode_games(records)
    assert decode_games(raw) == records
    assert decode_block(encode_block(records)) == records
    assert unpack_block_bounded(encode_block(records), len(records)) == raw
    assert list(outcome_codes(raw)) == [side << 2 | winner for side, _, winner in games]
    heads = game_heads(raw).tolist()
    assert len(heads) == len(records) and (not heads or skip_games(raw, len(records) - 1) == heads[-1])


def test_a_long_header_with_a_short_length_is_refused() -> None:
    """A game of under 15 moves is stored in the short form; the long form for it is damage."""
    with pytest.raises(CorruptHistoryError):
        decode_games(bytes([0xF0 | 1 << 2 | 1, 3, 0, 0, 0]))


def test_a_tournament_of_long_games_is_replayed_to_the_bead() -> None:
    from menace.core.replay import replay_all

    game = nim_variant(50, 2, misere=False)
    settings = Settings(side="O", schedule=(2,), empty_policy=EmptyPolicy.RESTOCK)
    learner = Learner(game, settings, build_boxes(game, settings))
    rng = random.Random(4)
    table = learner.opponent_table(find_player("random", game).create(game, rng).options, (Side.O,))
    data, outcomes = bytearray(), [0] * 12
    assert learner.play_batch(Side.O, table, rng, 300, data, outcomes) == 300
    records = decode_games(bytes(data))
    assert min(len(r.moves) for r in records) >= 25
    counts = replay_all(game, settings, build_boxes(game, settings), records)
    assert counts == learner.counts


# -- learning -------------------------------------------------------------------------------------


def last_losses(side: str, opponent: str, seeds: int, games: int) -> list[int]:
    """For each seed, the last game (1..games) the classroom machine on ``side`` did not win (0: none)."""
    settings = replace(CLASSROOM, side=side)
    boxes = build_boxes(NIM, settings)
    mine = Side.X if side == "X" else Side.O
    won = X_WINS if mine is Side.X else O_WINS
    out = []
    for seed in range(1, seeds + 1):
        learner = Learner(NIM, settings, boxes)
        rng = random.Random(seed)
        table = learner.opponent_table(find_player(opponent, NIM).create(NIM, rng).options, (mine,))
        last = 0
        for i in range(1, games + 1):
            if learner.play_table(mine, table, rng)[0] != won:
                last = i
        out.append(last)
    return out


@pytest.mark.slow
def test_as_second_player_it_learns_never_to_lose_to_perfect() -> None:
    """200 seeds: each machine loses its last game against perfect well before game 300, and the
    median machine never loses again after a few dozen games (the README figure: benchmarks)."""
    last = last_losses("O", "perfect", 200, 300)
    assert max(last) < 200 and 10 < statistics.median(last) < 120


@pytest.mark.slow
def test_as_first_player_in_the_21_stick_game_it_cannot_win_against_perfect() -> None:
    """21 = 4 x 5 + 1 is lost for the player to move: over 100 seeds and 200 games each, no win."""
    assert last_losses("X", "perfect", 100, 200) == [200] * 100


def test_a_machine_playing_both_sides_learns_in_the_same_cups() -> None:
    learner = Learner(NIM, CLASSROOM, build_boxes(NIM, CLASSROOM))
    rng = random.Random(2)
    table = learner.opponent_table(find_player("perfect", NIM).create(NIM, rng).options, (Side.X, Side.O))
    for i in range(400):
        learner.play_table(Side.O if i % 2 else Side.X, table, rng)
    # The cup of 17 sticks (a lost heap for the player to move) empties whichever side meets it...
    at = {NIM.sticks(b.position): i for i, b in enumerate(learner.boxes)}
    assert sum(learner.counts[at[17]]) == 0
    # ... and the cups of 18 to 20 keep only the move that leaves 17.
    for sticks in (18, 19, 20):
        assert [m for m, n in enumerate(learner.counts[at[sticks]]) if n] == [sticks - 17 - 1]


def test_nim_is_a_game_of_the_contract() -> None:
    assert isinstance(NIM, Nim) and NIM.max_plies == 21 and not NIM.grid and not NIM.moves_on_board
    assert NIM.caption(NIM.initial()) == "21 sticks" and NIM.caption(NIM.decode("1")) == "1 stick"
