"""Which colour each bead is, and what it stands for, in any game: the one place the pictures
(labels, plots) and the text turn a box's moves into coloured beads.

In noughts and crosses a bead's colour is a square of the box's drawing, the same nine colours in
every box; in Hexapawn a box's moves are coloured in order, as Gardner coloured the arrows on his
matchboxes.

>>> from menace.games import DEFAULT_GAME, find_game
>>> game = find_game(DEFAULT_GAME)
>>> slot_names(game)[:3]
['a1', 'a2', 'a3']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from menace.core.colours import BeadColour
from menace.core.game import Game, Move, State
from menace.core.learner import Box


def places_pieces(game: Game) -> bool:
    """Every move puts a piece on an empty cell (noughts and crosses), rather than moving one (or
    being named, as Nim's "take 2" is)."""
    return game.moves_on_board and all(game.move_cells(m)[0] is None for m in range(game.move_count))


def slot(game: Game, position: State, move: Move) -> int:
    """The colour (an index into the bead colours) of the bead for ``move`` in the box for ``position``."""
    return game.colour_slot(position, move)


def colour(game: Game, colours: Sequence[BeadColour], position: State, move: Move) -> BeadColour:
    return colours[slot(game, position, move) % len(colours)]


def by_slot(game: Game, box: Box, counts: Mapping[Move, int]) -> dict[int, int]:
    """A box's counts by colour (slot) instead of by move."""
    return {slot(game, box.position, m): n for m, n in counts.items()}


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


def slot_names(game: Game) -> list[str]:
    """What each colour stands for: a square (``a1``), or a box's n-th move."""
    if places_pieces(game):
        return [game.move_name(m) for m in range(game.colours)]
    if not game.moves_on_board:  # the same colour is the same move in every box
        return [game.move_text(m) for m in range(game.colours)]
    return [f"a box's {_ordinal(i + 1)} move" for i in range(game.colours)]
