"""McLean's MAGIC puzzle: complement groups of cells until the grid reads 1s round a centre 0.

A grid is nine cells of 0 or 1, read row by row from the top left. Here it is an ``int``
whose bit *i* holds cell *i* (cell 0 is the top left, cell 4 the centre, cell 8 the bottom
right), so pressing a key is one exclusive-or.

>>> start = parse_grid("0 0 0 / 1 0 0 / 0 0 0")
>>> press(press(press(start, 7), 1), 6) == GOAL
True
>>> shortest_solution(start)
(1, 6, 7)
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from menace.core.errors import InvalidInputError, known

Grid = int
"""Nine cells as a 9-bit int: bit ``i`` is cell ``i`` (row by row from the top left)."""

Key = int
"""A key number, 1 to 9."""

CELLS: Final = 9
GRID_COUNT: Final = 1 << CELLS
KEYS: Final = tuple(range(1, 10))


class MagicError(InvalidInputError):
    """Base class for MAGIC puzzle errors."""


class BadGridError(MagicError):
    """Text or cells that do not describe a 3 x 3 grid of 0s and 1s."""


class BadKeyError(MagicError):
    """A key number outside 1 to 9."""


class UnsolvableGridError(MagicError):
    """A grid from which no sequence of presses reaches the goal."""


def grid_from_cells(cells: Iterable[int]) -> Grid:
    """Build a grid from nine cells of 0 or 1, row by row.

    >>> grid_from_cells([1, 1, 1, 1, 0, 1, 1, 1, 1]) == GOAL
    True
    """
    values = list(cells)
    if len(values) != CELLS:
        raise BadGridError(f"a grid has {CELLS} cells, got {len(values)}")
    grid = 0
    for index, value in enumerate(values):
        if value not in (0, 1):
            raise BadGridError(f"cell {index + 1} is {value!r}; cells are 0 or 1")
        grid |= value << index
    return grid


def grid_cells(grid: Grid) -> tuple[int, ...]:
    """The nine cells of ``grid``, row by row.

    >>> grid_cells(GOAL)
    (1, 1, 1, 1, 0, 1, 1, 1, 1)
    """
    _check_grid(grid)
    return tuple((grid >> index) & 1 for index in range(CELLS))


def _check_grid(grid: Grid) -> None:
    if not 0 <= grid < GRID_COUNT:
        raise BadGridError(f"{grid!r} is not a 9-bit grid")


# The key patterns, copied cell by cell from the instruction chart (1 marks a cell the key
# complements).  The APL data vector A in the printed listing is garbled (80 values instead
# of 81), but the chart and the example game agree, so the chart is the reference.
_KEY_PATTERNS: Final[dict[Key, str]] = {
    1: "110 110 000",
    2: "111 000 000",
    3: "011 011 000",
    4: "100 100 100",
    5: "010 111 010",
    6: "001 001 001",
    7: "000 110 110",
    8: "000 000 111",
    9: "000 011 011",
}

GOAL: Final[Grid] = 0b111_101_111
"""All 1s with a 0 in the centre (symmetric, so the bit order does not show)."""


def parse_grid(text: str) -> Grid:
    """Read a grid written as nine 0/1 digits, row by row.

    Spaces, commas and ``/`` row separators are ignored, so ``"000100000"``,
    ``"000 100 000"`` and ``"0 0 0 / 1 0 0 / 0 0 0"`` are the same grid.

    >>> parse_grid("000100000") == parse_grid("0 0 0 / 1 0 0 / 0 0 0")
    True
    """
    digits = [char for char in text if char not in " \t\n,/|"]
    bad = sorted({char for char in digits if char not in "01"})
    if bad:
        raise BadGridError(f"{text!r} has {', '.join(repr(char) for char in bad)}; a grid is nine 0s and 1s")
    if len(digits) != CELLS:
        raise BadGridError(f"{text!r} has {len(digits)} cells; a grid has {CELLS}")
    return grid_from_cells(int(char) for char in digits)


def grid_text(grid: Grid) -> str:
    """The grid as one line that :func:`parse_grid` reads back, e.g. ``"000 100 000"``."""
    cells = "".join(str(cell) for cell in grid_cells(grid))
    return " ".join(cells[row : row + 3] for row in range(0, CELLS, 3))


def format_grid(grid: Grid) -> str:
    """The grid drawn in three lines, as the APL session prints it.

    >>> print(format_grid(GOAL))
     1 1 1
     1 0 1
     1 1 1
    """
    cells = grid_cells(grid)
    return "\n".join("".join(f" {cell}" for cell in cells[row : row + 3]) for row in range(0, CELLS, 3))


KEY_MASKS: Final[dict[Key, Grid]] = {key: parse_grid(pattern) for key, pattern in _KEY_PATTERNS.items()}
"""For each key 1-9, the grid whose 1s mark the cells that key complements."""


def check_key(key: int) -> Key:
    """Return ``key`` if it is 1 to 9, else raise :class:`BadKeyError`."""
    if key not in KEY_MASKS:
        raise BadKeyError(f"{key!r} is not a key; keys are 1 to 9")
    return key


def parse_key(text: str) -> Key:
    """Read a key number typed by a player.

    >>> parse_key(" 7 ")
    7
    """
    stripped = text.strip()
    if not stripped.isdecimal():
        raise BadKeyError(f"{stripped!r} is not a key; keys are 1 to 9")
    return check_key(int(stripped))


def press(grid: Grid, key: Key) -> Grid:
    """Complement the cells of ``grid`` that key ``key`` marks.

    >>> press(parse_grid("000 100 000"), 7) == parse_grid("000 010 110")
    True
    """
    _check_grid(grid)
    return grid ^ KEY_MASKS[check_key(key)]


def press_all(grid: Grid, keys: Iterable[Key]) -> Grid:
    """Press each of ``keys`` in turn, starting from ``grid``."""
    for key in keys:
        grid = press(grid, key)
    return grid


def is_won(grid: Grid) -> bool:
    """True if ``grid`` is the goal: 1s all round a centre 0."""
    return grid == GOAL


@dataclass(frozen=True)
class SolutionTable:
    """Fewest presses from every one of the 512 grids, found by breadth-first search.

    ``presses[g]`` is the fewest presses from grid ``g`` to the goal (``None`` if the goal
    cannot be reached) and ``next_key[g]`` a key that starts such a shortest sequence
    (``None`` at the goal or when unreachable).
    """

    presses: tuple[int | None, ...]
    next_key: tuple[Key | None, ...]

    @property
    def every_grid_solvable(self) -> bool:
        """True if the goal can be reached from all 512 grids."""
        return all(count is not None for count in self.presses)

    @property
    def solvable_count(self) -> int:
        """How many of the 512 grids can reach the goal."""
        return sum(count is not None for count in self.presses)

    @property
    def max_presses(self) -> int:
        """The most presses that any solvable grid needs."""
        return max(count for count in self.presses if count is not None)

    def grids_needing(self, presses: int) -> tuple[Grid, ...]:
        """All grids whose shortest solution has exactly ``presses`` presses."""
        return tuple(grid for grid, count in enumerate(self.presses) if count == presses)


@cache
def solution_table() -> SolutionTable:
    """Search outward from the goal once and remember the result.

    Every press undoes itself, so the moves are the same in both directions and one search
    from the goal gives the distance from every grid to it.
    """
    presses: list[int | None] = [None] * GRID_COUNT
    next_key: list[Key | None] = [None] * GRID_COUNT
    presses[GOAL] = 0
    queue: deque[Grid] = deque([GOAL])
    while queue:
        grid = queue.popleft()
        distance = known(presses[grid], "a queued grid's distance")
        for key, mask in KEY_MASKS.items():
            neighbour = grid ^ mask
            if presses[neighbour] is None:
                presses[neighbour] = distance + 1
                # From the neighbour, pressing the same key comes back one step nearer.
                next_key[neighbour] = key
                queue.append(neighbour)
    return SolutionTable(presses=tuple(presses), next_key=tuple(next_key))


def fewest_presses(grid: Grid) -> int:
    """The fewest presses that turn ``grid`` into the goal."""
    _check_grid(grid)
    count = solution_table().presses[grid]
    if count is None:
        raise UnsolvableGridError(f"no presses reach the goal from {grid_text(grid)}")
    return count


def hint(grid: Grid) -> Key | None:
    """A key that starts a shortest solution from ``grid``, or ``None`` if it is already won.

    >>> hint(parse_grid("0 0 0 / 1 0 0 / 0 0 0")) in (1, 6, 7)
    True
    """
    if fewest_presses(grid) == 0:
        return None
    return solution_table().next_key[grid]


def shortest_solution(grid: Grid) -> tuple[Key, ...]:
    """The keys of a shortest solution from ``grid``, in increasing order.

    Presses commute and each undoes itself, so a shortest solution presses distinct keys and
    their order does not matter; sorting makes the answer stable.
    """
    keys: list[Key] = []
    current = grid
    while (key := hint(current)) is not None:
        keys.append(key)
        current = press(current, key)
    return tuple(sorted(keys))


def random_start(rng: random.Random) -> Grid:
    """A random grid that is not already the goal, drawn from ``rng``."""
    while True:
        grid = rng.randrange(GRID_COUNT)
        if grid != GOAL:
            return grid


def format_key_chart() -> str:
    """The nine key patterns drawn three to a row, each numbered underneath.

    The layout follows the instruction chart: patterns side by side with a margin between
    them, and the key numbers on a line of their own below each row of patterns.
    """
    margin = " " * 6
    blocks: list[str] = []
    for first in (1, 4, 7):
        row_keys: Sequence[Key] = (first, first + 1, first + 2)
        drawn = [format_grid(KEY_MASKS[key]).splitlines() for key in row_keys]
        lines = [margin.join(parts[line] for parts in drawn) for line in range(3)]
        width = len(drawn[0][0]) + len(margin)
        numbers = "".join(f"  {key}".ljust(width) for key in row_keys).rstrip()
        blocks.append("\n".join([*lines, "", numbers]))
    return "\n\n".join(blocks)
