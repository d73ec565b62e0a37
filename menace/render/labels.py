"""The build kit drawn: printable matchbox labels, shopping list, fill list and shelf map, as
one PDF or one SVG per label.

Drawing follows the geometry of :mod:`menace.render.labels_layout` (re-exported here) with
matplotlib's object API on a page-sized figure whose data units are millimetres, so a label
printed at 100% is exactly the size asked for.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import matplotlib as mpl
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.collections import PatchCollection, PathCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Circle, Patch, PathPatch, Polygon, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.text import Text
from matplotlib.textpath import TextPath, TextToPath
from matplotlib.transforms import Affine2D, IdentityTransform

from menace.app.shelf import SHELF_WIDTH
from menace.core.colours import BeadColour
from menace.core.game import Game, Move
from menace.core.learner import Box
from menace.render import beads as bd
from menace.render.labels_layout import (
    _BOARD,
    _BODY_TOP,
    _CLEAR,
    _FILL_GUTTER,
    _MONO_ADVANCE,
    _PAD,
    _SHELF_GAP,
    _TEXT_X,
    A4,
    A4_21,
    BEAD_CHOICES,
    DEFAULT_LABEL,
    DESIGN_HEIGHT,
    DESIGN_WIDTH,
    EDGE,
    FILL_FONT,
    FILL_ROW,
    HEADER,
    LETTER,
    MARK_GAP,
    MARK_LENGTH,
    MIN_SCALE,
    MM_PER_INCH,
    MM_PER_PT,
    PAPERS,
    SHEETS,
    SHELF_CELL,
    SHELF_HEADING,
    KitSpec,
    KitSummary,
    LabelLayoutError,
    LabelSize,
    LabelSlot,
    Line,
    ListEntry,
    ListPage,
    Margins,
    Page,
    Paper,
    Rect,
    ShelfRow,
    ShoppingLine,
    ShoppingList,
    StickerSheet,
    _design_scale,
    _fill_row_text,
    _fill_width,
    _mm,
    _Plan,
    _plan,
    check_label,
    check_readable,
    fill_list_pages,
    fill_text,
    find_paper,
    find_sheet,
    grid_capacity,
    layout,
    move_groups,
    parse_label_size,
    shelf_map_pages,
    shopping_list,
)

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

# Settings forced while drawing, whatever a user's matplotlibrc says: the page must be the
# paper and nothing else ("tight" would crop it), the fonts the ones shipped with matplotlib.
_RC: dict[RcKeyType, Any] = {
    "savefig.bbox": "standard",
    "savefig.facecolor": "white",
    "savefig.edgecolor": "white",
    "savefig.transparent": False,
    "pdf.fonttype": 42,
    "pdf.compression": 6,
    "svg.fonttype": "path",
    "svg.hashsalt": "menace-labels",
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.monospace": ["DejaVu Sans Mono"],
    "text.usetex": False,
    "path.sketch": None,
    "axes.unicode_minus": True,
}


@contextmanager
def _rc_fixed() -> Iterator[None]:
    """Matplotlib's own defaults plus :data:`_RC`; the caller's settings come back afterwards."""
    with mpl.rc_context():
        mpl.rcdefaults()
        mpl.rcParams.update(_RC)
        yield


def write_pdf(out: str | Path | IO[bytes], boxes: Sequence[Box], spec: KitSpec,
              progress: Callable[[int, int], None] | None = None) -> KitSummary:
    """Write the whole kit as one PDF: cover, shopping list, labels, fill list, shelf map.

    The same boxes and spec give a byte-identical file (no dates are written). ``progress(done,
    total)`` is called after each page.
    """
    plan = _plan(boxes, spec)
    shopping = shopping_list(spec.game, boxes, spec.colours, spec.spare_percent,
                             "initial" if spec.beads == "start" else "now")
    by_number = {b.number: b for b in boxes}
    metadata = {
        "Title": f"MENACE build kit: {spec.machine}",
        "Subject": "Matchbox labels, shopping list, fill list and shelf map",
        "Creator": "menace labels",
        "CreationDate": None,
        "ModDate": None,
    }

    def pages(f: str | Path | IO[bytes]) -> None:
        done = 0

        def save(fig: Figure) -> None:
            nonlocal done
            pdf.savefig(fig)
            done += 1
            if progress is not None:
                progress(done, plan.total)

        with _rc_fixed(), PdfPages(f, metadata=metadata) as pdf:
            save(_cover_page(boxes, spec, plan, shopping))
            save(_shopping_page(boxes, spec, plan, shopping))
            for page in plan.labels:
                save(_label_page(page, by_number, spec, plan))
            for n, fill_page in enumerate(plan.fill):
                save(_fill_page(fill_page, n, boxes, spec, plan))
            for n, shelf_page in enumerate(plan.shelves):
                save(_shelf_page(shelf_page, n, boxes, spec, plan))

    if isinstance(out, (str, Path)):
        from menace.app.files import write_with

        write_with(out, pages)  # a temporary file beside the target, renamed over it
    else:
        pages(out)
    path = Path(out) if isinstance(out, (str, Path)) else None
    last_label = plan.first_label_page + len(plan.labels) - 1
    return KitSummary(plan.total, (plan.first_label_page, last_label), len(boxes), shopping, path)


def svg_name(box: Box, count: int) -> str:
    """``box-0017.svg``: zero-padded so the files sort in box order."""
    return f"box-{box.number:0{max(4, len(str(count)))}d}.svg"


def write_svgs(folder: str | Path, boxes: Sequence[Box], spec: KitSpec,
               progress: Callable[[int, int], None] | None = None) -> KitSummary:
    """One SVG per box in ``folder`` (made if missing), each exactly the label's size.

    The label's outline is drawn as a hairline, for a cutter to follow. ``progress(done, total)`` is
    called after each file.
    """
    if not boxes:
        raise LabelLayoutError("the machine has no boxes")
    label = spec.label
    check_readable(label)
    target = Path(folder)
    from menace.app.files import write_text

    if target.exists() and not target.is_dir():
        raise LabelLayoutError(f"{target} is a file: give a folder for the SVG labels")
    target.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    two_sided = len({b.side for b in boxes}) > 1
    with _rc_fixed():
        for box in sorted(boxes, key=lambda b: b.number):
            fig, ax = _figure(label.width, label.height)
            canvas = _Canvas()
            rect = Rect(0, 0, label.width, label.height)
            _draw_label(canvas, ax, spec.game, box, rect, spec.colours, two_sided, spec.fill(box))
            canvas.rect(rect, lw=0.25, colour="#000000", inset=0.125)
            canvas.flush(ax)
            path = target / svg_name(box, len(boxes))
            buffer = io.StringIO()
            fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "menace labels"})
            write_text(path, _size_in_mm(buffer.getvalue(), label))
            files.append(path)
            if progress is not None:
                progress(len(files), len(boxes))
    shopping = shopping_list(spec.game, boxes, spec.colours, spec.spare_percent,
                             "initial" if spec.beads == "start" else "now")
    return KitSummary(0, (0, 0), len(files), shopping, target, tuple(files))


def _size_in_mm(svg: str, label: LabelSize) -> str:
    """State the SVG's size in millimetres (matplotlib writes points), as cutters expect."""
    size = f'width="{_mm(label.width)}mm" height="{_mm(label.height)}mm"'
    return re.sub(r'width="[\d.]+pt" height="[\d.]+pt"', size, svg, count=1)


# -- drawing ------------------------------------------------------------------------------------------
def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure exactly ``width`` x ``height`` mm with one axes covering it, data units in mm."""
    fig = Figure(figsize=(width / MM_PER_INCH, height / MM_PER_INCH), dpi=72)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return fig, ax


class _Canvas:
    """Collects a page's lines, shapes and label text and adds them as a few collections (fast to draw).

    Text goes in as one :class:`_TextBatch`: a matplotlib ``Text`` per word costs about two
    milliseconds to build, lay out and draw, and a page of labels has hundreds of words.
    """

    def __init__(self) -> None:
        self.lines: dict[tuple[float, str, str], list[list[tuple[float, float]]]] = {}
        self.patches: list[tuple[Patch, str, str, float]] = []
        self.texts: list[_Words] = []

    def text(self, x: float, y: float, words: str, size: float, ha: str = "left", va: str = "baseline",
             weight: str = "normal", color: str = "#000000", family: str = "DejaVu Sans") -> None:
        """``words`` at ``size`` points anchored at (x, y) mm, as ``Axes.text`` would place them."""
        self.texts.append(_Words(x, y, words, _font(family, round(size, 3), weight), ha, va, color))

    def line(self, points: Sequence[tuple[float, float]], lw: float, colour: str = "#000000",
             style: str = "solid") -> None:
        self.lines.setdefault((round(lw, 4), colour, style), []).append(list(points))

    def rect(self, r: Rect, lw: float, colour: str = "#000000", inset: float = 0.0) -> None:
        x0, y0, x1, y1 = r.x + inset, r.y + inset, r.right - inset, r.top - inset
        self.line([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], lw, colour)

    def patch(self, patch: Patch, face: str, edge: str = "#000000", lw: float = 0.0) -> None:
        self.patches.append((patch, face, edge, lw))

    def flush(self, ax: Axes) -> None:
        # The lines of one style become one compound path: a page draws a handful of paths instead
        # of thousands (each costs a fraction of a millisecond to write).
        for (lw, colour, style), segments in self.lines.items():
            ax.add_artist(PathPatch(_polylines(segments), fill=False, edgecolor=colour, linewidth=lw,
                                    linestyle=style, capstyle="butt", joinstyle="miter", zorder=1))
        if self.patches:
            ax.add_collection(PatchCollection(
                [p for p, *_ in self.patches], match_original=False, zorder=2,
                facecolors=[f for _, f, _, _ in self.patches], edgecolors=[e for _, _, e, _ in self.patches],
                linewidths=[w for *_, w in self.patches],
            ))
        if self.texts:
            ax.add_artist(_TextBatch(self.texts))
        self.lines, self.patches, self.texts = {}, [], []


def _polylines(segments: Sequence[Sequence[tuple[float, float]]]) -> MplPath:
    """One path made of every polyline in ``segments``."""
    vertices = [point for segment in segments for point in segment]
    codes = [code for segment in segments
             for code in [MplPath.MOVETO] + [MplPath.LINETO] * (len(segment) - 1)]
    return MplPath(vertices, codes)


@dataclass(frozen=True)
class _Words:
    x: float
    y: float
    words: str
    font: FontProperties
    ha: str
    va: str
    color: str


@functools.lru_cache(maxsize=64)
def _font(family: str, size: float, weight: str) -> FontProperties:
    return FontProperties(family=family, size=size, weight=weight)


_CACHED_WORDS = 20_000
"""Distinct words whose placement and outline a process keeps (a kit of 2,201 labels has a few thousand)."""


class _TextBatch(Artist):
    """Many words drawn straight through the renderer, placed exactly as ``Text`` would place them.

    The offset from the anchor to the start of the baseline comes from matplotlib's own layout, once
    per font, alignment and *shape* of the words: words aligned left need only their letters' heights
    (so the set of letters stands for them), and a number only its count of digits (the digits of the
    fonts used here are all one width).

    Words that appear more than once on a page (a bead's letter in its dot, ``UP``, ``4×W white``)
    are drawn as their glyphs' outline, defined once per page and placed at each anchor (a PDF form
    XObject used many times); the rest as text. A page of labels thus sets a few hundred strings
    instead of thousands, each of which costs matplotlib about a millisecond.
    """

    _offsets: dict[tuple[str, FontProperties, str, str], tuple[float, float]] = {}
    _outlines: dict[tuple[str, FontProperties, str, str], MplPath] = {}

    def __init__(self, words: list[_Words]) -> None:
        super().__init__()
        self.words = words
        self.set_zorder(3)

    def _offset(self, renderer: Any, item: _Words) -> tuple[float, float]:
        if (item.ha, item.va) == ("left", "baseline"):
            return 0.0, 0.0
        if item.words.isdigit():
            shape = "0" * len(item.words)
        elif item.ha == "left":
            shape = "".join(sorted(set(item.words)))
        else:
            shape = item.words
        key = (shape, item.font, item.ha, item.va)
        offset = self._offsets.get(key)
        if offset is None:
            if len(self._offsets) >= _CACHED_WORDS:
                self._offsets.clear()
            probe = Text(0.0, 0.0, shape, fontproperties=item.font, ha=item.ha, va=item.va,
                         transform=IdentityTransform())
            figure = self.figure
            assert figure is not None
            probe.set_figure(figure)
            # matplotlib's own placement of the first line (a private method: matplotlib 3.11 gives
            # (line, metrics, (x, y)), earlier versions (line, (w, h), x, y); both are read).
            _, lines, _ = probe._get_layout(renderer)  # type: ignore[attr-defined]
            first = lines[0]
            x, y = (first[2], first[3]) if len(first) == 4 else first[2]
            offset = self._offsets[key] = (float(x), float(y))
        return offset

    def _outline(self, renderer: Any, item: _Words) -> MplPath:
        """The words' glyphs as one path in display units around the anchor (0, 0)."""
        key = (item.words, item.font, item.ha, item.va)
        outline = self._outlines.get(key)
        if outline is None:
            if len(self._outlines) >= _CACHED_WORDS:  # a long-lived server draws many machines' kits
                self._outlines.clear()
            dx, dy = self._offset(renderer, item)
            per_point = renderer.points_to_pixels(1.0)
            glyphs = TextPath((0.0, 0.0), item.words, prop=item.font)
            # Curves flattened finely (to 1/8 point): matplotlib measures a path of straight segments in
            # one vectorised step, but walks every Bézier curve in Python each time the path is used.
            fine = 8.0
            rings = glyphs.to_polygons(Affine2D().scale(fine * per_point), closed_only=True)
            outline = MplPath.make_compound_path(*(MplPath(ring, closed=True) for ring in rings))
            outline = self._outlines[key] = outline.transformed(Affine2D().scale(1 / fine).translate(dx, dy))
        return outline

    def draw(self, renderer: Any) -> None:
        if not self.get_visible():
            return
        to_display = self.get_transform()
        anchors = to_display.transform([(w.x, w.y) for w in self.words])
        uses: dict[tuple[str, FontProperties, str, str, str], list[tuple[float, float]]] = {}
        first: dict[tuple[str, FontProperties, str, str, str], _Words] = {}
        for item, (x, y) in zip(self.words, anchors):
            key = (item.words, item.font, item.ha, item.va, item.color)
            uses.setdefault(key, []).append((x, y))
            first.setdefault(key, item)
        gc = renderer.new_gc()
        figure = self.figure
        assert figure is not None
        for key, points in uses.items():
            item = first[key]
            if len(points) == 1 or not item.words.strip():
                for x, y in points:
                    dx, dy = self._offset(renderer, item)
                    gc.set_foreground(item.color)
                    renderer.draw_text(gc, x + dx, y + dy, item.words, item.font, 0.0, ismath=False)
                continue
            stamps = PathCollection([self._outline(renderer, item)], offsets=points,
                                    offset_transform=IdentityTransform(), transform=IdentityTransform(),
                                    facecolors=[item.color], edgecolors="none", linewidths=[0.0])
            stamps.set_figure(figure)
            stamps.draw(renderer)
        gc.restore()
        self.stale = False


def _ink_on(hex_colour: str) -> str:
    """Black or white, whichever reads better on ``hex_colour``."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b >= 140 else "#ffffff"



def _draw_label(canvas: _Canvas, ax: Axes, game: Game, box: Box, rect: Rect, colours: Sequence[BeadColour],
                two_sided: bool, fill: dict[Move, int] | None = None) -> None:
    """One label; ``fill`` is the beads listed on it (default: the box's first beads).

    The drawing always marks every move of the box's first beads: a colour that has run out may
    come back (a refilled box), and the label keeps saying what each colour means.
    """
    fill = box.initial if fill is None else fill
    s = _design_scale(LabelSize(rect.width, rect.height))
    ox = rect.x + (rect.width - DESIGN_WIDTH * s) / 2
    oy = rect.y + (rect.height - DESIGN_HEIGHT * s) / 2

    def at(u: float, v: float) -> tuple[float, float]:
        return ox + u * s, oy + v * s

    right = DESIGN_WIDTH - _PAD + (rect.width / s - DESIGN_WIDTH) / 2

    def text(u: float, v: float, words: str, size: float, fit: bool = False, **kw: Any) -> None:
        if fit:  # shrink a little, then shorten, so that the line ends inside the label
            words, size = _fit(words, size, (right - u) * s, s, kw.get("weight", "normal"))
        x, y = at(u, v)
        canvas.text(x, y, words, size * s, **kw)

    # The drawing: the board's grid, the pieces as they stand, and every bead of the box: a dot on
    # the square it plays (a game that places pieces) or an arrow from the pawn it moves.
    b0 = _PAD
    cell = _BOARD / max(game.rows, game.cols)
    for i in range(1, game.cols):
        canvas.line([at(b0 + i * cell, b0), at(b0 + i * cell, b0 + game.rows * cell)], 1.1 * s)
    for i in range(1, game.rows):
        canvas.line([at(b0, b0 + i * cell), at(b0 + game.cols * cell, b0 + i * cell)], 1.1 * s)

    def centre(c: int) -> tuple[float, float]:
        row, col = divmod(c, game.cols)
        return b0 + (col + 0.5) * cell, b0 + (game.rows - 1 - row + 0.5) * cell

    k = 0.27 * cell
    for c in range(game.rows * game.cols):
        cu, cv = centre(c)
        value = box.position[c]
        mark = game.glyphs[value] if value else ""
        if mark == "X":
            canvas.line([at(cu - k, cv - k), at(cu + k, cv + k)], 1.8 * s)
            canvas.line([at(cu - k, cv + k), at(cu + k, cv - k)], 1.8 * s)
        elif mark == "O":
            canvas.patch(Circle(at(cu, cv), k * s), "none", "#000000", 1.8 * s)
        elif mark:  # a pawn, head and base: white for the first player, black for the second
            face = "#ffffff" if value == 1 else "#000000"
            canvas.patch(Polygon([at(cu - 0.26 * cell, cv - 0.32 * cell), at(cu + 0.26 * cell, cv - 0.32 * cell),
                                  at(cu + 0.09 * cell, cv + 0.02 * cell), at(cu - 0.09 * cell, cv + 0.02 * cell)],
                                 closed=True), face, "#000000", 0.8 * s)
            canvas.patch(Circle(at(cu, cv + 0.14 * cell), 0.15 * cell * s), face, "#000000", 0.8 * s)
    for m, n in sorted(box.initial.items()):
        if n <= 0:
            continue
        colour = bd.colour(game, colours, box.position, m)
        frm, to = game.move_cells(m)
        tu, tv = centre(to)
        if frm is None:
            canvas.patch(Circle(at(tu, tv), 0.36 * cell * s), colour.hex, "#000000", 0.6 * s)
            text(tu, tv - 0.05, colour.letter, 9.0, ha="center", va="center_baseline", weight="bold",
                 color=_ink_on(colour.hex))
            continue
        fu, fv = centre(frm)
        du, dv = tu - fu, tv - fv
        length = (du * du + dv * dv) ** 0.5
        ux, uy = du / length, dv / length
        # The arrow ends in a lettered disc inside the cell it moves to, set back towards the pawn:
        # two arrows into one cell come from different sides, so their letters never meet.
        start = (fu + ux * 0.36 * cell, fv + uy * 0.36 * cell)
        mu, mv = tu - ux * 0.3 * cell, tv - uy * 0.3 * cell
        radius = 1.45
        tip = (mu - ux * radius, mv - uy * radius)
        base = (tip[0] - ux * 1.9, tip[1] - uy * 1.9)
        canvas.line([at(*start), at(*base)], 1.5 * s, colour.hex)
        canvas.patch(Polygon([at(*tip), at(base[0] - uy * 1.2, base[1] + ux * 1.2),
                              at(base[0] + uy * 1.2, base[1] - ux * 1.2)], closed=True), colour.hex, "#000000",
                     0.3 * s)
        canvas.patch(Circle(at(mu, mv), radius * s), colour.hex, "#000000", 0.4 * s)
        text(mu, mv - 0.05, colour.letter, 5.6, ha="center", va="center_baseline", weight="bold",
             color=_ink_on(colour.hex))
    # The UP mark over the drawing's top edge.
    mid = b0 + _BOARD / 2
    top = DESIGN_HEIGHT - _PAD
    canvas.patch(Polygon([at(mid - 4.6, top - 2.6), at(mid - 2.6, top - 2.6), at(mid - 3.6, top - 0.2)],
                         closed=True), "#000000")
    text(mid - 2.0, top - 1.4, "UP", 7.0, ha="left", va="center", weight="bold")
    # Box number, move, then the beads: count, letter and colour name, one colour a line.
    text(_TEXT_X, top + 0.2, f"{box.number}", 19.0, fit=True, ha="left", va="top", weight="bold")
    side = f" · {game.side_names[box.side]}" if two_sided else ""
    beads = sum(fill.values())
    text(_TEXT_X, top - 7.6, f"move {box.move_number}{side} · {beads} bead{'' if beads == 1 else 's'}", 6.0,
         fit=True, ha="left",
         va="top", color="#333333")
    held = sorted(bd.by_slot(game, box, {m: n for m, n in fill.items() if n}).items())
    room_top, room_bottom = top - 10.8, _PAD
    pitch = min(3.2, (room_top - room_bottom) / max(1, len(held)))
    font = min(6.4, pitch / MM_PER_PT * 0.82)
    for i, (slot, n) in enumerate(held):
        colour = colours[slot % len(colours)]
        v = room_top - (i + 0.5) * pitch
        canvas.patch(Circle(at(_TEXT_X + 1.0, v), min(1.05, pitch * 0.36) * s), colour.hex, "#000000", 0.4 * s)
        text(_TEXT_X + 2.6, v, f"{n}×{colour.letter} {colour.name}", font, fit=True, ha="left",
             va="center_baseline")


_MEASURE = TextToPath()


@functools.lru_cache(maxsize=4096)
def _text_width(words: str, size: float, weight: str) -> float:
    """Width in mm of ``words`` set in DejaVu Sans at ``size`` points."""
    prop = FontProperties(family="DejaVu Sans", size=size, weight=weight)
    return _MEASURE.get_text_width_height_descent(words, prop, ismath=False)[0] * MM_PER_PT


def _fit(words: str, size: float, width: float, scale: float, weight: str) -> tuple[str, float]:
    """``words`` and a design font size that fit ``width`` mm at ``scale``: a little smaller, else cut short."""
    need = _text_width(words, size * scale, weight)
    if need <= width:
        return words, size
    if width / need >= 0.85:
        return words, size * width / need
    while len(words) > 1 and _text_width(words, size * scale, weight) > width:
        words = words[:-2].rstrip() + "…"
    return words, size


def _page_figure(spec: KitSpec) -> tuple[Figure, Axes]:
    return _figure(spec.paper.width, spec.paper.height)


def _header(ax: Axes, spec: KitSpec, page_number: int, plan: _Plan, what: str) -> None:
    y = spec.paper.height - EDGE - HEADER / 2
    ax.text(_CLEAR, y, f"MENACE build kit · {spec.machine} · {what}", fontsize=7.5, ha="left", va="center",
            color="#333333")
    ax.text(spec.paper.width - _CLEAR, y, f"page {page_number} of {plan.total} · print at 100%", fontsize=7.5,
            ha="right", va="center", color="#333333")


def _title(ax: Axes, spec: KitSpec, words: str, sub: str = "") -> float:
    """A page title under the header; returns the y (mm) just under it."""
    y = spec.paper.height - EDGE - HEADER - 2.0
    ax.text(_CLEAR, y, words, fontsize=15, weight="bold", ha="left", va="top")
    if sub:
        ax.text(_CLEAR, y - 7.5, sub, fontsize=8, ha="left", va="top", color="#333333")
    return y - (11.0 if sub else 7.5)


def _label_page(page: Page, boxes: dict[int, Box], spec: KitSpec, plan: _Plan) -> Figure:
    fig, ax = _page_figure(spec)
    canvas = _Canvas()
    two_sided = len({b.side for b in boxes.values()}) > 1
    first, last = page.labels[0], page.labels[-1]
    moves = sorted({s.move_number for s in page.labels})
    move_text = f"move {moves[0]}" if len(moves) == 1 else f"moves {moves[0]}–{moves[-1]}"
    where = f"{spec.sheet.name} sticker sheet" if spec.sheet else f"cut on the lines, {spec.label}"
    _header(ax, spec, plan.first_label_page + page.number - 1, plan,
            f"labels, boxes {first.box}–{last.box} ({move_text}) · {where}")
    for slot in page.labels:
        box = boxes[slot.box]
        _draw_label(canvas, ax, spec.game, box, slot.rect, spec.colours, two_sided, spec.fill(box))
        if spec.sheet is None:
            canvas.rect(slot.rect, lw=0.3, colour="#999999")
    for mark in page.cut_marks:
        canvas.line([(mark.x0, mark.y0), (mark.x1, mark.y1)], 0.5)
    canvas.flush(ax)
    return fig


def _cover_page(boxes: Sequence[Box], spec: KitSpec, plan: _Plan, shopping: ShoppingList) -> Figure:
    fig, ax = _page_figure(spec)
    canvas = _Canvas()
    _header(ax, spec, 1, plan, "cover")
    x = _CLEAR
    y = _title(ax, spec, "MENACE build kit",
               f"Machine “{spec.machine}”: {len(boxes):,} matchboxes and {shopping.fill:,} beads {_when(spec)}")
    y -= 4
    ax.text(x, y, "The machine", fontsize=11, weight="bold", va="top")
    y -= 6
    groups = move_groups(boxes)
    facts = dict(spec.settings.describe())
    facts["matchboxes"] = " + ".join(str(len(g)) for g in groups) + f" = {len(boxes):,} (by move)"
    for key, value in facts.items():
        ax.text(x, y, key, fontsize=8.5, va="top", color="#333333")
        ax.text(x + 38, y, value, fontsize=8.5, va="top")
        y -= 4.6
    y -= 4
    ax.text(x, y, "What is in this file", fontsize=11, weight="bold", va="top")
    y -= 6
    first, last = plan.first_label_page, plan.first_fill_page - 1
    per_page = max(len(p.labels) for p in plan.labels)
    if spec.sheet is not None:
        labels_how = (f"on {spec.sheet.name} sticker sheets ({spec.sheet.per_sheet} labels of {spec.label}, "
                      f"{spec.paper.name}); every other page on plain paper")
    else:
        labels_how = f"{spec.label} each, up to {per_page} a page: cut along the grey lines (marks in the margins)"
    contents = [
        ("page 2", f"shopping list: {shopping.fill:,} beads to fill the boxes, {shopping.buy:,} to buy"),
        (_pages(first, last), f"{len(boxes):,} labels, {labels_how}"),
        (_pages(plan.first_fill_page, plan.first_shelf_page - 1), "fill list: the beads for every box"),
        (_pages(plan.first_shelf_page, plan.total), "shelf map: where each box stands, a section per move"),
    ]
    for pages, what in contents:
        ax.text(x, y, pages, fontsize=8.5, va="top", color="#333333")
        ax.text(x + 22, y, what, fontsize=8.5, va="top")
        y -= 4.6
    y -= 4
    ax.text(x, y, "How to print", fontsize=11, weight="bold", va="top")
    y -= 6
    for line in (
        "Print at 100% (“actual size”); turn off “fit to page” and any scaling.",
        f"Then measure: the bar below is 100 mm long, and each label {spec.label}.",
    ):
        ax.text(x, y, line, fontsize=8.5, va="top")
        y -= 4.6
    y -= 3
    _ruler(canvas, ax, x, y - 6)
    y -= 18
    ax.text(x, y, "Reading a label", fontsize=11, weight="bold", va="top")
    y -= 6
    if bd.places_pieces(spec.game):
        drawing = ("The drawing is the position in the box, X and O as played; a dot marks every square MENACE may "
                   "play,",
                   "in its bead's colour with the colour's letter (the letter still reads on a grey print).")
    else:
        drawing = ("The drawing is the position in the box, white and black pawns as they stand; an arrow shows every",
                   "move MENACE may make, in its bead's colour with the colour's letter (it reads on a grey print).")
    for line in (
        "The big number is the box's number: the same in every list here and in the program (menace show N).",
        *drawing,
        f"UP marks the drawing's top edge. The lines on the right say what goes in {_when(spec)}:",
        "4×W white means four white beads. On a machine that plays both sides, the side after the move",
        "says which side the box plays. Glue each label on the top of its matchbox.",
    ):
        ax.text(x, y, line, fontsize=8.5, va="top")
        y -= 4.6
    y -= 4
    key = ("one per square of a box's drawing" if bd.places_pieces(spec.game)
           else "a box's moves in order, the colours of its arrows")
    ax.text(x, y, f"Bead colours: {key}", fontsize=11, weight="bold", va="top")
    y -= 6
    _colour_key(canvas, ax, spec.game, spec.colours, x, y)
    canvas.flush(ax)
    return fig


def _when(spec: KitSpec) -> str:
    return "at the start" if spec.beads == "start" else "now (the machine as trained)"


def _pages(first: int, last: int) -> str:
    return f"page {first}" if first == last else f"pages {first}–{last}"


def _ruler(canvas: _Canvas, ax: Axes, x: float, y: float) -> None:
    canvas.line([(x, y), (x + 100, y)], 0.6)
    for mm in range(101):
        tall = 4.0 if mm % 10 == 0 else 2.6 if mm % 5 == 0 else 1.5
        canvas.line([(x + mm, y), (x + mm, y + tall)], 0.3 if mm % 10 else 0.5)
        if mm % 10 == 0:
            ax.text(x + mm, y - 1.0, str(mm), fontsize=6, ha="center", va="top")
    ax.text(x + 103, y, "100 mm", fontsize=8, va="bottom")


def _colour_key(canvas: _Canvas, ax: Axes, game: Game, colours: Sequence[BeadColour], x: float, y: float) -> None:
    """The bead colours: on the board's squares for a game that places pieces, and as a list with
    what each colour stands for."""
    colours = colours[:game.colours]
    names = bd.slot_names(game)
    lx = x
    if bd.places_pieces(game):
        cell = 10.0
        for i in range(1, game.cols):
            canvas.line([(x + i * cell, y), (x + i * cell, y - game.rows * cell)], 0.8)
        for i in range(1, game.rows):
            canvas.line([(x, y - i * cell), (x + game.cols * cell, y - i * cell)], 0.8)
        for m, colour in enumerate(colours):
            row, col = divmod(m, game.cols)
            cx, cy = x + (col + 0.5) * cell, y - (row + 0.5) * cell
            canvas.patch(Circle((cx, cy), 3.6), colour.hex, "#000000", 0.5)
            ax.text(cx, cy, colour.letter, fontsize=10, weight="bold", ha="center", va="center_baseline",
                    color=_ink_on(colour.hex), zorder=3)
        lx = x + game.cols * cell + 8
    for m, colour in enumerate(colours):
        ly = y - 1.5 - m * 3.4
        canvas.patch(Circle((lx + 1.2, ly), 1.2), colour.hex, "#000000", 0.4)
        ax.text(lx + 3.4, ly, f"{colour.letter}  {colour.name}", fontsize=8, va="center_baseline", zorder=3)
        where = f"square {names[m]}" if bd.places_pieces(game) else names[m]
        ax.text(lx + 38, ly, where, fontsize=8, va="center_baseline", color="#333333")
        ax.text(lx + 70, ly, colour.hex, fontsize=8, va="center_baseline", color="#555555", family="monospace")


def _shopping_page(boxes: Sequence[Box], spec: KitSpec, plan: _Plan, shopping: ShoppingList) -> Figure:
    fig, ax = _page_figure(spec)
    canvas = _Canvas()
    _header(ax, spec, 2, plan, "shopping list")
    pct = _percent(shopping.spare_percent)
    y = _title(ax, spec, "Shopping list",
               f"{len(boxes):,} matchboxes and {shopping.buy:,} beads in {len(shopping.lines)} colours "
               f"({shopping.fill:,} to fill the boxes + {shopping.spare:,} spare)")
    y -= 5
    x = _CLEAR
    cols = (x, x + 8, x + 16, x + 48, x + 68, x + 92, x + 114, x + 136)
    heads = ("", "", "colour", "square" if bd.places_pieces(spec.game) else "stands for", "boxes",
             "initial fill" if spec.beads == "start" else "fill now",
             f"spare {pct}", "to buy")
    for i, head in enumerate(heads):
        ax.text(cols[i] + (18 if i >= 4 else 0), y, head, fontsize=9, weight="bold", va="top",
                ha="right" if i >= 4 else "left")
    y -= 6
    canvas.line([(x, y + 1.5), (x + 156, y + 1.5)], 0.6)
    for line in shopping.lines:
        y -= 3.4
        canvas.patch(Circle((cols[0] + 2.2, y), 2.1), line.colour.hex, "#000000", 0.5)
        ax.text(cols[1], y, line.colour.letter, fontsize=9, weight="bold", va="center_baseline")
        ax.text(cols[2], y, line.colour.name, fontsize=9, va="center_baseline")
        ax.text(cols[3], y, line.square, fontsize=9, va="center_baseline")
        for i, value in ((4, line.boxes), (5, line.fill), (6, line.spare), (7, line.buy)):
            ax.text(cols[i] + 18, y, f"{value:,}", fontsize=9, va="center_baseline", ha="right",
                    weight="bold" if i == 7 else "normal")
        y -= 3.4
        canvas.line([(x, y), (x + 156, y)], 0.2, "#999999")
    y -= 4.5
    ax.text(cols[2], y, "total", fontsize=9.5, weight="bold", va="center_baseline")
    for i, value in ((5, shopping.fill), (6, shopping.spare), (7, shopping.buy)):
        ax.text(cols[i] + 18, y, f"{value:,}", fontsize=9.5, weight="bold", va="center_baseline", ha="right")
    y -= 4
    canvas.line([(x, y), (x + 156, y)], 0.6)
    y -= 8
    win = spec.settings.win
    notes = [
        ("Initial fill: the beads each box holds before the first game, added up colour by colour over all"
         if spec.beads == "start" else
         "Fill now: the beads each box holds now, as trained, added up colour by colour over all"),
        f"{len(boxes):,} boxes (the lines “4×W white” on the labels; the fill list gives them box by box).",
        *((f"Spare: {pct} of each colour's fill, rounded up. A win adds beads ({win:+d} for every bead drawn,",
           "put back with its copies), so the boxes that play well fill up; and beads get dropped and lost.")
          if win > 0 else
          (f"Spare: {pct} of each colour's fill, rounded up. This machine's rule adds no beads after a win, so",
           "the spare is for beads that get dropped and lost.")),
        f"Also: {len(boxes):,} matchboxes (a few more to spare), glue or the sticker sheets, and a cup or",
        "saucer to draw the beads into during a game.",
    ]
    for note in notes:
        ax.text(x, y, note, fontsize=8.5, va="top")
        y -= 4.6
    y -= 6
    ax.text(x, y, "Beads by move", fontsize=11, weight="bold", va="top")
    y -= 7
    ax.text(x, y, "move", fontsize=9, weight="bold", va="top")
    ax.text(x + 40, y, "boxes", fontsize=9, weight="bold", va="top", ha="right")
    ax.text(x + 70, y, "beads", fontsize=9, weight="bold", va="top", ha="right")
    ax.text(x + 78, y, "per colour in each box", fontsize=9, weight="bold", va="top")
    two_sided = len({b.side for b in boxes}) > 1
    for group in move_groups(boxes):
        y -= 4.6
        counts = sorted({n for b in group for n in spec.fill(b).values() if n})
        side = f" ({group[0].side.name})" if two_sided else ""
        ax.text(x, y, f"{group[0].move_number}{side}", fontsize=9, va="top")
        ax.text(x + 40, y, f"{len(group):,}", fontsize=9, va="top", ha="right")
        ax.text(x + 70, y, f"{sum(sum(spec.fill(b).values()) for b in group):,}", fontsize=9, va="top", ha="right")
        ax.text(x + 78, y, ", ".join(map(str, counts)), fontsize=9, va="top")
    canvas.flush(ax)
    return fig


def _percent(value: float) -> str:
    return f"{value:g}%"


def _fill_page(page: ListPage, index: int, boxes: Sequence[Box], spec: KitSpec, plan: _Plan) -> Figure:
    fig, ax = _page_figure(spec)
    canvas = _Canvas()
    number = plan.first_fill_page + index
    _header(ax, spec, number, plan, f"fill list {index + 1} of {len(plan.fill)}")
    title = "Fill list" if index == 0 else "Fill list (continued)"
    _title(ax, spec, title, f"The beads that go in each box {_when(spec)}, per colour (· for none); "
           "sum: beads in the box")
    top = spec.paper.height - _BODY_TOP
    colours = spec.colours[:spec.game.colours]
    width = _fill_width(boxes, colours)
    digits = "0" * max(3, len(str(max(b.number for b in boxes))))
    char = _MONO_ADVANCE * FILL_FONT * MM_PER_PT
    for c, column in enumerate(page.columns):
        x = _CLEAR + c * (width + _FILL_GUTTER)
        head = _fill_row_text(None, colours, digits)
        ax.text(x, top - 0.78 * FILL_ROW, head, fontsize=FILL_FONT, family="monospace", weight="bold",
                va="baseline")
        # A colour swatch over each colour's column.
        first = len(digits) + 4
        for m, colour in enumerate(colours):
            cx = x + (first + 3 * m + 1.5) * char
            canvas.patch(Rectangle((cx - 1.3, top + 0.3), 2.6, 1.4), colour.hex, "#000000", 0.25)
        canvas.line([(x, top - FILL_ROW * 1.02), (x + width, top - FILL_ROW * 1.02)], 0.5)
        for r, entry in enumerate(column, start=1):
            row_top = top - r * FILL_ROW
            baseline = row_top - 0.78 * FILL_ROW
            if entry.box is None:
                ax.text(x, baseline, entry.heading, fontsize=FILL_FONT, weight="bold", va="baseline")
                continue
            slots = bd.by_slot(spec.game, entry.box, spec.fill(entry.box))
            canvas.text(x, baseline, _fill_row_text(entry.box, colours, digits, slots), FILL_FONT,
                        family="DejaVu Sans Mono")
            if entry.box.number % 5 == 0:
                rule = row_top - FILL_ROW * 1.02
                canvas.line([(x, rule), (x + width, rule)], 0.2, "#999999")
    canvas.flush(ax)
    return fig


def _shelf_page(rows: list[ShelfRow], index: int, boxes: Sequence[Box], spec: KitSpec, plan: _Plan) -> Figure:
    fig, ax = _page_figure(spec)
    canvas = _Canvas()
    number = plan.first_shelf_page + index
    _header(ax, spec, number, plan, f"shelf map {index + 1} of {len(plan.shelves)}")
    title = "Shelf map" if index == 0 else "Shelf map (continued)"
    _title(ax, spec, title, f"Boxes as they stand on the shelves, {SHELF_WIDTH} to a row, a section per move")
    w, h = SHELF_CELL
    x0 = _CLEAR + 14.0
    y = spec.paper.height - _BODY_TOP
    for i, row in enumerate(rows):
        if row.title is not None:
            if i:
                y -= _SHELF_GAP
            ax.text(_CLEAR, y - SHELF_HEADING + 2.0, row.title, fontsize=10, weight="bold", va="bottom")
            y -= SHELF_HEADING
        ax.text(x0 - 2.0, y - h / 2, f"row {row.row_number}", fontsize=6.5, ha="right", va="center_baseline",
                color="#555555")
        for c, box_number in enumerate(row.boxes):
            cell = Rect(x0 + c * w, y - h, w, h)
            canvas.rect(cell, 0.4)
            canvas.text(cell.x + w / 2, cell.y + h / 2, str(box_number), 9, weight="bold", ha="center",
                        va="center_baseline")
        y -= h
    canvas.flush(ax)
    return fig


def iter_labels(pages: Sequence[Page]) -> Iterator[LabelSlot]:
    """Every label of a layout, page by page."""
    for page in pages:
        yield from page.labels

__all__ = [
    "A4",
    "A4_21",
    "BEAD_CHOICES",
    "DEFAULT_LABEL",
    "DESIGN_HEIGHT",
    "DESIGN_WIDTH",
    "EDGE",
    "FILL_FONT",
    "FILL_ROW",
    "HEADER",
    "KitSpec",
    "KitSummary",
    "LETTER",
    "LabelLayoutError",
    "LabelSize",
    "LabelSlot",
    "Line",
    "ListEntry",
    "ListPage",
    "MARK_GAP",
    "MARK_LENGTH",
    "MIN_SCALE",
    "MM_PER_INCH",
    "MM_PER_PT",
    "Margins",
    "PAPERS",
    "Page",
    "Paper",
    "Rect",
    "SHEETS",
    "SHELF_CELL",
    "SHELF_HEADING",
    "ShelfRow",
    "ShoppingLine",
    "ShoppingList",
    "StickerSheet",
    "check_label",
    "check_readable",
    "fill_list_pages",
    "fill_text",
    "find_paper",
    "find_sheet",
    "grid_capacity",
    "layout",
    "move_groups",
    "parse_label_size",
    "shelf_map_pages",
    "shopping_list",
    "write_pdf",
    "write_svgs",
    "svg_name",
    "iter_labels",
]
