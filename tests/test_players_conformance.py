"""Every registered player makes a legal move in every reachable position, as X and as O."""

from __future__ import annotations

import random

import pytest

from menace.core.learner import walk
from menace.games.tictactoe import TICTACTOE
from menace.players import PlayerSpec, RulePlayer, all_players

G = TICTACTOE
TO_MOVE = [s for s in walk(G, symmetric=False) if G.outcome(s) is None]
NAMES = ["random", "smart", "movetable", "posswin", "perfect", "oxo", "td"]


def test_the_registry_lists_the_seven_players_in_order() -> None:
    specs = all_players()
    assert [spec.name for spec in specs] == NAMES
    assert all(spec.description and len(spec.description) <= 100 for spec in specs)


@pytest.mark.parametrize("spec", all_players(), ids=lambda spec: spec.name)
def test_a_legal_move_in_every_reachable_position(spec: PlayerSpec) -> None:
    assert len(TO_MOVE) == 4520
    player = spec.create(G, random.Random(0))
    rng = random.Random(1)
    for state in TO_MOVE:
        legal = G.legal_moves(state)
        if isinstance(player, RulePlayer):
            options = player.options(state)
            assert options and set(options) <= set(legal), (spec.name, G.encode(state), options)
        assert player.choose(state, rng) in legal, (spec.name, G.encode(state))
