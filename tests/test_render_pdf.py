"""The drawing primitives and the PDF and SVG writers: text placed as matplotlib placed it, text that
stays text (PDFium reads it back), pages that PDFium reads and paints where they were drawn."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zlib
from datetime import datetime
from typing import Any

import pytest
from pdfread import metadata, page_sizes_mm, page_text, render_gray

from menace.render.canvas import FACES, MM_PER_PT, MONO, MONO_BOLD, SANS, SANS_BOLD, Canvas, Face, GlyphError
from menace.render.pdf import PdfWriter
from menace.render.svg import to_svg


def pdf_of(*pages: Canvas, info: dict[str, str] | None = None) -> bytes:
    out = io.BytesIO()
    with PdfWriter(out, info or {"Title": "test"}) as pdf:
        for page in pages:
            pdf.page(page)
    return out.getvalue()


def matplotlib_offset(text: str, size: float, face: Face, ha: str, va: str) -> tuple[float, float]:
    """Where matplotlib's PDF backend starts the baseline of ``text`` anchored at (0, 0), in points."""
    from matplotlib.backends.backend_pdf import PdfFile, RendererPdf
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.text import Text
    from matplotlib.transforms import IdentityTransform

    family = "DejaVu Sans Mono" if face in (MONO, MONO_BOLD) else "DejaVu Sans"
    weight = "bold" if face in (SANS_BOLD, MONO_BOLD) else "normal"
    probe = Text(0.0, 0.0, text, fontproperties=FontProperties(family=family, weight=weight, size=size), ha=ha,
                 va=va, transform=IdentityTransform())
    probe.set_figure(Figure(dpi=72))
    renderer = RendererPdf(PdfFile(io.BytesIO()), 72, 100, 100)
    _, lines, _ = probe._get_layout(renderer)
    first: Any = lines[0]  # (line, metrics, (x, y)) in matplotlib 3.11, (line, (w, h), x, y) before
    x, y = (first[2], first[3]) if len(first) == 4 else first[2]
    return float(x), float(y)


@pytest.mark.parametrize("ha", ["left", "center", "right"])
@pytest.mark.parametrize("va", ["top", "center", "center_baseline", "baseline", "bottom"])
def test_text_sits_where_matplotlib_put_it(ha: str, va: str) -> None:
    for text, size, face in [("W", 8.1, SANS_BOLD), ("UP", 7.0, SANS_BOLD), ("217", 19.0, SANS_BOLD),
                             ("3×K black", 5.2, SANS), ("row 12", 6.5, SANS), ("#e69f00", 8.0, MONO),
                             ("box mv", 6.0, MONO_BOLD), ("jQ|", 10.0, SANS), ("…", 9.0, SANS)]:
        canvas = Canvas(100, 100)
        canvas.text(50, 50, text, size, ha, va, face)
        run = canvas.texts[0]
        ours = ((run.x - 50) / MM_PER_PT, (run.y - 50) / MM_PER_PT)
        # matplotlib's layout rounds each glyph's advance to 1/64 point (and in 3.8-3.10 each kerning
        # pair to a whole point); the drawing itself was not rounded.
        tolerance = 0.02 + len(text) / 64
        assert ours == pytest.approx(matplotlib_offset(text, size, face, ha, va), abs=tolerance), (text, ha, va)


def test_unknown_alignments_and_missing_glyphs_are_errors() -> None:
    canvas = Canvas(50, 50)
    with pytest.raises(ValueError, match="ha must be one of"):
        canvas.text(0, 0, "x", 9, ha="middle")
    with pytest.raises(ValueError, match="va must be one of"):
        canvas.text(0, 0, "x", 9, va="centre")
    with pytest.raises(GlyphError, match=r"DejaVuSans has no glyph for '紅' \(U\+7D05 CJK UNIFIED IDEOGRAPH-7D05\)"):
        canvas.text(0, 0, "red 紅", 9)
    canvas.text(0, 0, "a\tb\x00c\u200b", 9)  # control and format characters print as nothing
    assert [run.text for run in canvas.texts] == ["abc"]


def test_same_pages_same_bytes_and_each_page_its_own_size(monkeypatch: pytest.MonkeyPatch) -> None:
    def pages() -> list[Canvas]:
        a, b = Canvas(210, 297), Canvas(53, 36)
        for page in (a, b):
            page.line([(1, 1), (20, 20)], 0.5, "#999999")
            page.circle((10, 10), 3, "#e69f00", "#000000", 0.4)
            page.polygon([(1, 1), (5, 1), (3, 4)], "#000000")
            page.text(10, 10, "4×W white", 9, "center", "center_baseline")
        return [a, b]

    first = pdf_of(*pages())

    class Later(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return datetime(2031, 5, 6, 7, 8, 9, tzinfo=tz)

    # fpdf2 would put the time it runs at into the document information and the file's /ID.
    monkeypatch.setattr("fpdf.fpdf.datetime", Later)
    assert pdf_of(*pages()) == first
    sizes = [v for size in page_sizes_mm(first) for v in size]
    assert sizes == pytest.approx([210, 297, 53, 36], abs=0.001)


def test_the_reader_reads_the_metadata_and_no_dates() -> None:
    pdf = pdf_of(Canvas(100, 50), Canvas(100, 50), info={"Title": "MENACE build kit: grün (1)",
                                                          "Creator": "menace labels"})
    info = metadata(pdf)
    assert info["Title"] == "MENACE build kit: grün (1)"
    assert info["Creator"] == "menace labels" and info["pages"] == 2
    assert "CreationDate" not in info and "ModDate" not in info and b"Date" not in pdf


def test_text_stays_text() -> None:
    page = Canvas(210, 297)
    lines = ["MENACE build kit · menace · cover", "Print at 100% (“actual size”); turn off “fit to page”.",
             "4×W white – it’s −1 … (a\\b)", "box mv  W  K  A  sum"]
    for i, (line, face) in enumerate(zip(lines, FACES)):
        page.text(20, 250 - 10 * i, line, 10, face=face)
    assert page_text(pdf_of(page)).split() == " ".join(lines).split()


def test_more_than_256_characters_of_one_face_are_one_embedded_truetype_subset() -> None:
    font = SANS.font
    chars = [chr(c) for c in range(0x100, 0x500) if font.has_glyph(chr(c)) and chr(c).isalpha()][:600]
    assert len(chars) == 600
    page = Canvas(210, 297)
    rows = ["".join(chars[i:i + 40]) for i in range(0, len(chars), 40)]
    for i, row in enumerate(rows):
        page.text(10, 280 - 12 * i, row, 9)
    pdf = pdf_of(page)
    assert b"/Type3" not in pdf and len(re.findall(rb"/FontFile2", pdf)) == 1  # a TrueType font, embedded
    assert len(re.findall(rb"/Subtype /CIDFontType2", pdf)) == 1
    assert [line for line in page_text(pdf).split("\n") if line.strip()] == rows


def test_shapes_and_glyphs_are_painted_where_they_were_drawn() -> None:
    """A big bold I's stem and a dot, rendered by PDFium at 72 dpi (a pixel a point): the ink is
    where the canvas put it, and nowhere else."""
    page = Canvas(100, 100)
    page.circle((20, 20), 5, "#000000")
    page.text(60, 10, "I", 144, "center", "baseline", SANS_BOLD)
    image = render_gray(pdf_of(page), 0, 72)
    assert image.size in ((283, 283), (284, 284))  # 100 mm at 72 dpi

    def ink(x_mm: float, y_mm: float) -> bool:
        x, y = round(x_mm / MM_PER_PT), round((100 - y_mm) / MM_PER_PT)
        return bool(image.getpixel((x, y)) < 128)

    assert ink(20, 20) and ink(16, 20) and not ink(20, 27) and not ink(13, 20)
    # DejaVu Sans Bold's I: a stem 0.19 em wide, centred, from the baseline to the cap height (0.73 em).
    em = 144 * MM_PER_PT
    assert ink(60, 10 + 0.05 * em) and ink(60, 10 + 0.68 * em) and ink(60 - 0.07 * em, 10 + 0.4 * em)
    assert ink(60 + 0.07 * em, 10 + 0.4 * em)
    assert not ink(60, 10 - 0.05 * em) and not ink(60, 10 + 0.78 * em)
    assert not ink(60 - 0.13 * em, 10 + 0.4 * em) and not ink(60 + 0.13 * em, 10 + 0.4 * em)


def test_svg_is_the_canvas_size_in_millimetres_and_its_glyphs_are_defined() -> None:
    label = Canvas(63.5, 38.1)
    label.line([(0.125, 0.125), (63.375, 0.125)], 0.25)
    label.circle((10, 10), 2, None, "#000000", 1.8)
    label.text(30, 20, "4×W white", 6, face=SANS)
    label.text(30, 30, "17", 19, va="top", face=SANS_BOLD)
    svg = to_svg(label, creator="menace labels")
    root = ET.fromstring(svg)
    assert (root.get("width"), root.get("height")) == ("63.5mm", "38.1mm")
    assert [float(v) for v in (root.get("viewBox") or "").split()] == pytest.approx([0, 0, 180, 108], abs=0.01)
    ns = {"svg": "http://www.w3.org/2000/svg"}
    defined = {p.get("id") for p in root.iterfind("svg:defs/svg:path", ns)}
    used = {u.get("{http://www.w3.org/1999/xlink}href") for u in root.iter("{http://www.w3.org/2000/svg}use")}
    assert used == {f"#{name}" for name in defined} and len(defined) == len(set("4×Wwhite")) + 2
    assert "menace labels" in svg and to_svg(label, creator="menace labels") == svg


def test_content_streams_are_compressed_and_kerning_moves_the_glyphs_after_it() -> None:
    page = Canvas(50, 50)
    page.text(5, 5, "MENACE AV", 9)
    page.text(5, 15, "MENACE AA", 9)
    pdf = pdf_of(page)
    streams = re.findall(rb"/Filter /FlateDecode\n/Length \d+\n>>\nstream\n(.*?)\nendstream", pdf, re.S)
    assert streams and all(zlib.decompress(s) for s in streams)
    assert b"BT" not in pdf  # no page's content is left uncompressed
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    text = doc[0].get_textpage()
    lefts = [text.get_charbox(i, loose=True)[0] for i in range(text.count_chars())]
    chars = text.get_text_range()
    doc.close()
    av, aa = chars.index("AV"), chars.index("AA")
    font = SANS.font
    a, v = font.glyph_id("A"), font.glyph_id("V")
    assert font.kerning(a, v) < 0 < font.kerning(a, a)
    per_point = 9 / font.units_per_em
    assert lefts[av + 1] - lefts[av] == pytest.approx((font.advance(a) + font.kerning(a, v)) * per_point, abs=0.02)
    assert lefts[aa + 1] - lefts[aa] == pytest.approx((font.advance(a) + font.kerning(a, a)) * per_point, abs=0.02)

