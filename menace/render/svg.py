"""One :class:`~menace.render.canvas.Canvas` as an SVG document exactly its size in millimetres.

Glyphs are paths (defined once, placed where they are used), so the file looks the same on a
machine without the DejaVu fonts, and a cutter reads it as it reads the lines.

>>> from menace.render.canvas import SANS_BOLD, Canvas
>>> label = Canvas(53, 36)
>>> label.text(5, 30, "UP", 7, face=SANS_BOLD)
>>> svg = to_svg(label, creator="menace labels")
>>> 'width="53mm" height="36mm" viewBox="0 0 150.24 102.05"' in svg
True
"""

from __future__ import annotations

import functools
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from menace.render.canvas import DASHES, MM_PER_PT, Canvas, Face, glyph_ids, shape_path
from menace.render.fonts import PathCommand

PT_PER_MM = 1 / MM_PER_PT
SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_DC = "http://purl.org/dc/elements/1.1/"
_CC = "http://creativecommons.org/ns#"
for _prefix, _uri in (("", SVG), ("xlink", XLINK), ("rdf", _RDF), ("dc", _DC), ("cc", _CC)):
    ET.register_namespace(_prefix, _uri)


def num(value: float) -> str:
    """A number for the SVG: at most two decimals (a hundredth of a point), no trailing zeros.

    >>> num(12.0), num(0.125), num(-0.001), num(595.2756)
    ('12', '0.12', '0', '595.28')
    """
    text = f"{value:.2f}"
    if text[-1] == "0":
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _el(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, f"{{{SVG}}}{tag}", attributes)


def to_svg(canvas: Canvas, creator: str = "") -> str:
    """``canvas`` as an SVG document: width and height in mm, drawn in points (``viewBox``)."""
    height = canvas.height * PT_PER_MM
    root = ET.Element(f"{{{SVG}}}svg", {
        "version": "1.1", "width": f"{num(canvas.width)}mm", "height": f"{num(canvas.height)}mm",
        "viewBox": f"0 0 {num(canvas.width * PT_PER_MM)} {num(height)}"})
    if creator:
        work = ET.SubElement(ET.SubElement(_el(root, "metadata"), f"{{{_RDF}}}RDF"), f"{{{_CC}}}Work")
        agent = ET.SubElement(ET.SubElement(work, f"{{{_DC}}}creator"), f"{{{_CC}}}Agent")
        ET.SubElement(agent, f"{{{_DC}}}title").text = creator
    defs = _el(root, "defs")
    _el(root, "rect", x="0", y="0", width=num(canvas.width * PT_PER_MM), height=num(height), style="fill: #ffffff")
    for (width, colour, dash), polylines in canvas.lines.items():
        d = " ".join("M " + " L ".join(f"{num(x * PT_PER_MM)} {num(height - y * PT_PER_MM)}" for x, y in points)
                     for points in polylines)
        pattern = DASHES[dash]
        dashes = f"; stroke-dasharray: {' '.join(num(p * width) for p in pattern)}" if pattern else ""
        _el(root, "path", d=d, style=f"fill: none; stroke: {colour}; stroke-width: {num(width)}; "
                                     f"stroke-linejoin: miter; stroke-linecap: butt{dashes}")
    for shape in canvas.shapes:
        fill = shape.face or "none"
        stroke = f"stroke: {shape.edge}; stroke-width: {num(shape.width)}" if shape.width > 0 else "stroke: none"
        _el(root, "path", d=_svg_path(shape_path(shape), PT_PER_MM, height),
            style=f"fill: {fill}; {stroke}; stroke-linejoin: round")
    glyphs: dict[tuple[Face, int], str] = {}
    for run in canvas.texts:
        font = run.face.font
        scale = run.size / font.units_per_em
        uses = []
        pen = 0
        previous = None
        for gid in glyph_ids(run.text, run.face):
            if previous is not None:
                pen += font.kerning(previous, gid)
            if font.glyph_box(gid) is not None:
                key = (run.face, gid)
                if key not in glyphs:
                    glyphs[key] = f"{run.face.name}-{gid:x}"
                uses.append((glyphs[key], pen))
            pen += font.advance(gid)
            previous = gid
        if uses:
            group = _el(root, "g", style=f"fill: {run.colour}",
                        transform=f"translate({num(run.x * PT_PER_MM)} {num(height - run.y * PT_PER_MM)}) "
                                  f"scale({scale:.6g} -{scale:.6g})")
            for name, x in uses:
                ET.SubElement(group, f"{{{SVG}}}use", {f"{{{XLINK}}}href": f"#{name}", "x": str(x)})
    for (face, gid), name in glyphs.items():
        _el(defs, "path", id=name, d=_glyph_outline(face, gid))
    ET.indent(root, space="")
    return '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


@functools.lru_cache(maxsize=4096)
def _glyph_outline(face: Face, gid: int) -> str:
    """A glyph's outline in font units, y up, to be placed with ``<use>`` (the same in every file)."""
    return _svg_path(face.font.path(gid), 1.0, None)


def _svg_path(path: Sequence[PathCommand], scale: float, height: float | None) -> str:
    """Path commands as SVG path data; with ``height``, y is flipped to run down from the top."""
    out = []
    for op, values in path:
        if op == "Z":
            out.append("Z")
            continue
        coords = []
        for i in range(0, len(values), 2):
            x, y = values[i] * scale, values[i + 1] * scale
            coords.append(f"{num(x)} {num(height - y if height is not None else y)}")
        out.append(op + " " + " ".join(coords))
    return " ".join(out)
