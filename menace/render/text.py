"""Boards and beads as text, for any game: the drawings ``play``, ``operate``, ``show`` and
``replay`` print.

Bead letters are coloured on a terminal that can show colour (never when ``NO_COLOR`` is set or
the output is not a terminal), and every bead carries its letter, so nothing depends on colour.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from menace.core.colours import BeadColour
from menace.core.game import Game, Move, State
from menace.core.settings import Scope, Settings


def use_colour(stream_is_tty: bool) -> bool:
    """Colour only for a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    return stream_is_tty and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(text: str, colour: BeadColour, on: bool) -> str:
    """``text`` on the bead's colour (black or white ink, whichever reads), when ``on``."""
    if not on:
        return text
    r, g, b = (int(colour.hex[i:i + 2], 16) for i in (1, 3, 5))
    ir, ig, ib = (int(colour.ink[i:i + 2], 16) for i in (1, 3, 5))
    return f"\x1b[1;48;2;{r};{g};{b};38;2;{ir};{ig};{ib}m{text}\x1b[0m"


def board_lines(game: Game, state: State, marks: Mapping[int, str] | None = None) -> list[str]:
    """The board with its coordinates; ``marks`` puts text on empty cells (bead letters). A game
    drawn without a grid (Nim's sticks) gets its cells as they lie and its caption under them."""
    if not game.grid:
        width = game.cols * 2 - 1
        lines = ["    " + " ".join(game.glyphs[v] if v else " " for v in state[r * game.cols:(r + 1) * game.cols])
                 for r in range(game.rows)]
        caption = game.caption(state)
        return [line.rstrip().ljust(width + 4) for line in lines] + ([f"    {caption}".ljust(width + 4)]
                                                                       if caption else [])
    lines = ["    " + "   ".join(game.col_labels)]
    rule = "   " + "+".join(["---"] * game.cols)
    for row in range(game.rows):
        cells = []
        for col in range(game.cols):
            cell = row * game.cols + col
            value = state[cell]
            if value:
                cells.append(game.glyphs[value])
            elif marks and cell in marks:
                cells.append(marks[cell])
            else:
                cells.append(" ")
        lines.append(f"{game.row_labels[row]}   " + " | ".join(cells))
        if row < game.rows - 1:
            lines.append(rule)
    return lines


def bead_colour(game: Game, colours: Sequence[BeadColour], position: State, move: Move) -> BeadColour:
    """The colour of the bead for ``move`` in the box for ``position``."""
    return colours[game.colour_slot(position, move) % len(colours)]


def box_lines(game: Game, position: State, beads: Mapping[Move, int], colours: Sequence[BeadColour],
              colour: bool = False) -> list[str]:
    """A box's drawing: the position with each bead's letter where its move goes, then (for a game
    whose pieces move) one line per bead naming its move."""
    placing = game.moves_on_board and all(game.move_cells(m)[0] is None for m in beads)
    letters = {}
    if placing:
        for m in beads:
            c = bead_colour(game, colours, position, m)
            letters[game.move_cells(m)[1]] = paint(c.letter, c, colour)
    lines = board_lines(game, position, letters)
    if not placing:
        for m in beads:
            c = bead_colour(game, colours, position, m)
            lines.append(f"  {paint(c.letter, c, colour)} {c.name:<10} {game.move_text(m)}")
    return lines


def beads_text(game: Game, position: State, beads: Mapping[Move, int], colours: Sequence[BeadColour],
               colour: bool = False) -> str:
    """``W=4, K=4, G=4``: each bead's letter and count."""
    parts = []
    for m, n in beads.items():
        c = bead_colour(game, colours, position, m)
        parts.append(f"{paint(c.letter, c, colour)}={n:,}")
    return ", ".join(parts)


def chances(beads: Mapping[Move, int]) -> dict[Move, float]:
    """Each bead's chance of being drawn, in percent (0 for all when the box is empty)."""
    total = sum(beads.values())
    return {m: (100.0 * n / total if total else 0.0) for m, n in beads.items()}


MINUS = "\u2212"


def signed(value: int) -> str:
    """``+3``, ``+0``, ``−1`` with a real minus sign, as printed."""
    return f"{value:+d}".replace("-", MINUS)


def curve_text(settings: Settings) -> str:
    """What the cumulative learning curve adds up: ``cumulative reinforcement (+3 win, +1 draw, −1 loss)``,
    or, for a machine of the Pegasus rule (odds, not beads), ``cumulative outcome (+1 win, +0 draw, −1 loss)``."""
    if settings.pegasus is None:
        return f"cumulative reinforcement ({rule_text(settings)})"
    win, draw, loss = settings.curve_values
    return f"cumulative outcome ({signed(win)} win, {signed(draw)} draw, {signed(loss)} loss)"


def rule_text(settings: Settings) -> str:
    """The machine's learning rule in words: ``+3 win, +1 draw, −1 loss`` (for the last bead only,
    under Gardner's scope)."""
    if settings.pegasus is not None:
        return settings.pegasus.describe()
    rule = f"{signed(settings.win)} win, {signed(settings.draw)} draw, {signed(settings.loss)} loss"
    return rule if settings.scope is Scope.EVERY else f"{rule}, last bead only"
