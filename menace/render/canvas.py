"""A page of vector drawing as plain primitives, for the PDF and SVG writers of our own
(:mod:`menace.render.pdf`, :mod:`menace.render.svg`): lines, circles, polygons and text.

Coordinates are millimetres from the page's bottom-left corner; line widths and font sizes are in
points. Text is set in the DejaVu fonts and placed as matplotlib places it (its meanings of ``ha``
and ``va``), measured with fontTools (:mod:`menace.render.fonts`): a label drawn here looks as it did when
matplotlib drew it, without loading matplotlib.

>>> page = Canvas(53, 36)
>>> page.text(10, 20, "UP", 7, ha="center", va="center", face=SANS_BOLD)
>>> run = page.texts[0]
>>> round(run.x, 3), round(run.y, 3), run.text
(8.092, 19.359, 'UP')
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

from menace.render.fonts import Font, MissingGlyphError, PathCommand, dejavu_path, load_font

MM_PER_PT = 25.4 / 72

Colour = str
"""``#rrggbb``."""


class GlyphError(ValueError):
    """Text with a character that the font has no glyph for (it would print as an empty box)."""


@dataclass(frozen=True)
class Face:
    """A font face: its PostScript name and the file it comes in."""

    name: str
    filename: str

    @property
    def font(self) -> Font:
        return _font(self.filename)

    def __repr__(self) -> str:
        return f"Face({self.name!r})"


@functools.lru_cache(maxsize=8)
def _font(filename: str) -> Font:
    return load_font(dejavu_path(filename))


SANS = Face("DejaVuSans", "DejaVuSans.ttf")
SANS_BOLD = Face("DejaVuSans-Bold", "DejaVuSans-Bold.ttf")
MONO = Face("DejaVuSansMono", "DejaVuSansMono.ttf")
MONO_BOLD = Face("DejaVuSansMono-Bold", "DejaVuSansMono-Bold.ttf")
FACES = (SANS, SANS_BOLD, MONO, MONO_BOLD)

HALIGN = ("left", "center", "right")
VALIGN = ("top", "center", "center_baseline", "baseline", "bottom")
DASHES: dict[str, tuple[float, ...]] = {"solid": (), "dashed": (3.7, 1.6), "dotted": (1.0, 1.65)}
"""Dash patterns in multiples of the line width (matplotlib's, which scales them with the width)."""


@dataclass(frozen=True)
class TextMetrics:
    """A string's size in font units: the advance (the pen's travel, kerning included) and how far
    its glyphs reach above and below the baseline (0 for a string of spaces)."""

    advance: float
    ascent: float
    descent: float


@functools.lru_cache(maxsize=20_000)
def measure(text: str, face: Face) -> TextMetrics:
    """``text``'s metrics in ``face``, in font units; :class:`GlyphError` for a character it lacks.

    The advance is what matplotlib calls the text's width (the sum of the advances and of the
    ``kern`` table's pairs); ascent and descent are the highest and lowest points of the glyphs'
    boxes, as FreeType measures them for matplotlib.
    """
    font = face.font
    gids = glyph_ids(text, face)
    advance = 0
    top = bottom = 0
    previous = None
    for gid in gids:
        if previous is not None:
            advance += font.kerning(previous, gid)
        advance += font.advance(gid)
        box = font.glyph_box(gid)
        if box is not None:
            top, bottom = max(top, box.y_max), min(bottom, box.y_min)
        previous = gid
    return TextMetrics(float(advance), float(top), float(-bottom))


def glyph_ids(text: str, face: Face) -> list[int]:
    """The glyph of each character of ``text``; :class:`GlyphError` naming a character the face lacks."""
    font = face.font
    try:
        return [font.glyph_id(char) for char in text]
    except MissingGlyphError:
        missing = next(c for c in text if not font.has_glyph(c))
        name = unicodedata.name(missing, "unnamed character")
        raise GlyphError(f"cannot print {text!r}: {face.name} has no glyph for {missing!r} "
                         f"(U+{ord(missing):04X} {name})") from None


def text_width(text: str, size: float, face: Face) -> float:
    """The width in millimetres of ``text`` set at ``size`` points in ``face``."""
    return measure(text, face).advance * size / face.font.units_per_em * MM_PER_PT


def baseline_offset(text: str, size: float, face: Face, ha: str, va: str) -> tuple[float, float]:
    """From the anchor to the start of the baseline, in millimetres, for alignments ``ha`` and ``va``.

    As matplotlib lays out one line of text: the line reaches at least the font's typographic
    ascender above the baseline and its descender below (more if a glyph reaches further); ``top``
    puts that line's top at the anchor, ``bottom`` its bottom, ``center`` its middle, ``baseline``
    the baseline, and ``center_baseline`` the middle of the part above the baseline.
    """
    if ha not in HALIGN:
        raise ValueError(f"ha must be one of {', '.join(HALIGN)}, not {ha!r}")
    if va not in VALIGN:
        raise ValueError(f"va must be one of {', '.join(VALIGN)}, not {va!r}")
    font = face.font
    metrics = measure(text, face)
    scale = size / font.units_per_em * MM_PER_PT
    width = metrics.advance * scale
    dx = 0.0 if ha == "left" else -width / 2 if ha == "center" else -width
    ascent = max(metrics.ascent, font.typo_ascender) * scale
    descent = max(metrics.descent, -font.typo_descender) * scale
    dy = {"top": -ascent, "bottom": descent, "center": (descent - ascent) / 2, "baseline": 0.0,
          "center_baseline": -ascent / 2}[va]
    return dx, dy


@dataclass(frozen=True)
class TextRun:
    """Text whose baseline starts at (x, y) mm."""

    x: float
    y: float
    text: str
    size: float
    """Points."""
    face: Face
    colour: Colour


@dataclass(frozen=True)
class Shape:
    """A circle (``points`` is its centre, ``radius`` in mm) or a closed polygon, filled with ``face``
    (None: not filled) and outlined ``width`` points wide in ``edge`` (no outline when 0)."""

    points: tuple[tuple[float, float], ...]
    face: Colour | None
    edge: Colour
    width: float
    radius: float | None = None


@dataclass
class Canvas:
    """One page (or one SVG label) ``width`` x ``height`` mm: its lines, shapes and text.

    The writers draw the lines first, then the shapes, then the text, each in the order given; the
    lines of one style go out as one path.
    """

    width: float
    height: float
    lines: dict[tuple[float, Colour, str], list[list[tuple[float, float]]]] = field(default_factory=dict)
    shapes: list[Shape] = field(default_factory=list)
    texts: list[TextRun] = field(default_factory=list)

    def line(self, points: Sequence[tuple[float, float]], width: float, colour: Colour = "#000000",
             dash: str = "solid") -> None:
        """A polyline through ``points`` (mm), ``width`` points wide, with butt ends and mitred corners."""
        if dash not in DASHES:
            raise ValueError(f"dash must be one of {', '.join(DASHES)}, not {dash!r}")
        self.lines.setdefault((round(width, 4), colour, dash), []).append(list(points))

    def rect(self, x0: float, y0: float, x1: float, y1: float, width: float, colour: Colour = "#000000") -> None:
        """The outline of the rectangle from (x0, y0) to (x1, y1) mm."""
        self.line([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], width, colour)

    def circle(self, centre: tuple[float, float], radius: float, face: Colour | None, edge: Colour = "#000000",
               width: float = 0.0) -> None:
        self.shapes.append(Shape((centre,), _fill(face), edge, width, radius))

    def polygon(self, points: Sequence[tuple[float, float]], face: Colour | None, edge: Colour = "#000000",
                width: float = 0.0) -> None:
        self.shapes.append(Shape(tuple(points), _fill(face), edge, width))

    def text(self, x: float, y: float, text: str, size: float, ha: str = "left", va: str = "baseline",
             face: Face = SANS, colour: Colour = "#000000") -> None:
        """``text`` at ``size`` points anchored at (x, y) mm as matplotlib's ``Axes.text`` would place it.

        Control characters are left out (they print as nothing); a character the face has no glyph
        for is a :class:`GlyphError`, not a box on the page.
        """
        text = _printable(text)
        if not text:
            return
        dx, dy = baseline_offset(text, size, face, ha, va)
        self.texts.append(TextRun(x + dx, y + dy, text, size, face, colour))


_KAPPA = 0.5522847498307936
"""A quarter circle as one cubic Bézier curve: its control points this far along the tangents."""


def shape_path(shape: Shape) -> tuple[PathCommand, ...]:
    """A shape's outline in millimetres: a circle as four cubic curves, a polygon as its sides, closed."""
    if shape.radius is not None:
        (x, y), r = shape.points[0], shape.radius
        k = r * _KAPPA
        return (("M", (x + r, y)),
                ("C", (x + r, y + k, x + k, y + r, x, y + r)),
                ("C", (x - k, y + r, x - r, y + k, x - r, y)),
                ("C", (x - r, y - k, x - k, y - r, x, y - r)),
                ("C", (x + k, y - r, x + r, y - k, x + r, y)),
                ("Z", ()))
    (x0, y0), *rest = shape.points
    return (("M", (x0, y0)), *(("L", point) for point in rest), ("Z", ()))


def _fill(face: Colour | None) -> Colour | None:
    return None if face is None or face == "none" else face


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c for c in text if c == " " or unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp"))


def rgb(colour: Colour) -> tuple[float, float, float]:
    """``#rrggbb`` as three fractions of full strength."""
    if len(colour) != 7 or colour[0] != "#":
        raise ValueError(f"not a #rrggbb colour: {colour!r}")
    return int(colour[1:3], 16) / 255, int(colour[3:5], 16) / 255, int(colour[5:7], 16) / 255
