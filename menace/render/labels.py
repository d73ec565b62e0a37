"""The build kit: printable matchbox labels, shopping list, fill list and shelf map.

Pure layout and drawing, no click and no SQL: the input is a machine's boxes and a
:class:`KitSpec` (machine name, settings, bead colours, paper, label size, sticker sheet,
spare beads). The geometry is computed first, in millimetres, by pure functions
(:func:`layout`, :func:`fill_list_pages`, :func:`shelf_map_pages`); drawing then follows it
with matplotlib's object API on a page-sized figure whose data units are millimetres, so a
label printed at 100% is exactly the size asked for.

Coordinates are millimetres from the paper's bottom-left corner (as in PDF and matplotlib).

>>> from menace.core.learner import MICHIE, build_boxes
>>> from menace.games import find_game
>>> game = find_game("tictactoe")
>>> boxes = build_boxes(game, MICHIE)
>>> pages = layout(boxes)
>>> len(pages), sum(len(p.labels) for p in pages), pages[0].labels[0].rect
(15, 304, Rect(x=25.5, y=235.5, width=53.0, height=36.0))
>>> shopping_list(game, boxes).fill
1720
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.patches import Circle, Patch, Polygon, Rectangle
from matplotlib.textpath import TextToPath

from menace.app.shelf import SHELF_WIDTH, shelf_sections
from menace.core.colours import DEFAULT_COLOURS, BeadColour
from menace.core.errors import InvalidInputError
from menace.core.game import Game, Side
from menace.core.learner import Box, Settings
from menace.render import beads as bd

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

MM_PER_INCH = 25.4
MM_PER_PT = MM_PER_INCH / 72


class LabelLayoutError(InvalidInputError):
    """A paper, label size or sticker sheet that cannot be laid out (or read once printed)."""


# -- paper, label sizes, sticker sheets ------------------------------------------------------------
@dataclass(frozen=True)
class Paper:
    name: str
    width: float
    """Millimetres."""
    height: float


A4 = Paper("A4", 210.0, 297.0)
LETTER = Paper("Letter", 215.9, 279.4)
PAPERS: dict[str, Paper] = {"a4": A4, "letter": LETTER}


def find_paper(name: str) -> Paper:
    """``find_paper("a4") is A4``; :class:`LabelLayoutError` naming the known sizes otherwise."""
    try:
        return PAPERS[name.strip().lower()]
    except KeyError:
        raise LabelLayoutError(f"unknown paper {name!r}; choose from {', '.join(PAPERS)}") from None


@dataclass(frozen=True)
class LabelSize:
    width: float
    """Millimetres."""
    height: float

    def __str__(self) -> str:
        return f"{_mm(self.width)} x {_mm(self.height)} mm"


DEFAULT_LABEL = LabelSize(53.0, 36.0)
"""The top of a standard household matchbox (about 53 x 36 mm)."""

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×*]\s*(\d+(?:\.\d+)?)\s*(?:mm)?\s*$", re.IGNORECASE)


def parse_label_size(text: str) -> LabelSize:
    """``"53x36"`` (millimetres, width by height) -> ``LabelSize(53.0, 36.0)``.

    >>> parse_label_size("63.5 x 38.1 mm")
    LabelSize(width=63.5, height=38.1)
    """
    match = _SIZE.match(text)
    if not match:
        raise LabelLayoutError(f"{text!r} is not a label size: write WIDTHxHEIGHT in millimetres, e.g. 53x36")
    size = LabelSize(float(match.group(1)), float(match.group(2)))
    if size.width <= 0 or size.height <= 0:
        raise LabelLayoutError(f"label size {text!r}: width and height must be more than zero")
    return size


@dataclass(frozen=True)
class StickerSheet:
    """A sheet of ready-cut sticker labels: its paper, label size and where the labels are."""

    name: str
    paper: Paper
    label: LabelSize
    columns: int
    rows: int
    left: float
    """Paper's left edge to the first column's left edge, mm."""
    top: float
    """Paper's top edge to the first row's top edge, mm."""
    column_pitch: float
    """Left edge to left edge of neighbouring columns, mm."""
    row_pitch: float

    @property
    def per_sheet(self) -> int:
        return self.columns * self.rows

    def slot(self, column: int, row: int) -> Rect:
        """The label in ``column`` (0 = left) and ``row`` (0 = top)."""
        x = self.left + column * self.column_pitch
        y = self.paper.height - self.top - row * self.row_pitch - self.label.height
        return Rect(x, y, self.label.width, self.label.height)


A4_21 = StickerSheet("a4-21", A4, LabelSize(63.5, 38.1), 3, 7, left=7.2, top=15.15, column_pitch=66.0,
                     row_pitch=38.1)
"""The common A4 sheet of 21 labels, 63.5 x 38.1 mm, 3 across and 7 down."""
SHEETS: dict[str, StickerSheet] = {A4_21.name: A4_21}


def find_sheet(name: str) -> StickerSheet:
    try:
        return SHEETS[name.strip().lower()]
    except KeyError:
        raise LabelLayoutError(f"unknown sticker sheet {name!r}; choose from {', '.join(SHEETS)}") from None


# -- geometry of the label pages ----------------------------------------------------------------------
@dataclass(frozen=True)
class Rect:
    """A rectangle in millimetres; ``x``, ``y`` is its bottom-left corner."""

    x: float
    y: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def top(self) -> float:
        return self.y + self.height

    def overlaps(self, other: Rect, tolerance: float = 1e-6) -> bool:
        """True if the insides meet by more than ``tolerance`` mm (touching edges do not count)."""
        t = tolerance
        return (self.x < other.right - t and other.x < self.right - t
                and self.y < other.top - t and other.y < self.top - t)


@dataclass(frozen=True)
class Line:
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Margins:
    """Paper edge to the label area, mm."""

    top: float
    right: float
    bottom: float
    left: float


@dataclass(frozen=True)
class LabelSlot:
    box: int
    """The box number printed on the label."""
    move_number: int
    side: Side
    rect: Rect


@dataclass(frozen=True)
class Page:
    """One page of labels."""

    number: int
    """1, 2, ... among the label pages."""
    paper: Paper
    labels: tuple[LabelSlot, ...]
    cut_marks: tuple[Line, ...]
    """Empty on a sticker sheet: its labels are already cut."""
    margins: Margins
    sheet: StickerSheet | None = None

    @property
    def width(self) -> float:
        return self.paper.width

    @property
    def height(self) -> float:
        return self.paper.height


EDGE = 6.0
"""Nothing is printed closer than this to the paper's edge (most printers cannot print there)."""
HEADER = 5.0
"""The band under the top edge that holds a page's running header."""
MARK_GAP = 1.0
MARK_LENGTH = 3.0
"""Cut marks stand this far off the labels and are this long, in the margins."""
_CLEAR = EDGE + MARK_GAP + MARK_LENGTH
_TOP_CLEAR = EDGE + HEADER + MARK_GAP + MARK_LENGTH + 1.0
MIN_SCALE = 0.65
"""Smallest scale of the 53 x 36 mm design that still reads (its smallest text becomes 4 pt)."""
_EPS = 1e-9


def grid_capacity(paper: Paper, label: LabelSize) -> tuple[int, int]:
    """Columns and rows of cut-out labels that fit on ``paper`` inside the margins."""
    columns = math.floor((paper.width - 2 * _CLEAR) / label.width + _EPS)
    rows = math.floor((paper.height - _CLEAR - _TOP_CLEAR) / label.height + _EPS)
    return columns, rows


def check_label(paper: Paper, label: LabelSize) -> None:
    """:class:`LabelLayoutError` unless ``label`` fits on ``paper`` and its text stays readable."""
    columns, rows = grid_capacity(paper, label)
    if columns < 1 or rows < 1:
        raise LabelLayoutError(
            f"a {label} label does not fit on {paper.name} paper: at most "
            f"{_mm(paper.width - 2 * _CLEAR)} x {_mm(paper.height - _CLEAR - _TOP_CLEAR)} mm inside the margins"
        )
    check_readable(label)


def check_readable(label: LabelSize) -> None:
    """:class:`LabelLayoutError` if a label this small would print text too small to read."""
    if _design_scale(label) < MIN_SCALE - _EPS:
        w, h = DESIGN_WIDTH * MIN_SCALE, DESIGN_HEIGHT * MIN_SCALE
        raise LabelLayoutError(f"a {label} label is too small to read: make it at least {_mm(w)} x {_mm(h)} mm")


def move_groups(boxes: Sequence[Box]) -> list[list[Box]]:
    """Boxes in box-number order, cut into runs of the same move (and side, for two-sided machines).

    Boxes are numbered breadth first, so each run is one move and the runs come in move order.
    """
    ordered = sorted(boxes, key=lambda b: b.number)
    return [list(run) for _, run in groupby(ordered, key=lambda b: (b.move_number, b.side))]


def layout(
    boxes: Sequence[Box],
    paper: Paper = A4,
    label: LabelSize = DEFAULT_LABEL,
    sheet: StickerSheet | None = None,
) -> list[Page]:
    """The label pages: where every box's label goes, in millimetres.

    Labels come in box-number order; each move starts on a new row so the labels of one move
    can be cut and stacked together. Cut-out labels stand edge to edge (one cut between two
    labels) in a grid centred on the page, with cut marks in the margins on every edge; on a
    sticker sheet the labels go where the sheet's are and there are no cut marks.
    """
    if sheet is not None:
        paper, label = sheet.paper, sheet.label
        columns, rows = sheet.columns, sheet.rows

        def slot(column: int, row: int) -> Rect:
            return sheet.slot(column, row)
    else:
        check_label(paper, label)
        columns, rows = grid_capacity(paper, label)
        left = (paper.width - columns * label.width) / 2
        free = paper.height - _CLEAR - _TOP_CLEAR - rows * label.height
        top = paper.height - _TOP_CLEAR - free / 2

        def slot(column: int, row: int) -> Rect:
            return Rect(left + column * label.width, top - (row + 1) * label.height, label.width, label.height)

    pages: list[list[tuple[int, int, Box]]] = []
    page: list[tuple[int, int, Box]] = []
    row = column = 0
    for group in move_groups(boxes):
        if column:
            row, column = row + 1, 0
        for box in group:
            if row == rows:
                pages.append(page)
                page, row = [], 0
            page.append((column, row, box))
            column += 1
            if column == columns:
                row, column = row + 1, 0
    if page:
        pages.append(page)
    return [_page(n, paper, sheet, [(b, slot(c, r)) for c, r, b in placed])
            for n, placed in enumerate(pages, start=1)]


def _page(number: int, paper: Paper, sheet: StickerSheet | None, placed: list[tuple[Box, Rect]]) -> Page:
    slots = tuple(LabelSlot(b.number, b.move_number, b.side, rect) for b, rect in placed)
    rects = [s.rect for s in slots]
    x0, x1 = min(r.x for r in rects), max(r.right for r in rects)
    y0, y1 = min(r.y for r in rects), max(r.top for r in rects)
    margins = Margins(paper.height - y1, paper.width - x1, y0, x0)
    if sheet is not None:
        return Page(number, paper, slots, (), margins, sheet)
    xs = sorted({round(v, 6) for r in rects for v in (r.x, r.right)})
    ys = sorted({round(v, 6) for r in rects for v in (r.y, r.top)})
    a, b = MARK_GAP, MARK_GAP + MARK_LENGTH
    marks = [Line(x, y1 + a, x, y1 + b) for x in xs] + [Line(x, y0 - a, x, y0 - b) for x in xs]
    marks += [Line(x0 - a, y, x0 - b, y) for y in ys] + [Line(x1 + a, y, x1 + b, y) for y in ys]
    return Page(number, paper, slots, tuple(marks), margins)


# -- what goes in the boxes -------------------------------------------------------------------------
def fill_text(game: Game, box: Box, colours: Sequence[BeadColour] = DEFAULT_COLOURS) -> str:
    """The beads a box starts with, e.g. ``"4×W 4×K 4×G"`` (in colour order)."""
    return " ".join(f"{n}×{colours[s].letter}" for s, n in sorted(bd.by_slot(game, box, box.initial).items()) if n)


@dataclass(frozen=True)
class ShoppingLine:
    colour: BeadColour
    square: str
    """The square of a box's drawing that the colour stands for (a1..c3)."""
    fill: int
    """Beads of this colour in all the boxes at the start."""
    spare: int
    boxes: int
    """Boxes that hold this colour at the start."""

    @property
    def buy(self) -> int:
        return self.fill + self.spare


@dataclass(frozen=True)
class ShoppingList:
    lines: tuple[ShoppingLine, ...]
    spare_percent: float
    boxes: int

    @property
    def fill(self) -> int:
        return sum(line.fill for line in self.lines)

    @property
    def spare(self) -> int:
        return sum(line.spare for line in self.lines)

    @property
    def buy(self) -> int:
        return self.fill + self.spare


def shopping_list(
    game: Game, boxes: Sequence[Box], colours: Sequence[BeadColour] = DEFAULT_COLOURS, spare_percent: float = 50.0,
    counts: str = "initial",
) -> ShoppingList:
    """Beads per colour for the fill (the initial beads, or ``counts="now"``: the beads the boxes
    hold now), plus ``spare_percent`` of each (rounded up) to spare."""
    if spare_percent < 0:
        raise LabelLayoutError("the spare cannot be negative")
    fill = [0] * game.colours
    holders = [0] * game.colours
    for box in boxes:
        for s, count in bd.by_slot(game, box, box.initial if counts == "initial" else box.beads).items():
            fill[s] += count
            holders[s] += count > 0
    names = bd.slot_names(game)
    lines = tuple(
        ShoppingLine(colours[s], names[s], fill[s], _spare(fill[s], spare_percent), holders[s])
        for s in range(game.colours)
    )
    return ShoppingList(lines, spare_percent, len(boxes))


def _spare(fill: int, percent: float) -> int:
    # Round in hundredths first so that 50% of 3 is 2 and not a float's 1.5000000001 -> 2 twice.
    return math.ceil(round(fill * percent / 100, 6))


# -- geometry of the fill list and the shelf map ------------------------------------------------------
@dataclass(frozen=True)
class ListEntry:
    """A line of the fill list: a move's heading (``box`` None) or one box."""

    heading: str
    box: Box | None = None


@dataclass(frozen=True)
class ListPage:
    columns: tuple[tuple[ListEntry, ...], ...]


FILL_ROW = 3.6
"""Line pitch of the fill list, mm."""
FILL_FONT = 7.0
"""Points; the fill list is set in a monospaced font, each character 0.602 em wide."""
_MONO_ADVANCE = 0.602
_BODY_TOP = EDGE + HEADER + 21.0
"""Paper's top edge to the first line of a list page (under the header and the title)."""


def _fill_row_text(box: Box | None, colours: Sequence[BeadColour], width: str,
                   slots: dict[int, int] | None = None) -> str:
    """A line of the fill list: the header (``box`` None), or a box's beads by colour (``slots``)."""
    n = len(width)
    if box is None:
        cells = "".join(f"{c.letter:>3}" for c in colours)
        return f"{'box':>{n}} {'mv':>2} {cells}  {'sum':>3}"
    held = slots or {}
    counts = "".join(f"{held.get(s, 0) or '·':>3}" for s in range(len(colours)))
    return f"{box.number:>{n}} {box.move_number:>2} {counts}  {sum(held.values()):>3}"


def fill_list_pages(boxes: Sequence[Box], paper: Paper = A4, colours: Sequence[BeadColour] = DEFAULT_COLOURS,
                    ) -> list[ListPage]:
    """The fill list, flowed into as many text columns per page as fit, in box-number order."""
    rows, per_page = _fill_grid(boxes, paper, colours)
    entries: list[ListEntry] = []
    two_sided = len({b.side for b in boxes}) > 1
    for group in move_groups(boxes):
        entries.append(ListEntry(_group_title(group, two_sided)))
        entries.extend(ListEntry("", b) for b in group)
    columns: list[tuple[ListEntry, ...]] = []
    column: list[ListEntry] = []
    for i, entry in enumerate(entries):
        last_row = len(column) == rows - 1
        # A heading never ends a column: it moves on with its first box.
        if len(column) == rows or (last_row and entry.box is None and i + 1 < len(entries)):
            columns.append(tuple(column))
            column = []
        column.append(entry)
    if column:
        columns.append(tuple(column))
    return [ListPage(tuple(columns[i:i + per_page])) for i in range(0, len(columns), per_page)]


def _fill_grid(boxes: Sequence[Box], paper: Paper, colours: Sequence[BeadColour]) -> tuple[int, int]:
    rows = math.floor((paper.height - _BODY_TOP - _CLEAR) / FILL_ROW)
    width = _fill_width(boxes, colours)
    per_page = max(1, math.floor((paper.width - 2 * _CLEAR + _FILL_GUTTER) / (width + _FILL_GUTTER)))
    return rows, per_page


_FILL_GUTTER = 5.5


def _fill_width(boxes: Sequence[Box], colours: Sequence[BeadColour]) -> float:
    digits = "0" * max(3, len(str(max((b.number for b in boxes), default=1))))
    chars = len(_fill_row_text(None, colours, digits))
    return chars * _MONO_ADVANCE * FILL_FONT * MM_PER_PT


SHELF_CELL = (14.5, 7.0)
SHELF_HEADING = 8.0
_SHELF_GAP = 4.0


@dataclass(frozen=True)
class ShelfRow:
    """One row of boxes on the shelf map; ``title`` opens a move's section (or continues one)."""

    title: str | None
    row_number: int
    boxes: tuple[int, ...]


def shelf_map_pages(boxes: Sequence[Box], paper: Paper = A4, per_row: int = SHELF_WIDTH) -> list[list[ShelfRow]]:
    """Box numbers in rows of ``per_row``, a section per move, flowed down as many pages as needed."""
    height = paper.height - _BODY_TOP - _CLEAR
    two_sided = len({b.side for b in boxes}) > 1
    pages: list[list[ShelfRow]] = []
    page: list[ShelfRow] = []
    used = 0.0
    for _, group in shelf_sections(boxes):  # the same places menace operate names
        title = _group_title(group, two_sided)
        numbers = [b.number for b in group]
        chunks = [tuple(numbers[i:i + per_row]) for i in range(0, len(numbers), per_row)]
        used += _SHELF_GAP if page else 0.0
        for r, chunk in enumerate(chunks, start=1):
            need = SHELF_CELL[1] + (SHELF_HEADING if r == 1 else 0.0)
            if used + need > height + _EPS:
                pages.append(page)
                page, used = [], 0.0
            row_title: str | None
            if not page:
                row_title = title if r == 1 else f"{title} (continued)"
                used += SHELF_HEADING if r > 1 else 0.0
            else:
                row_title = title if r == 1 else None
            page.append(ShelfRow(row_title, r, chunk))
            used += need
    if page:
        pages.append(page)
    return pages


def _group_title(group: Sequence[Box], two_sided: bool) -> str:
    first, last = group[0], group[-1]
    side = f" ({first.side.name})" if two_sided else ""
    count = f"{len(group)} box{'es' if len(group) != 1 else ''}"
    numbers = f"box {first.number}" if len(group) == 1 else f"boxes {first.number}–{last.number}"
    return f"Move {first.move_number}{side}: {numbers}, {count}"


# -- the whole kit -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class KitSpec:
    """Everything the build kit depends on besides the boxes themselves."""

    machine: str
    settings: Settings
    game: Game
    colours: tuple[BeadColour, ...] = DEFAULT_COLOURS
    paper: Paper = A4
    label: LabelSize = DEFAULT_LABEL
    sheet: StickerSheet | None = None
    spare_percent: float = 50.0

    def __post_init__(self) -> None:
        if len(self.colours) < self.game.colours:
            raise LabelLayoutError(f"give {self.game.colours} bead colours, not {len(self.colours)}")
        if self.sheet is not None:
            if self.sheet.paper != self.paper:
                raise LabelLayoutError(f"the {self.sheet.name} sticker sheet is {self.sheet.paper.name} paper, "
                                       f"not {self.paper.name}")
            object.__setattr__(self, "label", self.sheet.label)
        if self.spare_percent < 0:
            raise LabelLayoutError("the spare cannot be negative")


@dataclass(frozen=True)
class KitSummary:
    pages: int
    label_pages: tuple[int, int]
    """First and last page (1-based, in the whole document) holding labels."""
    labels: int
    shopping: ShoppingList
    path: Path | None = None
    files: tuple[Path, ...] = field(default=())


@dataclass(frozen=True)
class _Plan:
    labels: list[Page]
    fill: list[ListPage]
    shelves: list[list[ShelfRow]]

    @property
    def total(self) -> int:
        return 2 + len(self.labels) + len(self.fill) + len(self.shelves)

    @property
    def first_label_page(self) -> int:
        return 3

    @property
    def first_fill_page(self) -> int:
        return 3 + len(self.labels)

    @property
    def first_shelf_page(self) -> int:
        return self.first_fill_page + len(self.fill)


def _plan(boxes: Sequence[Box], spec: KitSpec) -> _Plan:
    if not boxes:
        raise LabelLayoutError("the machine has no boxes")
    return _Plan(
        layout(boxes, spec.paper, spec.label, spec.sheet),
        fill_list_pages(boxes, spec.paper, spec.colours[:spec.game.colours]),
        shelf_map_pages(boxes, spec.paper),
    )


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


def write_pdf(out: str | Path | IO[bytes], boxes: Sequence[Box], spec: KitSpec) -> KitSummary:
    """Write the whole kit as one PDF: cover, shopping list, labels, fill list, shelf map.

    The same boxes and spec give a byte-identical file (no dates are written).
    """
    plan = _plan(boxes, spec)
    shopping = shopping_list(spec.game, boxes, spec.colours, spec.spare_percent)
    by_number = {b.number: b for b in boxes}
    metadata = {
        "Title": f"MENACE build kit: {spec.machine}",
        "Subject": "Matchbox labels, shopping list, fill list and shelf map",
        "Creator": "menace labels",
        "CreationDate": None,
        "ModDate": None,
    }
    with _rc_fixed(), PdfPages(out, metadata=metadata) as pdf:
        pdf.savefig(_cover_page(boxes, spec, plan, shopping))
        pdf.savefig(_shopping_page(boxes, spec, plan, shopping))
        for page in plan.labels:
            pdf.savefig(_label_page(page, by_number, spec, plan))
        for n, fill_page in enumerate(plan.fill):
            pdf.savefig(_fill_page(fill_page, n, boxes, spec, plan))
        for n, shelf_page in enumerate(plan.shelves):
            pdf.savefig(_shelf_page(shelf_page, n, boxes, spec, plan))
    path = Path(out) if isinstance(out, (str, Path)) else None
    last_label = plan.first_label_page + len(plan.labels) - 1
    return KitSummary(plan.total, (plan.first_label_page, last_label), len(boxes), shopping, path)


def svg_name(box: Box, count: int) -> str:
    """``box-0017.svg``: zero-padded so the files sort in box order."""
    return f"box-{box.number:0{max(4, len(str(count)))}d}.svg"


def write_svgs(folder: str | Path, boxes: Sequence[Box], spec: KitSpec) -> KitSummary:
    """One SVG per box in ``folder`` (made if missing), each exactly the label's size.

    The label's outline is drawn as a hairline, for a cutter to follow.
    """
    if not boxes:
        raise LabelLayoutError("the machine has no boxes")
    label = spec.label
    check_readable(label)
    target = Path(folder)
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
            _draw_label(canvas, ax, spec.game, box, rect, spec.colours, two_sided)
            canvas.rect(rect, lw=0.25, colour="#000000", inset=0.125)
            canvas.flush(ax)
            path = target / svg_name(box, len(boxes))
            buffer = io.StringIO()
            fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": "menace labels"})
            path.write_text(_size_in_mm(buffer.getvalue(), label), encoding="utf-8")
            files.append(path)
    shopping = shopping_list(spec.game, boxes, spec.colours, spec.spare_percent)
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
    """Collects a page's lines and shapes and adds them as a few collections (fast to draw)."""

    def __init__(self) -> None:
        self.lines: dict[tuple[float, str, str], list[list[tuple[float, float]]]] = {}
        self.patches: list[tuple[Patch, str, str, float]] = []

    def line(self, points: Sequence[tuple[float, float]], lw: float, colour: str = "#000000",
             style: str = "solid") -> None:
        self.lines.setdefault((round(lw, 4), colour, style), []).append(list(points))

    def rect(self, r: Rect, lw: float, colour: str = "#000000", inset: float = 0.0) -> None:
        x0, y0, x1, y1 = r.x + inset, r.y + inset, r.right - inset, r.top - inset
        self.line([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], lw, colour)

    def patch(self, patch: Patch, face: str, edge: str = "#000000", lw: float = 0.0) -> None:
        self.patches.append((patch, face, edge, lw))

    def flush(self, ax: Axes) -> None:
        for (lw, colour, style), segments in self.lines.items():
            ax.add_collection(LineCollection(segments, linewidths=lw, colors=colour, linestyles=style,
                                             capstyle="butt", joinstyle="miter", zorder=1))
        if self.patches:
            ax.add_collection(PatchCollection(
                [p for p, *_ in self.patches], match_original=False, zorder=2,
                facecolors=[f for _, f, _, _ in self.patches], edgecolors=[e for _, _, e, _ in self.patches],
                linewidths=[w for *_, w in self.patches],
            ))
        self.lines, self.patches = {}, []


def _ink_on(hex_colour: str) -> str:
    """Black or white, whichever reads better on ``hex_colour``."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b >= 140 else "#ffffff"


# The label is designed at 53 x 36 mm and scaled to the label's size, centred.
DESIGN_WIDTH, DESIGN_HEIGHT = 53.0, 36.0
_PAD = 1.6
_CELL = 9.0
_BOARD = 3 * _CELL
_TEXT_X = _PAD + _BOARD + 1.8


def _design_scale(label: LabelSize) -> float:
    return min(label.width / DESIGN_WIDTH, label.height / DESIGN_HEIGHT)


def _draw_label(canvas: _Canvas, ax: Axes, game: Game, box: Box, rect: Rect, colours: Sequence[BeadColour],
                two_sided: bool) -> None:
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
        ax.text(x, y, words, fontsize=size * s, zorder=3, **kw)

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
    beads = sum(box.initial.values())
    text(_TEXT_X, top - 7.6, f"move {box.move_number}{side} · {beads} beads", 6.0, fit=True, ha="left",
         va="top", color="#333333")
    held = sorted(bd.by_slot(game, box, {m: n for m, n in box.initial.items() if n}).items())
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
        _draw_label(canvas, ax, spec.game, boxes[slot.box], slot.rect, spec.colours, two_sided)
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
               f"Machine “{spec.machine}”: {len(boxes):,} matchboxes and {shopping.fill:,} beads at the start")
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
        "UP marks the drawing's top edge. The lines on the right say what goes in at the start:",
        "4×W white means four white beads. On a machine that plays both sides, X or O after the move",
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
               f"{len(boxes):,} matchboxes and {shopping.buy:,} beads in nine colours "
               f"({shopping.fill:,} to fill the boxes + {shopping.spare:,} spare)")
    y -= 5
    x = _CLEAR
    cols = (x, x + 8, x + 16, x + 48, x + 68, x + 92, x + 114, x + 136)
    heads = ("", "", "colour", "square", "boxes", "initial fill", f"spare {pct}", "to buy")
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
        "Initial fill: the beads each box holds before the first game, added up colour by colour over all",
        f"{len(boxes):,} boxes (the lines “4×W white” on the labels; the fill list gives them box by box).",
        f"Spare: {pct} of each colour's fill, rounded up. A win adds beads ({win:+d} for every bead drawn,",
        "put back with its copies), so the boxes that play well fill up; and beads get dropped and lost.",
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
        counts = sorted({n for b in group for n in b.initial.values() if n})
        side = f" ({group[0].side.name})" if two_sided else ""
        ax.text(x, y, f"{group[0].move_number}{side}", fontsize=9, va="top")
        ax.text(x + 40, y, f"{len(group):,}", fontsize=9, va="top", ha="right")
        ax.text(x + 70, y, f"{sum(sum(b.initial.values()) for b in group):,}", fontsize=9, va="top", ha="right")
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
    _title(ax, spec, title, "The beads that go in each box at the start, per colour (· for none); "
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
            slots = bd.by_slot(spec.game, entry.box, entry.box.initial)
            ax.text(x, baseline, _fill_row_text(entry.box, colours, digits, slots), fontsize=FILL_FONT,
                    family="monospace", va="baseline")
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
            ax.text(cell.x + w / 2, cell.y + h / 2, str(box_number), fontsize=9, weight="bold", ha="center",
                    va="center_baseline")
        y -= h
    canvas.flush(ax)
    return fig


def _mm(value: float) -> str:
    return f"{value:g}"


def iter_labels(pages: Sequence[Page]) -> Iterator[LabelSlot]:
    """Every label of a layout, page by page."""
    for page in pages:
        yield from page.labels

