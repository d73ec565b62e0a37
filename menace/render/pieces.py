"""The one drawing of each piece, for every picture: labels (PDF and SVG), plots, and the web pages.

A game says which pieces its cells hold (:attr:`menace.core.game.Game.pieces`: a cross, a white
pawn, a stick); this module says how each is drawn, once, as strokes in a cell's own units (the
cell's centre at 0, its sides at -0.5 and 0.5, y down). Each output turns the same strokes into its
own marks: :func:`on_canvas` for the printed kit, :func:`add_to_axes` for matplotlib,
:func:`pieces_json` for the pages' scripts (``M.pieceSvg`` and ``M.drawPieces`` in common.js). A
white pawn is the same pawn on a label, on ``plot boxes`` and on the wall.

>>> from menace.games import DEFAULT_GAME, find_game
>>> [s.kind for s in outline(find_game(DEFAULT_GAME).pieces[1])]
['line', 'line']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from menace.core.game import Game, Piece, PieceShape
from menace.render.canvas import Canvas

if TYPE_CHECKING:  # the printed kit draws pieces without loading matplotlib (a test checks)
    from matplotlib.axes import Axes
    from matplotlib.path import Path as MplPath

INK = "#222222"
"""Marks (crosses, noughts), the outlines of pawns and a dark pawn's body."""
LIGHT = "#ffffff"
WOOD = "#8a5a2b"
"""A stick."""

Point = tuple[float, float]


@dataclass(frozen=True)
class Stroke:
    """One part of a piece in cell units (centre 0, y down): a polyline, a closed polygon or a circle
    (``points[0]`` its centre), filled with ``face`` (None: not filled), outlined ``width`` wide."""

    kind: str
    """"line", "polygon" or "circle"."""
    points: tuple[Point, ...]
    face: str | None
    edge: str
    width: float
    """The outline's width, as a share of the cell's side."""
    radius: float = 0.0


def outline(piece: Piece) -> tuple[Stroke, ...]:
    """How ``piece`` is drawn, in order (a pawn's body, then its head over it)."""
    if piece.shape is PieceShape.CROSS:
        k = 0.26
        return (Stroke("line", ((-k, -k), (k, k)), None, INK, 0.08),
                Stroke("line", ((k, -k), (-k, k)), None, INK, 0.08))
    if piece.shape is PieceShape.NOUGHT:
        return (Stroke("circle", ((0.0, 0.0),), None, INK, 0.08, radius=0.27),)
    if piece.shape is PieceShape.STICK:
        return (Stroke("line", ((0.0, -0.42), (0.0, 0.42)), None, WOOD, 0.13),)
    face = LIGHT if piece.light else INK
    return (Stroke("polygon", ((-0.26, 0.32), (0.26, 0.32), (0.09, -0.02), (-0.09, -0.02)), face, INK, 0.03),
            Stroke("circle", ((0.0, -0.14),), face, INK, 0.03, radius=0.15))


_PT_PER_MM = 72 / 25.4


def on_canvas(canvas: Canvas, piece: Piece, at: Callable[[float, float], Point], cell: float, scale: float,
              y_up: bool = True) -> None:
    """Draw ``piece`` on a page: ``at(u, v)`` maps a point of the cell (its centre at 0, a side ``cell``
    design mm long) to the page's mm, ``scale`` the page's mm per design mm; ``y_up``: ``v`` grows
    upwards (the labels' design), so the piece is turned the right way up."""
    sign = -1.0 if y_up else 1.0

    def point(p: Point) -> Point:
        return at(p[0] * cell, sign * p[1] * cell)

    for s in outline(piece):
        width = s.width * cell * scale * _PT_PER_MM
        if s.kind == "line":
            canvas.line([point(p) for p in s.points], width, s.edge)
        elif s.kind == "polygon":
            canvas.polygon([point(p) for p in s.points], s.face, s.edge, width)
        else:
            canvas.circle(point(s.points[0]), s.radius * cell * scale, s.face, s.edge, width)


def _path(s: Stroke, cx: float, cy: float, cell: float) -> MplPath:
    from matplotlib.path import Path as MplPath
    if s.kind == "circle":
        (u, v), = s.points
        return MplPath.circle((cx + u * cell, cy + v * cell), s.radius * cell)
    vertices = [(cx + u * cell, cy + v * cell) for u, v in s.points]
    if s.kind == "polygon":
        return MplPath([*vertices, vertices[0]], closed=True)
    return MplPath(vertices)


def add_to_axes(ax: Axes, placed: Sequence[tuple[Piece, float, float]], cell: float, points_per_unit: float,
                zorder: float = 1.5) -> None:
    """Draw each ``(piece, x, y)`` centred at (x, y) in ``ax``'s data units, whose y axis points down
    (as the plots draw boards); ``cell`` is a cell's side in data units and ``points_per_unit`` the
    points one data unit takes on the figure (for the outlines' widths). Each part of each kind of
    piece is one collection, with the piece's name as its gid (``piece-white-pawn`` in an SVG)."""
    from matplotlib.collections import PatchCollection
    from matplotlib.patches import PathPatch

    parts: dict[tuple[str, int], tuple[Stroke, list[MplPath]]] = {}
    for piece, x, y in placed:
        for k, s in enumerate(outline(piece)):
            parts.setdefault((piece.name, k), (s, []))[1].append(_path(s, x, y, cell))
    for (name, _), (s, paths) in parts.items():
        collection = PatchCollection([PathPatch(p) for p in paths], facecolors=s.face or "none", edgecolors=s.edge,
                                     linewidths=s.width * cell * points_per_unit, zorder=zorder,
                                     capstyle="round" if s.kind == "line" else "butt")
        collection.set_gid("piece-" + name.replace(" ", "-"))
        ax.add_collection(collection)


def pieces_json(game: Game) -> dict[str, Any]:
    """The game's pieces for the pages, by cell value: name, terminal letter and strokes (cell units,
    y down), which the scripts draw as they are."""
    return {str(value): {"name": piece.name, "glyph": game.glyphs[value],
                         "strokes": [{"kind": s.kind, "points": [list(p) for p in s.points], "radius": s.radius,
                                      "face": s.face, "edge": s.edge, "width": s.width}
                                     for s in outline(piece)]}
            for value, piece in sorted(game.pieces.items())}
