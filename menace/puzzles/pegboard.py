"""The triangle pegboard (Cracker Barrel) puzzle: jump pegs until none can jump.

A board of ``rows`` rows has ``rows * (rows + 1) / 2`` holes.  Three namings are used:

* the *hole number* 1, 2, 3, ... row by row from the apex (``Hole`` is that number minus 1,
  the bit index of the hole in a position);
* *row,position* counting from 1, for people: the apex is ``1,1``, the middle of the third
  row ``3,2``;
* the lecture's own pair counting from 0 (:meth:`Board.seed_pair`): its start "2 1" is the
  middle of the third row, ``3,2`` in the naming above.

A position is an ``int`` bitmask of the holes that hold a peg.  A jump moves a peg over an
adjacent peg, along one of the board's three line directions, into the empty hole beyond,
and removes the peg jumped over.

>>> board = Board(5)
>>> tally = count_games(board, board.hole_at(3, 2))
>>> tally.games[1], tally.total
(1550, 137846)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Final

from menace.core.errors import InvalidInputError, known

Hole = int
"""A hole's index, 0 for the apex, counting row by row (the hole number minus 1)."""

Pegs = int
"""A position: bit ``h`` is set when hole ``h`` holds a peg."""

DEFAULT_ROWS: Final = 5
MIN_ROWS: Final = 3
MAX_SEARCH_ROWS: Final = 6
"""Counting every game or searching for a one-peg finish is refused above this size.

Measured: 6 rows (21 holes) visit about 227,000 positions in well under a second, but from
7 rows (28 holes) the positions run into tens of millions and the count takes many minutes
and gigabytes of memory.
"""

DEFAULT_EMPTY: Final = (3, 2)
"""The lecture's start, "2 1" counting from 0: the middle hole of the third row."""

# Steps (row, position) along the three lines of a triangle, both ways: along a row, down
# to the left (same position in the next row) and down to the right.
_DIRECTIONS: Final = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))

_RATINGS: Final = {1: "You're Genius", 2: "You're Purty Smart", 3: "Just Plain Dumb"}
_WORST_RATING: Final = "Just Plain Eg-no-ra-moose"


class PegboardError(InvalidInputError):
    """Base class for pegboard errors."""


class BoardSizeError(PegboardError):
    """A board with too few rows to play on."""


class BoardTooLargeError(PegboardError):
    """A board too large to count or search in reasonable time."""


class BadHoleError(PegboardError):
    """Text or a number that names no hole on the board."""


class BadJumpError(PegboardError):
    """Text that does not describe a jump along a line of the board."""


class IllegalJumpError(PegboardError):
    """A jump that the pegs in the current position do not allow."""


@dataclass(frozen=True)
class Jump:
    """A peg jumps from ``start`` over ``over`` into ``end`` (all hole indices)."""

    start: Hole
    over: Hole
    end: Hole


@dataclass(frozen=True)
class Board:
    """The geometry of a triangular board: its holes and every jump along its lines.

    >>> board = Board(5)
    >>> board.hole_count, len(board.jumps)
    (15, 36)
    """

    rows: int = DEFAULT_ROWS
    pairs: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    jumps: tuple[Jump, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.rows < MIN_ROWS:
            raise BoardSizeError(f"a board needs at least {MIN_ROWS} rows, not {self.rows}")
        pairs = tuple((row, pos) for row in range(self.rows) for pos in range(row + 1))
        index = {pair: hole for hole, pair in enumerate(pairs)}
        jumps = []
        for hole, (row, pos) in enumerate(pairs):
            for d_row, d_pos in _DIRECTIONS:
                over = index.get((row + d_row, pos + d_pos))
                end = index.get((row + 2 * d_row, pos + 2 * d_pos))
                if over is not None and end is not None:
                    jumps.append(Jump(hole, over, end))
        # Frozen dataclass: derived fields are set once here.
        object.__setattr__(self, "pairs", pairs)
        object.__setattr__(self, "jumps", tuple(jumps))

    @property
    def hole_count(self) -> int:
        """How many holes the board has."""
        return len(self.pairs)

    @property
    def full(self) -> Pegs:
        """The position with a peg in every hole."""
        return (1 << self.hole_count) - 1

    def holes(self) -> range:
        """Every hole index, apex first."""
        return range(self.hole_count)

    def hole_at(self, row: int, pos: int) -> Hole:
        """The hole at ``row``, ``pos``, both counting from 1.

        >>> Board(5).hole_at(3, 2) + 1
        5
        """
        if not (1 <= row <= self.rows and 1 <= pos <= row):
            raise BadHoleError(f"{row},{pos} is not a hole: rows run 1 to {self.rows}, and row R has positions 1 to R")
        return row * (row - 1) // 2 + pos - 1

    def hole_numbered(self, number: int) -> Hole:
        """The hole whose number (1 for the apex, counting row by row) is ``number``."""
        if not 1 <= number <= self.hole_count:
            raise BadHoleError(f"there is no hole {number}: holes are 1 to {self.hole_count}")
        return number - 1

    def row_pos(self, hole: Hole) -> tuple[int, int]:
        """``(row, position)`` of ``hole``, both counting from 1."""
        row, pos = self.seed_pair(hole)
        return row + 1, pos + 1

    def seed_pair(self, hole: Hole) -> tuple[int, int]:
        """``(row, position)`` of ``hole`` counting from 0, as the lecture writes "2 1"."""
        return self.pairs[hole]

    def start(self, empty: Hole) -> Pegs:
        """The starting position: every hole holds a peg except ``empty``."""
        return self.full & ~(1 << empty)


def hole_name(board: Board, hole: Hole) -> str:
    """The ``row,position`` name of ``hole`` (counting from 1), e.g. ``"3,2"``."""
    row, pos = board.row_pos(hole)
    return f"{row},{pos}"


def hole_label(board: Board, hole: Hole) -> str:
    """Hole number and row,position together, e.g. ``"5 (3,2)"``."""
    return f"{hole + 1} ({hole_name(board, hole)})"


_PAIR = re.compile(r"(\d+)\s*,\s*(\d+)")


def parse_hole(board: Board, text: str) -> Hole:
    """Read a hole named as ``row,position`` (from 1) or as a hole number.

    >>> board = Board(5)
    >>> parse_hole(board, "3,2") == parse_hole(board, "5") == 4
    True
    """
    stripped = text.strip()
    if match := _PAIR.fullmatch(stripped):
        return board.hole_at(int(match[1]), int(match[2]))
    if stripped.isdecimal():
        return board.hole_numbered(int(stripped))
    raise BadHoleError(f"{stripped!r} is not a hole: write row,position such as 3,2 or a hole number")


def parse_jump(board: Board, text: str) -> Jump:
    """Read a jump typed as ``from over to`` or ``from-to``.

    Holes may be numbers or ``row,position`` pairs; ``-``, ``->``, ``over`` and ``to`` may
    separate them.

    >>> board = Board(5)
    >>> parse_jump(board, "4 2 1") == parse_jump(board, "4-1") == Jump(3, 1, 0)
    True
    """
    words = re.sub(r"->|-|>|\bover\b|\bto\b|\bfrom\b", " ", text.lower()).split()
    if not 2 <= len(words) <= 3:
        raise BadJumpError(f"{text.strip()!r} is not a jump: type from over to (e.g. 4 2 1) or from-to (4-1)")
    holes = [parse_hole(board, word) for word in words]
    start, end = holes[0], holes[-1]
    for jump in board.jumps:
        if jump.start == start and jump.end == end:
            if len(holes) == 3 and holes[1] != jump.over:
                raise BadJumpError(
                    f"a jump from {hole_label(board, start)} to {hole_label(board, end)} "
                    f"goes over {hole_label(board, jump.over)}, not {hole_label(board, holes[1])}"
                )
            return jump
    raise BadJumpError(
        f"{hole_label(board, start)} and {hole_label(board, end)} are not two holes apart along a line of the board"
    )


def jump_text(board: Board, jump: Jump) -> str:
    """A jump in words, e.g. ``"4 (3,1) over 2 (2,1) to 1 (1,1)"``."""
    return f"{hole_label(board, jump.start)} over {hole_label(board, jump.over)} to {hole_label(board, jump.end)}"


def peg_count(pegs: Pegs) -> int:
    """How many pegs are in the position."""
    return pegs.bit_count()


def has_peg(pegs: Pegs, hole: Hole) -> bool:
    """True if ``hole`` holds a peg."""
    return bool(pegs >> hole & 1)


def _allowed(pegs: Pegs, jump: Jump) -> bool:
    return has_peg(pegs, jump.start) and has_peg(pegs, jump.over) and not has_peg(pegs, jump.end)


def legal_jumps(board: Board, pegs: Pegs) -> tuple[Jump, ...]:
    """Every jump the position allows, in board order."""
    return tuple(jump for jump in board.jumps if _allowed(pegs, jump))


def is_over(board: Board, pegs: Pegs) -> bool:
    """True if no jump is left: the game is complete."""
    return not any(_allowed(pegs, jump) for jump in board.jumps)


def apply_jump(board: Board, pegs: Pegs, jump: Jump) -> Pegs:
    """The position after ``jump``; raise :class:`IllegalJumpError` saying why if not allowed."""
    if jump not in board.jumps:
        raise IllegalJumpError(f"{jump!r} is not a jump on a {board.rows}-row board")
    if not has_peg(pegs, jump.start):
        raise IllegalJumpError(f"there is no peg in hole {hole_label(board, jump.start)}")
    if not has_peg(pegs, jump.over):
        raise IllegalJumpError(f"there is no peg to jump over in {hole_label(board, jump.over)}")
    if has_peg(pegs, jump.end):
        raise IllegalJumpError(f"hole {hole_label(board, jump.end)} is not empty")
    return pegs ^ (1 << jump.start | 1 << jump.over | 1 << jump.end)


def rating(pegs_left: int) -> str:
    """The lecture's rating for a game that ends with ``pegs_left`` pegs.

    >>> rating(1)
    "You're Genius"
    """
    if pegs_left < 1:
        raise ValueError(f"a game always leaves at least one peg, not {pegs_left}")
    return _RATINGS.get(pegs_left, _WORST_RATING)


def _check_searchable(board: Board) -> None:
    if board.rows > MAX_SEARCH_ROWS:
        raise BoardTooLargeError(
            f"a {board.rows}-row board is too large to search: its positions run into tens "
            f"of millions (at {MAX_SEARCH_ROWS} rows, about 227,000); "
            f"use {MAX_SEARCH_ROWS} rows or fewer"
        )


@dataclass(frozen=True)
class GameTally:
    """Every complete game from one start, counted by the pegs left at its end."""

    games: Mapping[int, int]
    """Pegs left -> number of distinct jump sequences that end that way."""
    positions: int
    """How many distinct positions the count went through."""

    @property
    def total(self) -> int:
        """How many complete games there are in all."""
        return sum(self.games.values())

    def fraction(self, pegs_left: int) -> float:
        """The share of all games that end with ``pegs_left`` pegs."""
        return self.games.get(pegs_left, 0) / self.total


def count_games(board: Board, empty: Hole) -> GameTally:
    """Count every complete game (jump until none is left) from ``empty`` as the empty hole.

    Every jump removes exactly one peg, so positions fall into layers by peg count.  Going
    layer by layer, the number of jump sequences reaching each position (memoized by its
    bitmask) is summed over its predecessors; a position with no jump adds its number of
    sequences to the tally for its peg count.  Each position is expanded once, however many
    games pass through it.
    """
    _check_searchable(board)
    jumps = [(1 << j.start | 1 << j.over, 1 << j.end) for j in board.jumps]
    layer: dict[Pegs, int] = {board.start(empty): 1}
    games: dict[int, int] = {}
    positions = 0
    while layer:
        positions += len(layer)
        following: dict[Pegs, int] = {}
        for pegs, ways in layer.items():
            moved = False
            for movers, end in jumps:
                if pegs & movers == movers and not pegs & end:
                    moved = True
                    after = pegs ^ movers ^ end
                    following[after] = following.get(after, 0) + ways
            if not moved:
                left = peg_count(pegs)
                games[left] = games.get(left, 0) + ways
        layer = following
    return GameTally(games=dict(sorted(games.items())), positions=positions)


@cache
def _one_peg_memo(board: Board) -> dict[Pegs, bool]:
    # One memo per board size, shared by hints and solutions: whether a position can still
    # end with a single peg.
    return {}


def can_finish_with_one(board: Board, pegs: Pegs) -> bool:
    """True if some sequence of jumps from ``pegs`` leaves a single peg."""
    _check_searchable(board)
    memo = _one_peg_memo(board)
    jumps = [(1 << j.start | 1 << j.over, 1 << j.end) for j in board.jumps]

    def search(position: Pegs) -> bool:
        known = memo.get(position)
        if known is not None:
            return known
        result = peg_count(position) == 1 or any(
            position & movers == movers and not position & end and search(position ^ movers ^ end)
            for movers, end in jumps
        )
        memo[position] = result
        return result

    return search(pegs)


def hint(board: Board, pegs: Pegs) -> Jump | None:
    """A jump after which a one-peg finish is still possible, or ``None`` if there is none."""
    for jump in legal_jumps(board, pegs):
        if can_finish_with_one(board, apply_jump(board, pegs, jump)):
            return jump
    return None


def one_peg_game(board: Board, pegs: Pegs) -> tuple[Jump, ...] | None:
    """The jumps of one game from ``pegs`` that leaves a single peg, or ``None`` if none does."""
    if not can_finish_with_one(board, pegs):
        return None
    jumps: list[Jump] = []
    while peg_count(pegs) > 1:
        # the memo says this position still finishes with one peg
        jump = known(hint(board, pegs), "a jump that still finishes")
        jumps.append(jump)
        pegs = apply_jump(board, pegs, jump)
    return tuple(jumps)


def replay(board: Board, pegs: Pegs, jumps: Iterable[Jump]) -> Iterator[Pegs]:
    """The positions after each of ``jumps`` in turn, starting from ``pegs``."""
    for jump in jumps:
        pegs = apply_jump(board, pegs, jump)
        yield pegs


PEG: Final = "o"
EMPTY: Final = "."


def _triangle(board: Board, cells: list[str]) -> list[str]:
    width = max(2, max(len(cell) for cell in cells))
    step = width + (2 if width % 2 == 0 else 1)
    lines = []
    for row in range(board.rows):
        first = row * (row + 1) // 2
        indent = " " * ((board.rows - 1 - row) * step // 2)
        gap = " " * (step - width)
        lines.append(indent + gap.join(cell.rjust(width) for cell in cells[first : first + row + 1]))
    return lines


def format_board(board: Board, pegs: Pegs, *, numbers: bool = False) -> str:
    """Draw the triangle: ``o`` for a peg, ``.`` for an empty hole.

    With ``numbers``, the hole numbers are drawn beside it, so a player can name jumps.

    >>> print(format_board(Board(3), Board(3).start(0)))
         .
       o   o
     o   o   o
    """
    pegs_drawn = _triangle(board, [PEG if has_peg(pegs, hole) else EMPTY for hole in board.holes()])
    if not numbers:
        return "\n".join(pegs_drawn)
    numbers_drawn = _triangle(board, [str(hole + 1) for hole in board.holes()])
    width = max(len(line) for line in numbers_drawn)
    return "\n".join(
        f"{left.ljust(width)}      {right}".rstrip() for left, right in zip(numbers_drawn, pegs_drawn, strict=True)
    )
