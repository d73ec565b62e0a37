"""Pages of :class:`~menace.render.canvas.Canvas` primitives written straight to a PDF file.

Text stays text: each face the pages use becomes a Type 3 font whose glyph procedures are the
TrueType outlines (quadratic curves raised to cubic ones), with its widths, an encoding of the
characters used (a further font object for each further 256) and a ``ToUnicode`` map, so a PDF
reader finds and copies the words. Nothing in the file depends on the time or the machine: the
same pages give the same bytes.

>>> import io
>>> from menace.render.canvas import Canvas
>>> page = Canvas(100, 50)
>>> page.line([(10, 10), (90, 10)], 0.5)
>>> page.text(50, 25, "MENACE", 12, ha="center", va="center")
>>> out = io.BytesIO()
>>> with PdfWriter(out, {"Title": "A test"}) as pdf:
...     pdf.page(page)
>>> out.getvalue()[:8], out.getvalue().endswith(b"%%EOF\\n")
(b'%PDF-1.4', True)
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import IO

from menace.render.canvas import DASHES, MM_PER_PT, Canvas, Face, Shape, TextRun, glyph_ids, rgb, shape_path
from menace.render.truetype import PathCommand

PT_PER_MM = 1 / MM_PER_PT


def num(value: float) -> str:
    """A number for a PDF or SVG: at most two decimals (a hundredth of a point), no trailing zeros.

    >>> num(12.0), num(0.125), num(-0.001), num(595.2756)
    ('12', '0.12', '0', '595.28')
    """
    text = f"{value:.2f}"
    if text[-1] == "0":
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def pdf_string(text: str) -> bytes:
    """A PDF text string: literal when it is ASCII, else UTF-16 with its byte-order mark.

    >>> pdf_string("kit (1)"), pdf_string("Aß")
    (b'(kit \\\\(1\\\\))', b'<feff004100df>')
    """
    try:
        raw = text.encode("ascii")
    except UnicodeEncodeError:
        return b"<feff" + text.encode("utf-16-be").hex().encode() + b">"
    return b"(" + _escape(raw) + b")"


def _escape(raw: bytes) -> bytes:
    out = bytearray()
    for byte in raw:
        if byte in b"()\\":
            out += b"\\" + bytes([byte])
        elif 32 <= byte < 127:
            out.append(byte)
        else:
            out += b"\\%03o" % byte
    return bytes(out)


@dataclass
class _FontObject:
    """One Type 3 font object of a face: up to 256 characters, each with its code."""

    resource: str
    free: list[int]
    codes: dict[str, int] = field(default_factory=dict)


class _FaceFonts:
    """The font objects of one face, and which of them holds each character (and at what code)."""

    def __init__(self, face: Face, number: int) -> None:
        self.face = face
        self.number = number
        self.objects: list[_FontObject] = []
        self.where: dict[str, tuple[_FontObject, int]] = {}

    def place(self, char: str) -> tuple[_FontObject, int]:
        found = self.where.get(char)
        if found is not None:
            return found
        if not self.objects or not self.objects[-1].free:
            self.objects.append(self._new_object())
        target = self.objects[-1]
        code = ord(char)
        if len(self.objects) == 1 and 32 <= code < 127 and code in target.free:
            target.free.remove(code)
        else:
            code = target.free.pop(0)
        target.codes[char] = code
        found = self.where[char] = (target, code)
        return found

    def _new_object(self) -> _FontObject:
        index = len(self.objects)
        resource = f"F{self.number}" + (f"-{index}" if index else "")
        if index:
            return _FontObject(resource, list(range(256)))
        # The first object gives printable ASCII its own code (the content stream shows the words it
        # sets); other characters take the other codes first.
        return _FontObject(resource, [*range(128, 256), *range(1, 32), 127, 0, *range(32, 127)])


class PdfWriter:
    """Writes pages to ``out`` as they come (a page's drawing can then be dropped), and the fonts,
    page tree and cross-reference table when closed.

    ``info`` is the document's Title, Subject, Creator and so on (no dates: the same pages give the
    same file).
    """

    def __init__(self, out: IO[bytes], info: Mapping[str, str], compress: int = 6) -> None:
        self._out = out
        self._written = 0
        self._offsets: dict[int, int] = {}
        self._next_id = 1
        self._compress = compress
        self._info = dict(info)
        self._catalog, self._pages, self._resources = self._reserve(), self._reserve(), self._reserve()
        self._page_ids: list[int] = []
        self._faces: dict[Face, _FaceFonts] = {}
        self._shows: dict[tuple[str, Face], list[tuple[str, str]]] = {}
        self._closed = False
        self._write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")

    def __enter__(self) -> PdfWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is None:
            self.close()

    @property
    def pages(self) -> int:
        return len(self._page_ids)

    # -- objects ------------------------------------------------------------------------------------
    def _write(self, data: bytes) -> None:
        self._out.write(data)
        self._written += len(data)

    def _reserve(self) -> int:
        number = self._next_id
        self._next_id += 1
        return number

    def _object(self, number: int, body: bytes) -> None:
        self._offsets[number] = self._written
        self._write(b"%d 0 obj\n%s\nendobj\n" % (number, body))

    def _stream(self, number: int, data: bytes, extra: bytes = b"") -> None:
        packed = zlib.compress(data, self._compress)
        if len(packed) < len(data):
            head = b"<< /Length %d /Filter /FlateDecode%s >>\nstream\n" % (len(packed), extra)
            data = packed
        else:
            head = b"<< /Length %d%s >>\nstream\n" % (len(data), extra)
        self._object(number, head + data + b"\nendstream")

    # -- pages --------------------------------------------------------------------------------------
    def page(self, canvas: Canvas) -> None:
        """Add ``canvas`` as the next page, exactly its size."""
        if self._closed:
            raise ValueError("the PDF is closed")
        content = self._content(canvas)
        stream_id, page_id = self._reserve(), self._reserve()
        self._stream(stream_id, content)
        media = f"[0 0 {canvas.width * PT_PER_MM:.3f} {canvas.height * PT_PER_MM:.3f}]".encode()
        self._object(page_id, b"<< /Type /Page /Parent %d 0 R /MediaBox %s /Resources %d 0 R /Contents %d 0 R >>"
                     % (self._pages, media, self._resources, stream_id))
        self._page_ids.append(page_id)

    def _content(self, canvas: Canvas) -> bytes:
        parts: list[str] = []
        add = parts.append
        for (width, colour, dash), polylines in canvas.lines.items():
            pattern = " ".join(num(p * width) for p in DASHES[dash])
            add(f"{_colour(colour, 'RG')} {num(width)} w [{pattern}] 0 d")
            for points in polylines:
                (x, y), *rest = points
                add(f"{num(x * PT_PER_MM)} {num(y * PT_PER_MM)} m")
                for x, y in rest:
                    add(f"{num(x * PT_PER_MM)} {num(y * PT_PER_MM)} l")
            add("S")
        if canvas.shapes:
            add("1 j [] 0 d")  # shapes have round corners, as matplotlib drew its patches
            for shape in canvas.shapes:
                add(_shape(shape))
            add("0 j")
        for run in canvas.texts:
            add(self._text(run))
        return "\n".join(parts).encode("latin-1")

    def _text(self, run: TextRun) -> str:
        shows = self._shows.get((run.text, run.face))
        if shows is None:
            shows = self._shows[run.text, run.face] = self._encode(run.text, run.face)
        size = num(run.size)
        text = " ".join(f"/{resource} {size} Tf {show} TJ" for resource, show in shows)
        return f"BT {_colour(run.colour, 'rg')} 1 0 0 1 {num(run.x * PT_PER_MM)} {num(run.y * PT_PER_MM)} Tm {text} ET"

    def _encode(self, text: str, face: Face) -> list[tuple[str, str]]:
        """``text`` as (font resource, ``TJ`` array) pieces: the characters' codes in the face's font
        objects, with the ``kern`` table's pairs between them."""
        fonts = self._faces.get(face)
        if fonts is None:
            fonts = self._faces[face] = _FaceFonts(face, len(self._faces) + 1)
        font = face.font
        per_thousand = 1000 / font.units_per_em
        pieces: list[tuple[str, list[str]]] = []
        codes = bytearray()
        previous = None
        for char, gid in zip(text, glyph_ids(text, face)):
            target, code = fonts.place(char)
            kern = font.kerning(previous, gid) if previous is not None else 0
            if not pieces or pieces[-1][0] != target.resource:
                if codes:
                    pieces[-1][1].append(f"({_escape(bytes(codes)).decode('ascii')})")
                    codes = bytearray()
                pieces.append((target.resource, []))
            if kern:
                if codes:
                    pieces[-1][1].append(f"({_escape(bytes(codes)).decode('ascii')})")
                    codes = bytearray()
                pieces[-1][1].append(num(-kern * per_thousand))
            codes.append(code)
            previous = gid
        if codes:
            pieces[-1][1].append(f"({_escape(bytes(codes)).decode('ascii')})")
        return [(resource, "[" + " ".join(items) + "]") for resource, items in pieces]

    # -- closing ------------------------------------------------------------------------------------
    def close(self) -> None:
        """Write the fonts, the page tree, the document information and the cross-reference table."""
        if self._closed:
            return
        self._closed = True
        resources = []
        for fonts in self._faces.values():
            for font_object in fonts.objects:
                resources.append(b"/%s %d 0 R" % (font_object.resource.encode(), self._type3(fonts.face, font_object)))
        self._object(self._resources, b"<< /Font << %s >> /ProcSet [/PDF /Text] >>" % b" ".join(resources))
        kids = b" ".join(b"%d 0 R" % n for n in self._page_ids)
        self._object(self._pages, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(self._page_ids)))
        self._object(self._catalog, b"<< /Type /Catalog /Pages %d 0 R >>" % self._pages)
        info_id = self._reserve()
        entries = b" ".join(b"/%s %s" % (key.encode("ascii"), pdf_string(value)) for key, value in self._info.items())
        self._object(info_id, b"<< %s >>" % entries)
        xref = self._written
        count = self._next_id
        lines = [b"xref\n0 %d\n" % count, b"0000000000 65535 f \n"]
        lines += [b"%010d 00000 n \n" % self._offsets[n] for n in range(1, count)]
        self._write(b"".join(lines))
        self._write(b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
                    % (count, self._catalog, info_id, xref))

    def _type3(self, face: Face, font_object: _FontObject) -> int:
        """Write one Type 3 font object (glyph procedures, widths, encoding, ToUnicode); its number."""
        font = face.font
        by_code = sorted((code, char) for char, code in font_object.codes.items())
        procs = []
        for _, char in by_code:
            gid = font.glyph_id(char)
            proc_id = self._reserve()
            self._stream(proc_id, _glyph_procedure(face, gid).encode("ascii"))
            procs.append(b"/%s %d 0 R" % (_glyph_name(char), proc_id))
        procs_id = self._reserve()
        self._object(procs_id, b"<< %s >>" % b" ".join(procs))
        unicode_id = self._reserve()
        self._stream(unicode_id, _to_unicode(by_code))
        first, last = by_code[0][0], by_code[-1][0]
        widths = dict.fromkeys(range(first, last + 1), 0)
        for code, char in by_code:
            widths[code] = font.advance(font.glyph_id(char))
        differences = b" ".join(b"%d /%s" % (code, _glyph_name(char)) for code, char in by_code)
        box = font.bbox
        scale = repr(1 / font.units_per_em).encode()
        font_id = self._reserve()
        self._object(font_id, b"<< /Type /Font /Subtype /Type3 /Name /%s /FontBBox [%d %d %d %d] "
                              b"/FontMatrix [%s 0 0 %s 0 0] /CharProcs %d 0 R "
                              b"/Encoding << /Type /Encoding /Differences [%s] >> /FirstChar %d /LastChar %d "
                              b"/Widths [%s] /ToUnicode %d 0 R /Resources << >> >>"
                     % (font_object.resource.encode(), box.x_min, box.y_min, box.x_max, box.y_max, scale, scale,
                        procs_id, differences, first, last, b" ".join(b"%d" % w for w in widths.values()), unicode_id))
        return font_id


def _glyph_name(char: str) -> bytes:
    code = ord(char)
    return b"uni%04X" % code if code <= 0xFFFF else b"u%X" % code


def _glyph_procedure(face: Face, gid: int) -> str:
    """A Type 3 glyph: its advance, then its outline filled in the current colour.

    ``d0`` rather than ``d1`` with a box: viewers may then not cache the glyph as a bitmap at a whole
    pixel, which at screen resolution set the letters of a word unevenly apart.
    """
    font = face.font
    advance = font.advance(gid)
    if font.glyph_box(gid) is None:
        return f"{advance} 0 d0"
    return f"{advance} 0 d0\n" + path_operators(font.path(gid)) + " f"


_OPERATORS = {"M": " m", "L": " l", "C": " c"}


def path_operators(path: Sequence[PathCommand], scale: float = 1.0, sep: str = "\n") -> str:
    """Path commands as PDF path operators, their coordinates times ``scale``."""
    out = []
    for op, values in path:
        if op == "Z":
            out.append("h")
        else:
            out.append(" ".join(num(v * scale) for v in values) + _OPERATORS[op])
    return sep.join(out)


def _to_unicode(by_code: list[tuple[int, str]]) -> bytes:
    """The CMap that maps each code back to its character (for searching and copying text)."""
    entries = [f"<{code:02X}> <{char.encode('utf-16-be').hex().upper()}>" for code, char in by_code]
    blocks = []
    for start in range(0, len(entries), 100):
        chunk = entries[start:start + 100]
        blocks.append(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar")
    return ("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
            "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
            "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
            "1 begincodespacerange\n<00> <FF>\nendcodespacerange\n" + "\n".join(blocks)
            + "\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend").encode("ascii")


def _colour(colour: str, op: str) -> str:
    r, g, b = rgb(colour)
    return f"{num(r)} {num(g)} {num(b)} {op}"


def _shape(shape: Shape) -> str:
    stroke = shape.width > 0
    paint = "B" if shape.face and stroke else "f" if shape.face else "S" if stroke else "n"
    state = []
    if shape.face:
        state.append(_colour(shape.face, "rg"))
    if stroke:
        state.append(f"{_colour(shape.edge, 'RG')} {num(shape.width)} w")
    return " ".join([*state, path_operators(shape_path(shape), PT_PER_MM, " "), paint])
