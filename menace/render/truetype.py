"""A small TrueType reader: what it takes to measure and draw text with a ``.ttf`` font, and no more.

It reads the font's size and line metrics (``head``, ``hhea``, ``OS/2``), the advance widths
(``hmtx``), the character map (``cmap`` formats 4 and 12), the legacy kerning table (``kern``
format 0, the pairs FreeType and so matplotlib apply) and the glyph outlines (``glyf``, simple and
composite glyphs through ``loca``). Standard library only; a font is parsed once per process
(:func:`load_font`).

The fonts the build kit uses are the DejaVu fonts that ship inside matplotlib's package data; they
are found without importing matplotlib (:func:`dejavu_path`).

>>> font = load_font(dejavu_path("DejaVuSans.ttf"))
>>> font.units_per_em, font.advance(font.glyph_id("W"))
(2048, 2025)
>>> font.kerning(font.glyph_id("T"), font.glyph_id("o"))
-348
"""

from __future__ import annotations

import functools
import importlib.util
import struct
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

Point = tuple[float, float, bool]
"""A point of a glyph's outline in font units, and whether it is on the curve (else a quadratic control point)."""

Contour = list[Point]

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
def load_font(path: Path) -> TrueTypeFont:
    """The font in ``path``, read once per process."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FontError(f"cannot read the font {path}: {exc.strerror or exc}") from None
    return TrueTypeFont(data, path.stem)


# Flags of a simple glyph's points and of a composite glyph's components (the OpenType spec's names).
_ON_CURVE, _X_SHORT, _Y_SHORT, _REPEAT, _X_SAME, _Y_SAME = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_ARG_WORDS, _ARGS_XY, _HAS_SCALE, _MORE, _XY_SCALE, _TWO_BY_TWO = 0x01, 0x02, 0x08, 0x20, 0x40, 0x80
_SCALED_OFFSET = 0x800
_MAX_COMPOSITE_DEPTH = 8


class TrueTypeFont:
    """One TrueType font read from its bytes. Every figure is in font units (``units_per_em`` to the em)."""

    def __init__(self, data: bytes, name: str = "font") -> None:
        self.name = name
        self._data = data
        try:
            self._tables = self._table_directory()
            self._read_metrics()
            self._read_cmap()
            self._kern = self._read_kern()
        except (struct.error, KeyError, IndexError) as exc:
            raise FontError(f"{name}: not a TrueType font this reader understands ({exc})") from None
        self._contours: dict[int, list[Contour]] = {}
        self._paths: dict[int, tuple[PathCommand, ...]] = {}
        self._glyph_ids: dict[str, int] = {}

    def __repr__(self) -> str:
        return f"<TrueTypeFont {self.name}: {self.num_glyphs} glyphs>"

    # -- the tables ---------------------------------------------------------------------------------
    def _table_directory(self) -> dict[str, tuple[int, int]]:
        version, count = struct.unpack_from(">IH", self._data, 0)
        if version not in (0x00010000, 0x74727565):  # 1.0 or 'true'; not 'OTTO' (CFF outlines)
            raise FontError(f"{self.name}: not a TrueType font (version {version:#x})")
        tables = {}
        for i in range(count):
            tag, _, offset, length = struct.unpack_from(">4sIII", self._data, 12 + 16 * i)
            tables[tag.decode("latin-1")] = (offset, length)
        missing = {"head", "hhea", "hmtx", "maxp", "cmap", "loca", "glyf"} - tables.keys()
        if missing:
            raise FontError(f"{self.name}: no {', '.join(sorted(missing))} table")
        return tables

    def _offset(self, tag: str) -> int:
        return self._tables[tag][0]

    def _read_metrics(self) -> None:
        data = self._data
        head = self._offset("head")
        self.units_per_em: int = struct.unpack_from(">H", data, head + 18)[0]
        x_min, y_min, x_max, y_max = struct.unpack_from(">4h", data, head + 36)
        self.bbox = GlyphBox(x_min, y_min, x_max, y_max)
        self._long_loca = struct.unpack_from(">h", data, head + 50)[0] == 1
        self.num_glyphs: int = struct.unpack_from(">H", data, self._offset("maxp") + 4)[0]
        hhea = self._offset("hhea")
        self.ascent, self.descent, self.line_gap = struct.unpack_from(">3h", data, hhea + 4)
        metrics = struct.unpack_from(">H", data, hhea + 34)[0]
        pairs = struct.unpack_from(f">{2 * metrics}H", data, self._offset("hmtx"))
        advances: list[int] = list(pairs[0::2])
        advances += [advances[-1]] * (self.num_glyphs - metrics)  # monospaced tails repeat the last width
        self._advances: list[int] = advances
        # The typographic ascender and descender (what matplotlib lays a line of text out with),
        # else the hhea ones.
        if "OS/2" in self._tables:
            self.typo_ascender, self.typo_descender, self.typo_line_gap = struct.unpack_from(
                ">3h", data, self._offset("OS/2") + 68)
        else:
            self.typo_ascender, self.typo_descender, self.typo_line_gap = self.ascent, self.descent, self.line_gap
        self._loca = self._read_loca()

    def _read_loca(self) -> Sequence[int]:
        offset = self._offset("loca")
        count = self.num_glyphs + 1
        if self._long_loca:
            return struct.unpack_from(f">{count}I", self._data, offset)
        return [2 * v for v in struct.unpack_from(f">{count}H", self._data, offset)]

    def _read_cmap(self) -> None:
        """Choose the Unicode subtable: format 12 (all of Unicode) if there is one, else format 4 (the BMP)."""
        data = self._data
        cmap = self._offset("cmap")
        count = struct.unpack_from(">H", data, cmap + 2)[0]
        by_format: dict[int, int] = {}
        for i in range(count):
            platform, encoding, offset = struct.unpack_from(">HHI", data, cmap + 4 + 8 * i)
            unicode = platform == 0 or (platform == 3 and encoding in (1, 10))
            if unicode:
                fmt = struct.unpack_from(">H", data, cmap + offset)[0]
                by_format.setdefault(fmt, cmap + offset)
        self._cmap4: tuple[list[int], list[int], list[int], list[int], int] | None = None
        self._cmap12: tuple[list[int], list[int], list[int]] | None = None
        if 4 in by_format:
            self._cmap4 = self._read_cmap4(by_format[4])
        if 12 in by_format:
            self._cmap12 = self._read_cmap12(by_format[12])
        if self._cmap4 is None and self._cmap12 is None:
            raise FontError(f"{self.name}: no Unicode character map of format 4 or 12")

    def _read_cmap4(self, at: int) -> tuple[list[int], list[int], list[int], list[int], int]:
        segments = struct.unpack_from(">H", self._data, at + 6)[0] // 2
        ends = at + 14
        end_codes = list(struct.unpack_from(f">{segments}H", self._data, ends))
        starts = ends + 2 * segments + 2  # past a reserved pad
        start_codes = list(struct.unpack_from(f">{segments}H", self._data, starts))
        deltas = list(struct.unpack_from(f">{segments}h", self._data, starts + 2 * segments))
        range_at = starts + 4 * segments
        range_offsets = list(struct.unpack_from(f">{segments}H", self._data, range_at))
        return end_codes, start_codes, deltas, range_offsets, range_at

    def _read_cmap12(self, at: int) -> tuple[list[int], list[int], list[int]]:
        groups = struct.unpack_from(">I", self._data, at + 12)[0]
        values = struct.unpack_from(f">{3 * groups}I", self._data, at + 16)
        return list(values[0::3]), list(values[1::3]), list(values[2::3])

    def _read_kern(self) -> dict[tuple[int, int], int]:
        """The pairs of the horizontal format 0 subtables of a version 0 ``kern`` table (summed, as FreeType does)."""
        pairs: dict[tuple[int, int], int] = {}
        if "kern" not in self._tables:
            return pairs
        data = self._data
        at = self._offset("kern")
        version, count = struct.unpack_from(">HH", data, at)
        if version != 0:  # Apple's version 1 table: not read, no kerning
            return pairs
        at += 4
        for _ in range(count):
            _, length, coverage = struct.unpack_from(">HHH", data, at)
            horizontal, minimum, cross = coverage & 1, coverage & 2, coverage & 4
            if coverage >> 8 == 0 and horizontal and not minimum and not cross:
                n = struct.unpack_from(">H", data, at + 6)[0]
                for left, right, value in struct.iter_unpack(">HHh", data[at + 14:at + 14 + 6 * n]):
                    pairs[left, right] = pairs.get((left, right), 0) + value
            at += length
        return pairs

    # -- characters and metrics -------------------------------------------------------------------
    def glyph_id(self, char: str) -> int:
        """The glyph of ``char``; :class:`MissingGlyphError` when the font has none."""
        gid = self._glyph_ids.get(char)
        if gid is None:
            gid = self._lookup(ord(char))
            if gid == 0 or gid >= self.num_glyphs:
                raise MissingGlyphError(f"{self.name} has no glyph for {char!r} (U+{ord(char):04X})")
            self._glyph_ids[char] = gid
        return gid

    def has_glyph(self, char: str) -> bool:
        try:
            self.glyph_id(char)
        except MissingGlyphError:
            return False
        return True

    def _lookup(self, code: int) -> int:
        if self._cmap12 is not None:
            return self.cmap12_lookup(code)
        return self.cmap4_lookup(code)

    def cmap4_lookup(self, code: int) -> int:
        """The glyph that the format 4 character map gives ``code`` (0 if none)."""
        if self._cmap4 is None or code > 0xFFFF:
            return 0
        end_codes, start_codes, deltas, range_offsets, range_at = self._cmap4
        i = bisect_left(end_codes, code)
        if i == len(end_codes) or start_codes[i] > code:
            return 0
        if range_offsets[i] == 0:
            return (code + deltas[i]) & 0xFFFF
        at = range_at + 2 * i + range_offsets[i] + 2 * (code - start_codes[i])
        gid: int = struct.unpack_from(">H", self._data, at)[0]
        return (gid + deltas[i]) & 0xFFFF if gid else 0

    def cmap12_lookup(self, code: int) -> int:
        """The glyph that the format 12 character map gives ``code`` (0 if none)."""
        if self._cmap12 is None:
            return self.cmap4_lookup(code)
        starts, ends, glyphs = self._cmap12
        i = bisect_left(ends, code)
        if i == len(ends) or starts[i] > code:
            return 0
        return glyphs[i] + code - starts[i]

    def advance(self, gid: int) -> int:
        """How far the pen moves after the glyph."""
        return self._advances[gid]

    def kerning(self, left: int, right: int) -> int:
        """The ``kern`` table's adjustment between two glyphs (0 for most pairs)."""
        return self._kern.get((left, right), 0)

    def glyph_box(self, gid: int) -> GlyphBox | None:
        """The bounding box the glyph's header states; None for a glyph with no outline (a space)."""
        start, end = self._loca[gid], self._loca[gid + 1]
        if end <= start:
            return None
        at = self._offset("glyf") + start
        _, x_min, y_min, x_max, y_max = struct.unpack_from(">h4h", self._data, at)
        return GlyphBox(x_min, y_min, x_max, y_max)

    # -- outlines -----------------------------------------------------------------------------------
    def contours(self, gid: int) -> list[Contour]:
        """The glyph's outline as TrueType draws it: closed contours of on-curve points and quadratic
        control points, composite glyphs resolved into their components' transformed contours."""
        found = self._contours.get(gid)
        if found is None:
            found = self._contours[gid] = self._read_glyph(gid, 0)
        return found

    def _read_glyph(self, gid: int, depth: int) -> list[Contour]:
        if not 0 <= gid < self.num_glyphs:
            raise FontError(f"{self.name}: glyph {gid} out of range")
        start, end = self._loca[gid], self._loca[gid + 1]
        if end <= start:
            return []
        at = self._offset("glyf") + start
        count = struct.unpack_from(">h", self._data, at)[0]
        if count >= 0:
            return self._simple_glyph(at + 10, count)
        if depth >= _MAX_COMPOSITE_DEPTH:
            raise FontError(f"{self.name}: glyph {gid} nests components too deep")
        return self._composite_glyph(at + 10, depth)

    def _simple_glyph(self, at: int, count: int) -> list[Contour]:
        data = self._data
        ends = struct.unpack_from(f">{count}H", data, at)
        points = ends[-1] + 1 if count else 0
        at += 2 * count
        at += 2 + struct.unpack_from(">H", data, at)[0]  # past the instructions
        flags: list[int] = []
        while len(flags) < points:
            flag = data[at]
            at += 1
            flags.append(flag)
            if flag & _REPEAT:
                flags.extend([flag] * data[at])
                at += 1
        del flags[points:]
        xs, at = self._coordinates(flags, at, _X_SHORT, _X_SAME)
        ys, at = self._coordinates(flags, at, _Y_SHORT, _Y_SAME)
        contours: list[Contour] = []
        first = 0
        for last in ends:
            contours.append([(float(xs[i]), float(ys[i]), bool(flags[i] & _ON_CURVE)) for i in range(first, last + 1)])
            first = last + 1
        return contours

    def _coordinates(self, flags: list[int], at: int, short: int, same: int) -> tuple[list[int], int]:
        data = self._data
        value = 0
        out = []
        for flag in flags:
            if flag & short:
                delta = data[at]
                at += 1
                value += delta if flag & same else -delta
            elif not flag & same:
                value += struct.unpack_from(">h", data, at)[0]
                at += 2
            out.append(value)
        return out, at

    def _composite_glyph(self, at: int, depth: int) -> list[Contour]:
        data = self._data
        contours: list[Contour] = []
        while True:
            flags, component = struct.unpack_from(">HH", data, at)
            at += 4
            if flags & _ARG_WORDS:
                arg1, arg2 = struct.unpack_from(">hh" if flags & _ARGS_XY else ">HH", data, at)
                at += 4
            else:
                arg1, arg2 = struct.unpack_from(">bb" if flags & _ARGS_XY else ">BB", data, at)
                at += 2
            a, b, c, d = 1.0, 0.0, 0.0, 1.0
            if flags & _HAS_SCALE:
                a = d = struct.unpack_from(">h", data, at)[0] / 16384
                at += 2
            elif flags & _XY_SCALE:
                a, d = (v / 16384 for v in struct.unpack_from(">hh", data, at))
                at += 4
            elif flags & _TWO_BY_TWO:
                a, b, c, d = (v / 16384 for v in struct.unpack_from(">4h", data, at))
                at += 8
            parts = self._read_glyph(component, depth + 1)
            moved = [[(a * x + c * y, b * x + d * y, on) for x, y, on in contour] for contour in parts]
            if flags & _ARGS_XY:
                dx, dy = float(arg1), float(arg2)
                if flags & _SCALED_OFFSET:
                    dx, dy = a * dx + c * dy, b * dx + d * dy
            else:  # point matching: the component's point arg2 lands on the glyph's point arg1
                so_far = [p for contour in contours for p in contour]
                new = [p for contour in moved for p in contour]
                if arg1 >= len(so_far) or arg2 >= len(new):
                    raise FontError(f"{self.name}: a component matches a point that does not exist")
                dx, dy = so_far[arg1][0] - new[arg2][0], so_far[arg1][1] - new[arg2][1]
            contours.extend([(x + dx, y + dy, on) for x, y, on in contour] for contour in moved)
            if not flags & _MORE:
                return contours

    def path(self, gid: int) -> tuple[PathCommand, ...]:
        """The glyph's outline as moves, lines and cubic Bézier curves (each quadratic curve raised to
        the cubic that draws the same curve), every contour closed."""
        found = self._paths.get(gid)
        if found is None:
            found = self._paths[gid] = tuple(cmd for contour in self.contours(gid) for cmd in _contour_path(contour))
        return found


def _contour_path(contour: Contour) -> list[PathCommand]:
    """One closed contour of on-curve and quadratic control points as path commands.

    Two control points in a row have an implied on-curve point half-way between them; a contour may
    start on a control point.
    """
    if not contour:
        return []
    n = len(contour)
    start = next((i for i, p in enumerate(contour) if p[2]), None)
    if start is None:  # all control points: start half-way between the first two
        x0, y0 = (contour[0][0] + contour[1 % n][0]) / 2, (contour[0][1] + contour[1 % n][1]) / 2
        points = [(x0, y0, True), *contour[1:], contour[0], (x0, y0, True)]
    else:
        points = [*contour[start:], *contour[:start], contour[start]]
    cx, cy = points[0][0], points[0][1]
    out: list[PathCommand] = [("M", (cx, cy))]
    control: tuple[float, float] | None = None
    for x, y, on in points[1:]:
        if on:
            if control is None:
                out.append(("L", (x, y)))
            else:
                out.append(_quad_to_cubic(cx, cy, control[0], control[1], x, y))
                control = None
            cx, cy = x, y
        else:
            if control is not None:
                mx, my = (control[0] + x) / 2, (control[1] + y) / 2
                out.append(_quad_to_cubic(cx, cy, control[0], control[1], mx, my))
                cx, cy = mx, my
            control = (x, y)
    out.append(("Z", ()))
    return out


def _quad_to_cubic(x0: float, y0: float, qx: float, qy: float, x1: float, y1: float) -> PathCommand:
    """The cubic Bézier curve equal to the quadratic one from (x0, y0) through control (qx, qy) to (x1, y1)."""
    return ("C", (x0 + 2 * (qx - x0) / 3, y0 + 2 * (qy - y0) / 3,
                  x1 + 2 * (qx - x1) / 3, y1 + 2 * (qy - y1) / 3, x1, y1))
