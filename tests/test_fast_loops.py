"""The tournament's fast loops play exactly the games of the general one: same draws, same beads."""

from __future__ import annotations

import random

import pytest

from menace.core.game import Game, Result, Side
from menace.core.learner import Learner, build_boxes, play_learners
from menace.core.match import MenacePlayer, play_game
from menace.core.settings import CLASSROOM, MICHIE, EmptyPolicy, Scope, Settings
from menace.games.tictactoe import TICTACTOE
from menace.players import td

SECOND = Settings(side="O", empty_policy=EmptyPolicy.RESTOCK)


def fresh(settings: Settings) -> Learner:
    return Learner(TICTACTOE, settings, build_boxes(TICTACTOE, settings))


@pytest.mark.parametrize("first", [MICHIE, Settings(schedule=(1,), loss=-2)], ids=["michie", "resigning"])
def test_two_machines_play_the_games_of_two_menace_players(first: Settings) -> None:
    fast_x, fast_o = fresh(first), fresh(SECOND)
    slow_x, slow_o = fresh(first), fresh(SECOND)
    rng_fast, rng_slow = random.Random(3), random.Random(3)
    for _ in range(3000):
        res, moves = play_learners(fast_x, fast_o, rng_fast)
        played = play_game(TICTACTOE, MenacePlayer(slow_x, Side.X), MenacePlayer(slow_o, Side.O), rng_slow)
        record = played.record(Side.X)
        assert (res, moves) == (record.winner, record.moves)
    assert fast_x.counts == slow_x.counts and fast_o.counts == slow_o.counts


@pytest.mark.parametrize("side", [Side.X, Side.O])
def test_td_by_tree_position_plays_the_games_of_td_by_board(side: Side) -> None:
    settings = MICHIE if side is Side.X else SECOND
    by_tree = td.trained(TICTACTOE, random.Random(9), 300)
    by_board = td.trained(TICTACTOE, random.Random(9), 300)
    fast, slow = fresh(settings), fresh(settings)
    rng_fast, rng_slow = random.Random(5), random.Random(5)
    opponent = by_tree.tree_opponent()
    for _ in range(1500):
        res, moves = fast.play_against(side, opponent, rng_fast)
        me = MenacePlayer(slow, side)
        x, o = (me, by_board) if side is Side.X else (by_board, me)
        record = play_game(TICTACTOE, x, o, rng_slow).record(side)
        assert (res, moves) == (record.winner, record.moves)
    assert fast.counts == slow.counts
    assert by_tree.values == by_board.values


@pytest.mark.parametrize("settings", [MICHIE, Settings(schedule=(1,), loss=-3, empty_policy=EmptyPolicy.RESTOCK),
                                      Settings(loss=-2, empty_policy=EmptyPolicy.KEEP_LAST),
                                      Settings(schedule=(1,), loss=-2), SECOND],
                         ids=["michie", "restock", "keep-last", "resigning", "second"])
def test_a_batch_plays_and_packs_the_games_of_play_table(settings: Settings) -> None:
    from menace.core.records import GameBuffer
    from menace.players import RulePlayer, find_player

    side = settings.sides[0]
    one, many = fresh(settings), fresh(settings)
    rng_one, rng_many = random.Random(4), random.Random(4)
    player = find_player("random").create(TICTACTOE, rng_one)
    assert isinstance(player, RulePlayer)
    table = one.options_table(player.options)
    expected = GameBuffer()
    for _ in range(4000):
        res, moves = one.play_table(side, table, rng_one)
        expected.add(int(side), moves, res)
        if len(moves) <= 1:
            break
    got = GameBuffer()
    left = expected.games
    while left:
        played = many.play_batch(side, table, rng_many, min(left, 256), got.data, got.outcomes)
        left -= played
    assert bytes(got.data) == bytes(expected.data) and got.outcomes == expected.outcomes
    assert many.counts == one.counts


@pytest.mark.parametrize("settings", [MICHIE, Settings(schedule=(1,), loss=-3, empty_policy=EmptyPolicy.RESTOCK),
                                      Settings(loss=-2, empty_policy=EmptyPolicy.KEEP_LAST)],
                         ids=["michie", "restock", "keep-last"])
def test_play_table_keeps_box_totals_true_whatever_changes_the_beads_between_games(settings: Settings) -> None:
    """play_table keeps each box's total from game to game: every other way the beads change (a draw
    that restocks, the learning rule applied by hand, a batch, a correction said with counts_changed)
    must leave it playing the games of a machine that counts its boxes afresh before every game."""
    from menace.core.learner import Draw
    from menace.core.records import GameBuffer

    kept, fresh_each = fresh(settings), fresh(settings)
    rng_kept, rng_fresh, pick = random.Random(6), random.Random(6), random.Random(1)
    table = kept.options_table(TICTACTOE.legal_moves)
    opening = TICTACTOE.initial()
    for step in range(3000):
        what = pick.randrange(10)
        games = []
        for learner, rng in ((kept, rng_kept), (fresh_each, rng_fresh)):
            if learner is fresh_each:
                learner.counts_changed()
            if what == 0:
                learner.draw(opening, rng)  # restocks the opening box when it is empty (restock)
            elif what == 1:
                learner.reinforce([Draw(0, 4), Draw(0, 0)], Result.LOSS if step % 2 else Result.WIN)
            elif what == 2:
                buf = GameBuffer()
                learner.play_batch(Side.X, table, rng, 7, buf.data, buf.outcomes)
            elif what == 3:
                learner.counts[0][step % 9 if step % 9 in (0, 1, 4) else 4] = step % 5  # a correction
                learner.counts_changed()
            else:
                games.append(learner.play_table(Side.X, table, rng))
        assert kept.counts == fresh_each.counts and games[:1] == games[1:], step
    assert rng_kept.random() == rng_fresh.random()


@pytest.mark.parametrize("settings", [MICHIE, SECOND, Settings(side="both"), Settings(all_squares=True, symmetry=False),
                                      Settings(schedule=(1,), loss=-2)],
                         ids=["michie", "second", "both", "every-square-no-symmetry", "resigning"])
@pytest.mark.parametrize("opponent", ["smart", "random", "perfect", "posswin"])
def test_the_opponent_tabulated_where_it_can_be_reached_plays_the_same_games(settings: Settings,
                                                                            opponent: str) -> None:
    """A tournament asks its opponent only in the positions a game against this machine can reach
    (following every colour of every box): the same choices there as the whole table, and the same
    games, beads and all, game after game as the machine learns."""
    from menace.players import RulePlayer, find_player

    reached, whole = fresh(settings), fresh(settings)
    player = find_player(opponent).create(TICTACTOE, random.Random(1))
    assert isinstance(player, RulePlayer)
    sides = settings.sides
    part = reached.opponent_table(player.options, sides)
    full = whole.options_table(player.options, {side.other for side in sides})
    asked = [k for k, e in enumerate(part) if e]
    assert asked and all(part[k] == full[k] for k in asked)
    rng_part, rng_full = random.Random(8), random.Random(8)
    for i in range(3000):
        side = sides[i % len(sides)]
        assert reached.play_table(side, part, rng_part) == whole.play_table(side, full, rng_full)
    assert reached.counts == whole.counts


def test_smart_is_asked_in_few_positions_against_michies_machine() -> None:
    from menace.players import RulePlayer, find_player

    player = find_player("smart").create(TICTACTOE, random.Random(1))
    assert isinstance(player, RulePlayer)
    learner = fresh(MICHIE)
    assert sum(1 for e in learner.opponent_table(player.options, (Side.X,)) if e) == 592
    assert sum(1 for e in learner.options_table(player.options, {Side.O}) if e) == 2097


def test_learners_given_the_same_opponent_table_play_as_if_each_had_its_own() -> None:
    """The rows a learner makes of an opponent table are shared with the next learner given the same
    table (a sweep trains hundreds on one): what each plays is what it plays on a table of its own."""
    from menace.players import RulePlayer, find_player

    player = find_player("smart").create(TICTACTOE, random.Random(0))
    assert isinstance(player, RulePlayer)
    shared = fresh(MICHIE).opponent_table(player.options, (Side.X,))

    def games(table: list[tuple[int, ...]], seed: int) -> list[tuple[int, list[int]]]:
        learner, rng = fresh(MICHIE), random.Random(seed)
        return [learner.play_table(Side.X, table, rng) for _ in range(300)]

    for seed in range(3):
        assert games(shared, seed) == games([tuple(row) for row in shared], seed)


def _machine(game: Game, settings: Settings) -> Learner:
    return Learner(game, settings, build_boxes(game, settings))


BOTH_RUBY = Settings(side="both", win=1, draw=0, loss=-1, empty_policy=EmptyPolicy.RESTOCK)


@pytest.mark.parametrize(("game_name", "mine", "theirs", "sides"), [
    ("tictactoe", MICHIE, SECOND, (Side.X,)),
    ("tictactoe", Settings(side="both"), BOTH_RUBY, (Side.X, Side.O)),
    ("tictactoe", Settings(side="both"), Settings(side="X"), (Side.O,)),
    ("tictactoe", Settings(schedule=(1,), loss=-2), Settings(side="O", schedule=(1,), loss=-2), (Side.X,)),
    ("tictactoe", Settings(side="both", loss=-2, empty_policy=EmptyPolicy.KEEP_LAST),
     Settings(side="both", schedule=(2,), loss=-1, scope=Scope.LAST), (Side.X, Side.O)),
    ("nim", CLASSROOM, CLASSROOM, (Side.X, Side.O)),
], ids=["michie-second", "both-sides", "o-only", "resigning", "keep-last-and-last-move", "nim-long-games"])
def test_two_machines_in_one_loop_play_and_pack_the_games_of_play_learners(
        game_name: str, mine: Settings, theirs: Settings, sides: tuple[Side, ...]) -> None:
    """The tournament's loop for machine against machine: game after game what play_learners plays
    (the draws, the beads of both machines), each packed for each machine as GameBuffer packs it,
    stopping where the tournament must look (a game of two moves or fewer) and going on from there."""
    from menace.core.learner import play_learners_batch
    from menace.core.records import GameBuffer
    from menace.games import find_game

    game = find_game(game_name)
    one_me, one_them = _machine(game, mine), _machine(game, theirs)
    many_me, many_them = _machine(game, mine), _machine(game, theirs)
    rng_one, rng_many = random.Random(12), random.Random(12)
    expected, expected_them = GameBuffer(), GameBuffer()
    short = 0
    for i in range(3000):
        side = sides[i % len(sides)]
        x, o = (one_me, one_them) if side is Side.X else (one_them, one_me)
        res, moves = play_learners(x, o, rng_one)
        expected.add(int(side), moves, res)
        expected_them.add(int(side.other), moves, res)
        short += len(moves) <= 2
    got, got_them = GameBuffer(), GameBuffer()
    stops = 0
    while got.games < expected.games:
        played, res, length = play_learners_batch(many_me, many_them, sides, got.games, rng_many,
                                                  min(256, expected.games - got.games), got.data, got.outcomes,
                                                  got_them.data, got_them.outcomes)
        stops += length <= 2
        assert played >= 1
    assert bytes(got.data) == bytes(expected.data) and got.outcomes == expected.outcomes
    assert bytes(got_them.data) == bytes(expected_them.data) and got_them.outcomes == expected_them.outcomes
    assert many_me.counts == one_me.counts and many_them.counts == one_them.counts
    assert stops >= min(short, 1)


@pytest.mark.parametrize("settings", [MICHIE, SECOND, Settings(side="both"), Settings(side="both", schedule=(1,),
                                                                                      loss=-2)],
                         ids=["first", "second", "both", "resigning"])
def test_td_in_one_loop_plays_and_packs_the_games_of_play_against(settings: Settings) -> None:
    """The tournament's loop against td: game after game what play_against plays (MENACE's beads and
    td's values), packed as GameBuffer packs it, td's kept choices following its values as they learn."""
    from menace.core.records import GameBuffer

    sides = settings.sides
    one, many = fresh(settings), fresh(settings)
    td_one, td_many = td.trained(TICTACTOE, random.Random(9), 200), td.trained(TICTACTOE, random.Random(9), 200)
    by_one, by_many = td_one.tree_opponent(), td_many.tree_opponent()
    rng_one, rng_many = random.Random(5), random.Random(5)
    expected = GameBuffer()
    for i in range(4000):
        side = sides[i % len(sides)]
        res, moves = one.play_against(side, by_one, rng_one)
        expected.add(int(side), moves, res)
        if len(moves) <= 1 and one.opening_empty(side):
            break
    got = GameBuffer()
    while got.games < expected.games:
        many.play_batch_against(sides, got.games, by_many, rng_many, min(256, expected.games - got.games), got.data,
                                got.outcomes)
    assert bytes(got.data) == bytes(expected.data) and got.outcomes == expected.outcomes
    assert many.counts == one.counts and td_many.values == td_one.values


def test_td_by_tree_position_follows_a_value_learned_after_its_choice_was_kept() -> None:
    """The tree opponent keeps its best move per position while the values stay the same; a value
    changed by learning (the version moves on) is seen at the next move."""
    player = td.TdPlayer(TICTACTOE)
    opponent = player.tree_opponent()
    learner = fresh(MICHIE)
    rng = random.Random(0)
    root = learner.root
    first = opponent.move(root, rng)
    assert first == player.best_move(TICTACTOE.initial())
    other = next(m for m in TICTACTOE.legal_moves(TICTACTOE.initial())
                 if td.position_code(TICTACTOE, TICTACTOE.play(TICTACTOE.initial(), m))
                 != td.position_code(TICTACTOE, TICTACTOE.play(TICTACTOE.initial(), first)))
    player.learn_towards([td.position_code(TICTACTOE, TICTACTOE.play(TICTACTOE.initial(), other))], 1.0)
    assert opponent.move(root, rng) == other == player.best_move(TICTACTOE.initial())
