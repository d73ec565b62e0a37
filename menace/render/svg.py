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
from collections.abc import Sequence
from xml.sax.saxutils import escape

from menace.render.canvas import DASHES, MM_PER_PT, Canvas, Face, glyph_ids, shape_path
from menace.render.pdf import num
from menace.render.truetype import PathCommand

PT_PER_MM = 1 / MM_PER_PT


def to_svg(canvas: Canvas, creator: str = "") -> str:
    """``canvas`` as an SVG document: width and height in mm, drawn in points (``viewBox``)."""
    height = canvas.height * PT_PER_MM
    body: list[str] = []
    body.append(f'<rect x="0" y="0" width="{num(canvas.width * PT_PER_MM)}" height="{num(height)}" '
                'style="fill: #ffffff"/>')
    for (width, colour, dash), polylines in canvas.lines.items():
        d = " ".join("M " + " L ".join(f"{num(x * PT_PER_MM)} {num(height - y * PT_PER_MM)}" for x, y in points)
                     for points in polylines)
        pattern = DASHES[dash]
        dashes = f"; stroke-dasharray: {' '.join(num(p * width) for p in pattern)}" if pattern else ""
        body.append(f'<path d="{d}" style="fill: none; stroke: {colour}; stroke-width: {num(width)}; '
                    f'stroke-linejoin: miter; stroke-linecap: butt{dashes}"/>')
    for shape in canvas.shapes:
        fill = shape.face or "none"
        stroke = f"stroke: {shape.edge}; stroke-width: {num(shape.width)}" if shape.width > 0 else "stroke: none"
        body.append(f'<path d="{_svg_path(shape_path(shape), PT_PER_MM, height)}" '
                    f'style="fill: {fill}; {stroke}; stroke-linejoin: round"/>')
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
                uses.append(f'<use xlink:href="#{glyphs[key]}" x="{pen}"/>')
            pen += font.advance(gid)
            previous = gid
        if uses:
            body.append(f'<g style="fill: {run.colour}" transform="translate({num(run.x * PT_PER_MM)} '
                        f'{num(height - run.y * PT_PER_MM)}) scale({scale:.6g} -{scale:.6g})">'
                        + "".join(uses) + "</g>")
    defs = "".join(_glyph_definition(face, gid, name) for (face, gid), name in glyphs.items())
    metadata = (' <metadata>\n  <rdf:RDF xmlns:dc="http://purl.org/dc/elements/1.1/" '
                'xmlns:cc="http://creativecommons.org/ns#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
                f'   <cc:Work><dc:creator><cc:Agent><dc:title>{escape(creator)}</dc:title></cc:Agent></dc:creator>'
                '</cc:Work>\n  </rdf:RDF>\n </metadata>\n') if creator else ""
    return ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" '
            f'width="{num(canvas.width)}mm" height="{num(canvas.height)}mm" '
            f'viewBox="0 0 {num(canvas.width * PT_PER_MM)} {num(height)}">\n'
            + metadata + f"<defs>{defs}</defs>\n" + "\n".join(body) + "\n</svg>\n")


@functools.lru_cache(maxsize=4096)
def _glyph_definition(face: Face, gid: int, name: str) -> str:
    """A glyph's outline in font units, y up, to be placed with ``<use>`` (the same in every file)."""
    return f'<path id="{name}" d="{_svg_path(face.font.path(gid), 1.0, None)}"/>'


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
