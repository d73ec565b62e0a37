"""Printable worksheets for a lesson with MENACE: a results tally, game by game, and "How many games
until it stops losing?", a prediction, a strip of results and a graph of the losses so far.

The sheets need no machine: a class fills them in while it plays one (at the projector or with real
matchboxes). Each page is a :class:`~menace.render.canvas.Canvas` written by our own PDF writer, so
the same options give the same bytes.

>>> pages = worksheet_pages(WorksheetSpec(games=30))
>>> [(round(page.width), round(page.height)) for page in pages]
[(210, 297), (210, 297)]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from menace.render.canvas import SANS, SANS_BOLD, Canvas, Face, text_width
from menace.render.labels_layout import A4, Paper
from menace.render.pdf import PdfWriter

MIN_GAMES = 10
MAX_GAMES = 200
MARGIN = 15.0
"""Millimetres of white around every sheet (any printer prints there)."""
ROW = 6.6
"""The height of one row of the tally, in millimetres: room for a child's handwriting."""
GREY = "#808080"
LIGHT = "#c8c8c8"

QUESTIONS = (
    "After which game did {machine} lose for the last time?",
    "Was your prediction too high, too low or close? Why do you think so?",
    "The line of losses went flat. If we freeze {machine} now (no more beads added or taken away), "
    "will it get any better? Why?",
    "Does {machine} remember the games it played? Where is what it learnt kept?",
)
"""The last page's questions: they bring out the two mistakes pupils make (a frozen machine still
learning; a machine that stores the games it played)."""


class WorksheetError(ValueError):
    """Worksheet options that cannot be printed (too few or too many games)."""


@dataclass(frozen=True)
class WorksheetSpec:
    """What to print: the paper, and how many games the tally and the graph have room for."""

    paper: Paper = A4
    games: int = 30
    machine: str = "MENACE"
    """The name printed in the titles."""

    def __post_init__(self) -> None:
        if not MIN_GAMES <= self.games <= MAX_GAMES:
            raise WorksheetError(f"worksheets have room for {MIN_GAMES} to {MAX_GAMES} games, not {self.games}")


@dataclass(frozen=True)
class WorksheetSummary:
    """What was written: the number of pages of each sheet."""

    tally_pages: int
    graph_pages: int

    @property
    def pages(self) -> int:
        return self.tally_pages + self.graph_pages


def wrap(text: str, size: float, width: float, face: Face = SANS) -> list[str]:
    """``text`` broken at spaces into lines no wider than ``width`` mm at ``size`` points.

    >>> wrap("a b c", 10, 1000)
    ['a b c']
    >>> len(wrap("one two three four five six seven", 10, 30)) > 1
    True
    """
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if line and text_width(candidate, size, face) > width:
            lines.append(line)
            line = word
        else:
            line = candidate
    if line:
        lines.append(line)
    return lines


def _paragraph(canvas: Canvas, x: float, top: float, width: float, text: str, size: float,
               face: Face = SANS, colour: str = "#000000") -> float:
    """Set ``text`` wrapped from ``top`` down; the y (mm) just below its last line."""
    leading = size * 1.3 * 25.4 / 72
    y = top
    for line in wrap(text, size, width, face):
        canvas.text(x, y, line, size, va="top", face=face, colour=colour)
        y -= leading
    return y


def _title(canvas: Canvas, spec: WorksheetSpec, title: str, page: int, of: int) -> float:
    """The sheet's title, the name line and the page number; the y (mm) below them."""
    top = canvas.height - MARGIN
    canvas.text(MARGIN, top, title, 17, va="top", face=SANS_BOLD)
    canvas.text(canvas.width - MARGIN, top, f"{page}/{of}", 9, ha="right", va="top", colour=GREY)
    y = top - 13
    fields = (("Name(s)", 0.48), ("Class", 0.22), ("Date", 0.30))
    x = MARGIN
    usable = canvas.width - 2 * MARGIN
    for label, share in fields:
        canvas.text(x, y, label, 9, va="baseline")
        start = x + text_width(label, 9, SANS) + 2
        end = x + usable * share - 4
        canvas.line([(start, y - 0.8), (end, y - 0.8)], 0.5, GREY)
        x += usable * share
    return y - 7


def _footer(canvas: Canvas, spec: WorksheetSpec) -> None:
    canvas.text(canvas.width / 2, MARGIN - 6, f"menace worksheets: the class against {spec.machine}, a machine "
                "of matchboxes and beads that learns from its games", 7.5, ha="center", va="baseline", colour=GREY)


COLUMNS = (("Game", 14.0), ("Who played", 0.0), ("{machine}|won", 24.0), ("Draw", 18.0), ("{machine}|lost", 24.0),
           ("Losses|so far", 24.0))
"""The tally's columns (``|`` breaks a heading's line) and their widths in mm (0: the rest of the line)."""


def _tally_rows_per_page(spec: WorksheetSpec) -> int:
    first_row_top = spec.paper.height - MARGIN - 20 - 17 - 8
    bottom = MARGIN + 18
    return int((first_row_top - bottom) // ROW)


def _tally_page(spec: WorksheetSpec, first: int, last: int, page: int, of: int) -> Canvas:
    canvas = Canvas(spec.paper.width, spec.paper.height)
    y = _title(canvas, spec, f"Results tally: the class against {spec.machine}", page, of)
    usable = canvas.width - 2 * MARGIN
    y = _paragraph(canvas, MARGIN, y, usable,
                   f"After each game, tick {spec.machine}'s result and write how many games it has lost "
                   "so far. A draw is not a loss.", 9.5)
    y -= 3
    fixed = sum(w for _, w in COLUMNS)
    widths = [w or usable - fixed for _, w in COLUMNS]
    xs = [MARGIN]
    for w in widths:
        xs.append(xs[-1] + w)
    header = 10.0
    canvas.rect(MARGIN, y - header, MARGIN + usable, y, 0.8)
    for (name, _), x0, x1 in zip(COLUMNS, xs, xs[1:]):
        lines = name.format(machine=spec.machine).split("|")
        size = min([8.5, *(8.5 * (x1 - x0 - 2) / text_width(line, 8.5, SANS_BOLD) for line in lines)])
        for n, line in enumerate(lines):
            middle = y - header / 2 + (len(lines) - 1) * 1.9 - n * 3.8
            canvas.text((x0 + x1) / 2, middle, line, size, ha="center", va="center", face=SANS_BOLD)
    top = y - header
    rows = last - first + 1
    bottom = top - rows * ROW
    for n in range(rows):
        row_top = top - n * ROW
        canvas.text(xs[0] + widths[0] / 2, row_top - ROW / 2, str(first + n), 9, ha="center", va="center")
        for x0, x1 in zip(xs[2:5], xs[3:6]):
            size = 3.6
            cx, cy = (x0 + x1) / 2, row_top - ROW / 2
            canvas.rect(cx - size / 2, cy - size / 2, cx + size / 2, cy + size / 2, 0.5, GREY)
        canvas.line([(MARGIN, row_top - ROW), (MARGIN + usable, row_top - ROW)], 0.3, LIGHT)
    for x in xs:
        canvas.line([(x, top + header), (x, bottom)], 0.6 if x in (xs[0], xs[-1]) else 0.3,
                    "#000000" if x in (xs[0], xs[-1]) else GREY)
    canvas.line([(MARGIN, bottom), (MARGIN + usable, bottom)], 0.8)
    if last == spec.games:
        y = bottom - 8
        canvas.text(MARGIN, y, "Totals:", 10, face=SANS_BOLD)
        x = MARGIN + 18
        for label in (f"{spec.machine} won", "draws", f"{spec.machine} lost"):
            canvas.text(x, y, label, 9.5)
            start = x + text_width(label, 9.5, SANS) + 2
            canvas.line([(start, y - 0.8), (start + 16, y - 0.8)], 0.5, GREY)
            x = start + 24
    _footer(canvas, spec)
    return canvas


def _graph_page(spec: WorksheetSpec, page: int, of: int) -> Canvas:
    canvas = Canvas(spec.paper.width, spec.paper.height)
    y = _title(canvas, spec, "How many games until it stops losing?", page, of)
    usable = canvas.width - 2 * MARGIN
    # The prediction, made before the first game.
    y = _paragraph(canvas, MARGIN, y, usable, "Before the first game", 10, SANS_BOLD)
    y -= 1.5
    canvas.text(MARGIN, y, f"I think {spec.machine} will stop losing after", 9.5, va="top")
    start = MARGIN + text_width(f"I think {spec.machine} will stop losing after", 9.5, SANS) + 2
    canvas.line([(start, y - 4), (start + 18, y - 4)], 0.5, GREY)
    canvas.text(start + 20, y, "games, because", 9.5, va="top")
    y -= 8
    for _ in range(2):
        canvas.line([(MARGIN, y - 4), (MARGIN + usable, y - 4)], 0.5, GREY)
        y -= 7
    y -= 3
    # The strip: one square per game.
    y = _paragraph(canvas, MARGIN, y, usable, "Game by game", 10, SANS_BOLD)
    y = _paragraph(canvas, MARGIN, y - 1, usable,
                   "Write W (it won), D (a draw) or L (it lost) in each game's square.", 9)
    per_row = 20 if spec.games <= 60 else 25
    cell = usable / per_row
    strip_rows = math.ceil(spec.games / per_row)
    strip_rows_shown = min(strip_rows, 4)
    games_in_strip = min(spec.games, strip_rows_shown * per_row)
    y -= 2
    for n in range(games_in_strip):
        row, col = divmod(n, per_row)
        x0 = MARGIN + col * cell
        top = y - row * (cell + 3.5)
        canvas.rect(x0, top - cell, x0 + cell, top, 0.4, GREY)
        canvas.text(x0 + cell / 2, top - cell - 0.6, str(n + 1), 5.5, ha="center", va="top", colour=GREY)
    y -= strip_rows_shown * (cell + 3.5) + 4
    # The graph of losses so far.
    y = _paragraph(canvas, MARGIN, y, usable, "Losses so far", 10, SANS_BOLD)
    y = _paragraph(canvas, MARGIN, y - 1, usable,
                   "After each game put a dot above its number at the height of the losses so far, and join "
                   "the dots. Where the line goes flat, it has stopped losing.", 9)
    questions_height = 62.0
    graph_bottom = MARGIN + 6 + questions_height + 14
    graph_top = y - 10
    left = MARGIN + 10
    right = MARGIN + usable
    x_max = _nice_ceiling(spec.games)
    y_max = _nice_ceiling(max(10, spec.games // 2))
    x_step = _grid_step(x_max, right - left, 2.4)
    y_step = _grid_step(y_max, graph_top - graph_bottom, 2.4)
    for i in range(0, x_max + 1, x_step):
        x = left + (right - left) * i / x_max
        major = i % (x_step * 5) == 0
        canvas.line([(x, graph_bottom), (x, graph_top)], 0.45 if major else 0.2, GREY if major else LIGHT)
        if major:
            canvas.text(x, graph_bottom - 1.2, str(i), 7.5, ha="center", va="top")
    for j in range(0, y_max + 1, y_step):
        yy = graph_bottom + (graph_top - graph_bottom) * j / y_max
        major = j % (y_step * 5) == 0
        canvas.line([(left, yy), (right, yy)], 0.45 if major else 0.2, GREY if major else LIGHT)
        if major:
            canvas.text(left - 1.5, yy, str(j), 7.5, ha="right", va="center")
    canvas.line([(left, graph_top), (left, graph_bottom), (right, graph_bottom)], 0.9)
    canvas.text((left + right) / 2, graph_bottom - 5.5, "games played", 8.5, ha="center", va="top")
    canvas.text(left - 8, graph_top + 2.5, "losses so far", 8.5, va="bottom")
    # The questions.
    y = MARGIN + 6 + questions_height
    y = _paragraph(canvas, MARGIN, y, usable, "Questions", 10, SANS_BOLD)
    for number, question in enumerate(QUESTIONS, 1):
        y = _paragraph(canvas, MARGIN, y - 1, usable, f"{number}. {question.format(machine=spec.machine)}", 9)
        canvas.line([(MARGIN + 4, y - 5), (MARGIN + usable, y - 5)], 0.4, GREY)
        y -= 8
    _footer(canvas, spec)
    return canvas


def _nice_ceiling(value: int) -> int:
    """``value`` rounded up to a multiple of 10 (5 below 10)."""
    step = 5 if value < 10 else 10
    return -(-value // step) * step


def _grid_step(span: int, length: float, least: float) -> int:
    """The smallest step among 1, 2, 5, 10, ... whose cells are at least ``least`` mm."""
    for step in (1, 2, 5, 10, 20, 50):
        if span % step == 0 and length * step / span >= least:
            return step
    return span


def worksheet_pages(spec: WorksheetSpec) -> list[Canvas]:
    """Every page: the tally (as many pages as its games need), then the graph sheet."""
    most = _tally_rows_per_page(spec)
    # As many rows on every page (the last may have fewer), rather than a full page and a few rows.
    per_page = math.ceil(spec.games / math.ceil(spec.games / most))
    starts = list(range(1, spec.games + 1, per_page))
    of = len(starts) + 1
    pages = [_tally_page(spec, first, min(first + per_page - 1, spec.games), n, of)
             for n, first in enumerate(starts, 1)]
    pages.append(_graph_page(spec, of, of))
    return pages


def write_worksheets(out: str | Path | IO[bytes], spec: WorksheetSpec) -> WorksheetSummary:
    """Write the worksheets as one PDF to ``out`` (a path or a binary file); the same spec gives the
    same bytes."""
    pages = worksheet_pages(spec)
    info = {"Title": f"MENACE worksheets: the class against {spec.machine}",
            "Subject": "A results tally per game; how many games until it stops losing?",
            "Creator": "menace worksheets", "Producer": "menace"}

    def write(f: IO[bytes]) -> None:
        with PdfWriter(f, info) as pdf:
            for page in pages:
                pdf.page(page)

    if isinstance(out, (str, Path)):
        from menace.app.files import write_with

        write_with(out, write)
    else:
        write(out)
    return WorksheetSummary(len(pages) - 1, 1)

