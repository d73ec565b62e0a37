"""The game contract (menace.core.game.Game), checked against every registered game."""

from __future__ import annotations

import pytest

from menace.core.game import Game, canonical
from menace.core.learner import game_tree, walk
from menace.games import find_game, game_names

GAMES = [find_game(name) for name in game_names()] + [find_game(name) for name in ("nim-50-2-normal", "nim-5-5-misere")]


@pytest.fixture(params=GAMES, ids=lambda g: g.name)
def game(request: pytest.FixtureRequest) -> Game:
    g: Game = request.param
    return g


def test_names_and_sizes(game: Game) -> None:
    assert find_game(game.name) is game
    assert 0 < game.move_count <= 256
    assert 0 < game.max_plies <= 255
    assert len(game.row_labels) == game.rows and len(game.col_labels) == game.cols
    assert set(game.side_names) == {1, 2} and all(game.side_names.values())
    assert game.pieces and all(0 < v < 256 for v in game.pieces)
    assert game.symmetries[0].name == "as it is"
    assert 1 <= game.colours <= 9
    assert isinstance(game.grid, bool) and isinstance(game.moves_on_board, bool)


def test_every_reachable_position_keeps_the_contract(game: Game) -> None:
    tree = game_tree(game)
    longest = {0: 0}
    for i, state in enumerate(tree.states):
        assert all(0 <= v < 256 for v in state)
        legal = game.legal_moves(state)
        assert (legal == ()) == (game.outcome(state) is not None)
        assert isinstance(game.caption(state), str)
        text = game.encode(state)
        assert len(text) <= 16 and game.decode(text) == state
        for m in legal:
            assert 0 <= m < game.move_count
            assert game.parse_move(game.move_name(m)) == m
            assert game.move_text(m)
            frm, to = game.move_cells(m)
            assert 0 <= to < game.rows * game.cols and (frm is None or 0 <= frm < game.rows * game.cols)
            assert 0 <= game.colour_slot(state, m) < game.colours
            child = tree.kids[i][m]
            longest[child] = max(longest.get(child, 0), longest[i] + 1)
            for sym in game.symmetries:
                image = sym.apply(state)
                assert sym.apply(game.play(state, m)) == game.play(image, sym.image_move(m))
    assert max(longest.values()) <= game.max_plies


def test_canonical_form_is_the_same_for_every_image(game: Game) -> None:
    for state in walk(game, symmetric=False):
        best = canonical(game, state)[0]
        assert all(canonical(game, sym.apply(state))[0] == best for sym in game.symmetries)
