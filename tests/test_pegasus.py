"""The Pegasus program's learning rule (Michie, The Computer Journal 6(3), 1963), worked by hand."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

from menace.core.game import Result, Side
from menace.core.learner import DRAWN, X_WINS, GameRecord, Learner, build_boxes
from menace.core.match import MenacePlayer, play_game
from menace.core.pegasus import (
    INFINITE,
    ONE,
    UNIT,
    MeanOutcome,
    PegasusRule,
    PegasusRuleError,
    Refinement,
    Reinforcer,
    apply_factor,
    chances,
    factor,
    fixed_factor,
    multiplier,
)
from menace.core.settings import MICHIE, Settings
from menace.games import DEFAULT_GAME, find_game
from menace.players import find_player

GAME = find_game(DEFAULT_GAME)
PEGASUS = Settings(pegasus=PegasusRule())


def test_fig6_multipliers_are_computed_from_a_and_b() -> None:
    # Fig. 6 of the paper: M_8 .. M_2 for A = 1.025, B = 2, and M_1 infinite
    # The paper prints three decimals, M_4 (1.48451) and M_2 (4.85654) cut rather than rounded:
    # every computed value is within a thousandth of the printed one.
    computed = [multiplier(PegasusRule(), n) for n in range(8, 1, -1)]
    printed = [1.025, 1.051, 1.104, 1.218, 1.484, 2.204, 4.856]
    assert all(abs(c - p) < 0.001 for c, p in zip(computed, printed, strict=True)), computed
    assert [round(c, 3) for c in computed] == [1.025, 1.051, 1.104, 1.218, 1.485, 2.204, 4.857]
    assert multiplier(PegasusRule(), 1) == float("inf")
    assert multiplier(PegasusRule(a=1.5, b=3), 7) == pytest.approx(1.5**3)


def test_the_papers_example_two_fifths_become_four_sevenths_after_a_win_with_m_2() -> None:
    weights = [2 * UNIT, 3 * UNIT]
    apply_factor(weights, 0, fixed_factor(2))
    assert [Fraction(w, sum(weights)) for w in weights] == [Fraction(4, 7), Fraction(3, 7)]
    # the odds of the move, p/(1-p), were multiplied by 2: 2/3 -> 4/3
    assert Fraction(weights[0], weights[1]) == 2 * Fraction(2, 3)


def test_a_defeat_divides_the_odds() -> None:
    weights = [2 * UNIT, 3 * UNIT]
    apply_factor(weights, 0, fixed_factor(Fraction(1, 2)))  # 1/M with M = 2
    assert [Fraction(w, sum(weights)) for w in weights] == [Fraction(1, 4), Fraction(3, 4)]


def test_m1_after_a_win_makes_the_move_certain_and_after_a_defeat_impossible() -> None:
    assert factor(PegasusRule(), 1, 1.0) == INFINITE
    weights = [UNIT, 5 * UNIT, 7]
    apply_factor(weights, 2, INFINITE)
    assert chances(weights) == [0.0, 0.0, 100.0]
    lost = [UNIT, 5 * UNIT, 7]
    apply_factor(lost, 1, factor(PegasusRule(), 1, -1.0))
    assert lost == [UNIT, 0, 7]
    alone = [0, UNIT, 0]
    apply_factor(alone, 1, 0)
    assert alone == [0, UNIT, 0], "the only move left stays: a box never empties"


def test_a_draw_leaves_the_odds_under_the_trial_runs_rule() -> None:
    boxes = [[UNIT, 2 * UNIT], [3 * UNIT, UNIT]]
    before = [list(b) for b in boxes]
    Reinforcer(PegasusRule()).learn(boxes, [(0, 1, 0), (1, 0, 2)], 9, 0)
    assert boxes == before


def test_a_play_multiplies_each_move_by_m_n_counted_from_the_end() -> None:
    rule = PegasusRule()
    boxes = [[UNIT, UNIT], [UNIT, UNIT], [UNIT, UNIT]]
    # a play of 7 moves; the machine's moves were its 1st (n = 7), 3rd (n = 5) and 7th (n = 1)
    Reinforcer(rule).learn(boxes, [(0, 0, 0), (1, 1, 2), (2, 0, 6)], 7, 1)
    assert boxes[0][0] / UNIT == pytest.approx(multiplier(rule, 7), abs=1e-9) and boxes[0][1] == UNIT
    assert boxes[1][1] / UNIT == pytest.approx(multiplier(rule, 5), abs=1e-9) and boxes[1][0] == UNIT
    assert chances(boxes[2]) == [100.0, 0.0]
    lost = [[UNIT, UNIT]]
    Reinforcer(rule).learn(lost, [(0, 0, 4)], 6, -1)  # n = 2: divided by 4.856
    assert lost[0][0] / UNIT == pytest.approx(1 / multiplier(rule, 2), abs=1e-9)


def test_the_refined_rule_reinforces_relative_to_the_mean_outcome() -> None:
    rule = PegasusRule(refinement=Refinement.PER_PLAY)
    m3 = multiplier(rule, 3)
    r = Reinforcer(rule, (0.5, 0, 0))
    assert r.fixed(3, 1) == fixed_factor(m3**0.5)      # win: M^(1 - mu)
    assert r.fixed(3, 0) == fixed_factor(m3**-0.5)     # draw: M^(-mu)
    assert r.fixed(3, -1) == fixed_factor(m3**-1.5)    # defeat: M^(-1 - mu)
    assert Reinforcer(rule, (1.0, 0, 0)).fixed(3, 1) == ONE  # a machine that always wins learns nothing from a win
    # a draw now moves the odds, down when the machine usually wins
    boxes = [[UNIT, UNIT]]
    r.learn(boxes, [(0, 0, 6)], 9, 0)
    assert boxes[0][0] < UNIT


def test_the_decay_per_play_ideal_and_per_hundred_approximation() -> None:
    ideal = MeanOutcome(PegasusRule(refinement=Refinement.PER_PLAY, decay=0.5))
    ideal.record(1)
    assert ideal.mu == pytest.approx(1 - 0.5 ** (1 / 100))
    for _ in range(99):
        ideal.record(1)
    assert ideal.mu == pytest.approx(0.5)  # a hundred wins: the past (0) keeps weight D = 0.5
    hundred = MeanOutcome(PegasusRule(refinement=Refinement.HUNDRED, decay=0.5))
    for _ in range(99):
        hundred.record(1)
    assert hundred.mu == 0.0, "Michie's program waits for the hundred"
    hundred.record(1)
    assert hundred.mu == 0.5 and hundred.state == (0.5, 0, 0)
    for v in [1] * 50 + [-1] * 30 + [0] * 20:
        hundred.record(v)
    assert hundred.mu == pytest.approx(0.5 * 0.5 + 0.5 * 0.2)
    plain = MeanOutcome(PegasusRule())
    plain.record(1)
    assert plain.mu == 0.0


@pytest.mark.parametrize("bad", [dict(a=1.0), dict(a=0.5), dict(b=0), dict(decay=1.5), dict(a=float("nan"))])
def test_parameters_that_make_no_sense_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(PegasusRuleError):
        PegasusRule(**bad)  # type: ignore[arg-type]


def test_weights_stay_bounded_and_possible_moves_stay_possible() -> None:
    weights = [UNIT, UNIT, UNIT]
    up = factor(PegasusRule(), 2, 1.0)
    for _ in range(200):
        apply_factor(weights, 0, up)
    assert max(weights).bit_length() <= 48 and weights[1] >= 1 and weights[2] >= 1
    down = factor(PegasusRule(), 2, -1.0)
    for _ in range(400):
        apply_factor(weights, 0, down)
    assert weights[0] >= 1 and max(weights).bit_length() >= 24


@pytest.mark.parametrize(("a", "b"), [(1.5, 3.0), (2.0, 2.5), (1.1, 3.5)])
def test_the_largest_factors_a_rule_allows_are_applied(a: float, b: float) -> None:
    """Every A and B the rule accepts gives factors that can be applied: M_2 = 1.5^(3^6) is about
    1e128, more digits than the decimal context keeps (a hypothesis example found it raising)."""
    rule = PegasusRule(a, b)
    big = factor(rule, 2, 1.0)
    assert abs(big / ONE / multiplier(rule, 2) - 1) < 1e-12
    weights = [UNIT, UNIT, UNIT]
    apply_factor(weights, 0, big)
    assert max(weights).bit_length() <= 48 and weights[1] >= 1 and weights[0] > 2 ** 31 * weights[1]
    apply_factor(weights, 0, factor(rule, 2, -1.0))
    assert weights[0] >= 1


# -- the learner ---------------------------------------------------------------------------

def test_a_pegasus_machine_has_the_matchbox_machines_boxes_with_equal_odds() -> None:
    boxes = build_boxes(GAME, PEGASUS)
    assert len(boxes) == 304 and all(set(b.initial.values()) == {UNIT} for b in boxes)
    raw = build_boxes(GAME, replace(PEGASUS, symmetry=False))
    assert len(raw) == len(build_boxes(GAME, replace(MICHIE, symmetry=False))) > 304


def test_the_learner_applies_the_rule_to_a_won_game() -> None:
    learner = Learner(GAME, PEGASUS, build_boxes(GAME, PEGASUS))
    record = GameRecord(Side.X, [4, 0, 8, 1, 2, 6, 5], X_WINS)  # X wins with its 4th move, the 7th
    drawn = learner.replay(record)
    assert [d.ply for d in drawn] == [0, 2, 4, 6]
    learner.reinforce(drawn, Result.WIN, len(record.moves))
    opening = learner.counts[drawn[0].box]
    assert opening[4] / UNIT == pytest.approx(multiplier(PegasusRule(), 7), abs=1e-9)
    assert chances(learner.counts[drawn[3].box])[drawn[3].bead] == 100.0


def _random_table(learner: Learner) -> list[tuple[int, ...]]:
    return learner.options_table(GAME.legal_moves)


@pytest.mark.parametrize("symmetry", [True, False])
def test_the_fast_loops_and_the_plain_reference_learn_the_same(symmetry: bool) -> None:
    settings = replace(PEGASUS, symmetry=symmetry)
    fast = Learner(GAME, settings, build_boxes(GAME, settings))
    batch = Learner(GAME, settings, build_boxes(GAME, settings))
    plain = Learner(GAME, settings, build_boxes(GAME, settings))
    table = _random_table(fast)
    rng_fast, rng_batch = random.Random(7), random.Random(7)
    records = []
    for _ in range(300):
        res, moves = fast.play_table(Side.X, table, rng_fast)
        records.append(GameRecord(Side.X, moves, res))
    data = bytearray()
    outcomes = [0] * 16
    played = 0
    while played < 300:
        played += batch.play_batch(Side.X, table, rng_batch, 300 - played, data, outcomes)
    for record in records:
        drawn = plain.replay(record)
        plain.reinforce(drawn, record.result, len(record.moves))
    assert fast.counts == batch.counts == plain.counts
    assert fast.counts != [list(c) for c in Learner(GAME, settings, build_boxes(GAME, settings)).counts]


def test_a_pegasus_machine_learns_to_beat_a_random_player() -> None:
    learner = Learner(GAME, PEGASUS, build_boxes(GAME, PEGASUS))
    table = _random_table(learner)
    rng = random.Random(1963)
    wins = [0] * 10
    for i in range(1000):
        res, _ = learner.play_table(Side.X, table, rng)
        wins[i // 100] += res == X_WINS
    assert wins[0] < 80 and sum(wins[7:]) / 3 > 90, wins


def test_a_pegasus_machine_as_a_player_and_both_machines_learning() -> None:
    learner = Learner(GAME, replace(PEGASUS, side="O"), build_boxes(GAME, replace(PEGASUS, side="O")))
    player = MenacePlayer(learner, Side.O)
    rng = random.Random(3)
    randomly = find_player("random", GAME).create(GAME)
    for _ in range(50):
        played = play_game(GAME, randomly, player, rng)
    assert played.moves and learner.counts != [list(b.initial.get(m, 0) for m in range(9)) for b in learner.boxes]
    assert DRAWN  # the result codes are the learner's
