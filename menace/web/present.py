"""Library values as JSON for the pages: boards as game-generic data, boxes, series.

A board is sent as rows, columns and one glyph per cell; a bead as the cell it plays to, or a
``from`` -> ``to`` arrow for a game whose pieces move (Hexapawn), so the pages draw any game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from menace.app.machines import MachineSummary
from menace.app.series import LearningData
from menace.app.wall import BoxSeries, Wall
from menace.core.colours import DEFAULT_COLOURS, BeadColour, default_colours
from menace.core.game import Game, Move, State
from menace.core.learner import Box
from menace.core.pegasus import chances
from menace.render.beads import places_pieces, slot
from menace.render.pieces import pieces_json
from menace.render.text import curve_text, rule_text

JSON = dict[str, Any]


def colours_json(colours: Sequence[BeadColour] = DEFAULT_COLOURS) -> list[JSON]:
    """The bead colours in index order: letter, name and hex shade."""
    return [{"index": i, "letter": c.letter, "name": c.name, "hex": c.hex, "ink": c.ink} for i, c in enumerate(colours)]


def shape_json(game: Game) -> JSON:
    """How to draw the game's board: rows, columns, the glyph of each cell value, the drawing of each
    piece (:func:`menace.render.pieces.pieces_json`: the pages draw them as the labels and plots
    do), side names."""
    return {"game": game.name, "title": game.title, "rows": game.rows, "cols": game.cols,
            "grid": game.grid, "moves_on_board": game.moves_on_board, "move_count": game.move_count,
            "move_texts": [game.move_text(m) for m in range(game.move_count)],
            "glyphs": ["" if g == "." else g for g in game.glyphs], "pieces": pieces_json(game),
            "sides": {side.name: name for side, name in game.side_names.items()}}


def colours_for(game: Game, own: Sequence[BeadColour] | None) -> tuple[BeadColour, ...]:
    """A machine's own colours, else the standard set for its game (as the labels print them)."""
    return tuple(own) if own else default_colours(places_pieces(game))


def colour_index(game: Game, box_moves: Sequence[Move], move: Move,
                 colours: Sequence[BeadColour] = DEFAULT_COLOURS, position: State | None = None) -> int:
    """The colour of a bead, as the labels colour it: the square's colour in noughts and crosses;
    for a game whose pieces move, by the move's place in the box."""
    if position is not None:
        return slot(game, position, move) % len(colours)
    if game.move_count <= len(colours):
        return int(move)
    return sorted(box_moves).index(move) % len(colours)


def cells_of(game: Game, state: State) -> list[int]:
    """The board part of a state (a state may carry more, such as whose turn it is)."""
    return list(state[: game.rows * game.cols])


def bead_json(game: Game, box_moves: Sequence[Move], move: Move, count: float, initial: int | None = None,
              colours: Sequence[BeadColour] = DEFAULT_COLOURS, position: State | None = None) -> JSON:
    """One bead colour of a box: the move (a target cell, or ``from`` -> ``to``), count (a chance in %
    for a machine that keeps odds) and colour."""
    start, end = game.move_cells(move)
    index = colour_index(game, box_moves, move, colours, position)
    colour = colours[index]
    out: JSON = {"bead": move, "name": game.move_text(move), "from": start, "to": end, "count": count,
                 "colour": index, "letter": colour.letter, "hex": colour.hex, "ink": colour.ink,
                 "colour_name": colour.name}
    if initial is not None:
        out["initial"] = initial
    return out


def as_chances(beads: list[JSON]) -> list[JSON]:
    """A box's beads (:func:`bead_json`) of a machine that keeps odds (the Pegasus rule): each count
    becomes the move's chance in percent, to a tenth, marked ``percent`` for the page to write a %."""
    shares = chances([b["count"] for b in beads])
    return [{**b, "count": round(share, 1), "percent": True} for b, share in zip(beads, shares)]


def box_json(game: Game, box: Box, colours: Sequence[BeadColour] = DEFAULT_COLOURS) -> JSON:
    """One box: number, move, side, cells of its drawing, beads with counts and colours, empty flag."""
    moves = sorted(box.initial)
    total = sum(box.beads.get(m, 0) for m in moves)
    return {
        "number": box.number, "move": box.move_number, "side": box.side.name, "cells": cells_of(game, box.position),
        "caption": game.caption(box.position),
        "beads": [bead_json(game, moves, m, box.beads.get(m, 0), box.initial[m], colours, box.position)
                  for m in moves],
        "total": total, "empty": total == 0,
    }


BOX_FIELDS = ["number", "move", "side", "cells", "beads", "caption"]
BEAD_FIELDS = ["bead", "count", "colour", "initial"]
"""The wall sends each box as a row of :data:`BOX_FIELDS` and its beads as rows of :data:`BEAD_FIELDS`
(2,201 boxes in about a third of the bytes of named fields); a colour's letter, name and hex are in
the wall's ``colours`` by index, a move's cells in ``move_cells`` by move."""


def box_row(game: Game, box: Box, colours: Sequence[BeadColour], odds: bool = False) -> list[Any]:
    """One box of the wall as a row of :data:`BOX_FIELDS`; with ``odds`` (a machine learning by the
    Pegasus rule) each move's count and initial count are its chance in percent, to a tenth."""
    beads, initial, position, n = box.beads, box.initial, box.position, len(colours)
    if odds:
        now, start = chances([beads.get(m, 0) for m in sorted(initial)]), chances([initial[m] for m in sorted(initial)])
        return [box.number, box.move_number, box.side.name, cells_of(game, position),
                [[m, round(now[i], 1), game.colour_slot(position, m) % n, round(start[i], 1)]
                 for i, m in enumerate(sorted(initial))], game.caption(position)]
    # as colour_index with a position, without its calls per bead (2,201 boxes)
    rows = [[m, beads.get(m, 0), game.colour_slot(position, m) % n, initial[m]] for m in sorted(initial)]
    return [box.number, box.move_number, box.side.name, cells_of(game, position), rows, game.caption(position)]


def wall_json(wall: Wall) -> JSON:
    """The whole wall in one compact object: the board's shape, the colours, what each move does
    (``move_cells``: ``[from, to]``, ``from`` null where a piece is placed), every box as a row."""
    game = wall.game
    colours = colours_for(game, wall.colours)
    odds = wall.settings.pegasus is not None
    boxes = [box_row(game, box, colours, odds) for box in wall.boxes]
    return {
        "odds": odds,
        "machine": wall.machine, "games_played": wall.games_played, "shape": shape_json(game),
        "colours": colours_json(colours), "box_fields": BOX_FIELDS, "bead_fields": BEAD_FIELDS,
        "move_names": [game.move_text(m) for m in range(game.move_count)],
        "move_cells": [list(game.move_cells(m)) for m in range(game.move_count)], "boxes": boxes,
    }


def summary_json(s: MachineSummary) -> JSON:
    """A machine as ``menace stats`` shows it: ``odds`` for a machine of the Pegasus rule, which has no
    beads to count (``beads`` None, as ``stats`` shows none)."""
    sides = {side.name: name for side, name in s.game.side_names.items()}
    side = s.settings.side
    odds = s.settings.pegasus is not None
    return {
        "name": s.name, "game": s.game.name, "game_title": s.game.title, "preset": s.preset,
        "side_name": sides.get(side, "both" if side == "both" else str(side)),
        "created_at": s.created_at.isoformat(timespec="seconds"),
        "settings": s.settings.describe(), "side": s.settings.side, "boxes": s.boxes,
        "boxes_by_move": s.boxes_by_move, "beads": None if odds else s.beads, "odds": odds,
        "empty_boxes": s.empty_boxes, "games": s.games, "wins": s.wins, "draws": s.draws, "losses": s.losses,
    }


def box_series_json(game: Game, series: BoxSeries, colours: Sequence[BeadColour] = DEFAULT_COLOURS) -> JSON:
    """One box's beads over the games: one count list per colour, at the sampled games."""
    moves = sorted(series.box.initial)
    return {
        "box": box_json(game, series.box, colours), "games_played": series.games_played, "games": series.games,
        "odds": series.odds,
        "series": [{**bead_json(game, moves, m, col[-1] if col else 0, colours=colours, position=series.box.position),
                    "counts": col}
                   for m, col in zip(series.beads, series.counts)],
    }


def learning_json(d: LearningData) -> JSON:
    """The sampled learning curve (:func:`menace.app.history.learning_series`): the cumulative
    reinforcement from the range's first game at ``games``; the win/draw/loss shares of the last
    ``window`` games at ``rate_games``; totals over the range."""
    return {
        "machine": d.machine, "rule": rule_text(d.settings), "curve": curve_text(d.settings),
        "games_played": d.games_played, "wins": d.totals[0],
        "draws": d.totals[1], "losses": d.totals[2], "window": d.window, "first": d.first, "last": d.last,
        "games": d.games.tolist(), "cumulative": d.cumulative.tolist(), "rate_games": d.rate_games.tolist(),
        "win": np.round(d.win_rate, 4).tolist(), "draw": np.round(d.draw_rate, 4).tolist(),
        "loss": np.round(d.loss_rate, 4).tolist(),
        "opponents": [{"game": g, "opponent": o} for g, o in d.opponents],
    }
