"""PDFs read back as a reader sees them, through PDFium (the pypdfium2 wheel, so no test waits for a
system tool): page sizes, text, metadata and pixels."""

from __future__ import annotations

from typing import Any

import pypdfium2 as pdfium

MM_PER_PT = 25.4 / 72


def page_sizes_mm(pdf: bytes) -> list[tuple[float, float]]:
    """Width and height of every page in millimetres, as the reader lays it out."""
    doc = pdfium.PdfDocument(pdf)
    try:
        return [(w * MM_PER_PT, h * MM_PER_PT) for w, h in (doc.get_page_size(i) for i in range(len(doc)))]
    finally:
        doc.close()


def page_text(pdf: bytes, index: int | None = None) -> str:
    """The text of one page (0-based), or of every page one after another, lines apart."""
    doc = pdfium.PdfDocument(pdf)
    try:
        pages = range(len(doc)) if index is None else [index]
        return "\n".join(doc[i].get_textpage().get_text_range().replace("\r\n", "\n") for i in pages)
    finally:
        doc.close()


def metadata(pdf: bytes) -> dict[str, Any]:
    doc = pdfium.PdfDocument(pdf)
    try:
        return {**doc.get_metadata_dict(skip_empty=True), "pages": len(doc)}
    finally:
        doc.close()


def render_gray(pdf: bytes, index: int, dpi: float) -> Any:
    """One page as a greyscale PIL image, ``dpi`` pixels to the inch."""
    doc = pdfium.PdfDocument(pdf)
    try:
        return doc[index].render(scale=dpi / 72, grayscale=True).to_pil().convert("L")
    finally:
        doc.close()
