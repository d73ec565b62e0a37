"""The fonts behind the build kit's text, read with fontTools: metrics, character map, kerning and
outlines, checked against matplotlib (which measured the labels' text before) and against the
font's own points as fontTools decodes them."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from menace.render.canvas import FACES, MONO, MONO_BOLD, SANS, SANS_BOLD, Face, measure
from menace.render.fonts import CubicPathPen, Font, FontError, MissingGlyphError, dejavu_path, load_font

KIT_CHARACTERS = "".join(chr(c) for c in range(32, 127)) + "×·–“”…’−"
"""Printable ASCII and the other characters the kit's pages print."""

# Strings as the kit sets them. None has "fi" or "fl": matplotlib 3.11 shapes text with libraqm and
# draws those as ligatures (a little narrower), which the labels do not use.
KIT_STRINGS = [
    "MENACE build kit · menace · cover", "page 3 of 20 · print at 100%", "4×W white", "12×V vermilion",
    "move 4 · 21 beads", "move 2 · O · 1 bead", "AVATAR To Ty WAVE", "0123456789", "row 10", "#e69f00",
    "box mv  W  K  A  S  G  Y  B  V  P  sum", "Print at 100% (“actual size”)", "pages 3–17", "-1 loss, +3 win",
    "Move 3: boxes 14–121, 108 boxes", "it’s −1 …", "Bead colours: one per square of a box's drawing",
]


def matplotlib_metrics(text: str, face: Face, size: float) -> tuple[float, float, float]:
    """Width, ascent and descent in points as matplotlib measures ``text`` (the labels' old measure)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    family = "DejaVu Sans Mono" if face in (MONO, MONO_BOLD) else "DejaVu Sans"
    weight = "bold" if face in (SANS_BOLD, MONO_BOLD) else "normal"
    width, height, descent = TextToPath().get_text_width_height_descent(
        text, FontProperties(family=family, weight=weight, size=size), ismath=False)
    return width, height - descent, descent


@pytest.mark.parametrize("face", FACES, ids=[f.name for f in FACES])
def test_widths_and_heights_equal_matplotlibs(face: Face) -> None:
    units = face.font.units_per_em
    for text in KIT_STRINGS:
        for size in (6.0, 9.5, 19.0):
            metrics = measure(text, face)
            width, ascent, descent = matplotlib_metrics(text, face, size)
            # matplotlib rounds each kerning pair to a hundredth of the size, and sizes to 1/64 of that.
            assert metrics.advance * size / units == pytest.approx(width, abs=0.006 * size), (text, size)
            assert metrics.ascent * size / units == pytest.approx(ascent, abs=0.002 * size), (text, size)
            assert metrics.descent * size / units == pytest.approx(descent, abs=0.002 * size), (text, size)


def test_kerning_comes_from_the_kern_table() -> None:
    font = SANS.font
    av = font.kerning(font.glyph_id("A"), font.glyph_id("V"))
    assert av < 0 and font.kerning(font.glyph_id("V"), font.glyph_id("A")) < 0
    assert measure("AV", SANS).advance == font.advance(font.glyph_id("A")) + font.advance(font.glyph_id("V")) + av
    assert MONO.font.kerning(MONO.font.glyph_id("A"), MONO.font.glyph_id("V")) == 0  # no kern table
    assert measure("AV", MONO).advance == 2 * MONO.font.advance(MONO.font.glyph_id("A"))


@pytest.mark.parametrize("filename", ["DejaVuSans.ttf", "DejaVuSansMono-Bold.ttf"])
def test_character_map_and_outlines_follow_the_fonts_points(filename: str) -> None:
    from fontTools.ttLib import TTFont

    path = dejavu_path(filename)
    ours = load_font(path)
    theirs = TTFont(str(path))
    mapped = theirs.getBestCmap()
    assert len(mapped) > 3000
    for code, name in mapped.items():
        assert ours.glyph_id(chr(code)) == theirs.getGlyphID(name)
    glyf = theirs["glyf"]
    composites = 0
    for gid, name in enumerate(theirs.getGlyphOrder()):
        coordinates, ends, flags = glyf[name].getCoordinates(glyf)
        drawn = ours.path(gid)
        # Every on-curve point of the outline is where a segment of the path ends, and each contour
        # is opened and closed once.
        on_curve = {tuple(c) for c, f in zip(coordinates, flags) if f & 1}
        ends_drawn = {values[-2:] for _, values in drawn if values}
        assert on_curve <= ends_drawn, name
        assert [op for op, _ in drawn].count("M") == [op for op, _ in drawn].count("Z") == len(ends), name
        assert ours.advance(gid) == theirs["hmtx"][name][0]
        composites += glyf[name].isComposite() and bool(drawn)
    assert composites > 1000  # accented letters are composites: their outlines are resolved


@pytest.mark.parametrize("face", FACES, ids=[f.name for f in FACES])
def test_every_character_the_kit_prints_has_a_glyph_whose_outline_fills_its_box(face: Face) -> None:
    from fontTools.ttLib import TTFont

    font = face.font
    theirs = TTFont(str(dejavu_path(face.filename)))
    glyf = theirs["glyf"]
    for char in KIT_CHARACTERS + "éÄŵ":
        gid = font.glyph_id(char)
        box = font.glyph_box(gid)
        coordinates, ends, _ = glyf[theirs.getGlyphName(gid)].getCoordinates(glyf)
        if char == " ":
            assert box is None and len(coordinates) == 0 and font.path(gid) == ()
            continue
        assert box is not None, char
        xs, ys = [x for x, _ in coordinates], [y for _, y in coordinates]
        assert (min(xs), min(ys), max(xs), max(ys)) == (box.x_min, box.y_min, box.x_max, box.y_max), char
        # The drawn path stays within the box and closes every contour it opens.
        path = font.path(gid)
        drawn = [v for op, values in path for v in values[-2:]]
        assert min(drawn[0::2]) >= box.x_min and max(drawn[0::2]) <= box.x_max
        assert min(drawn[1::2]) >= box.y_min and max(drawn[1::2]) <= box.y_max
        assert [op for op, _ in path].count("M") == [op for op, _ in path].count("Z") == len(ends)


def test_a_character_without_a_glyph_is_an_error_not_a_box() -> None:
    font = SANS.font
    for char in ("紅", "한", "\U0001f9e0", "\x00"):
        with pytest.raises(MissingGlyphError, match=f"U\\+{ord(char):04X}"):
            font.glyph_id(char)
        assert not font.has_glyph(char)


def test_damaged_font_data_is_a_font_error() -> None:
    good = dejavu_path("DejaVuSans.ttf").read_bytes()
    for data in (b"", b"garbage", good[:200], b"OTTO" + good[4:]):
        with pytest.raises(FontError):
            Font(data, "damaged")


@given(st.lists(st.tuples(st.integers(-2000, 2000), st.integers(-2000, 2000)), min_size=3, max_size=3),
       st.floats(0, 1))
@settings(deadline=None)  # pure arithmetic: a busy machine must not fail it
def test_a_quadratic_curve_raised_to_cubic_is_the_same_curve(points: list[tuple[int, int]], t: float) -> None:
    (x0, y0), (qx, qy), (x1, y1) = points
    pen = CubicPathPen()
    pen.moveTo((x0, y0))
    pen.qCurveTo((qx, qy), (x1, y1))
    pen.closePath()
    (_, (c1x, c1y, c2x, c2y, ex, ey)) = pen.commands[1]
    s = 1 - t
    quad = (s * s * x0 + 2 * s * t * qx + t * t * x1, s * s * y0 + 2 * s * t * qy + t * t * y1)
    cubic = (s ** 3 * x0 + 3 * s * s * t * c1x + 3 * s * t * t * c2x + t ** 3 * ex,
             s ** 3 * y0 + 3 * s * s * t * c1y + 3 * s * t * t * c2y + t ** 3 * ey)
    assert cubic == pytest.approx(quad, abs=1e-6)


def test_a_contour_of_control_points_only_gets_implied_points_half_way() -> None:
    pen = CubicPathPen()
    pen.qCurveTo((0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0), None)  # TrueType's closed all-off contour
    pen.closePath()
    path = pen.commands
    assert [op for op, _ in path] == ["M", "C", "C", "C", "C", "Z"]
    assert {values[-2:] for op, values in path[:-1]} == {(5.0, 0.0), (10.0, 5.0), (5.0, 10.0), (0.0, 5.0)}
    assert path[0][1] == path[-2][1][-2:]  # it closes where it began


def test_the_fonts_are_found_without_importing_matplotlib() -> None:
    probe = ("import sys; from menace.render.canvas import SANS, measure; measure('UP', SANS); "
             "print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
