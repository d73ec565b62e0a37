"""Nim with one heap: players take turns to take 1 to ``k`` sticks; in misère play (the default, the
classroom game) whoever takes the last stick loses, in normal play whoever takes it wins. Pure, no I/O.

The heap is drawn as a board of sticks (``|``), :attr:`Nim.cols` to a row, so that every drawing of
a board (the terminal, the labels, the wall, the plots) draws a heap without knowing the game. A
state is the cells (1 for a stick still there, 0 for one taken; the sticks left fill the first
cells) and two more entries saying whose turn it is: ``(1, 0)`` the first player's, ``(0, 1)`` the
second's.

Nim is impartial: both players have the same moves, so one cup per heap size serves whichever
side is to move. That is the game's one symmetry, "the other player to move", which swaps the two
turn entries: a machine playing both sides has 20 cups for the 21-stick game, not 38.

A move is ``take - 1`` (``0`` takes one stick); people type the number of sticks.

>>> NIM.name, NIM.move_count, NIM.heap, NIM.misere
('nim', 3, 21, True)
>>> start = NIM.initial()
>>> NIM.encode(start), [NIM.move_name(m) for m in NIM.legal_moves(start)]
('21:1', ['1', '2', '3'])
>>> after = NIM.play(start, NIM.parse_move("3"))
>>> NIM.encode(after), NIM.to_move(after).name
('18:2', 'O')
>>> NIM.encode(NIM.symmetries[1].apply(after))  # one cup for both players
'18:1'
>>> nim_variant(15, 4, misere=False).name
'nim-15-4-normal'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from menace.core.errors import InvalidInputError
from menace.core.game import IllegalMoveError, Move, Outcome, Piece, PieceShape, Side, State, Symmetry

HEAPS = range(5, 51)
"""The heap sizes a machine may start from."""
TAKES = range(2, 6)
"""The most sticks a move may take."""
DEFAULT_HEAP = 21
DEFAULT_TAKE = 3
STICK = 1
COLS = 10
"""Sticks per row of the drawing: a heap of 21 is two full rows and one stick."""



class NimRulesError(InvalidInputError):
    """A heap or a move limit outside what a Nim machine is built for."""


_NAME = re.compile(r"nim(?:-(\d+)-(\d+)-(normal|misere))?")


@dataclass(eq=False)
class Nim:
    """One heap of :attr:`heap` sticks, take 1 to :attr:`take`; misère: the last stick loses."""

    heap: int = DEFAULT_HEAP
    take: int = DEFAULT_TAKE
    misere: bool = True
    name: str = field(init=False)
    title: str = field(init=False)
    move_count: int = field(init=False)
    max_plies: int = field(init=False)
    symmetries: tuple[Symmetry, ...] = field(init=False, repr=False)
    rows: int = field(init=False)
    cols: int = field(init=False)
    row_labels: str = field(init=False, repr=False)
    col_labels: str = field(init=False, repr=False)
    side_names: dict[Side, str] = field(init=False, repr=False)
    pieces: dict[int, Piece] = field(default_factory=lambda: {1: Piece(PieceShape.STICK, "stick")}, init=False,
                                     repr=False)
    glyphs: str = field(default=".|", init=False)
    colours: int = field(init=False)
    grid: bool = field(default=False, init=False)
    moves_on_board: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        if self.heap not in HEAPS:
            raise NimRulesError(f"a Nim heap holds {HEAPS.start} to {HEAPS.stop - 1} sticks, not {self.heap}")
        if self.take not in TAKES:
            raise NimRulesError(f"a Nim move takes at most {TAKES.start} to {TAKES.stop - 1} sticks, "
                                   f"not {self.take}")
        default = self.heap == DEFAULT_HEAP and self.take == DEFAULT_TAKE and self.misere
        rows = -(-self.heap // COLS)
        cells = rows * COLS
        sets = object.__setattr__  # the derived attributes, from the three rules
        sets(self, "name", "nim" if default else f"nim-{self.heap}-{self.take}-{'misere' if self.misere else 'normal'}")
        sets(self, "title", f"Nim ({self.heap} sticks, take 1-{self.take}, "
                            f"{'last stick loses' if self.misere else 'last stick wins'})")
        sets(self, "move_count", self.take)
        sets(self, "max_plies", self.heap)
        sets(self, "rows", rows)
        sets(self, "cols", COLS)
        sets(self, "row_labels", " " * rows)
        sets(self, "col_labels", " " * COLS)
        sets(self, "side_names", {Side.X: "first player", Side.O: "second player"})
        sets(self, "colours", self.take)
        moves = tuple(range(self.take))
        sets(self, "symmetries", (
            Symmetry("as it is", tuple(range(cells + 2)), moves),
            Symmetry("use the same cup for the other player", (*range(cells), cells + 1, cells), moves),
        ))

    # -- the state ---------------------------------------------------------------------------
    @property
    def cells(self) -> int:
        return self.rows * self.cols

    def state_of(self, heap: int, side: Side) -> State:
        """The position with ``heap`` sticks left and ``side`` to move."""
        return (STICK,) * heap + (0,) * (self.cells - heap) + ((1, 0) if side is Side.X else (0, 1))

    def sticks(self, state: State) -> int:
        return sum(state[:self.cells])

    def initial(self) -> State:
        return self.state_of(self.heap, Side.X)

    def to_move(self, state: State) -> Side:
        return Side.X if state[self.cells] else Side.O

    def legal_moves(self, state: State) -> tuple[Move, ...]:
        return tuple(range(min(self.take, self.sticks(state))))

    def play(self, state: State, move: Move) -> State:
        left = self.sticks(state)
        if not 0 <= move < min(self.take, left):
            what = f"taking {move + 1}" if 0 <= move < 255 else str(move)
            raise IllegalMoveError(f"{what} is not legal with {left} stick{'' if left == 1 else 's'} left "
                                   f"(take 1 to {min(self.take, left) or 1})")
        return self.state_of(left - move - 1, self.to_move(state).other)

    def outcome(self, state: State) -> Outcome | None:
        if self.sticks(state):
            return None
        mover = self.to_move(state)  # the other side took the last stick
        return Outcome(mover if self.misere else mover.other)

    # -- text --------------------------------------------------------------------------------
    def encode(self, state: State) -> str:
        """``21:1``: the sticks left and whose turn (1 the first player, 2 the second)."""
        return f"{self.sticks(state)}:{int(self.to_move(state))}"

    def decode(self, text: str) -> State:
        """``"13:2"`` (13 sticks, the second player to move); a bare ``"13"`` means the first player."""
        found = re.fullmatch(r"\s*(\d{1,3})\s*(?::\s*([12]))?\s*", text)
        if found is None or int(found.group(1)) > self.heap:
            raise IllegalMoveError(f"{text!r} is not a position of this Nim: give the sticks left (0 to "
                                   f"{self.heap}), then :1 or :2 for the player to move")
        return self.state_of(int(found.group(1)), Side.O if found.group(2) == "2" else Side.X)

    def move_name(self, move: Move) -> str:
        return str(move + 1)

    def parse_move(self, text: str) -> Move:
        """``"2"``, ``"take 2"`` or ``"t2"``: take two sticks."""
        found = re.fullmatch(r"(?:take|t)?\s*(\d{1,2})", text.strip().lower())
        if found is None or not 1 <= int(found.group(1)) <= self.take:
            raise IllegalMoveError(f"{text.strip()!r} is not a move: type how many sticks to take, 1 to {self.take}")
        return int(found.group(1)) - 1

    def move_hint(self, state: State) -> str:
        most = min(self.take, self.sticks(state))
        return "1" if most == 1 else f"how many sticks, 1-{most}"

    def move_text(self, move: Move) -> str:
        return f"take {move + 1}"

    def caption(self, state: State) -> str:
        left = self.sticks(state)
        return f"{left} stick{'' if left == 1 else 's'}"

    def winning_cells(self, state: State, moves: Sequence[Move]) -> tuple[int, ...]:
        return ()

    def move_cells(self, move: Move) -> tuple[int | None, int]:
        """Not drawn (:attr:`moves_on_board` is false); the first cells, to keep the contract."""
        return None, move

    def colour_slot(self, position: State, move: Move) -> int:
        """The same colour for the same number of sticks in every cup."""
        return move

    # -- the rule ----------------------------------------------------------------------------
    def losing(self, heap: int) -> bool:
        """A heap the player to move loses against perfect play: a multiple of ``take + 1`` (normal
        play), or one more than a multiple (misère)."""
        return heap % (self.take + 1) == (1 if self.misere else 0)

    def winning_moves(self, state: State) -> tuple[Move, ...]:
        """The moves that leave the opponent a losing heap (none when the heap is already lost)."""
        left = self.sticks(state)
        return tuple(m for m in self.legal_moves(state) if self.losing(left - m - 1))


NIM = Nim()
"""The classroom game: 21 sticks, take 1 to 3, whoever takes the last stick loses."""

_variants: dict[str, Nim] = {NIM.name: NIM}


def nim_variant(heap: int = DEFAULT_HEAP, take: int = DEFAULT_TAKE, misere: bool = True) -> Nim:
    """The one :class:`Nim` of these rules in this process (games are told apart by name)."""
    game = Nim(heap, take, misere)
    return _variants.setdefault(game.name, game)


def nim_named(name: str) -> Nim | None:
    """The variant called ``name`` (``nim``, ``nim-15-4-normal``); None for a name of no variant."""
    found = _NAME.fullmatch(name)
    if found is None:
        return None
    if found.group(1) is None:
        return NIM
    return nim_variant(int(found.group(1)), int(found.group(2)), found.group(3) == "misere")


def rules_of(game: object) -> dict[str, int | str]:
    """The options a Nim game was made with, as :func:`menace.games.game_with_options` takes them."""
    if not isinstance(game, Nim):
        raise NimRulesError(f"{getattr(game, 'name', game)!r} is not a game of Nim")
    return {"heap": game.heap, "take": game.take, "last-stick": "loses" if game.misere else "wins"}
