"""One drawing of each piece and one word for each side, per game, in every output.

A game names its pieces (``Game.pieces``) and its sides (``Game.side_names``); the labels, the
plots and the pages draw the pieces from :mod:`menace.render.pieces` only, and what the terminal
prints names the sides as the game does (White and Black, not X and O).
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import Invoke, query

from menace.core.game import Game, PieceShape, Side
from menace.core.learner import build_boxes
from menace.core.settings import CLASSROOM, GARDNER, MICHIE, Settings
from menace.games import find_game, game_names
from menace.render import labels as L
from menace.render import pieces as P
from menace.render.canvas import Canvas
from menace.render.labels_layout import Rect
from menace.web import present

SETTINGS = {"tictactoe": MICHIE, "hexapawn": GARDNER, "nim": CLASSROOM}
STATIC = Path(__file__).resolve().parents[1] / "menace" / "web" / "static"


@pytest.fixture
def sqlite_url(db_path: Path, sqlite_template: Path) -> str:
    """The SQLite file of these tests, already at the schema's head (a copy of the migrated template:
    migrating it again cost each test 0.2-0.3 s of CPU). They are about pieces and sides, not about
    making a file; that a command makes one from nothing is tested where the file is the point."""
    shutil.copyfile(sqlite_template, db_path)
    return f"sqlite:///{db_path}"


def board_values(game: Game, seed: int = 1, games: int = 60) -> set[int]:
    """The cell values seen on the board in ``games`` random games."""
    rng, seen = random.Random(seed), set()
    for _ in range(games):
        state = game.initial()
        while True:
            seen |= set(state[: game.rows * game.cols])
            moves = game.legal_moves(state)
            if not moves:
                break
            state = game.play(state, rng.choice(moves))
    return seen - {0}


def test_the_settings_above_cover_every_game() -> None:
    assert set(SETTINGS) == set(game_names())


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_every_piece_a_board_holds_has_one_drawing_and_a_name(name: str) -> None:
    game = find_game(name)
    assert board_values(game) == set(game.pieces)
    names = [p.name for p in game.pieces.values()]
    assert len(set(names)) == len(names)
    drawings = [P.outline(p) for p in game.pieces.values()]
    assert all(drawings) and len(set(drawings)) == len(drawings)  # two pieces never look alike


def test_pawns_are_drawn_light_for_white_and_dark_for_black_and_sides_are_named_by_colour() -> None:
    game = find_game("hexapawn")
    white, black = (game.pieces[int(s)] for s in (Side.X, Side.O))
    assert white.shape is black.shape is PieceShape.PAWN
    assert {s.face for s in P.outline(white)} == {P.LIGHT} and {s.face for s in P.outline(black)} == {P.INK}
    assert game.side_names == {Side.X: "White", Side.O: "Black"}


def test_on_canvas_turns_a_pawn_the_right_way_up() -> None:
    """The labels' design has y up: the pawn's head is above its base."""
    canvas = Canvas(20, 20)
    P.on_canvas(canvas, find_game("hexapawn").pieces[1], lambda u, v: (10 + u, 10 + v), 9.0, 1.0)
    body, head = canvas.shapes
    assert head.radius is not None and head.points[0][1] > max(y for _, y in body.points) - 2
    assert min(y for _, y in body.points) < head.points[0][1]


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_a_label_draws_every_piece_of_its_box_the_one_way(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    game = find_game(name)
    boxes = build_boxes(game, SETTINGS[name])
    box = max(boxes, key=lambda b: sum(1 for v in b.position[: game.rows * game.cols] if v))
    drawn: list[Any] = []
    real = P.on_canvas
    monkeypatch.setattr(P, "on_canvas",
                        lambda canvas, piece, *a, **k: (drawn.append(piece), real(canvas, piece, *a, **k)))
    canvas = Canvas(53, 36)
    L._draw_label(canvas, game, box, Rect(0, 0, 53, 36), L.KitSpec("m", SETTINGS[name], game).colours, False)
    assert drawn == [game.pieces[v] for v in box.position[: game.rows * game.cols] if v]
    assert drawn  # the box holds pieces: the check above is no check otherwise


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_plots_draw_every_games_pieces(name: str, sqlite_menace: Invoke, tmp_path: Path) -> None:
    init = ["init", "--game", name] + (["--side", "both"] if name == "tictactoe" else [])
    sqlite_menace(*init)
    sqlite_menace("tournament", "-n", "20", "--seed", "1")
    game = find_game(name)
    ids = set()
    for what, extra in (("boxes", []), ("beads", ["--box", "3"])):
        out = tmp_path / f"{what}.svg"
        sqlite_menace("plot", what, "-o", str(out), *extra)
        found = set(re.findall(r'id="piece-([a-z-]+)"', out.read_text()))
        assert found, what
        ids |= found
    assert ids == {p.name.replace(" ", "-") for p in game.pieces.values()}


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_the_pages_are_sent_each_pieces_drawing(name: str) -> None:
    game = find_game(name)
    shape = present.shape_json(game)
    assert shape["pieces"] == P.pieces_json(game)
    assert set(shape["pieces"]) == {str(v) for v in game.pieces}
    for value, piece in shape["pieces"].items():
        assert piece["name"] == game.pieces[int(value)].name and piece["strokes"]
        assert piece["strokes"] == [{"kind": s.kind, "points": [list(p) for p in s.points], "radius": s.radius,
                                     "face": s.face, "edge": s.edge, "width": s.width}
                                    for s in P.outline(game.pieces[int(value)])]


def test_the_scripts_draw_pieces_from_the_description_not_from_letters() -> None:
    """No page script tells pieces apart by a game's letters (X, O, W, B, |)."""
    for path in STATIC.glob("*.js"):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"""glyph\s*===|glyphs\[""", source), path.name
    assert "shape.pieces" in (STATIC / "common.js").read_text(encoding="utf-8")


# -- one word for a side -----------------------------------------------------------------------

@pytest.mark.parametrize(("name", "init", "asked", "words"), [
    ("hexapawn", [], "white", ("White", "Black")),
    ("nim", ["--side", "second"], "first", ("first player", "second player")),
])
def test_a_side_the_machine_lacks_is_named_as_the_game_names_it(name: str, init: list[str], asked: str,
                                                                words: tuple[str, str], sqlite_menace: Invoke) -> None:
    sqlite_menace("init", "--game", name, *init)
    done = sqlite_menace("tournament", "--side", asked, "-n", "1", ok=False)
    assert done.exit_code == 2
    assert f"has no boxes for {words[0]}; it plays {words[1]}" in done.output, done.output


def test_check_names_a_hexapawn_side_by_its_colour(sqlite_menace: Invoke, sqlite_url: str) -> None:
    sqlite_menace("init", "--game", "hexapawn")
    query(sqlite_url, "UPDATE boxes SET side = 'X' WHERE number = 1")
    done = sqlite_menace("check", ok=False)
    assert done.exit_code != 0
    faults = [line for line in done.output.splitlines() if "box 1" in line]
    assert faults and any("White" in f and "Black" in f for f in faults), done.output
    assert not re.search(r"\b(side [XO]|[XO]'s box|where [XO] moves)\b", done.output), done.output


def test_a_two_sided_hexapawn_kit_names_its_sides_white_and_black(tmp_path: Path) -> None:
    from pdfread import page_text

    game = find_game("hexapawn")
    settings = Settings(**{**GARDNER.__dict__, "side": "both"})
    boxes = build_boxes(game, settings)
    out = tmp_path / "kit.pdf"
    L.write_pdf(out, boxes, L.KitSpec("both", settings, game))
    text = page_text(out.read_bytes())
    assert "(White)" in text and "(Black)" in text, text
    assert not re.search(r"\((X|O)\)|\b[XO] move \d", text), text


def test_operate_names_a_two_sided_hexapawn_shelf_by_colour() -> None:
    from menace.app.shelf import shelf_place

    game = find_game("hexapawn")
    boxes = build_boxes(game, Settings(**{**GARDNER.__dict__, "side": "both"}))
    assert str(shelf_place(boxes, 1, names=game.side_names)).startswith("White move 1 shelf")
