"""The build kit drawn: printable matchbox labels, shopping list, fill list and shelf map, as
one PDF or one SVG per label.

Drawing follows the geometry of :mod:`menace.render.labels_layout` (re-exported here): each page is
a :class:`~menace.render.canvas.Canvas` of lines, shapes and text in millimetres, written by our own
PDF and SVG writers (:mod:`menace.render.pdf`, :mod:`menace.render.svg`) in the DejaVu fonts, so a
label printed at 100% is exactly the size asked for, and no plotting library is loaded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import IO

from menace.app.shelf import SHELF_WIDTH
from menace.core.colours import BeadColour
from menace.core.game import Game, Move
from menace.core.learner import Box
from menace.core.numbers import plural, times
from menace.render import beads as bd
from menace.render import pieces
from menace.render.canvas import MONO, MONO_BOLD, SANS, SANS_BOLD, Canvas, Face, GlyphError, text_width
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
from menace.render.pdf import PdfWriter
from menace.render.svg import to_svg


def write_pdf(out: str | Path | IO[bytes], boxes: Sequence[Box], spec: KitSpec,
              progress: Callable[[int, int], None] | None = None) -> KitSummary:
    """Write the whole kit as one PDF: cover, shopping list, labels, fill list, shelf map.

    The same boxes and spec give a byte-identical file (no dates are written). ``progress(done,
    total)`` is called after each page.
    """
    plan = _plan(boxes, spec)
    shopping = shopping_list(spec.game, boxes, spec.colours, spec.spare_percent, fill_of=spec.fill)
    by_number = {b.number: b for b in boxes}
    info = {
        "Title": f"MENACE build kit: {spec.machine}",
        "Subject": "Matchbox labels, shopping list, fill list and shelf map",
        "Creator": "menace labels",
        "Producer": "menace",
    }

    def drawn() -> Iterator[Canvas]:
        yield _cover_page(boxes, spec, plan, shopping)
        yield _shopping_page(boxes, spec, plan, shopping)
        for page in plan.labels:
            yield _label_page(page, by_number, spec, plan)
        for n, fill_page in enumerate(plan.fill):
            yield _fill_page(fill_page, n, boxes, spec, plan)
        for n, shelf_page in enumerate(plan.shelves):
            yield _shelf_page(shelf_page, n, boxes, spec, plan)

    def pages(f: IO[bytes]) -> None:
        with _missing_glyphs_reported(), PdfWriter(f, info) as pdf:
            for canvas in drawn():
                pdf.page(canvas)
                if progress is not None:
                    progress(pdf.pages, plan.total)

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
    two_sided = len({b.side for b in boxes}) > 1
    # Every label is drawn before the folder is made or any file written: a character the fonts lack
    # stops the kit before it leaves half a folder of labels.
    drawn = []
    with _missing_glyphs_reported():
        for box in sorted(boxes, key=lambda b: b.number):
            canvas = Canvas(label.width, label.height)
            rect = Rect(0, 0, label.width, label.height)
            _draw_label(canvas, spec.game, box, rect, spec.colours, two_sided, spec.fill(box))
            _rect(canvas, rect, 0.25, inset=0.125)
            drawn.append((box, canvas))
    made = [f for f in (target, *target.parents) if not f.exists()]  # the folders this kit makes, deepest first
    target.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    new_files: list[Path] = []
    try:
        for box, canvas in drawn:
            path = target / svg_name(box, len(boxes))
            existed = path.exists()
            write_text(path, to_svg(canvas, creator="menace labels"))
            files.append(path)
            if not existed:
                new_files.append(path)
            if progress is not None:
                progress(len(files), len(boxes))
    except BaseException:
        # A kit cut short (a full disk, Ctrl-C) takes back what it added: the labels it wrote anew and
        # the folders it made, so that no half kit or empty folder looks like a finished one.
        for path in new_files:
            path.unlink(missing_ok=True)
        for folder in made:
            try:
                folder.rmdir()
            except OSError:
                break  # something else is in it now
        raise
    shopping = shopping_list(spec.game, boxes, spec.colours, spec.spare_percent, fill_of=spec.fill)
    return KitSummary(0, (0, 0), len(files), shopping, target, tuple(files))


@contextmanager
def _missing_glyphs_reported() -> Iterator[None]:
    """A character the fonts lack (in a colour's name, say) as a :class:`LabelLayoutError`: printed as an
    empty box, it would leave a label that cannot be read."""
    try:
        yield
    except GlyphError as exc:
        raise LabelLayoutError(str(exc)) from None


def _offset(at: Callable[[float, float], tuple[float, float]], cu: float, cv: float, u: float,
            v: float) -> tuple[float, float]:
    return at(cu + u, cv + v)


def _draw_label(canvas: Canvas, game: Game, box: Box, rect: Rect, colours: Sequence[BeadColour],
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

    def text(u: float, v: float, words: str, size: float, fit: bool = False, ha: str = "left",
             va: str = "baseline", face: Face = SANS, colour: str = "#000000", keep: int = 1) -> None:
        if fit:  # shrink a little, then shorten, so that the line ends inside the label
            words, size = _fit(words, size, (right - u) * s, s, face, keep)
        x, y = at(u, v)
        canvas.text(x, y, words, size * s, ha, va, face, colour)

    # The drawing: the board's grid, the pieces as they stand, and every bead of the box: a dot on
    # the square it plays (a game that places pieces) or an arrow from the pawn it moves.
    b0 = _PAD
    cell = _BOARD / max(game.rows, game.cols)
    if game.grid:
        for i in range(1, game.cols):
            canvas.line([at(b0 + i * cell, b0), at(b0 + i * cell, b0 + game.rows * cell)], 1.1 * s)
        for i in range(1, game.rows):
            canvas.line([at(b0, b0 + i * cell), at(b0 + game.cols * cell, b0 + i * cell)], 1.1 * s)
    # Loose pieces (sticks) lie from the top of the drawing down, the caption in big digits under them.
    top_row = 0.0 if game.grid else _BOARD - game.rows * cell

    def centre(c: int) -> tuple[float, float]:
        row, col = divmod(c, game.cols)
        return b0 + (col + 0.5) * cell, b0 + top_row + (game.rows - 1 - row + 0.5) * cell

    for c in range(game.rows * game.cols):
        value = box.position[c]
        if value:
            cu, cv = centre(c)
            pieces.on_canvas(canvas, game.pieces[value], partial(_offset, at, cu, cv), cell, s)
    caption = game.caption(box.position)
    if caption:
        number, _, words = caption.partition(" ")
        text(b0 + _BOARD / 2, b0 + 0.36 * (_BOARD - game.rows * cell), number, 30.0, ha="center",
             va="baseline", face=SANS_BOLD)
        if words:
            text(b0 + _BOARD / 2, b0 + 0.1 * (_BOARD - game.rows * cell), words, 7.0, ha="center",
                 va="top", colour="#333333")
    for m, n in sorted(box.initial.items()):
        if n <= 0 or not game.moves_on_board:
            continue
        colour = bd.colour(game, colours, box.position, m)
        frm, to = game.move_cells(m)
        tu, tv = centre(to)
        if frm is None:
            canvas.circle(at(tu, tv), 0.36 * cell * s, colour.hex, "#000000", 0.6 * s)
            text(tu, tv - 0.05, colour.letter, 9.0, ha="center", va="center_baseline", face=SANS_BOLD,
                 colour=colour.ink)
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
        canvas.polygon([at(*tip), at(base[0] - uy * 1.2, base[1] + ux * 1.2),
                        at(base[0] + uy * 1.2, base[1] - ux * 1.2)], colour.hex, "#000000",
                     0.3 * s)
        canvas.circle(at(mu, mv), radius * s, colour.hex, "#000000", 0.4 * s)
        text(mu, mv - 0.05, colour.letter, 5.6, ha="center", va="center_baseline", face=SANS_BOLD,
             colour=colour.ink)
    # The UP mark over the drawing's top edge.
    mid = b0 + _BOARD / 2
    top = DESIGN_HEIGHT - _PAD
    canvas.polygon([at(mid - 4.6, top - 2.6), at(mid - 2.6, top - 2.6), at(mid - 3.6, top - 0.2)], "#000000")
    text(mid - 2.0, top - 1.4, "UP", 7.0, ha="left", va="center", face=SANS_BOLD)
    # Box number, move, then the beads: count, letter and colour name, one colour a line.
    text(_TEXT_X, top + 0.2, f"{box.number}", 19.0, fit=True, ha="left", va="top", face=SANS_BOLD)
    side = f" · {game.side_names[box.side]}" if two_sided else ""
    beads = sum(fill.values())
    header = f"move {box.move_number}{side} · {plural(beads, 'bead')}"
    if text_width(header, 6.0 * s, SANS) * 0.85 > (right - _TEXT_X) * s:
        header = plural(beads, "bead")  # a count in the millions: the move is on the shelf map and fill list
    text(_TEXT_X, top - 7.6, header, 6.0, fit=True, ha="left", va="top", colour="#333333", keep=len(header))
    held = sorted(bd.by_slot(game, box, {m: n for m, n in fill.items() if n}).items())
    names = bd.slot_names(game)
    room_top, room_bottom = top - 10.8, _PAD
    pitch = min(3.2, (room_top - room_bottom) / max(1, len(held)))
    font = min(6.4, pitch / MM_PER_PT * 0.82)
    for i, (slot, n) in enumerate(held):
        colour = colours[slot % len(colours)]
        v = room_top - (i + 0.5) * pitch
        canvas.circle(at(_TEXT_X + 1.0, v), min(1.05, pitch * 0.36) * s, colour.hex, "#000000", 0.4 * s)
        # A named move (Nim's "take 2") says what it is where a board would have shown it; the colour's
        # name is on the key page.
        what = colour.name if game.moves_on_board else names[slot]
        count = times(n, colour.letter)
        text(_TEXT_X + 2.6, v, f"{count} {what}", font, fit=True, ha="left", va="center_baseline",
             keep=len(count))


def _fit(words: str, size: float, width: float, scale: float, face: Face, keep: int = 1) -> tuple[str, float]:
    """``words`` and a design font size that fit ``width`` mm at ``scale``: a little smaller, else cut
    short; but the first ``keep`` characters (a count) are never cut: they are shrunk to fit instead."""
    need = text_width(words, size * scale, face)
    if need <= width:
        return words, size
    if width / need >= 0.85:
        return words, size * width / need
    whole = words[:keep].rstrip()
    while len(words) > keep + 1 and text_width(words, size * scale, face) > width:
        words = words[:-2].rstrip() + "…"
    if len(words) <= keep + 1 or text_width(words, size * scale, face) > width:
        words = whole  # nothing but what must stay: as large as fits
        size = min(size, size * width / text_width(words, size * scale, face))
    return words, size


def _page(spec: KitSpec) -> Canvas:
    return Canvas(spec.paper.width, spec.paper.height)


def _rect(canvas: Canvas, r: Rect, width: float, colour: str = "#000000", inset: float = 0.0) -> None:
    """The outline of ``r`` (drawn ``inset`` mm inside it)."""
    canvas.rect(r.x + inset, r.y + inset, r.right - inset, r.top - inset, width, colour)


def _header(canvas: Canvas, spec: KitSpec, page_number: int, plan: _Plan, what: str) -> None:
    y = spec.paper.height - EDGE - HEADER / 2
    canvas.text(_CLEAR, y, f"MENACE build kit · {spec.machine} · {what}", 7.5, ha="left", va="center",
                colour="#333333")
    canvas.text(spec.paper.width - _CLEAR, y, f"page {page_number} of {plan.total} · print at 100%", 7.5,
                ha="right", va="center", colour="#333333")


def _title(canvas: Canvas, spec: KitSpec, words: str, sub: str = "") -> float:
    """A page title under the header; returns the y (mm) just under it."""
    y = spec.paper.height - EDGE - HEADER - 2.0
    canvas.text(_CLEAR, y, words, 15, face=SANS_BOLD, ha="left", va="top")
    if sub:
        canvas.text(_CLEAR, y - 7.5, sub, 8, ha="left", va="top", colour="#333333")
    return y - (11.0 if sub else 7.5)


def _label_page(page: Page, boxes: dict[int, Box], spec: KitSpec, plan: _Plan) -> Canvas:
    canvas = _page(spec)
    two_sided = len({b.side for b in boxes.values()}) > 1
    first, last = page.labels[0], page.labels[-1]
    moves = sorted({s.move_number for s in page.labels})
    move_text = f"move {moves[0]}" if len(moves) == 1 else f"moves {moves[0]}–{moves[-1]}"
    where = f"{spec.sheet.name} sticker sheet" if spec.sheet else f"cut on the lines, {spec.label}"
    _header(canvas, spec, plan.first_label_page + page.number - 1, plan,
            f"labels, boxes {first.box}–{last.box} ({move_text}) · {where}")
    for slot in page.labels:
        box = boxes[slot.box]
        _draw_label(canvas, spec.game, box, slot.rect, spec.colours, two_sided, spec.fill(box))
        if spec.sheet is None:
            _rect(canvas, slot.rect, 0.3, "#999999")
    for mark in page.cut_marks:
        canvas.line([(mark.x0, mark.y0), (mark.x1, mark.y1)], 0.5)
    return canvas


def _example_line(boxes: Sequence[Box], spec: KitSpec) -> str:
    """How to read a label's bead line, from the kit's own first box: ``4×W white means 4 white beads``
    (Gardner's HER: ``1×A amber means 1 amber bead``)."""
    for box in boxes:
        for slot, n in sorted(bd.by_slot(spec.game, box, spec.fill(box)).items()):
            if n:
                colour = spec.colours[slot % len(spec.colours)]
                return f"{times(n, colour.letter)} {colour.name} means {plural(n, colour.name + ' bead')}"
    return "a line N×L colour means N beads of that colour"


def _cover_page(boxes: Sequence[Box], spec: KitSpec, plan: _Plan, shopping: ShoppingList) -> Canvas:
    canvas = _page(spec)
    _header(canvas, spec, 1, plan, "cover")
    x = _CLEAR
    y = _title(canvas, spec, "MENACE build kit",
               f"Machine “{spec.machine}”: {len(boxes):,} matchboxes and {shopping.fill:,} beads {_when(spec)}")
    y -= 4
    canvas.text(x, y, "The machine", 11, face=SANS_BOLD, va="top")
    y -= 6
    groups = move_groups(boxes)
    facts = dict(spec.settings.describe())
    facts["side"] = " and ".join(spec.game.side_names[side] for side in spec.settings.sides)  # Black, not O
    facts["matchboxes"] = " + ".join(str(len(g)) for g in groups) + f" = {len(boxes):,} (by move)"
    for key, value in facts.items():
        canvas.text(x, y, key, 8.5, va="top", colour="#333333")
        canvas.text(x + 38, y, value, 8.5, va="top")
        y -= 4.6
    y -= 4
    canvas.text(x, y, "What is in this file", 11, face=SANS_BOLD, va="top")
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
        canvas.text(x, y, pages, 8.5, va="top", colour="#333333")
        canvas.text(x + 22, y, what, 8.5, va="top")
        y -= 4.6
    y -= 4
    canvas.text(x, y, "How to print", 11, face=SANS_BOLD, va="top")
    y -= 6
    for line in (
        "Print at 100% (“actual size”); turn off “fit to page” and any scaling.",
        f"Then measure: the bar below is 100 mm long, and each label {spec.label}.",
    ):
        canvas.text(x, y, line, 8.5, va="top")
        y -= 4.6
    y -= 3
    _ruler(canvas, x, y - 6)
    y -= 18
    canvas.text(x, y, "Reading a label", 11, face=SANS_BOLD, va="top")
    y -= 6
    if bd.places_pieces(spec.game):
        drawing = ("The drawing is the position in the box, X and O as played; a dot marks every square MENACE may "
                   "play,",
                   "in its bead's colour with the colour's letter (the letter still reads on a grey print).")
    elif not spec.game.moves_on_board:
        drawing = (f"The drawing is the position in the box: {spec.game.caption(spec.game.initial()).split(' ')[-1]}"
                   " as they lie, and their number in big digits.",
                   "Each line on the right names the move its bead colour stands for (the same in every box).")
    else:
        drawing = ("The drawing is the position in the box, white and black pawns as they stand; an arrow shows every",
                   "move MENACE may make, in its bead's colour with the colour's letter (it reads on a grey print).")
    for line in (
        "The big number is the box's number: the same in every list here and in the program (menace show N).",
        *drawing,
        f"UP marks the drawing's top edge. The lines on the right say what goes in {_when(spec)}:",
        f"{_example_line(boxes, spec)}. On a machine that plays both sides, the side after the move",
        "says which side the box plays. Glue each label on the top of its matchbox.",
    ):
        canvas.text(x, y, line, 8.5, va="top")
        y -= 4.6
    y -= 4
    key = ("one per square of a box's drawing" if bd.places_pieces(spec.game)
           else "one per move, the same in every box" if not spec.game.moves_on_board
           else "a box's moves in order, the colours of its arrows")
    canvas.text(x, y, f"Bead colours: {key}", 11, face=SANS_BOLD, va="top")
    y -= 6
    _colour_key(canvas, spec.game, spec.colours, x, y)
    return canvas


def _when(spec: KitSpec) -> str:
    return "at the start" if spec.beads == "start" else "now (the machine as trained)"


def _pages(first: int, last: int) -> str:
    return f"page {first}" if first == last else f"pages {first}–{last}"


def _ruler(canvas: Canvas, x: float, y: float) -> None:
    canvas.line([(x, y), (x + 100, y)], 0.6)
    for mm in range(101):
        tall = 4.0 if mm % 10 == 0 else 2.6 if mm % 5 == 0 else 1.5
        canvas.line([(x + mm, y), (x + mm, y + tall)], 0.3 if mm % 10 else 0.5)
        if mm % 10 == 0:
            canvas.text(x + mm, y - 1.0, str(mm), 6, ha="center", va="top")
    canvas.text(x + 103, y, "100 mm", 8, va="bottom")


def _colour_key(canvas: Canvas, game: Game, colours: Sequence[BeadColour], x: float, y: float) -> None:
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
            canvas.circle((cx, cy), 3.6, colour.hex, "#000000", 0.5)
            canvas.text(cx, cy, colour.letter, 10, face=SANS_BOLD, ha="center", va="center_baseline",
                        colour=colour.ink)
        lx = x + game.cols * cell + 8
    for m, colour in enumerate(colours):
        ly = y - 1.5 - m * 3.4
        canvas.circle((lx + 1.2, ly), 1.2, colour.hex, "#000000", 0.4)
        canvas.text(lx + 3.4, ly, f"{colour.letter}  {colour.name}", 8, va="center_baseline")
        where = f"square {names[m]}" if bd.places_pieces(game) else names[m]
        canvas.text(lx + 38, ly, where, 8, va="center_baseline", colour="#333333")
        canvas.text(lx + 70, ly, colour.hex, 8, va="center_baseline", colour="#555555", face=MONO)


def _shopping_page(boxes: Sequence[Box], spec: KitSpec, plan: _Plan, shopping: ShoppingList) -> Canvas:
    canvas = _page(spec)
    _header(canvas, spec, 2, plan, "shopping list")
    pct = _percent(shopping.spare_percent)
    y = _title(canvas, spec, "Shopping list",
               f"{len(boxes):,} matchboxes and {shopping.buy:,} beads in {len(shopping.lines)} colours "
               f"({shopping.fill:,} to fill the boxes + {shopping.spare:,} spare)")
    y -= 5
    x = _CLEAR
    cols = (x, x + 8, x + 16, x + 48, x + 68, x + 92, x + 114, x + 136)
    heads = ("", "", "colour", "square" if bd.places_pieces(spec.game) else "stands for", "boxes",
             "initial fill" if spec.beads == "start" else "fill now",
             f"spare {pct}", "to buy")
    for i, head in enumerate(heads):
        canvas.text(cols[i] + (18 if i >= 4 else 0), y, head, 9, face=SANS_BOLD, va="top",
                    ha="right" if i >= 4 else "left")
    y -= 6
    canvas.line([(x, y + 1.5), (x + 156, y + 1.5)], 0.6)
    for line in shopping.lines:
        y -= 3.4
        canvas.circle((cols[0] + 2.2, y), 2.1, line.colour.hex, "#000000", 0.5)
        canvas.text(cols[1], y, line.colour.letter, 9, face=SANS_BOLD, va="center_baseline")
        canvas.text(cols[2], y, line.colour.name, 9, va="center_baseline")
        canvas.text(cols[3], y, line.square, 9, va="center_baseline")
        for i, value in ((4, line.boxes), (5, line.fill), (6, line.spare), (7, line.buy)):
            canvas.text(cols[i] + 18, y, f"{value:,}", 9, va="center_baseline", ha="right",
                        face=SANS_BOLD if i == 7 else SANS)
        y -= 3.4
        canvas.line([(x, y), (x + 156, y)], 0.2, "#999999")
    y -= 4.5
    canvas.text(cols[2], y, "total", 9.5, face=SANS_BOLD, va="center_baseline")
    for i, value in ((5, shopping.fill), (6, shopping.spare), (7, shopping.buy)):
        canvas.text(cols[i] + 18, y, f"{value:,}", 9.5, face=SANS_BOLD, va="center_baseline", ha="right")
    y -= 4
    canvas.line([(x, y), (x + 156, y)], 0.6)
    y -= 8
    win = spec.settings.win
    notes = [
        ("Initial fill: the beads each box holds before the first game, added up colour by colour over all"
         if spec.beads == "start" else
         "Fill now: the beads each box holds now, as trained, added up colour by colour over all"),
        f"{len(boxes):,} boxes (the lines “{_example_line(boxes, spec).split(' means ')[0]}” on the labels; the "
        f"fill list gives them box by box).",
        *((f"Spare: {pct} of each colour's fill, rounded up. A win adds beads ({win:+d} for every bead drawn,",
           "put back with its copies), so the boxes that play well fill up; and beads get dropped and lost.")
          if win > 0 else
          (f"Spare: {pct} of each colour's fill, rounded up. This machine's rule adds no beads after a win, so",
           "the spare is for beads that get dropped and lost.")),
        f"Also: {len(boxes):,} matchboxes (a few more to spare), glue or the sticker sheets, and a cup or",
        "saucer to draw the beads into during a game.",
    ]
    for note in notes:
        canvas.text(x, y, note, 8.5, va="top")
        y -= 4.6
    y -= 6
    canvas.text(x, y, "Beads by move", 11, face=SANS_BOLD, va="top")
    y -= 7
    canvas.text(x, y, "move", 9, face=SANS_BOLD, va="top")
    canvas.text(x + 40, y, "boxes", 9, face=SANS_BOLD, va="top", ha="right")
    canvas.text(x + 70, y, "beads", 9, face=SANS_BOLD, va="top", ha="right")
    canvas.text(x + 78, y, "per colour in each box", 9, face=SANS_BOLD, va="top")
    two_sided = len({b.side for b in boxes}) > 1
    for group in move_groups(boxes):
        y -= 4.6
        counts = sorted({n for b in group for n in spec.fill(b).values() if n})
        side = f" ({spec.game.side_names[group[0].side]})" if two_sided else ""
        canvas.text(x, y, f"{group[0].move_number}{side}", 9, va="top")
        canvas.text(x + 40, y, f"{len(group):,}", 9, va="top", ha="right")
        canvas.text(x + 70, y, f"{sum(sum(spec.fill(b).values()) for b in group):,}", 9, va="top", ha="right")
        listed = ", ".join(f"{n:,}" for n in counts)
        room = spec.paper.width - _CLEAR - (x + 78)
        if text_width(listed, 9, SANS) > room:  # a trained machine's many counts: their range
            listed = f"{counts[0]:,} to {counts[-1]:,} ({len(counts):,} different counts)"
        canvas.text(x + 78, y, listed, 9, va="top")
    return canvas


def _percent(value: float) -> str:
    return f"{value:g}%"


def _fill_page(page: ListPage, index: int, boxes: Sequence[Box], spec: KitSpec, plan: _Plan) -> Canvas:
    canvas = _page(spec)
    number = plan.first_fill_page + index
    _header(canvas, spec, number, plan, f"fill list {index + 1} of {len(plan.fill)}")
    title = "Fill list" if index == 0 else "Fill list (continued)"
    _title(canvas, spec, title, f"The beads that go in each box {_when(spec)}, per colour (· for none); "
           "sum: beads in the box")
    top = spec.paper.height - _BODY_TOP
    colours = spec.colours[:spec.game.colours]
    width = _fill_width(boxes, colours)
    digits = "0" * max(3, len(str(max(b.number for b in boxes))))
    char = _MONO_ADVANCE * FILL_FONT * MM_PER_PT
    for c, column in enumerate(page.columns):
        x = _CLEAR + c * (width + _FILL_GUTTER)
        head = _fill_row_text(None, colours, digits)
        canvas.text(x, top - 0.78 * FILL_ROW, head, FILL_FONT, face=MONO_BOLD, va="baseline")
        # A colour swatch over each colour's column.
        first = len(digits) + 4
        for m, colour in enumerate(colours):
            cx = x + (first + 3 * m + 1.5) * char
            canvas.polygon([(cx - 1.3, top + 0.3), (cx + 1.3, top + 0.3), (cx + 1.3, top + 1.7),
                            (cx - 1.3, top + 1.7)], colour.hex, "#000000", 0.25)
        canvas.line([(x, top - FILL_ROW * 1.02), (x + width, top - FILL_ROW * 1.02)], 0.5)
        for r, entry in enumerate(column, start=1):
            row_top = top - r * FILL_ROW
            baseline = row_top - 0.78 * FILL_ROW
            if entry.box is None:
                canvas.text(x, baseline, entry.heading, FILL_FONT, face=SANS_BOLD, va="baseline")
                continue
            slots = bd.by_slot(spec.game, entry.box, spec.fill(entry.box))
            canvas.text(x, baseline, _fill_row_text(entry.box, colours, digits, slots), FILL_FONT, face=MONO)
            if entry.box.number % 5 == 0:
                rule = row_top - FILL_ROW * 1.02
                canvas.line([(x, rule), (x + width, rule)], 0.2, "#999999")
    return canvas


def _shelf_page(rows: list[ShelfRow], index: int, boxes: Sequence[Box], spec: KitSpec, plan: _Plan) -> Canvas:
    canvas = _page(spec)
    number = plan.first_shelf_page + index
    _header(canvas, spec, number, plan, f"shelf map {index + 1} of {len(plan.shelves)}")
    title = "Shelf map" if index == 0 else "Shelf map (continued)"
    _title(canvas, spec, title, f"Boxes as they stand on the shelves, {SHELF_WIDTH} to a row, a section per move")
    w, h = SHELF_CELL
    x0 = _CLEAR + 14.0
    y = spec.paper.height - _BODY_TOP
    for i, row in enumerate(rows):
        if row.title is not None:
            if i:
                y -= _SHELF_GAP
            canvas.text(_CLEAR, y - SHELF_HEADING + 2.0, row.title, 10, face=SANS_BOLD, va="bottom")
            y -= SHELF_HEADING
        canvas.text(x0 - 2.0, y - h / 2, f"row {row.row_number}", 6.5, ha="right", va="center_baseline",
                    colour="#555555")
        for c, box_number in enumerate(row.boxes):
            cell = Rect(x0 + c * w, y - h, w, h)
            _rect(canvas, cell, 0.4)
            canvas.text(cell.x + w / 2, cell.y + h / 2, str(box_number), 9, face=SANS_BOLD, ha="center",
                        va="center_baseline")
        y -= h
    return canvas


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
