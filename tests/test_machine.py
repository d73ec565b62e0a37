from __future__ import annotations

import random
from collections import Counter

import pytest

from menace.core.game import Result, Side
from menace.core.learner import Draw, EmptyBoxError, Learner, build_boxes
from menace.core.settings import (
    MICHIE,
    RUBYQUIZ,
    EmptyPolicy,
    Settings,
    SettingsError,
    parse_reinforcement,
    parse_schedule,
)
from menace.games.tictactoe import TICTACTOE


def by_move(boxes: list, attr: str = "count") -> list[int]:  # type: ignore[type-arg]
    out: Counter[int] = Counter()
    for b in boxes:
        out[b.move_number] += 1 if attr == "count" else b.total
    return [out[k] for k in sorted(out)]


def test_michie_machine() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    assert len(boxes) == 304
    assert by_move(boxes) == [1, 12, 108, 183]
    assert sum(b.total for b in boxes) == 1720
    assert by_move(boxes, "beads") == [12, 198, 984, 526]
    assert [b.number for b in boxes] == list(range(1, 305))
    assert boxes[0].position == TICTACTOE.initial() and len(boxes[0].beads) == 3


def test_machine_moving_second() -> None:
    boxes = build_boxes(TICTACTOE, Settings(side="O"))
    assert len(boxes) == 289
    assert by_move(boxes) == [3, 38, 153, 95]
    assert all(b.side is Side.O for b in boxes)


def test_all_squares_and_raw_machines() -> None:
    assert sum(b.total for b in build_boxes(TICTACTOE, Settings(all_squares=True))) == 1917
    assert len(build_boxes(TICTACTOE, Settings(symmetry=False))) == 2201
    assert len(build_boxes(TICTACTOE, Settings(side="both"))) == 304 + 289


def test_rubyquiz_preset() -> None:
    assert (RUBYQUIZ.win, RUBYQUIZ.draw, RUBYQUIZ.loss) == (2, 0, -1)
    assert RUBYQUIZ.all_squares and not RUBYQUIZ.symmetry
    assert RUBYQUIZ.empty_policy is EmptyPolicy.KEEP_LAST
    boxes = build_boxes(TICTACTOE, RUBYQUIZ)
    assert len(boxes) == 2201
    assert all(set(b.beads) == set(TICTACTOE.legal_moves(b.position)) for b in boxes)


def test_every_bead_maps_to_an_empty_square_under_every_transform() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    learner = Learner(TICTACTOE, MICHIE, boxes)
    seen = 0
    for box in boxes:
        for sym in TICTACTOE.symmetries:
            # the real board that shows as this box when transformed by sym
            real = tuple(0 for _ in range(9))
            real_list = list(real)
            for i, cell in enumerate(sym.cells):
                real_list[cell] = box.position[i]
            real = tuple(real_list)
            found = learner.box_for(real)
            assert found is not None and found[0] == box.number - 1
            _, real_moves = found
            for bead in box.beads:
                assert real[real_moves[bead]] == 0
                seen += 1
    assert seen == 8 * sum(len(b.beads) for b in boxes)


def test_draws_follow_bead_counts() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    boxes[0].beads = {0: 1, 1: 3, 4: 6}
    learner = Learner(TICTACTOE, MICHIE, boxes)
    rng = random.Random(7)
    tally = Counter(learner.draw(TICTACTOE.initial(), rng)[0] for _ in range(20000))
    assert tally[0] + tally[1] + tally[4] == 20000
    for square, share in ((0, 0.1), (1, 0.3), (4, 0.6)):
        assert abs(tally[square] / 20000 - share) < 0.015


def test_reinforcement_arithmetic() -> None:
    boxes = build_boxes(TICTACTOE, MICHIE)
    learner = Learner(TICTACTOE, MICHIE, boxes)
    drawn = [Draw(0, 4), Draw(5, boxes[5].initial and next(iter(boxes[5].initial)))]
    learner.reinforce(drawn, Result.WIN)
    assert learner.counts[0][4] == 4 + 3
    learner.reinforce(drawn, Result.DRAW)
    assert learner.counts[0][4] == 4 + 3 + 1
    for _ in range(20):
        learner.reinforce(drawn, Result.LOSS)
    assert learner.counts[0][4] == 0  # never negative


def test_empty_box_policies() -> None:
    for policy, expect in ((EmptyPolicy.RESIGN, "resign"), (EmptyPolicy.RESTOCK, "restock"),
                           (EmptyPolicy.KEEP_LAST, "keep")):
        settings = Settings(empty_policy=policy)
        learner = Learner(TICTACTOE, settings, build_boxes(TICTACTOE, settings))
        opening = learner.counts[0]
        for _ in range(30):
            for m in (0, 1, 4):
                learner.reinforce([Draw(0, m)], Result.LOSS)
        if expect == "keep":
            assert sum(opening) == 1
            continue
        assert sum(opening) == 0
        if expect == "resign":
            with pytest.raises(EmptyBoxError):
                learner.draw(TICTACTOE.initial(), random.Random(1))
            assert learner.opening_empty(Side.X)
        else:
            learner.draw(TICTACTOE.initial(), random.Random(1))
            assert opening[0] == opening[1] == opening[4] == 4
            assert not learner.opening_empty(Side.X)


def test_resigning_tournament_game_is_a_loss_and_reinforces_earlier_boxes() -> None:
    learner = Learner(TICTACTOE, MICHIE, build_boxes(TICTACTOE, MICHIE))
    for i in range(len(learner.counts)):
        if i:
            learner.counts[i][:] = [0] * 9
    rng = random.Random(3)
    table = learner.options_table(TICTACTOE.legal_moves)
    res, moves = learner.play_table(Side.X, table, rng)
    assert res == 2 and len(moves) == 2  # X moved once, O replied, X resigned at box 2+
    assert sum(learner.counts[0]) == 12 - 1


def test_same_seed_same_beads() -> None:
    def train(seed: int) -> list[list[int]]:
        learner = Learner(TICTACTOE, MICHIE, build_boxes(TICTACTOE, MICHIE))
        table = learner.options_table(TICTACTOE.legal_moves)
        rng = random.Random(seed)
        for _ in range(3000):
            learner.play_table(Side.X, table, rng)
        return learner.counts
    assert train(5) == train(5)
    assert train(5) != train(6)


@pytest.mark.parametrize("text", ["", "4,x", "4,0,2", "-1,2", "4;3"])
def test_bad_schedules(text: str) -> None:
    with pytest.raises(SettingsError):
        parse_schedule(text)


def test_reinforcement_parsing() -> None:
    assert parse_reinforcement("3,1,-1") == (3, 1, -1)
    with pytest.raises(SettingsError):
        parse_reinforcement("3,1")
    with pytest.raises(SettingsError):
        Settings(side="Z")
