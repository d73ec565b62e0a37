"""The build kit's geometry: paper, label sizes, sticker sheets, where every label goes, the
shopping list, the fill list and the shelf map. Pure (no matplotlib): :mod:`menace.render.labels`
draws what this lays out.

Coordinates are millimetres from the paper's bottom-left corner (as in PDF and matplotlib).

>>> from menace.core.learner import build_boxes

>>> from menace.core.settings import MICHIE
>>> from menace.games import DEFAULT_GAME, find_game
>>> game = find_game(DEFAULT_GAME)
>>> boxes = build_boxes(game, MICHIE)
>>> pages = layout(boxes)
>>> len(pages), sum(len(p.labels) for p in pages), pages[0].labels[0].rect
(15, 304, Rect(x=25.5, y=235.5, width=53.0, height=36.0))
>>> shopping_list(game, boxes).fill
1720
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

from menace.app.shelf import SHELF_WIDTH, SideNames, shelf_sections, side_word
from menace.core.colours import DEFAULT_COLOURS, BeadColour
from menace.core.errors import InvalidInputError
from menace.core.game import Game, Move, Side
from menace.core.learner import Box
from menace.core.numbers import times
from menace.core.settings import Settings
from menace.render import beads as bd

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
    return " ".join(times(n, colours[s].letter) for s, n in sorted(bd.by_slot(game, box, box.initial).items()) if n)


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


def scaled_beads(beads: Mapping[Move, int], most: int) -> dict[Move, int]:
    """A box's beads brought down to ``most`` in all, keeping their proportions as nearly as whole beads
    can (largest remainders), and never taking a move that has beads down to none: a box with more
    such moves than ``most`` keeps one bead of each. A box within ``most`` is left as it is.

    >>> scaled_beads({0: 3_534_408, 1: 12, 4: 90_000}, 100)
    {0: 97, 1: 1, 4: 2}
    >>> scaled_beads({0: 5, 1: 0, 4: 2}, 100)
    {0: 5, 1: 0, 4: 2}
    """
    total = sum(beads.values())
    if total <= most:
        return dict(beads)
    live = [m for m, n in beads.items() if n > 0]
    if len(live) >= most:
        return {m: min(n, 1) for m, n in beads.items()}
    share = {m: beads[m] * most / total for m in live}
    out = {m: max(1, int(share[m])) for m in live}
    while sum(out.values()) > most:  # the floor of one bead pushed it over: take from the largest
        big = max(live, key=lambda m: (out[m], -m))
        out[big] -= 1
    for m in sorted(live, key=lambda m: (share[m] - int(share[m]), -m), reverse=True):
        if sum(out.values()) >= most:
            break
        if out[m] == int(share[m]):  # not raised to one already
            out[m] += 1
    return {m: out.get(m, 0) for m in beads}


def shopping_list(
    game: Game, boxes: Sequence[Box], colours: Sequence[BeadColour] = DEFAULT_COLOURS, spare_percent: float = 50.0,
    counts: str = "initial", fill_of: Callable[[Box], Mapping[Move, int]] | None = None,
) -> ShoppingList:
    """Beads per colour for the fill (the initial beads, or ``counts="now"``: the beads the boxes
    hold now; or what ``fill_of`` says goes in each box), plus ``spare_percent`` of each (rounded up)
    to spare."""
    if spare_percent < 0:
        raise LabelLayoutError("the spare cannot be negative")
    fill = [0] * game.colours
    holders = [0] * game.colours
    for box in boxes:
        beads = fill_of(box) if fill_of is not None else box.initial if counts == "initial" else box.beads
        for s, count in bd.by_slot(game, box, beads).items():
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
                    names: SideNames = None) -> list[ListPage]:
    """The fill list, flowed into as many text columns per page as fit, in box-number order."""
    rows, per_page = _fill_grid(boxes, paper, colours)
    entries: list[ListEntry] = []
    two_sided = len({b.side for b in boxes}) > 1
    for group in move_groups(boxes):
        entries.append(ListEntry(_group_title(group, two_sided, names)))
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


def shelf_map_pages(boxes: Sequence[Box], paper: Paper = A4, per_row: int = SHELF_WIDTH,
                    names: SideNames = None) -> list[list[ShelfRow]]:
    """Box numbers in rows of ``per_row``, a section per move, flowed down as many pages as needed."""
    height = paper.height - _BODY_TOP - _CLEAR
    two_sided = len({b.side for b in boxes}) > 1
    pages: list[list[ShelfRow]] = []
    page: list[ShelfRow] = []
    used = 0.0
    for _, group in shelf_sections(boxes, names):  # the same places menace operate names
        title = _group_title(group, two_sided, names)
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


def _group_title(group: Sequence[Box], two_sided: bool, names: SideNames = None) -> str:
    first, last = group[0], group[-1]
    side = f" ({side_word(first.side, names)})" if two_sided else ""
    count = f"{len(group)} box{'es' if len(group) != 1 else ''}"
    numbers = f"box {first.number}" if len(group) == 1 else f"boxes {first.number}–{last.number}"
    return f"Move {first.move_number}{side}: {numbers}, {count}"


# -- the whole kit -----------------------------------------------------------------------------------
BEAD_CHOICES = ("start", "now")
"""Which beads a kit shows: a new machine's first beads, or the beads its boxes hold now."""


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
    beads: str = "start"
    """``start``: the kit for a new machine (each box's first beads); ``now``: the beads the boxes hold
    now, to copy a trained machine into matchboxes."""
    most: int | None = None
    """At most this many beads in a box (:func:`scaled_beads`): a trained machine one can buy and fill."""

    def __post_init__(self) -> None:
        if self.beads not in BEAD_CHOICES:
            raise LabelLayoutError(f"beads must be one of {', '.join(BEAD_CHOICES)}, not {self.beads!r}")
        if len(self.colours) < self.game.colours:
            raise LabelLayoutError(f"give {self.game.colours} bead colours, not {len(self.colours)}")
        if self.sheet is not None:
            if self.sheet.paper != self.paper:
                raise LabelLayoutError(f"the {self.sheet.name} sticker sheet is {self.sheet.paper.name} paper, "
                                       f"not {self.paper.name}")
            object.__setattr__(self, "label", self.sheet.label)
        if self.spare_percent < 0:
            raise LabelLayoutError("the spare cannot be negative")
        if self.most is not None and self.most < 1:
            raise LabelLayoutError("a box needs room for one bead at least")

    def fill(self, box: Box) -> dict[Move, int]:
        """The beads that go in ``box`` for this kit."""
        beads = box.initial if self.beads == "start" else box.beads
        return beads if self.most is None else scaled_beads(beads, self.most)


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
        fill_list_pages(boxes, spec.paper, spec.colours[:spec.game.colours], names=spec.game.side_names),
        shelf_map_pages(boxes, spec.paper, names=spec.game.side_names),
    )


# The label is designed at 53 x 36 mm and scaled to the label's size, centred.
DESIGN_WIDTH, DESIGN_HEIGHT = 53.0, 36.0
_PAD = 1.6
_CELL = 9.0
_BOARD = 3 * _CELL
_TEXT_X = _PAD + _BOARD + 1.8


def _design_scale(label: LabelSize) -> float:
    return min(label.width / DESIGN_WIDTH, label.height / DESIGN_HEIGHT)


def _mm(value: float) -> str:
    return f"{value:g}"
