"""Pictures of a machine's history: its beads, its learning curve, its wall of matchboxes.

Each plot is a pure *data* function (what the tests check: the series equal the history) and a
*render* function that draws the data with matplotlib's object API (no pyplot) and writes a
PNG, SVG or PDF, chosen by the file name's extension. Sizes and fonts are for a printed page
or a projector at the back of a hall; PDF and SVG carry no dates, so the same data gives the
same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import matplotlib
import numpy as np
import numpy.typing as npt
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Circle, Rectangle
from matplotlib.text import Text
from matplotlib.ticker import (
    FixedLocator,
    Formatter,
    FuncFormatter,
    MaxNLocator,
    NullLocator,
    PercentFormatter,
)
from matplotlib.transforms import Bbox

from menace.app.series import (
    BeadsData,
    BoxesData,
    LearningData,
    PlotError,
    bead_growth,
    dot_fraction,
)
from menace.core.colours import BeadColour, default_colours
from menace.core.game import Game, Piece, Result, State
from menace.core.numbers import plural
from menace.core.replay import BeadSeries
from menace.render import beads as bd
from menace.render import pieces
from menace.render.figures import FORMATS, save_figure
from menace.render.text import curve_text, rule_text

STYLE: dict[str, Any] = {
    "font.size": 16,
    "axes.titlesize": 19,
    "axes.labelsize": 17,
    "xtick.labelsize": 14,
    "ytick.labelsize": 14,
    "legend.fontsize": 14,
    "legend.title_fontsize": 14,
    "figure.titlesize": 21,
    "lines.linewidth": 3.0,
    "axes.linewidth": 1.4,
    "xtick.major.width": 1.4,
    "ytick.major.width": 1.4,
    "axes.grid": False,
    "savefig.bbox": "standard",  # a "tight" box from a user's settings would change the page size
    "svg.hashsalt": "menace",  # stable ids inside SVG files
    "pdf.fonttype": 42,
}

RESULT_WORDS = {Result.WIN: "wins", Result.DRAW: "draws", Result.LOSS: "losses"}
RESULT_COLOURS = {Result.WIN: "#009e73", Result.DRAW: "#0072b2", Result.LOSS: "#d55e00"}
CARDBOARD = "#f3e7cf"
EMPTY_BOX = "#f4b8a8"
EDGE = "#333333"
STICK = "#8a5a2b"
"""A stick of Nim's heap."""
BACKGROUND = "#dcdcdc"
MARKER = "#7f3c8d"
T = TypeVar("T")


def output_format(path: str | Path) -> str:
    """``png``, ``svg`` or ``pdf`` from the file name; :class:`PlotError` for anything else."""
    suffix = Path(path).suffix.lower()
    try:
        return FORMATS[suffix]
    except KeyError:
        raise PlotError(f"cannot write {Path(path).name!r}: end the file name in .png, .svg or .pdf") from None


@contextmanager
def _style() -> Iterator[None]:
    # Any: newer matplotlib types the keys as a Literal of every setting's name.
    with matplotlib.rc_context(cast(Any, STYLE)):
        yield


def save(fig: Figure, path: str | Path) -> Path:
    """Write ``fig`` in the format its extension names, with no dates inside; its titles first made
    to fit (:func:`legible`)."""
    legible(fig)
    return save_figure(fig, path, output_format(path))


def text_boxes(fig: Figure) -> list[tuple[Text, Bbox]]:
    """Every visible, non-empty text of ``fig`` (titles, labels, tick labels, legends, notes) with
    its extent in display units, as drawn."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    fig.draw_without_rendering()  # the layout and every text's place, nothing painted
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
    hidden: set[int] = set()  # the axes of a panel drawn without axes (a box's drawing, the key)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not ax.axison:
                hidden.update(id(t) for t in axis.findobj(Text))
                continue
            lo, hi = sorted(axis.get_view_interval())
            span = (hi - lo) * 1e-6
            locs = axis.get_majorticklocs()
            for tick, loc in zip(axis.get_major_ticks(len(locs)), locs):
                if not lo - span <= loc <= hi + span:  # a tick past the ends is not drawn
                    hidden.update((id(tick.label1), id(tick.label2)))
    out: list[tuple[Text, Bbox]] = []
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.get_figure() is fig and id(t) not in hidden:
            out.append((t, t.get_window_extent(renderer)))
    return out


def legible(fig: Figure, smallest: float = 7.0) -> None:
    """Shrink the titles (the figure's and each panel's) that run off the figure or into another
    text, a step at a time down to ``smallest`` points: a title of a billion games stays whole."""
    # matplotlib keeps the figure's title and a panel's side titles without a public getter
    found: list[Text | None] = [getattr(fig, "_suptitle", None)]
    for ax in fig.axes:
        found += [ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)]
    titles = [t for t in found if t is not None and t.get_text().strip()]
    if not titles:  # nothing to fit (the wall of boxes sets its own): no drawing just to measure
        return
    for _ in range(30):
        boxes = text_boxes(fig)
        frame = fig.bbox
        crowded = []
        for t in titles:
            box = next((b for u, b in boxes if u is t), None)
            if box is None:
                continue
            outside = box.x0 < frame.x0 - 0.5 or box.x1 > frame.x1 + 0.5 or box.y1 > frame.y1 + 0.5
            if outside or any(u is not t and box.overlaps(b) for u, b in boxes):
                crowded.append(t)
        shrinkable = [t for t in crowded if float(t.get_fontsize()) > smallest]
        if not shrinkable:
            return
        for t in shrinkable:
            box = next(b for u, b in boxes if u is t)
            # too wide for the figure: straight to the size that fits it; else a step smaller
            ratio = min(0.9, 0.98 * frame.width / box.width) if box.width > frame.width else 0.9
            t.set_fontsize(max(smallest, float(t.get_fontsize()) * ratio))




def compact(n: float) -> str:
    """A count short enough for a tick or a bead circle (five characters at most below a trillion):
    ``950``, ``9,999``, ``19.5k``, ``450k``, ``3.25M``, ``1bn``.

    >>> [compact(n) for n in (950, 9_999, 19_490, 450_000, 3_251_588, 999_999_999, 10**9)]
    ['950', '9,999', '19.5k', '450k', '3.25M', '1bn', '1bn']
    """
    a = abs(n)
    for unit, name, start in ((1e9, "bn", 999_500_000), (1e6, "M", 999_500), (1e3, "k", 9_999.5)):
        if a >= start:
            value = f"{n / unit:.3g}"
            return (value if "e" not in value else f"{n / unit:,.0f}") + name  # 1,000bn and more: whole
    return f"{n:,.0f}"


class CountFormatter(Formatter):
    """Counts on an axis in one unit for all its ticks (``0, 20k, 40k, ... 100k``, never ``90,000``
    beside ``100k``), with the decimals the ticks need to differ."""

    ticks: list[float] = []

    def set_locs(self, locs: Sequence[float]) -> None:
        self.ticks = [float(v) for v in locs]

    def __call__(self, x: float, pos: int | None = None) -> str:
        locs = self.ticks or [x]
        top = max(abs(v) for v in locs)
        unit, name = (1e9, "bn") if top >= 1e9 else (1e6, "M") if top >= 1e6 else (1e3, "k") if top >= 1e4 \
            else (1.0, "")
        if unit == 1.0:
            return f"{x:,.0f}"
        if x == 0:
            return "0"
        decimals = next((d for d in range(4) if all(abs(round(v / unit, d) * unit - v) < 1e-6 * unit for v in locs)),
                        3)
        return f"{x / unit:,.{decimals}f}{name}"


def GAMES() -> CountFormatter:  # noqa: N802 - reads as the constant it was
    """A formatter for game numbers and bead counts on one axis (a formatter belongs to its axis)."""
    return CountFormatter()



def _bead_label(game: Game, colour: BeadColour, move: int) -> str:
    return f"{colour.name} ({colour.letter}): {game.move_text(move)}"


def _palette(game: Game) -> tuple[BeadColour, ...]:
    return default_colours(bd.places_pieces(game))


def _draw_box(ax: Axes, game: Game, position: State, beads: dict[int, int], origin: tuple[float, float] = (0.0, 0.0),
              size: float = 3.0, lw: float = 3.0, letters: bool = True) -> None:
    """A box's drawing in data units: the grid, the pieces, and a coloured disc with its count per
    bead on the cell it plays (with an arrow from the pawn it moves, in a game where pieces move)."""
    x0, y0 = origin
    cell = size / max(game.rows, game.cols)
    colours = _palette(game)
    if game.grid:
        for i in range(1, game.cols):
            ax.plot([x0 + i * cell] * 2, [y0, y0 + game.rows * cell], color=EDGE, lw=lw, solid_capstyle="round")
        for i in range(1, game.rows):
            ax.plot([x0, x0 + game.cols * cell], [y0 + i * cell] * 2, color=EDGE, lw=lw, solid_capstyle="round")

    def centre(c: int) -> tuple[float, float]:
        r, k = divmod(c, game.cols)
        return x0 + (k + 0.5) * cell, y0 + (r + 0.5) * cell

    # The drawing's panel is about 2.2 inches across its ``size`` units (12 x 7 inch figure, a quarter
    # of its width): the pieces' outlines are sized for that.
    pieces.add_to_axes(ax, [(game.pieces[v], *centre(c)) for c, v in enumerate(position[:game.rows * game.cols]) if v],
                       cell, points_per_unit=2.2 * 72 / size, zorder=0.9)  # under the beads
    # A game whose moves are named (Nim): its caption's number under the sticks, a bead per move in a
    # row at the bottom.
    slot = size / max(3, game.move_count)
    if not game.moves_on_board:
        words = game.caption(position).split(" ")[0]
        ax.text(x0 + size / 2, y0 + (game.rows * cell + size - slot) / 2, words, ha="center", va="center",
                fontsize=26, fontweight="bold", color=EDGE)
    for m, count in beads.items():
        colour = bd.colour(game, colours, position, m)
        frm, to = game.move_cells(m)
        cx, cy = centre(to)
        radius = 0.36 * cell
        if not game.moves_on_board:
            cx, cy, radius, frm = x0 + (m + 0.5) * slot, y0 + size - slot / 2, 0.36 * slot, None
        if frm is not None:
            fx, fy = centre(frm)
            dx, dy = cx - fx, cy - fy
            cx, cy = cx - 0.3 * dx, cy - 0.3 * dy  # set back towards the pawn: two arrows into one cell part
            ax.annotate("", xy=(cx, cy), xytext=(fx + 0.3 * dx, fy + 0.3 * dy),
                        arrowprops={"arrowstyle": "-|>", "color": colour.hex, "lw": 3, "mutation_scale": 22})
        ax.add_patch(Circle((cx, cy), radius, facecolor=colour.hex, edgecolor=EDGE, lw=1.5))
        if letters:
            text = compact(count)  # at most five characters: it stays inside the circle
            ax.text(cx, cy, text, ha="center", va="center", fontsize={4: 11, 5: 9}.get(len(text), 15),
                    fontweight="bold", color=colour.ink)
    ax.set_xlim(x0 - 0.05, x0 + size + 0.05)
    ax.set_ylim(y0 + size + 0.05, y0 - 0.05)
    ax.set_aspect("equal")
    ax.axis("off")


# -- beads in one box --------------------------------------------------------------------------
LABEL_ROWS = 2
"""Opponent names stack in up to this many rows at the top before one is left out."""
LABEL_GAP = 0.16
"""The share of the axis width one opponent's name needs before the next in its row."""


def _mark_opponents(axes: Sequence[Axes], opponents: Sequence[tuple[int, str]], label_on: Axes,
                    games: int, origin: int = 0) -> None:
    """A dashed line where the opponent changes, and the opponent's name at the top.

    Names of close changes go into lower rows; one with no room in any row is left out (its
    line stays), so the names never print over each other.
    """
    row_end = [-1.0] * LABEL_ROWS
    for i, (first, opponent) in enumerate(opponents):
        if i:
            for ax in axes:
                ax.axvline(first - 0.5, color=MARKER, lw=2.2, ls="--")
        where = max(first - 0.5 - origin, 0) / max(games, 1)
        row = next((r for r in range(LABEL_ROWS) if where >= row_end[r]), None)
        if row is None:
            continue
        row_end[row] = where + LABEL_GAP
        # Above the plotting area, so that a name never covers the curve.
        label_on.annotate(f"vs {opponent}", xy=(max(first - 0.5, origin), 1.0), xycoords=("data", "axes fraction"),
                          xytext=(3, 3 + 18 * row), textcoords="offset points", ha="left", va="bottom",
                          fontsize=13, color=MARKER, fontweight="bold", annotation_clip=False)


MAX_POINTS = 4000
"""Points drawn per series at most: a million games sampled to what a page can show."""


def _sampled(series: BeadSeries, first: int, last: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Game numbers and counts (one row per colour) to draw: the points the history knows
    (:func:`~menace.app.series.bead_growth`), at most :data:`MAX_POINTS`."""
    games, counts = bead_growth(series, MAX_POINTS, first, last)
    return np.asarray(games, dtype=np.int64), np.asarray(counts, dtype=np.int64).reshape(len(games), -1).T


def render_beads(data: BeadsData, path: str | Path, first: int | None = None, last: int | None = None,
                 log: bool = False) -> Path:
    """A stacked area of the box's beads per colour over the games, beside the box's drawing.

    ``first``..``last`` narrows the games shown (so the first 50 of a long history can be seen);
    ``log`` puts the beads on a logarithmic scale. A machine with no games shows its starting box.
    """
    output_format(path)
    box = data.box
    played = data.games_played
    lo = max(0, first or 0)
    hi = min(played, last if last is not None else played)
    if lo > hi:
        raise PlotError(f"no games from {lo:,} to {hi:,}: {data.machine!r} has played {played:,}")
    with _style():
        fig = Figure(figsize=(12, 7), dpi=150, layout="constrained")
        grid = fig.add_gridspec(2, 2, width_ratios=[3, 1], height_ratios=[1, 1.25])
        ax = fig.add_subplot(grid[:, 0])
        drawing = fig.add_subplot(grid[0, 1])
        key = fig.add_subplot(grid[1, 1])
        x, ys = _sampled(data.series, lo, hi)
        odds = data.settings.pegasus is not None  # weights of the Pegasus rule: each move's chance
        if odds:
            if log:
                raise PlotError("a Pegasus machine's chances (0 to 100%) are drawn on a linear scale only")
            ys = ys * 100.0 / np.maximum(ys.sum(axis=0), 1)
        if len(x) == 1:  # no games yet: the starting box, as a band one game wide
            x, ys = np.array([0, 1], dtype=np.int64), np.repeat(ys, 2, axis=1)
        game = data.game
        colours = [bd.colour(game, _palette(game), box.position, m) for m in data.series.beads]
        # Straight from one known point to the next: a count is not held where the history does not
        # say it (a long history is known at its checkpoints, 20,000 games apart).
        polys = ax.stackplot(x, ys, colors=[c.hex for c in colours], edgecolor=EDGE, linewidth=1.2)
        ax.set_xlim(lo, max(hi, lo + 1))
        top = int(ys.sum(axis=0).max())
        if odds:
            ax.set_ylim(0, 100)
            ax.yaxis.set_major_locator(FixedLocator([0, 25, 50, 75, 100]))
        elif log:
            ax.set_yscale("symlog", linthresh=1)
            ax.set_ylim(0, max(top, 1) * 1.5)
            # the powers of ten from 1: a log scale has no 0 (the band below 1 is linear, unlabelled)
            ax.yaxis.set_major_locator(FixedLocator([10.0**k for k in range(len(str(max(top, 1))) + 1)]))
            ax.yaxis.set_minor_locator(NullLocator())
        else:
            ax.set_ylim(0, max(top * 1.05, 1))
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("games played")
        ax.set_ylabel("each move's chance (%)" if odds else "beads in the box" + (" (log scale)" if log else ""))
        ax.xaxis.set_major_formatter(GAMES())
        # powers of ten each in its own unit (1, 1,000, 10k, 1M); a linear axis in one unit for all
        if not odds:
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: compact(v)) if log else GAMES())
        ax.set_facecolor(BACKGROUND)  # white beads must show against the background
        ax.set_axisbelow(True)
        ax.grid(True, axis="y", color="white", lw=1.2)
        _mark_opponents([ax], [(g, o) for g, o in data.opponents if g <= hi], ax, max(hi - lo, 1), origin=lo)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        if (lo, hi) != (0, played):
            span = f"games {lo:,} to {hi:,}"
        else:
            span = f"over {played:,} game{'' if played == 1 else 's'}" if played else "as built (no games yet)"
        fig.suptitle(f"{'Chances' if odds else 'Beads'} in box {box.number} of {data.machine!r} {span}",
                     fontweight="bold")
        what = "the opening box, " if box.move_number == 1 and box.number == 1 else ""
        ax.set_title(f"{what}MENACE's move {box.move_number} ({data.game.side_names[box.side]} to play); "
                     f"rule {rule_text(data.settings)}{'' if odds else ' per bead'}", fontsize=15,
                     pad=(26 if len(data.opponents) == 1 else 44))  # room for the opponents' names above the plot
        shown = data.series.at(hi)
        if odds:  # each move's chance in whole percent, as the wall gives it
            total = max(sum(shown.values()), 1)
            shown = {m: round(100 * c / total) for m, c in shown.items()}
        _draw_box(drawing, game, box.position, shown)
        drawing.set_title(f"box {box.number} " + ("now" if hi == played else f"after game {hi:,}"), fontsize=15,
                          pad=(26 if len(data.opponents) == 1 else 44))
        handles = list(reversed(polys))  # the legend reads top to bottom like the stack
        labels = [_bead_label(game, c, m) for c, m in reversed(list(zip(colours, data.series.beads)))]
        key.legend(handles, labels, loc="upper center", frameon=False,
                   title=("colour" if odds else "bead") + ": its move on the drawing")
        key.axis("off")
        return save(fig, path)


# -- learning curve ----------------------------------------------------------------------------
def _thin(n: int) -> npt.NDArray[np.int64] | slice:
    return slice(None) if n <= MAX_POINTS * 4 else np.unique(np.linspace(0, n - 1, MAX_POINTS * 4).astype(np.int64))


def render_learning(data: LearningData, path: str | Path) -> Path:
    """Cumulative reinforcement above, rolling win/draw/loss rates below, opponents marked."""
    output_format(path)
    n = data.last
    with _style():
        fig = Figure(figsize=(12, 7), dpi=150, layout="constrained")
        top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[1.15, 1])
        games = data.games
        pick = _thin(len(games))
        top.plot(games[pick], data.cumulative[pick], color="#222222", lw=3.2)
        top.axhline(0, color="#888888", lw=1.2)
        top.set_ylabel(curve_text(data.settings).replace(" ", "\n", 2), fontsize=15)
        top.grid(True, alpha=0.3)
        pick = _thin(len(data.rate_games))
        for result, rate in ((Result.WIN, data.win_rate), (Result.DRAW, data.draw_rate),
                             (Result.LOSS, data.loss_rate)):
            bottom.plot(data.rate_games[pick], rate[pick], color=RESULT_COLOURS[result], lw=2.8,
                        label=RESULT_WORDS[result])
        bottom.set_ylim(-0.02, 1.02)
        bottom.yaxis.set_major_formatter(PercentFormatter(1.0))
        last = plural(data.window, "game") if data.window else "games"
        bottom.set_ylabel(f"share of the last\n{last}", fontsize=15)
        bottom.set_xlabel("games played")
        bottom.grid(True, alpha=0.3)
        bottom.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        bottom.set_xlim(data.first - 1, n + 1)
        bottom.xaxis.set_major_formatter(GAMES())
        top.yaxis.set_major_formatter(GAMES())
        _mark_opponents([top, bottom], data.opponents, top, max(n - data.first + 1, 1), origin=data.first - 1)
        bottom.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        top.yaxis.set_major_locator(MaxNLocator(integer=True))
        w, d, l_ = data.totals
        played = data.played
        if not played:  # a new machine: the axes it will fill, and why they are empty
            top.set_ylim(-1, 1)
            bottom.set_xlim(0, 1)
            top.text(0.5, 0.5, "no games yet", transform=top.transAxes, ha="center", va="center", fontsize=18,
                     color="#666666")
        fig.suptitle(f"How {data.machine!r} learnt: {plural(played, 'game')}, {w:,} won, {d:,} drawn, {l_:,} lost"
                     if played else f"How {data.machine!r} learnt: no games yet", fontweight="bold")
        return save(fig, path)


# -- the wall of matchboxes ----------------------------------------------------------------------
def render_boxes(data: BoxesData, path: str | Path) -> Path:
    """Every box as a small board, its beads as coloured dots (bigger: more beads)."""
    output_format(path)
    total = len(data.boxes)
    small = total <= 400
    cols = 16 if small else 40
    inch = 0.95 if small else 0.55  # inches per box
    pad, board = 0.08, 0.84  # a box's cell is 1 unit wide; its drawing ``board`` units
    # Heights in box units; the title and headers are sized in inches, as their fonts are.
    cell_h, header_h, title_h = 1.22, 0.7 / inch, 1.4 / inch
    rows = sum(-(-len(g) // cols) for _, g in data.groups)
    height = title_h + len(data.groups) * header_h + rows * cell_h + 0.2
    width_in = cols * inch + 0.4
    with _style():
        fig = Figure(figsize=(width_in, height * inch), dpi=150 if small else 100)
        ax = fig.add_axes((0.2 / width_in, 0, cols * inch / width_in, 1))
        ax.set_xlim(0, cols)
        ax.set_ylim(height, 0)
        ax.axis("off")
        square = board / 3 * inch * 72  # points per square of a drawing
        full = (0.9 * square) ** 2  # scatter sizes are areas in points squared
        slot = board / max(3, data.game.move_count)  # a named move's bead (Nim), in a row under the drawing
        if not data.game.moves_on_board:
            full = (0.6 * slot * inch * 72) ** 2
        font = 10 if small else 6.5
        segments: list[list[tuple[float, float]]] = []
        trays: list[Rectangle] = []
        tray_colours: list[str] = []
        placed: list[tuple[Piece, float, float]] = []
        dots: tuple[list[float], list[float], list[float], list[str]] = ([], [], [], [])
        rings: tuple[list[float], list[float]] = ([], [])
        arrows: list[list[tuple[float, float]]] = []
        arrow_colours: list[str] = []
        game = data.game
        colours = _palette(game)
        played = plural(data.games_played, "game")
        ax.text(0, 0.1 / inch, f"All {total:,} matchboxes of {data.machine!r} after {played}",
                fontsize=22 if small else 30, fontweight="bold", va="top")
        where = ("Each bead colour sits on the square it plays" if bd.places_pieces(game)
                 else "Each bead colour is a move, in a row under the drawing" if not game.moves_on_board
                 else "Each bead colour is an arrow from the pawn it moves")
        if data.odds:  # the Pegasus rule: weights of odds (about 4.3 billion each at the start), not beads
            where = where.replace("bead colour", "colour")
            key = (f"{where}; a dot's area is the move's chance, the box's favourite move a full dot.\n"
                   "Above each box: its number (the Pegasus program's rule keeps each move's odds). "
                   "Grey diamond: a move it no longer plays (0%).")
        else:
            key = (f"{where}; a dot's area is its number of beads, the box's favourite colour a full dot.\n"
                   "Above each box: its number and its beads in all. Grey diamond: no beads of that colour "
                   "left. Red box: empty, MENACE resigns there.")
        ax.text(0, 0.66 / inch, key, fontsize=13 if small else 17, va="top", color="#333333", linespacing=1.4)
        y = title_h
        for move, group in data.groups:
            boxes_word = "box" if len(group) == 1 else "boxes"
            ax.text(0, y + header_h * 0.55, f"MENACE's move {move}: {len(group):,} {boxes_word}",
                    fontsize=16 if small else 20, fontweight="bold", va="center")
            y += header_h
            for i, box in enumerate(group):
                r, c = divmod(i, cols)
                x0, y0 = c + pad, y + r * cell_h + 0.3
                trays.append(Rectangle((x0 - pad * 0.6, y0 - 0.28), board + pad * 1.2, board + 0.33))
                tray_colours.append(EMPTY_BOX if box.total == 0 else CARDBOARD)
                ax.text(x0 - 0.02, y0 - 0.04, f"{box.number}", ha="left", va="bottom", fontsize=font,
                        fontweight="bold", color="#222222")
                if not data.odds:  # a Pegasus box's weights add up to nothing a person counts
                    ax.text(x0 + board + 0.02, y0 - 0.04, f"{box.total:,}", ha="right", va="bottom",
                            fontsize=font * 0.9, color="#6b5a3a")
                most = max(box.beads.values(), default=0)
                step = board / max(game.rows, game.cols)
                if game.grid:
                    for k in range(1, game.cols):
                        segments.append([(x0 + k * step, y0), (x0 + k * step, y0 + game.rows * step)])
                    for k in range(1, game.rows):
                        segments.append([(x0, y0 + k * step), (x0 + game.cols * step, y0 + k * step)])
                if not game.moves_on_board:  # the caption's number between the sticks and the beads
                    ax.text(x0 + board / 2, y0 + (game.rows * step + board - slot) / 2,
                            game.caption(box.position).split(" ")[0], ha="center", va="center",
                            fontsize=font * 1.4, fontweight="bold", color=EDGE)

                def centre(cell: int, x0: float = x0, y0: float = y0, step: float = step) -> tuple[float, float]:
                    sy, sx = divmod(cell, game.cols)
                    return x0 + (sx + 0.5) * step, y0 + (sy + 0.5) * step

                for cell in range(game.rows * game.cols):
                    value = box.position[cell]
                    if value:
                        placed.append((game.pieces[value], *centre(cell)))
                for m, count in box.beads.items():
                    frm, to = game.move_cells(m)
                    cx, cy = centre(to)
                    colour = bd.colour(game, colours, box.position, m).hex
                    size = full
                    if not game.moves_on_board:  # a named move: its bead in a row at the bottom
                        cx, cy, frm = x0 + (m + 0.5) * slot, y0 + board - slot / 2, None
                    if frm is not None:  # an arrow's shaft from the pawn; the dot set back in the cell
                        fx, fy = centre(frm)
                        tx, ty = cx, cy
                        cx, cy = tx - 0.3 * (tx - fx), ty - 0.3 * (ty - fy)
                        arrows.append([(fx + 0.3 * (tx - fx), fy + 0.3 * (ty - fy)), (cx, cy)])
                        arrow_colours.append(colour)
                        size = full * 0.35  # smaller dots, so that the arrows and pawns show
                    if count:
                        dots[0].append(cx)
                        dots[1].append(cy)
                        dots[2].append(size * dot_fraction(count, most))
                        dots[3].append(colour)
                    else:
                        rings[0].append(cx)
                        rings[1].append(cy)
            y += -(-len(group) // cols) * cell_h
        ax.add_collection(PatchCollection(trays, facecolors=tray_colours, edgecolors="#b8a27a", linewidths=0.8))
        ax.add_collection(LineCollection(segments, colors=EDGE, linewidths=1.2 if small else 0.7))
        ax.add_collection(LineCollection(arrows, colors=arrow_colours, linewidths=4.0 if small else 2.0, zorder=2))
        pieces.add_to_axes(ax, placed, board / max(game.rows, game.cols), points_per_unit=inch * 72)
        # A small grey diamond, not a ring: a ring reads as an O on the board.
        ax.scatter(*rings, s=(0.3 * square) ** 2, marker="D", facecolors="#d0d0d0", edgecolors="#a0a0a0",
                   linewidths=1.0)
        ax.scatter(dots[0], dots[1], s=dots[2], c=dots[3], edgecolors=EDGE, linewidths=0.8, zorder=3)
        return save(fig, path)
