"""Where a box stands on the shelves: one section per move (and side), rows of boxes in number
order. The labels' shelf map and ``menace operate`` use the same places. Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from menace.core.game import Side
from menace.core.learner import Box

SideNames = Mapping[Side, str] | None
"""The game's word for each side (``Game.side_names``: White and Black); None: the side's letter."""


def side_word(side: Side, names: SideNames) -> str:
    return names[side] if names is not None else side.name

SHELF_WIDTH = 12
"""Boxes side by side in one row of a shelf."""


@dataclass(frozen=True)
class ShelfPlace:
    section: str
    """``"move 2"`` (with the side, ``"X move 2"``, on a machine that plays both)."""
    row: int
    """1 is the top row of the section."""
    place: int
    """1 is the leftmost box of the row."""

    def __str__(self) -> str:
        return f"{self.section} shelf, row {self.row}, place {self.place} from the left"


def section_of(box: Box, two_sided: bool, names: SideNames = None) -> str:
    return f"{side_word(box.side, names)} move {box.move_number}" if two_sided else f"move {box.move_number}"


def shelf_sections(boxes: Sequence[Box], names: SideNames = None) -> list[tuple[str, list[Box]]]:
    """The boxes grouped by section, sections in order of their first box, boxes by number."""
    two_sided = len({b.side for b in boxes}) > 1
    sections: dict[str, list[Box]] = {}
    for box in sorted(boxes, key=lambda b: b.number):
        sections.setdefault(section_of(box, two_sided, names), []).append(box)
    return list(sections.items())


def shelf_place(boxes: Sequence[Box], number: int, per_row: int = SHELF_WIDTH, names: SideNames = None) -> ShelfPlace:
    """Where box ``number`` stands (``names``: the game's words for the sides, in the section's name)."""
    for title, members in shelf_sections(boxes, names):
        for i, box in enumerate(members):
            if box.number == number:
                return ShelfPlace(title, i // per_row + 1, i % per_row + 1)
    raise KeyError(number)
