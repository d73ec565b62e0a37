"""The TrueType fonts the build kit sets its text in, read with fontTools: metrics, character map,
the legacy ``kern`` pairs (those FreeType and so matplotlib apply) and outlines as cubic paths.

The fonts are the DejaVu fonts that ship inside matplotlib's package data; they are found without
importing matplotlib (:func:`dejavu_path`). A font is read once per process (:func:`load_font`).

>>> font = load_font(dejavu_path("DejaVuSans.ttf"))
>>> font.units_per_em, font.advance(font.glyph_id("W"))
(2048, 2025)
>>> font.kerning(font.glyph_id("T"), font.glyph_id("o"))
-348
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fontTools.pens.basePen import BasePen
from fontTools.ttLib import TTFont, TTLibError

PathCommand = tuple[str, tuple[float, ...]]
"""``("M", (x, y))``, ``("L", (x, y))``, ``("C", (x1, y1, x2, y2, x, y))`` or ``("Z", ())``, in font units."""


class FontError(ValueError):
    """A font file that cannot be read, or that is missing."""


class MissingGlyphError(FontError):
    """A character that the font has no glyph for."""


@dataclass(frozen=True)
class GlyphBox:
    """A glyph's bounding box in font units, as its ``glyf`` header states it."""

    x_min: int
    y_min: int
    x_max: int
    y_max: int


_FONT_FOLDER = ("mpl-data", "fonts", "ttf")


def dejavu_path(filename: str) -> Path:
    """The path of ``filename`` (``DejaVuSans.ttf``...) among the fonts matplotlib ships, found
    without importing matplotlib (which takes a third of a second)."""
    spec = importlib.util.find_spec("matplotlib")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder).joinpath(*_FONT_FOLDER, filename)
        if path.is_file():
            return path
    raise FontError(f"the font {filename} was not found: it comes with matplotlib, which must be installed")


@functools.lru_cache(maxsize=16)
def load_font(path: Path) -> Font:
    """The font in ``path``, read once per process."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FontError(f"cannot read the font {path}: {exc.strerror or exc}") from None
    return Font(data, path.stem, path)


class Font:
    """One TrueType font read from its bytes. Every figure is in font units (``units_per_em`` to the em).

    ``file`` is the file it came from, for writers that embed it (None: read from bytes alone).
    """

    def __init__(self, data: bytes, name: str = "font", path: Path | None = None) -> None:
        import io

        self.name = name
        self.file = path
        try:
            tt = TTFont(io.BytesIO(data))
            if tt.sfntVersion not in ("\x00\x01\x00\x00", "true") or "glyf" not in tt:
                raise FontError(f"{name}: not a TrueType font (version {tt.sfntVersion!r})")
            head, hhea, glyf = tt["head"], tt["hhea"], tt["glyf"]
            self.units_per_em: int = head.unitsPerEm
            self.bbox = GlyphBox(head.xMin, head.yMin, head.xMax, head.yMax)
            self.ascent, self.descent, self.line_gap = hhea.ascent, hhea.descent, hhea.lineGap
            # The typographic ascender and descender (what matplotlib lays a line of text out with).
            os2 = tt["OS/2"] if "OS/2" in tt else None
            self.typo_ascender: int = os2.sTypoAscender if os2 is not None else self.ascent
            self.typo_descender: int = os2.sTypoDescender if os2 is not None else self.descent
            order = tt.getGlyphOrder()
            self.num_glyphs = len(order)
            ids = {glyph: gid for gid, glyph in enumerate(order)}
            self._cmap: dict[int, int] = {code: ids[glyph] for code, glyph in (tt.getBestCmap() or {}).items()}
            hmtx = tt["hmtx"]
            self._advances: list[int] = [hmtx[glyph][0] for glyph in order]
            self._glyf = glyf
            self._kern = self._read_kern(tt, ids)
        except FontError:
            raise
        except (TTLibError, KeyError, IndexError, AssertionError, ValueError, EOFError) as exc:
            raise FontError(f"{name}: not a TrueType font this menace reads ({exc})") from None
        self._order = order
        self._boxes: dict[int, GlyphBox | None] = {}
        self._paths: dict[int, tuple[PathCommand, ...]] = {}
        self._glyph_ids: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"<Font {self.name}: {self.num_glyphs} glyphs>"

    @staticmethod
    def _read_kern(tt: TTFont, ids: dict[str, int]) -> dict[tuple[int, int], int]:
        """The pairs of the horizontal format 0 subtables of a version 0 ``kern`` table (summed, as FreeType does)."""
        pairs: dict[tuple[int, int], int] = {}
        if "kern" not in tt or tt["kern"].version != 0:  # Apple's version 1 table: not read, no kerning
            return pairs
        for table in tt["kern"].kernTables:
            coverage = getattr(table, "coverage", 1)
            if table.format == 0 and coverage & 1 and not coverage & 6:
                for (left, right), value in table.kernTable.items():
                    key = (ids[left], ids[right])
                    pairs[key] = pairs.get(key, 0) + value
        return pairs

    # -- characters and metrics -------------------------------------------------------------------
    def glyph_id(self, char: str) -> int:
        """The glyph of ``char``; :class:`MissingGlyphError` when the font has none."""
        gid = self._glyph_ids.get(char)
        if gid is None:
            gid = self._cmap.get(ord(char), 0)
            if gid == 0:
                raise MissingGlyphError(f"{self.name} has no glyph for {char!r} (U+{ord(char):04X})")
            self._glyph_ids[char] = gid
        return gid

    def has_glyph(self, char: str) -> bool:
        return self._cmap.get(ord(char), 0) != 0

    def advance(self, gid: int) -> int:
        """How far the pen moves after the glyph."""
        return self._advances[gid]

    def kerning(self, left: int, right: int) -> int:
        """The ``kern`` table's adjustment between two glyphs (0 for most pairs)."""
        return self._kern.get((left, right), 0)

    def glyph_box(self, gid: int) -> GlyphBox | None:
        """The bounding box the glyph's header states; None for a glyph with no outline (a space)."""
        try:
            return self._boxes[gid]
        except KeyError:
            g = self._glyf[self._order[gid]]
            box = self._boxes[gid] = GlyphBox(g.xMin, g.yMin, g.xMax, g.yMax) if g.numberOfContours else None
            return box

    def path(self, gid: int) -> tuple[PathCommand, ...]:
        """The glyph's outline as moves, lines and cubic Bézier curves (fontTools raises each
        quadratic curve to the cubic that draws the same curve), every contour closed."""
        found = self._paths.get(gid)
        if found is None:
            pen = CubicPathPen()
            draw_points(pen, *self._glyf[self._order[gid]].getCoordinates(self._glyf)[:3])
            found = self._paths[gid] = tuple(pen.commands)
        return found


def draw_points(pen: BasePen, coordinates: Sequence[tuple[float, float]], ends: Sequence[int],
                flags: Sequence[int]) -> None:
    """A TrueType outline (its points with composite glyphs resolved and component offsets rounded
    as fontTools' ``getCoordinates`` and FreeType do) drawn on ``pen``, one closed contour per end."""
    start = 0
    for end in ends:
        contour = [tuple(p) for p in coordinates[start:end + 1]]
        on = [bool(f & 1) for f in flags[start:end + 1]]
        start = end + 1
        if not contour:
            continue
        if not any(on):  # control points only: the curve passes half-way between each two
            pen.qCurveTo(*contour, None)
            pen.closePath()
            continue
        first = on.index(True) + 1  # turned so that the contour ends on the curve
        contour, on = contour[first:] + contour[:first], on[first:] + on[:first]
        pen.moveTo(contour[-1])
        while contour:
            upto = on.index(True) + 1
            if upto == 1:
                if len(contour) > 1:
                    pen.lineTo(contour[0])
            else:
                pen.qCurveTo(*contour[:upto])
            contour, on = contour[upto:], on[upto:]
        pen.closePath()


class CubicPathPen(BasePen):  # type: ignore[misc]  # fontTools is not annotated
    """A fontTools pen that records a glyph as :data:`PathCommand` values; :class:`BasePen` turns
    quadratic curves (and the implied on-curve points between two control points) into cubic ones."""

    def __init__(self) -> None:
        super().__init__(None)
        self.commands: list[PathCommand] = []

    def _moveTo(self, pt: tuple[float, float]) -> None:
        self.commands.append(("M", (pt[0], pt[1])))

    def _lineTo(self, pt: tuple[float, float]) -> None:
        self.commands.append(("L", (pt[0], pt[1])))

    def _curveToOne(self, pt1: tuple[float, float], pt2: tuple[float, float], pt3: tuple[float, float]) -> None:
        self.commands.append(("C", (*pt1, *pt2, *pt3)))

    def _closePath(self) -> None:
        self.commands.append(("Z", ()))

    def _endPath(self) -> None:
        self.commands.append(("Z", ()))
