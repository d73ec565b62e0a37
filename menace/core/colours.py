"""Bead colours: one per square of a box's drawing, each with a name, a letter and a shade.

The default set is the Okabe-Ito palette (told apart by most colour-blind people) plus white,
and every colour has its own letter, so a label printed in grey still reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from menace.core.errors import InvalidInputError


class ColourError(InvalidInputError):
    """A bead colour set that cannot be used."""


@dataclass(frozen=True)
class BeadColour:
    name: str
    letter: str
    hex: str

    @property
    def ink(self) -> str:
        """Black or white (``"#000000"``, ``"#ffffff"``), whichever reads better on this colour: the
        one rule every picture, page and terminal uses for a letter or a count on a bead.

        >>> BeadColour("yellow", "Y", "#f0e442").ink, BeadColour("blue", "B", "#0072b2").ink
        ('#000000', '#ffffff')
        """
        r, g, b = (int(self.hex[i:i + 2], 16) for i in (1, 3, 5))
        return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b >= 140 else "#ffffff"


DEFAULT_COLOURS: tuple[BeadColour, ...] = (
    BeadColour("white", "W", "#ffffff"),
    BeadColour("black", "K", "#000000"),
    BeadColour("amber", "A", "#e69f00"),
    BeadColour("sky blue", "S", "#56b4e9"),
    BeadColour("green", "G", "#009e73"),
    BeadColour("yellow", "Y", "#f0e442"),
    BeadColour("blue", "B", "#0072b2"),
    BeadColour("vermilion", "V", "#d55e00"),
    BeadColour("purple", "P", "#cc79a7"),
)


ARROW_COLOURS: tuple[BeadColour, ...] = tuple(DEFAULT_COLOURS[i] for i in (2, 3, 4, 7, 6, 8, 5, 0, 1))
"""The same colours for a game whose beads are drawn as arrows between pieces (Hexapawn): the four
most distinct first, and white and black last, since arrows beside black and white pawns would vanish."""


def default_colours(places_pieces: bool) -> tuple[BeadColour, ...]:
    """The standard colours: one per square for a game that places pieces, else for arrows."""
    return DEFAULT_COLOURS if places_pieces else ARROW_COLOURS


def parse_colours(text: str) -> tuple[BeadColour, ...]:
    """Up to nine ``name=#rrggbb`` or ``name:LETTER=#rrggbb`` items, comma-separated, in the order
    of a game's colours (the squares a1 to c3 in noughts and crosses: nine are needed there).

    >>> parse_colours(",".join(f"c{i}:{'ABCDEFGHI'[i]}=#00000{i}" for i in range(9)))[8].letter
    'I'
    """
    items = [part.strip() for part in text.split(",") if part.strip()]
    if not 1 <= len(items) <= 9:
        raise ColourError(f"give one to nine colours, comma-separated, not {len(items)}")
    out: list[BeadColour] = []
    for item in items:
        name, sep, shade = item.partition("=")
        if not sep or not _is_hex(shade.strip()):
            raise ColourError(f"{item!r}: write a colour as name=#rrggbb (or name:L=#rrggbb)")
        name, _, letter = name.partition(":")
        letter = (letter or name.strip()[:1]).strip().upper()
        if len(letter) != 1:
            raise ColourError(f"{item!r}: a colour's letter is one character")
        out.append(BeadColour(name.strip(), letter, shade.strip().lower()))
    for i, c in enumerate(out):
        twin = next((d for d in out[:i] if d.letter == c.letter), None)
        if twin is not None and twin.name == c.name:
            raise ColourError(f"{c.name} is given twice: each colour needs its own name, letter and shade")
        if twin is not None:
            raise ColourError(f"{twin.name} and {c.name} share the letter {c.letter}: each colour needs its own; "
                              f"give one another letter, e.g. {_with_free_letter(c, out)}")
    return tuple(out)


def _with_free_letter(colour: BeadColour, taken: Sequence[BeadColour], marks: str = "") -> str:
    """``olive:V=#808000``: the colour written with a letter no other colour (nor a mark) uses, from
    its own name if it can."""
    used = {c.letter for c in taken if c is not colour} | set(marks.upper())
    for letter in [ch.upper() for ch in colour.name if ch.isalpha()] + list("ABCDEFGHIJKLMNPQRSTUVWYZ"):
        if letter not in used:
            return f"{colour.name}:{letter}={colour.hex}"
    return f"{colour.name}:L={colour.hex}"


def check_marks(colours: Sequence[BeadColour], marks: str) -> None:
    """Refuse a colour whose letter is one of the board's ``marks`` (``"XO"``): its beads, drawn as
    letters on the squares, could not be told from the pieces.

    >>> check_marks(parse_colours("orange=#ff8000"), "XO")
    Traceback (most recent call last):
    ...
    menace.core.colours.ColourError: orange's letter O is also a mark on the board (X and O), so its beads could \
not be told from the pieces; give it another letter, e.g. orange:R=#ff8000
    """
    for c in colours:
        if c.letter in marks.upper():
            raise ColourError(f"{c.name}'s letter {c.letter} is also a mark on the board ({' and '.join(marks)}), so "
                              f"its beads could not be told from the pieces; give it another letter, e.g. "
                              f"{_with_free_letter(c, colours, marks)}")


def _is_hex(text: str) -> bool:
    return len(text) == 7 and text[0] == "#" and all(ch in "0123456789abcdefABCDEF" for ch in text[1:])


def find_colour(text: str, colours: tuple[BeadColour, ...] = DEFAULT_COLOURS) -> int:
    """The index (square of a box's drawing) of the colour named or lettered ``text``."""
    t = text.strip().lower()
    for i, c in enumerate(colours):
        if t in (c.letter.lower(), c.name.lower()):
            return i
    names = ", ".join(f"{c.name} ({c.letter})" for c in colours)
    raise ColourError(f"{text.strip()!r} is not a bead colour; the colours are {names}")


def format_colours(colours: tuple[BeadColour, ...]) -> str:
    """The colours as :func:`parse_colours` reads them back.

    >>> parse_colours(format_colours(DEFAULT_COLOURS)) == DEFAULT_COLOURS
    True
    """
    return ",".join(f"{c.name}:{c.letter}={c.hex}" for c in colours)
