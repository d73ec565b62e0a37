"""Pages of :class:`~menace.render.canvas.Canvas` primitives written to a PDF file with fpdf2.

Text stays text: each face the pages use is embedded as a subset of its TrueType font (a CID font
with a ``ToUnicode`` map, which a PDF reader searches and copies from, and which print and PDF/A
workflows take as they take any embedded TrueType font). Runs are placed where the canvas measured
them, the ``kern`` table's pairs included. No date is written: the same pages give the same bytes.

>>> import io
>>> from menace.render.canvas import Canvas
>>> page = Canvas(100, 50)
>>> page.line([(10, 10), (90, 10)], 0.5)
>>> page.text(50, 25, "MENACE", 12, ha="center", va="center")
>>> out = io.BytesIO()
>>> with PdfWriter(out, {"Title": "A test"}) as pdf:
...     pdf.page(page)
>>> out.getvalue()[:8], out.getvalue().rstrip().endswith(b"%%EOF")
(b'%PDF-1.3', True)
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import IO, Any

from fpdf import FPDF
from fpdf.enums import StrokeCapStyle, StrokeJoinStyle
from fpdf.output import OutputProducer

from menace.render.canvas import DASHES, MM_PER_PT, Canvas, Face, Shape, TextRun, glyph_ids, rgb

PT_PER_MM = 1 / MM_PER_PT

# fpdf2 logs each font subset it makes at INFO level, and fontTools every table it drops.
for _noisy in ("fpdf", "fontTools"):
    logging.getLogger(_noisy).setLevel(logging.WARNING)


_INFO = {"Title": "set_title", "Subject": "set_subject", "Author": "set_author", "Keywords": "set_keywords",
         "Creator": "set_creator", "Producer": "set_producer"}
"""The document information fpdf2 writes, and the method that sets each."""


class PdfWriter:
    """Collects pages (each drawn as it comes, so that its canvas can be dropped) and writes the
    document to ``out`` when closed.

    ``info`` is the document's Title, Subject, Creator and Producer (no dates: the same pages give
    the same file).
    """

    def __init__(self, out: IO[bytes], info: Mapping[str, str]) -> None:
        unknown = set(info) - set(_INFO)
        if unknown:
            raise ValueError(f"no document information called {', '.join(sorted(unknown))}")
        self._out = out
        self._pdf = FPDF(unit="pt")
        self._pdf.set_auto_page_break(False)
        self._pdf.set_margins(0, 0, 0)
        self._pdf.set_producer("menace")
        self._pdf.creation_date = None  # type: ignore[assignment]  # nor in the file's /ID (see _Undated)
        self._pdf.set_display_mode("default", "default")  # the reader's own zoom and layout
        for key, value in info.items():
            getattr(self._pdf, _INFO[key])(value)
        self._families: dict[Face, str] = {}
        self._pages = 0
        self._closed = False

    def __enter__(self) -> PdfWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is None:
            self.close()

    @property
    def pages(self) -> int:
        return self._pages

    def page(self, canvas: Canvas) -> None:
        """Add ``canvas`` as the next page, exactly its size."""
        if self._closed:
            raise ValueError("the PDF is closed")
        pdf = self._pdf
        height = canvas.height * PT_PER_MM
        pdf.add_page(format=(canvas.width * PT_PER_MM, height))

        def point(x: float, y: float) -> tuple[float, float]:
            return x * PT_PER_MM, height - y * PT_PER_MM

        with pdf.local_context(stroke_cap_style=StrokeCapStyle.BUTT, stroke_join_style=StrokeJoinStyle.MITER):
            for (width, colour, dash), polylines in canvas.lines.items():
                pdf.set_draw_color(*_bytes(colour))
                pdf.set_line_width(width)
                pattern = DASHES[dash]
                pdf.set_dash_pattern(*(p * width for p in pattern[:2])) if pattern else pdf.set_dash_pattern()
                for points in polylines:
                    pdf.polyline([point(x, y) for x, y in points])
            pdf.set_dash_pattern()
        if canvas.shapes:
            # Shapes have round corners, as matplotlib drew its patches.
            with pdf.local_context(stroke_join_style=StrokeJoinStyle.ROUND):
                for shape in canvas.shapes:
                    self._shape(shape, point)
        for run in canvas.texts:
            self._text(run, point)
        self._pages += 1

    def _shape(self, shape: Shape, point: Callable[[float, float], tuple[float, float]]) -> None:
        pdf = self._pdf
        stroke = shape.width > 0
        style = "DF" if shape.face and stroke else "F" if shape.face else "D"
        if not shape.face and not stroke:
            return
        if shape.face:
            pdf.set_fill_color(*_bytes(shape.face))
        if stroke:
            pdf.set_draw_color(*_bytes(shape.edge))
            pdf.set_line_width(shape.width)
        if shape.radius is not None:
            x, y = point(*shape.points[0])
            pdf.circle(x, y, shape.radius * PT_PER_MM, style=style)
        else:
            pdf.polygon([point(x, y) for x, y in shape.points], style=style)

    def _text(self, run: TextRun, point: Callable[[float, float], tuple[float, float]]) -> None:
        """The run set in its face; where the ``kern`` table moves a pair of glyphs, the rest of the
        run is set again from where the pair puts it (fpdf2 applies no legacy kerning itself)."""
        pdf = self._pdf
        pdf.set_font(self._family(run.face), size=run.size)
        pdf.set_text_color(*_bytes(run.colour))
        font = run.face.font
        scale = run.size / font.units_per_em * MM_PER_PT
        x, y = run.x, run.y
        start = 0
        pen = 0
        previous = None
        for i, gid in enumerate(glyph_ids(run.text, run.face)):
            kern = font.kerning(previous, gid) if previous is not None else 0
            if kern:
                pdf.text(*point(x + (pen - _advance(run.text[start:i], run.face)) * scale, y), run.text[start:i])
                start = i
                pen += kern
            pen += font.advance(gid)
            previous = gid
        piece = run.text[start:]
        pdf.text(*point(x + (pen - _advance(piece, run.face)) * scale, y), piece)

    def _family(self, face: Face) -> str:
        family = self._families.get(face)
        if family is None:
            family = self._families[face] = face.name.lower()
            self._pdf.add_font(family, fname=face.font.file)
        return family

    def close(self) -> None:
        """Write the whole document."""
        if self._closed:
            return
        self._closed = True
        # fpdf2 derives the file's /ID from its bytes (no date is set): the same pages, the same file.
        self._out.write(bytes(self._pdf.output(output_producer_class=_Undated)))


class _Undated(OutputProducer):
    """fpdf2's writer, without the creation date it puts in the document information, and with
    each page's size stated on the page to a thousandth of a point (fpdf2 rounds it to a
    hundredth, 0.002 mm off a label's size)."""

    def _add_info(self) -> Any:
        info = super()._add_info()
        info.creation_date = None  # type: ignore[assignment]  # left out of the file when None
        return info

    def _add_pages(self, *args: Any, **kwargs: Any) -> Any:
        pages = super()._add_pages(*args, **kwargs)
        for page in pages:
            width, height = page.dimensions()
            page.media_box = f"[0 0 {width:.3f} {height:.3f}]"
        return pages


def _advance(text: str, face: Face) -> int:
    font = face.font
    return sum(font.advance(gid) for gid in glyph_ids(text, face))


def _bytes(colour: str) -> tuple[int, int, int]:
    r, g, b = rgb(colour)
    return round(r * 255), round(g * 255), round(b * 255)
