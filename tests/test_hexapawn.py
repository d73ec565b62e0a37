from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from menace.core.game import IllegalMoveError, Outcome, Side, State, canonical, distinct_moves
from menace.core.learner import Box, Learner, build_boxes, game_tree, walk
from menace.core.settings import Settings
from menace.games import find_game
from menace.games.hexapawn import GLYPHS, HEXAPAWN, STEPS, SYMMETRIES, cell_name
from menace.players.perfect import WIN, Solver

G = HEXAPAWN
REACHABLE: list[State] = walk(G, symmetric=False)
UNDECIDED = [s for s in REACHABLE if G.outcome(s) is None]
MIRROR = SYMMETRIES[1]

states = st.sampled_from(REACHABLE)
undecided = st.sampled_from(UNDECIDED)


def board(text: str) -> State:
    return G.decode(text)


# -- the rules ------------------------------------------------------------------------------


def test_start() -> None:
    start = G.initial()
    assert start == (2, 2, 2, 0, 0, 0, 1, 1, 1, 1)
    assert G.to_move(start) is Side.X
    assert G.encode(start) == "BBB/.../WWW:W"
    assert [G.move_name(m) for m in G.legal_moves(start)] == ["a1-a2", "b1-b2", "c1-c2"]


def test_straight_only_to_empty_diagonal_only_to_capture() -> None:
    s = board("BBB/.W./W.W:B")
    assert [G.move_name(m) for m in G.legal_moves(s)] == ["a3-a2", "a3-b2", "c3-b2", "c3-c2"]
    after = G.play(s, G.parse_move("a3-b2"))
    assert G.encode(after) == ".BB/.B./W.W:W"
    assert G.to_move(after) is Side.X


@pytest.mark.parametrize(
    ("text", "winner"),
    [
        ("W.B/.B./...:B", Side.X),  # White reached the far rank
        (".../.W./B.W:W", Side.O),  # Black reached rank 1
        (".../.W./W..:B", Side.X),  # every Black pawn taken
        ("B../.B./...:W", Side.O),  # every White pawn taken
        ("B../W../...:W", Side.O),  # White to move is blocked
        ("..B/..W/...:B", Side.X),  # Black to move is blocked
    ],
)
def test_three_ways_to_win(text: str, winner: Side) -> None:
    s = board(text)
    assert G.outcome(s) == Outcome(winner)
    assert G.legal_moves(s) == ()


def test_blocked_only_counts_for_the_side_to_move() -> None:
    # White's a2 pawn is stuck, but it is Black's turn and Black's c3 pawn can move.
    s = board("B.B/W../...:B")
    assert G.outcome(s) is None
    assert G.legal_moves(s)


def test_play_rejects_illegal_moves() -> None:
    start = G.initial()
    with pytest.raises(IllegalMoveError, match="a3-a2 is not legal"):
        G.play(start, G.parse_move("a3-a2"))  # Black's move on White's turn
    with pytest.raises(IllegalMoveError):
        G.play(start, G.parse_move("a1-b2"))  # diagonal with nothing to take
    with pytest.raises(IllegalMoveError):
        G.play(start, G.move_count)
    with pytest.raises(IllegalMoveError):
        G.play(board("W.B/.B./...:B"), G.parse_move("b2-b1"))  # the game is over


@given(undecided)
def test_every_legal_move_is_a_pawn_step_of_the_side_to_move(s: State) -> None:
    for m in G.legal_moves(s):
        who, frm, to = STEPS[m]
        assert who is G.to_move(s)
        assert s[frm] == who
        assert s[to] == (0 if frm % 3 == to % 3 else who.other)
        after = G.play(s, m)
        assert sum(after[:9]) <= sum(s[:9])  # a pawn moves, or one is taken
        assert after[9] == who.other


def test_no_draws_and_every_end_has_no_moves() -> None:
    for s in REACHABLE:
        outcome = G.outcome(s)
        assert (outcome is None) == bool(G.legal_moves(s))
        assert outcome is None or outcome.winner is not None


# -- moves and their names ------------------------------------------------------------------


def test_move_space() -> None:
    assert G.move_count == len(STEPS) == 28
    assert all(0 <= m < 256 for m in range(G.move_count))  # one byte each
    assert sum(1 for who, _, _ in STEPS if who is Side.X) == 14
    assert [(f, t) for _, f, t in STEPS] == sorted((f, t) for _, f, t in STEPS)
    # Every one of the 28 steps happens in some game.
    used = {m for s in REACHABLE for m in G.legal_moves(s)}
    assert used == set(range(G.move_count))


def test_names_round_trip() -> None:
    assert [cell_name(c) for c in range(9)] == ["a3", "b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"]
    for m in range(G.move_count):
        assert G.parse_move(G.move_name(m)) == m


@pytest.mark.parametrize("text", ["a2-b3", "a2b3", "a2 b3", "A2-B3", " a2 - b3 ", "a2xb3"])
def test_parse_move_spellings(text: str) -> None:
    assert G.move_name(G.parse_move(text)) == "a2-b3"


@pytest.mark.parametrize("text", ["", "a2", "a2-d3", "a4-a3", "a1-a3", "a1-c2", "b2-b2", "a2--b3", "e2e4", "1-2"])
def test_parse_move_rejects_with_one_line(text: str) -> None:
    with pytest.raises(IllegalMoveError) as err:
        G.parse_move(text)
    assert "\n" not in str(err.value)


def test_move_cells_and_drawing_metadata() -> None:
    assert G.move_cells(G.parse_move("a1-a2")) == (6, 3)
    assert G.move_cells(G.parse_move("b3-c2")) == (1, 5)
    assert (G.rows, G.cols) == (3, 3)
    assert G.side_names == {Side.X: "White", Side.O: "Black"}
    assert len(G.glyphs) == 3 and G.glyphs == GLYPHS
    assert all(len(g) == 1 for g in G.glyphs)


# -- text form ------------------------------------------------------------------------------


@given(states)
def test_encode_decode_round_trip(s: State) -> None:
    text = G.encode(s)
    assert len(text) <= 16
    assert G.decode(text) == s
    assert G.decode(text.replace("/", "").lower()) == s


@pytest.mark.parametrize(
    "text",
    ["", "BBB...WWW", "BBB...WWW:X", "BBB...WW:W", "BBBB..WWW:W", "BBX...WWW:W", "BBB/.../WWW/W:W",
     "WWWW...../:B", "W.....B..:W", "WBB/.../..B:B",
     "W.B/.B./...:W", ".../.W./W..:W", "B../.B./...:B", ".../.../...:W"],
)
def test_decode_rejects_with_one_line(text: str) -> None:
    with pytest.raises(IllegalMoveError) as err:
        G.decode(text)
    assert "\n" not in str(err.value)


# -- the mirror -----------------------------------------------------------------------------


def test_symmetries() -> None:
    assert [s.name for s in SYMMETRIES] == ["as it is", "mirror left to right"]
    assert SYMMETRIES[0].cells == tuple(range(10))
    assert SYMMETRIES[0].moves == tuple(range(G.move_count))
    assert MIRROR.cells == (2, 1, 0, 5, 4, 3, 8, 7, 6, 9)
    assert sorted(MIRROR.moves) == list(range(G.move_count))
    assert G.move_name(MIRROR.real_move(G.parse_move("a1-b2"))) == "c1-b2"
    for sym in SYMMETRIES:  # both are their own inverse
        assert sym.apply(sym.apply(G.initial())) == G.initial()
        assert all(sym.real_move(sym.real_move(m)) == m for m in range(G.move_count))


@given(states)
def test_symmetry_commutes_with_play(s: State) -> None:
    for sym in SYMMETRIES:
        image = sym.apply(s)
        assert image[9] == s[9]
        assert G.outcome(image) == G.outcome(s)
        assert sorted(sym.image_move(m) for m in G.legal_moves(s)) == sorted(G.legal_moves(image))
        for m in G.legal_moves(s):
            assert sym.apply(G.play(s, m)) == G.play(image, sym.image_move(m))
            # ... and a bead for image move m in the box means the real move real_move(m).
            assert G.play(s, sym.real_move(sym.image_move(m))) == G.play(s, m)


@given(states)
def test_canonical_is_idempotent_and_same_for_both_images(s: State) -> None:
    c, sym = canonical(G, s)
    assert sym.apply(s) == c
    assert canonical(G, c)[0] == c
    assert canonical(G, MIRROR.apply(s))[0] == c


def test_distinct_moves_merge_mirror_twins() -> None:
    start = G.initial()
    assert [G.move_name(m) for m in distinct_moves(G, start)] == ["a1-a2", "b1-b2"]


# -- facts of the game ----------------------------------------------------------------------


def longest_game(s: State) -> int:
    return max((1 + longest_game(G.play(s, m)) for m in G.legal_moves(s)), default=0)


def test_game_size() -> None:
    assert len(REACHABLE) == 135
    assert len(walk(G, symmetric=True)) == 71
    assert max(len(G.legal_moves(s)) for s in REACHABLE) == 4
    # A stored game is one header byte with the move count in its top four bits.
    assert longest_game(G.initial()) == 7 <= 15


def test_depth_is_a_function_of_the_position() -> None:
    # Every position is reached after the same number of moves however the game went, so
    # "MENACE's n-th move" is well defined for a box.
    depths: dict[State, set[int]] = {G.initial(): {0}}
    frontier = {G.initial()}
    for ply in range(1, 8):
        frontier = {G.play(s, m) for s in frontier for m in G.legal_moves(s)}
        for s in frontier:
            depths.setdefault(s, set()).add(ply)
    assert all(len(d) == 1 for d in depths.values())
    assert len(depths) == 135


def test_black_wins_with_best_play() -> None:
    solver = Solver(G)
    assert solver.score(G.initial()) < 0  # White, to move, loses
    assert solver.score(G.initial()) == -(WIN - 6)  # White's 3rd move is its last: Black wins on ply 6
    for m in G.legal_moves(G.initial()):
        assert solver.score(G.play(G.initial(), m)) > 0


# -- matchboxes -----------------------------------------------------------------------------


def by_move(boxes: list[Box]) -> list[int]:
    counts = Counter(box.move_number for box in boxes)
    return [counts[n] for n in range(1, max(counts) + 1)]


GARDNER = Settings(forced_boxes=True)


@pytest.mark.parametrize(
    ("side", "symmetry", "total", "moves"),
    [
        ("O", True, 19, [2, 10, 7]),  # HER, Gardner's machine
        ("X", True, 18, [1, 5, 10, 2]),  # HIM
        ("O", False, 37, [3, 20, 14]),
        ("X", False, 33, [1, 10, 20, 2]),
    ],
)
def test_gardner_box_counts(side: str, symmetry: bool, total: int, moves: list[int]) -> None:
    boxes = build_boxes(G, replace(GARDNER, side=side, symmetry=symmetry))
    assert len(boxes) == total
    assert by_move(boxes) == moves


@pytest.mark.parametrize(
    ("side", "symmetry", "total", "moves"),
    [("O", True, 17, [2, 9, 6]), ("X", True, 14, [1, 5, 7, 1]), ("O", False, 33, [3, 18, 12]),
     ("X", False, 26, [1, 10, 14, 1])],
)
def test_michie_rule_leaves_out_forced_positions(side: str, symmetry: bool, total: int, moves: list[int]) -> None:
    boxes = build_boxes(G, Settings(side=side, symmetry=symmetry))
    assert len(boxes) == total
    assert by_move(boxes) == moves
    assert all(len(G.legal_moves(box.position)) > 1 for box in boxes)


def test_boxes_are_canonical_positions_to_move() -> None:
    for side in ("X", "O"):
        boxes = build_boxes(G, replace(GARDNER, side=side))
        for box in boxes:
            assert G.to_move(box.position) is box.side is Side[side]
            assert canonical(G, box.position)[0] == box.position
            assert set(box.initial) == set(distinct_moves(G, box.position))
        assert boxes[0].move_number == 1


def test_first_boxes_for_her() -> None:
    her = build_boxes(G, replace(GARDNER, side="O"))
    # White opens in the middle or on a side file (its mirror image merged): two boxes.
    assert [G.encode(b.position) for b in her if b.move_number == 1] == ["BBB/W../.WW:B", "BBB/.W./W.W:B"]


def test_engine_and_tree() -> None:
    tree = game_tree(G)
    assert len(tree.states) == 135
    assert all(len(row) == G.move_count for row in tree.kids)
    learner = Learner(G, replace(GARDNER, side="O"), build_boxes(G, replace(GARDNER, side="O")))
    forced = next(s for s in REACHABLE if G.to_move(s) is Side.O and len(G.legal_moves(s)) == 1)
    assert learner.box_for(forced) is not None  # a box even where the move is forced
    michie = Learner(G, Settings(side="O"), build_boxes(G, Settings(side="O")))
    assert michie.box_for(forced) is None


@pytest.mark.parametrize("settings", [replace(GARDNER, side="O"), Settings(side="O"), replace(GARDNER, side="X")])
def test_menace_learns_against_random(settings: Settings) -> None:
    side = settings.sides[0]
    learner = Learner(G, settings, build_boxes(G, settings))
    random_player = learner.options_table(G.legal_moves)
    rng = random.Random(1962)
    results = []
    for _ in range(400):
        res, moves = learner.play_table(side, random_player, rng)
        assert len(moves) <= 7
        state = G.initial()
        for m in moves:
            state = G.play(state, m)
        outcome = G.outcome(state)
        # A game ends with a win, or with MENACE resigning at an empty box on its turn.
        assert (outcome is not None and res == outcome.winner) or (outcome is None and G.to_move(state) is side)
        results.append(res == side)
    if side is Side.O:
        # Black wins with best play, and after a few hundred games MENACE wins nearly every game.
        assert sum(results[-100:]) >= 90
    assert all(min(counts) >= 0 for counts in learner.counts)


def test_hexapawn_beads_are_named_by_their_order_in_the_box() -> None:
    from menace.render.beads import slot_names

    assert slot_names(find_game("hexapawn")) == [
        "a box's 1st move", "a box's 2nd move", "a box's 3rd move", "a box's 4th move"]
