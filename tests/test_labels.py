"""The build kit library: label geometry in millimetres, the lists, and the PDF/SVG it writes."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import astuple
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pdfread import page_sizes_mm, page_text, render_gray

from menace.core.colours import DEFAULT_COLOURS, parse_colours
from menace.core.learner import Box, build_boxes
from menace.core.settings import MICHIE, Settings
from menace.games.tictactoe import TICTACTOE
from menace.render import labels as L
from menace.render.canvas import Canvas, measure
from menace.render.labels_layout import scaled_beads

MM_PER_PT = 25.4 / 72


def machine(**changes: object) -> list[Box]:
    return build_boxes(TICTACTOE, Settings(**{**MICHIE.__dict__, **changes}))


MICHIE_BOXES = machine()
SECOND_BOXES = machine(side="O")
ALL_SQUARES_BOXES = machine(all_squares=True)
RAW_BOXES = machine(symmetry=False)


def render(boxes: Sequence[Box], **spec: Any) -> tuple[bytes, L.KitSummary]:
    out = io.BytesIO()
    summary = L.write_pdf(out, boxes, L.KitSpec("test", MICHIE, TICTACTOE, **spec))
    return out.getvalue(), summary


def all_slots(pages: Sequence[L.Page]) -> list[L.LabelSlot]:
    return list(L.iter_labels(pages))


def check_geometry(pages: Sequence[L.Page], label: L.LabelSize) -> None:
    """Every label is exactly ``label``, inside its page, clear of the others and of the cut marks."""
    for page in pages:
        for slot in page.labels:
            r = slot.rect
            assert (r.width, r.height) == (label.width, label.height)
            assert 0 <= r.x and r.right <= page.width + 1e-9
            assert 0 <= r.y and r.top <= page.height + 1e-9
        rects = [s.rect for s in page.labels]
        for i, a in enumerate(rects):
            assert not any(a.overlaps(b) for b in rects[i + 1:])
        for mark in page.cut_marks:
            for x, y in ((mark.x0, mark.y0), (mark.x1, mark.y1)):
                assert L.EDGE - 1e-9 <= x <= page.width - L.EDGE + 1e-9
                assert L.EDGE - 1e-9 <= y <= page.height - L.EDGE + 1e-9
                assert not any(r.x < x < r.right and r.y < y < r.top for r in rects)


# -- geometry -----------------------------------------------------------------------------------------
def test_michie_machine_gets_304_labels_in_box_order() -> None:
    pages = L.layout(MICHIE_BOXES)
    slots = all_slots(pages)
    assert len(slots) == 304
    assert [s.box for s in slots] == list(range(1, 305))
    assert all(len(p.labels) <= 21 for p in pages)
    assert len(pages) == 15


@pytest.mark.parametrize("paper", [L.A4, L.LETTER])
def test_labels_are_exactly_the_stated_size_inside_the_page(paper: L.Paper) -> None:
    pages = L.layout(MICHIE_BOXES, paper)
    check_geometry(pages, L.DEFAULT_LABEL)
    assert all((p.width, p.height) == (paper.width, paper.height) for p in pages)
    assert L.grid_capacity(paper, L.DEFAULT_LABEL) == (3, 7)


def test_each_move_starts_a_new_row() -> None:
    pages = L.layout(MICHIE_BOXES)
    left = min(s.rect.x for s in all_slots(pages))
    slots = all_slots(pages)
    firsts = [s for prev, s in zip(slots, slots[1:]) if prev.move_number != s.move_number]
    assert [s.box for s in firsts] == [2, 14, 122]
    assert all(s.rect.x == left for s in firsts)
    # Box 1 sits alone on its row; box 2 starts the next one.
    assert pages[0].labels[1].rect.top == pytest.approx(pages[0].labels[0].rect.y)


def test_cut_labels_stand_edge_to_edge_with_a_mark_on_every_edge() -> None:
    page = L.layout(MICHIE_BOXES)[1]
    xs = sorted({s.rect.x for s in page.labels} | {s.rect.right for s in page.labels})
    ys = sorted({s.rect.y for s in page.labels} | {s.rect.top for s in page.labels})
    assert xs == pytest.approx([xs[0] + 53 * i for i in range(4)])
    assert ys == pytest.approx([ys[0] + 36 * i for i in range(8)])
    vertical = {round(m.x0, 6) for m in page.cut_marks if m.x0 == m.x1}
    horizontal = {round(m.y0, 6) for m in page.cut_marks if m.y0 == m.y1}
    assert vertical == {round(x, 6) for x in xs}
    assert horizontal == {round(y, 6) for y in ys}
    assert len(page.cut_marks) == 2 * len(xs) + 2 * len(ys)
    # The grid is centred across the page.
    assert page.margins.left == pytest.approx(page.margins.right) == pytest.approx((210 - 159) / 2)


def test_a4_sticker_sheet_of_21() -> None:
    sheet = L.A4_21
    assert sheet.per_sheet == 21 and sheet.paper == L.A4
    assert (sheet.label.width, sheet.label.height) == (63.5, 38.1)
    pages = L.layout(MICHIE_BOXES, sheet=sheet)
    check_geometry(pages, sheet.label)
    assert sum(len(p.labels) for p in pages) == 304
    full = pages[1]
    assert len(full.labels) == 21 and full.cut_marks == ()
    first, last = full.labels[0].rect, full.labels[-1].rect
    assert (first.x, 297 - first.top) == pytest.approx((7.2, 15.15))
    assert (last.right, last.y) == pytest.approx((7.2 + 2 * 66.0 + 63.5, 15.15))
    assert astuple(full.margins) == pytest.approx((15.15, 7.3, 15.15, 7.2))
    columns = sorted({round(s.rect.x, 6) for s in full.labels})
    rows = sorted({round(s.rect.y, 6) for s in full.labels}, reverse=True)
    assert [b - a for a, b in zip(columns, columns[1:])] == pytest.approx([66.0, 66.0])  # 2.5 mm gaps
    assert [a - b for a, b in zip(rows, rows[1:])] == pytest.approx([38.1] * 6)  # rows touch


@pytest.mark.parametrize(
    ("boxes", "count"),
    [(SECOND_BOXES, 289), (ALL_SQUARES_BOXES, 304), (RAW_BOXES, 2201), (machine(side="both"), 593)],
    ids=["second", "all-squares", "raw", "both"],
)
def test_every_machine_lays_out(boxes: list[Box], count: int) -> None:
    pages = L.layout(boxes)
    check_geometry(pages, L.DEFAULT_LABEL)
    assert [s.box for s in all_slots(pages)] == list(range(1, count + 1))
    fill = L.fill_list_pages(boxes)
    listed = [e.box.number for p in fill for col in p.columns for e in col if e.box is not None]
    assert listed == list(range(1, count + 1))
    shelves = [n for page in L.shelf_map_pages(boxes) for row in page for n in row.boxes]
    assert shelves == list(range(1, count + 1))


@settings(max_examples=40, deadline=None)
@given(st.floats(34.5, 190.0), st.floats(23.4, 250.0), st.sampled_from([L.A4, L.LETTER]))
def test_any_readable_size_that_fits_lays_out_cleanly(width: float, height: float, paper: L.Paper) -> None:
    label = L.LabelSize(round(width, 1), round(height, 1))
    try:
        L.check_label(paper, label)
    except L.LabelLayoutError:
        return
    pages = L.layout(MICHIE_BOXES[:40], paper, label)
    check_geometry(pages, label)
    assert [s.box for s in all_slots(pages)] == list(range(1, 41))


def test_label_sizes_are_parsed_and_checked() -> None:
    assert L.parse_label_size("53x36") == L.DEFAULT_LABEL
    assert L.parse_label_size(" 63.5 × 38.1 mm ") == L.LabelSize(63.5, 38.1)
    for bad in ("53", "x36", "53x", "-53x36", "53x36x2", "big"):
        with pytest.raises(L.LabelLayoutError, match="not a label size"):
            L.parse_label_size(bad)
    with pytest.raises(L.LabelLayoutError, match="more than zero"):
        L.parse_label_size("0x36")
    with pytest.raises(L.LabelLayoutError, match="does not fit on A4"):
        L.check_label(L.A4, L.LabelSize(200, 36))
    with pytest.raises(L.LabelLayoutError, match="too small to read"):
        L.check_label(L.A4, L.LabelSize(30, 20))
    with pytest.raises(L.LabelLayoutError, match="Letter"):
        L.KitSpec("m", MICHIE, TICTACTOE, paper=L.LETTER, sheet=L.A4_21)


# -- the lists ----------------------------------------------------------------------------------------
def test_shopping_list_for_michie_totals_1720_beads() -> None:
    shopping = L.shopping_list(TICTACTOE, MICHIE_BOXES)
    assert shopping.fill == 1720
    assert [line.colour for line in shopping.lines] == list(DEFAULT_COLOURS)
    assert [line.square for line in shopping.lines][:3] == ["a1", "a2", "a3"]
    assert all(line.spare == -(-line.fill // 2) for line in shopping.lines)  # 50%, rounded up
    assert shopping.buy == shopping.fill + shopping.spare == 2582
    assert L.shopping_list(TICTACTOE, MICHIE_BOXES, spare_percent=0).buy == 1720


def test_shopping_list_for_other_machines() -> None:
    assert L.shopping_list(TICTACTOE, ALL_SQUARES_BOXES).fill == 1917
    assert L.shopping_list(TICTACTOE, SECOND_BOXES).fill == sum(b.total for b in SECOND_BOXES)
    with pytest.raises(L.LabelLayoutError):
        L.shopping_list(TICTACTOE, MICHIE_BOXES, spare_percent=-1)


def test_labels_and_lists_use_the_initial_fill() -> None:
    box = MICHIE_BOXES[0]
    played = Box(box.number, box.position, box.side, box.move_number, box.initial, {0: 9, 1: 0, 4: 1})
    assert L.fill_text(TICTACTOE, played) == "4×W 4×K 4×G"
    assert L.shopping_list(TICTACTOE, [played]).fill == 12


def test_fill_list_never_ends_a_column_on_a_heading() -> None:
    for page in L.fill_list_pages(RAW_BOXES):
        for column in page.columns:
            assert column[-1].box is not None


def test_shelf_map_rows_hold_twelve_and_sections_follow_moves() -> None:
    pages = L.shelf_map_pages(MICHIE_BOXES)
    assert len(pages) == 1
    rows = pages[0]
    assert all(len(r.boxes) <= L.SHELF_WIDTH for r in rows)
    titles = [r.title for r in rows if r.title]
    assert titles == [
        "Move 1: box 1, 1 box", "Move 2: boxes 2–13, 12 boxes", "Move 3: boxes 14–121, 108 boxes",
        "Move 4: boxes 122–304, 183 boxes",
    ]
    raw_pages = L.shelf_map_pages(RAW_BOXES)
    assert len(raw_pages) > 1
    assert raw_pages[1][0].title is not None  # a section that goes on over a page says so


# -- the files ----------------------------------------------------------------------------------------
def test_pdf_pages_are_the_paper_size_and_the_file_is_repeatable() -> None:
    boxes = MICHIE_BOXES[:30]
    first, summary = render(boxes)
    again, _ = render(boxes)
    assert first == again
    assert first.startswith(b"%PDF") and b"CreationDate" not in first
    sizes = page_sizes_mm(first)
    assert len(sizes) == summary.pages == 2 + 2 + 1 + 1
    assert all(w == pytest.approx(210, abs=0.01) and h == pytest.approx(297, abs=0.01) for w, h in sizes)
    letter, _ = render(boxes, paper=L.LETTER)
    assert all(w == pytest.approx(215.9, abs=0.01) and h == pytest.approx(279.4, abs=0.01)
               for w, h in page_sizes_mm(letter))


def test_drawing_the_kit_loads_no_plotting_library(tmp_path: Path) -> None:
    """Nothing a user set up for matplotlib (a "tight" bounding box that would crop the page, a font)
    can reach the kit: writing it, PDF or SVG, does not load matplotlib at all."""
    probe = (
        "import sys\n"
        "from menace.core.learner import build_boxes\n"
        "from menace.core.settings import MICHIE\n"
        "from menace.games.tictactoe import TICTACTOE\n"
        "from menace.render import labels as L\n"
        "boxes = build_boxes(TICTACTOE, MICHIE)[:30]\n"
        "L.write_pdf(sys.argv[1] + '/k.pdf', boxes, L.KitSpec('m', MICHIE, TICTACTOE))\n"
        "L.write_svgs(sys.argv[1] + '/svg', boxes[:3], L.KitSpec('m', MICHIE, TICTACTOE))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "k.pdf").stat().st_size > 0 and len(list((tmp_path / "svg").iterdir())) == 3


def test_every_page_renders_and_each_label_reads_as_text() -> None:
    pdf, summary = render(MICHIE_BOXES[:25])
    assert summary.pages == 6
    for page in range(summary.pages):
        image = render_gray(pdf, page, 20)
        assert image.size in ((165, 234), (166, 234)) and image.getextrema()[0] < 128  # A4 at 20 dpi, inked
    first = summary.label_pages[0]
    lines = [line.strip() for line in page_text(pdf, first - 1).splitlines() if line.strip()]
    assert "labels, boxes 1–19 (moves 1–3) · cut on the lines, 53 x 36 mm" in " ".join(lines)
    for box in MICHIE_BOXES[:19]:
        assert f"UP {box.number}" in lines, box.number  # the number beside the label's UP arrow
        assert f"move {box.move_number} · {box.total} beads" in lines
        colours = {DEFAULT_COLOURS[s] for s in L.bd.by_slot(TICTACTOE, box, box.initial)}
        for colour in colours:
            assert any(line.endswith(f"×{colour.letter} {colour.name}") for line in lines)
    assert "4×W white" in lines and "4×K black" in lines and "4×G green" in lines  # box 1
    cover = " ".join(page_text(pdf, 0).split())
    assert "Print at 100% (“actual size”); turn off “fit to page” and any scaling." in cover


def test_label_text_stays_inside_the_label() -> None:
    """Long colour names and four-figure counts are shrunk or cut short ("…"), never past the edge."""
    colours = parse_colours(",".join(f"{name}:{'ABCDEFGHI'[i]}=#{i * 28:02x}8040" for i, name in enumerate(
        ["ultramarine-cerulean-blue", "W" * 30, "vermilion", "x", "grün", "Ωμέγα", "a very long name indeed",
         "pale straw yellow", "purple"])))
    game = TICTACTOE
    spec_boxes = [Box(b.number, b.position, b.side, b.move_number, b.initial, {m: 1234 * (m + 1) for m in b.initial})
                  for b in MICHIE_BOXES[:40]]
    for label in (L.DEFAULT_LABEL, L.LabelSize(34.5, 23.4), L.LabelSize(120, 40), L.A4_21.label):
        cut = 0
        for box in spec_boxes:
            canvas = Canvas(label.width, label.height)
            rect = L.Rect(0, 0, label.width, label.height)
            L._draw_label(canvas, game, box, rect, colours, False, box.beads)
            for run in canvas.texts:
                metrics = measure(run.text, run.face)
                scale = run.size / run.face.font.units_per_em * MM_PER_PT
                assert run.x >= 0 and run.x + metrics.advance * scale <= label.width, (label, run.text)
                assert run.y - metrics.descent * scale >= 0, (label, run.text)
                assert run.y + metrics.ascent * scale <= label.height, (label, run.text)
                cut += run.text.endswith("…")
        assert cut > 0  # some lines had to be cut short


@pytest.mark.parametrize("fmt", ["pdf", "svg"])
def test_a_colour_name_the_fonts_cannot_print_is_a_clear_error(tmp_path: Path, fmt: str) -> None:
    colours = parse_colours(",".join(f"c{i}:{'ABCDEFGHI'[i]}=#00000{i}" for i in range(8)) + ",紅:R=#ff0000")
    spec = L.KitSpec("m", MICHIE, TICTACTOE, colours=colours)
    with pytest.raises(L.LabelLayoutError, match=r"no glyph for '紅' \(U\+7D05"):
        if fmt == "pdf":
            L.write_pdf(tmp_path / "k.pdf", MICHIE_BOXES, spec)
        else:
            L.write_svgs(tmp_path / "svg", MICHIE_BOXES, spec)
    assert list(tmp_path.iterdir()) == []  # no file, no folder, no temporary file left behind


def test_render_a_second_player_machine_with_custom_colours(tmp_path: Path) -> None:
    colours = parse_colours(",".join(f"c{i}:{'ABCDEFGHI'[i]}=#{i * 28:02x}{i * 28:02x}{i * 28:02x}" for i in range(9)))
    out = tmp_path / "second.pdf"
    summary = L.write_pdf(out, SECOND_BOXES[:25], L.KitSpec("second", Settings(side="O"), TICTACTOE, colours=colours,
                                                            sheet=L.A4_21))
    assert out.read_bytes().startswith(b"%PDF") and summary.labels == 25


def test_one_svg_per_box_exactly_the_label_size(tmp_path: Path) -> None:
    boxes = ALL_SQUARES_BOXES[:12]
    summary = L.write_svgs(tmp_path / "svg", boxes, L.KitSpec("m", MICHIE, TICTACTOE, label=L.LabelSize(60, 40)))
    files = sorted((tmp_path / "svg").glob("*.svg"))
    assert [f.name for f in files] == [f"box-{n:04d}.svg" for n in range(1, 13)]
    assert summary.files == tuple(files)
    text = files[0].read_text()
    assert 'width="60mm" height="40mm"' in text
    again = tmp_path / "again"
    L.write_svgs(again, boxes, L.KitSpec("m", MICHIE, TICTACTOE, label=L.LabelSize(60, 40)))
    assert (again / "box-0001.svg").read_bytes() == files[0].read_bytes()


def test_shelf_map_rows_match_the_places_operate_names() -> None:
    from menace.app.shelf import shelf_place
    from menace.render.labels import shelf_map_pages

    for machine_settings in (MICHIE, Settings(side="both")):
        boxes = build_boxes(TICTACTOE, machine_settings)
        for page in shelf_map_pages(boxes):
            for row in page:
                for i, number in enumerate(row.boxes, start=1):
                    place = shelf_place(boxes, number)
                    assert (place.row, place.place) == (row.row_number, i)


@pytest.mark.parametrize("count", [9_999, 3_534_408, 21_209_007, 10**9])
def test_every_count_on_a_label_is_whole_at_any_size(count: int) -> None:
    """A count is never cut short: a colour's name may be ("…"), its count and letter shrink instead."""
    boxes = [Box(b.number, b.position, b.side, b.move_number, b.initial, {m: count + m for m in b.initial})
             for b in MICHIE_BOXES[:13]]
    for label in (L.DEFAULT_LABEL, L.LabelSize(34.5, 23.4), L.A4_21.label):
        for box in boxes:
            canvas = Canvas(label.width, label.height)
            L._draw_label(canvas, TICTACTOE, box, L.Rect(0, 0, label.width, label.height), DEFAULT_COLOURS, False,
                          box.beads)
            texts = [run.text for run in canvas.texts]
            assert any(f"{sum(box.beads.values()):,} beads" in t for t in texts), texts
            for n in box.beads.values():
                assert any(t.startswith(f"{n:,}×") for t in texts), (n, texts)
            for run in canvas.texts:
                metrics = measure(run.text, run.face)
                scale = run.size / run.face.font.units_per_em * MM_PER_PT
                assert run.x >= 0 and run.x + metrics.advance * scale <= label.width + 1e-9, (label, run.text)
                assert run.size >= 3.0, (label, run.text, run.size)  # still printable


def test_a_trained_machine_scaled_to_beads_one_can_fill() -> None:
    boxes = [Box(b.number, b.position, b.side, b.move_number, b.initial,
                 {m: (3_534_408 if i == 0 and k == 0 else 12 + k) for k, m in enumerate(b.initial)})
             for i, b in enumerate(MICHIE_BOXES)]
    spec = L.KitSpec("m", MICHIE, TICTACTOE, beads="now", most=100)
    for box in boxes:
        fill = spec.fill(box)
        assert sum(fill.values()) <= 100 and all(fill[m] >= 1 for m, n in box.beads.items() if n), fill
    shopping = L.shopping_list(TICTACTOE, boxes, fill_of=spec.fill)
    assert shopping.fill <= 100 * len(boxes)
    assert scaled_beads({0: 3_534_408, 1: 12, 4: 12}, 100) == {0: 98, 1: 1, 4: 1}


def test_the_hexapawn_kit_speaks_of_its_own_sides_and_beads() -> None:
    from menace.core.colours import default_colours
    from menace.core.settings import PRESETS
    from menace.games import find_game
    from menace.render.labels_layout import find_paper

    hexapawn = find_game("hexapawn")
    gardner = replace_side(PRESETS["gardner"], "O")
    boxes = build_boxes(hexapawn, gardner)
    spec = L.KitSpec("her", gardner, hexapawn, default_colours(False), paper=find_paper("a4"))
    plan = L._plan(boxes, spec)
    shopping = L.shopping_list(hexapawn, boxes, spec.colours, fill_of=spec.fill)
    texts = [run.text for run in L._cover_page(boxes, spec, plan, shopping).texts]
    assert "Black" in texts and "O" not in texts, texts
    joined = " ".join(texts)
    assert "4×W white" not in joined and "1×A amber means 1 amber bead" in joined, joined


def replace_side(settings: Settings, side: str) -> Settings:
    from dataclasses import replace

    return replace(settings, side=side)
