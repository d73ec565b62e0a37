"""The Pegasus rule of Michie's 1963 paper on hand-worked examples, exact replays, the random baseline."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from menace.core.game import Side
from menace.core.learner import DRAWN, O_WINS, X_WINS, GameRecord, Settings, build_boxes
from menace.core.michie1963 import FIG6_MULTIPLIERS, PAPER_EXAMPLE
from menace.core.pegasus import (
    GRID,
    Memory,
    Odds,
    PegasusLearner,
    PegasusRule,
    PegasusSettingsError,
    Refinement,
    multiply_chances,
    play_two,
    random_baseline,
)
from menace.core.tree import game_tree
from menace.games import find_game

GAME = find_game("tictactoe")
X_ONLY = Settings(side="X", schedule=(1,))
O_ONLY = Settings(side="O", schedule=(1,))
# X: b2 c3 a3 b3 ... X takes 4, 8, 2, 5 and wins with its seventh move (n = 1).
WON = GameRecord(Side.X, [4, 0, 8, 1, 2, 6, 5], X_WINS)


TRIAL = PegasusRule()


def learner(rule: PegasusRule = TRIAL, settings: Settings = X_ONLY) -> PegasusLearner:
    return PegasusLearner(GAME, settings, rule, build_boxes(GAME, settings))


def test_the_papers_worked_example() -> None:
    before, m, after = PAPER_EXAMPLE
    assert multiply_chances(list(before), 0, Fraction(m)) == list(after)


def test_fig6_multipliers_within_the_papers_last_digit() -> None:
    rule = PegasusRule()
    for n, printed in FIG6_MULTIPLIERS.items():
        if n == 1:
            assert rule.multiplier(1) == math.inf and printed == "infinity"
        else:
            assert abs(rule.multiplier(n) - float(printed)) <= 0.0011, n


def test_a_win_multiplies_each_move_by_its_m_n_and_the_last_becomes_certain() -> None:
    rule = PegasusRule(a=Fraction(2), b=Fraction(1))  # M_n = 2 for every n >= 2
    lr = learner(rule)
    drawn = lr.drawn_in(WON)
    plies = [ply for _, _, ply in drawn]
    assert plies == [0, 2, 4, 6]
    before = [lr.chances(b) for b, _, _ in drawn]
    lr.learn(WON)
    for (b, m, ply), was in zip(drawn, before):
        now = lr.chances(b)
        if ply == 6:  # n = 1: M_1 is infinite, the move that won at once is certain
            assert now[m] == 1.0 and lr.odds(b)[m] == Odds(Fraction(1), Fraction(0))
        else:
            expect = multiply_chances([Fraction(was[k]) for k in sorted(was)], sorted(was).index(m), Fraction(2))
            assert [now[k] for k in sorted(now)] == pytest.approx([float(x) for x in expect])
            assert lr.odds(b)[m] == Odds(Fraction(0), Fraction(1))


def test_a_loss_divides_by_m_n_counting_both_sides_moves() -> None:
    lr = learner()
    lost = GameRecord(Side.X, [0, 4, 1, 2, 5, 6], O_WINS)  # O wins a3-b2-c1 with the play's last move
    drawn = lr.learn(lost)
    rule = PegasusRule()
    for b, m, ply in drawn:
        n = len(lost.moves) - ply  # 6, 4, 2
        assert lr.odds(b)[m] == Odds(Fraction(0), -rule.exponent(n)), n
    b, m, _ = drawn[-1]
    chance = lr.chances(b)[m]
    others = len(lr.chances(b)) - 1
    assert chance == pytest.approx((1 / 4.85654) / (1 / 4.85654 + others), rel=1e-4)


def test_a_draw_leaves_the_odds() -> None:
    lr = learner()
    drawn_game = GameRecord(Side.X, [4, 0, 8, 2, 1, 7, 3, 5, 6], DRAWN)
    before = lr.all_odds()
    lr.learn(drawn_game)
    assert lr.all_odds() == before


def test_table3_per_play_decays_mu_and_powers_the_multipliers() -> None:
    rule = PegasusRule(refinement=Refinement.PER_PLAY, decay=Fraction(1, 2))
    lr = learner(rule)
    lr.learn(WON)
    assert lr.memory.mean == Fraction(1, 2)  # mu = D * 0 + (1 - D) * 1
    b, m, _ = lr.drawn_in(WON)[0]
    assert lr.odds(b)[m].log == rule.exponent(7)  # the first win: M^(1 - 0)
    drawn_game = GameRecord(Side.X, [4, 0, 8, 2, 1, 7, 3, 5, 6], DRAWN)
    first = lr.drawn_in(drawn_game)[0]
    lr.learn(drawn_game)  # a draw with mu = 1/2: M_n^(-1/2)
    assert lr.odds(first[0])[first[1]].log == rule.exponent(7) - rule.exponent(9) / 2
    assert lr.memory.mean == Fraction(1, 4)


def test_table3_per_hundred_waits_for_the_set_of_one_hundred() -> None:
    rule = PegasusRule(refinement=Refinement.PER_HUNDRED, decay=Fraction(9, 10))
    lr = learner(rule)
    for _ in range(99):
        lr.learn(WON)
    assert lr.memory == Memory(0, 99, 99)
    lr.learn(WON)
    assert lr.memory.mean == round(Fraction(1, 10) * GRID) / GRID and lr.memory.plays == 0


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(PegasusSettingsError, match="A must be above 1"):
        PegasusRule(a=Fraction(1))
    with pytest.raises(PegasusSettingsError, match="decay"):
        PegasusRule(decay=Fraction(1))


def test_random_baseline_is_exact() -> None:
    b = random_baseline(GAME)
    assert (b.wins, b.draws, b.losses) == (Fraction(737, 1260), Fraction(8, 63), Fraction(121, 420))
    assert b.wins + b.draws + b.losses == 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), games=st.integers(1, 60),
       refinement=st.sampled_from(list(Refinement)), side=st.sampled_from([Side.X, Side.O]))
def test_replaying_the_games_gives_back_the_odds_exactly(seed: int, games: int, refinement: Refinement,
                                                         side: Side) -> None:
    rule = PegasusRule(refinement=refinement, decay=Fraction(3, 4))
    settings_ = X_ONLY if side is Side.X else O_ONLY
    played = learner(rule, settings_)
    rng = random.Random(seed)
    table = game_tree(GAME).legal
    records = []
    for _ in range(games):
        res, moves = played.play_table(side, table, rng)
        records.append(GameRecord(side, moves, res))
    again = learner(rule, settings_)
    for record in records:
        again.learn(record)
    assert again.all_odds() == played.all_odds()
    assert again.memory == played.memory
    # The exact odds go through their stored text and back unchanged.
    stored = [{m: Odds.parse(o.text()) for m, o in box.items()} for box in played.all_odds()]
    fresh = learner(rule, settings_)
    fresh.set_odds(stored)
    assert fresh.all_odds() == played.all_odds()
    # The chances are floats worked out from the exact odds (incrementally while playing): equal to
    # the last few bits.
    for b in range(len(fresh.boxes)):
        assert fresh.chances(b) == pytest.approx(played.chances(b), rel=1e-12, abs=1e-300)


def test_two_machines_learn_from_the_same_plays() -> None:
    x, o = learner(), learner(settings=O_ONLY)
    rng = random.Random(5)
    records = [play_two(x, o, rng) for _ in range(30)]
    x2, o2 = learner(), learner(settings=O_ONLY)
    for res, moves in records:
        x2.learn(GameRecord(Side.X, moves, res))
        o2.learn(GameRecord(Side.O, moves, res))
    assert x2.all_odds() == x.all_odds() and o2.all_odds() == o.all_odds()


def test_hexapawn_machines_learn_under_the_rule() -> None:
    hexapawn = find_game("hexapawn")
    s = Settings(side="O", schedule=(1,))
    lr = PegasusLearner(hexapawn, s, PegasusRule(longest=7), build_boxes(hexapawn, s))
    rng = random.Random(1)
    table = game_tree(hexapawn).legal
    losses = [sum(lr.play_table(Side.O, table, rng)[0] == X_WINS for _ in range(100)) for _ in range(3)]
    assert losses[-1] < losses[0]
