"""The small interface every game sits behind.

The learner, the players and storage only ever see a :class:`Game`: states are tuples of
cell values, moves are small integers and a symmetry permutes both. Each game of
:mod:`menace.games` is one; another game is added beside them without touching the learner or
storage.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Protocol, TypeVar

from menace.core.errors import InvalidInputError

State = tuple[int, ...]
"""A position: one value per cell (0 empty, 1 X, 2 O)."""

Move = int
"""A move, as an index into the game's move space (for tic-tac-toe, the square 0..8)."""


class Side(enum.IntEnum):
    """Who moves: X moves first."""

    X = 1
    O = 2

    @property
    def other(self) -> Side:
        return Side.O if self is Side.X else Side.X


@dataclass(frozen=True)
class Outcome:
    """The end of a game: the winner, or ``None`` for a draw."""

    winner: Side | None

    def for_side(self, side: Side) -> Result:
        """The result seen from ``side``."""
        if self.winner is None:
            return Result.DRAW
        return Result.WIN if self.winner is side else Result.LOSS


class PieceShape(enum.Enum):
    """The kinds of piece a board holds; :mod:`menace.render.pieces` keeps the one drawing of each."""

    CROSS = "cross"
    NOUGHT = "nought"
    PAWN = "pawn"
    STICK = "stick"


@dataclass(frozen=True)
class Piece:
    """A piece as people see it: its shape, light or dark (White's pawns and Black's), and its name.

    >>> Piece(PieceShape.PAWN, "white pawn", light=True).name
    'white pawn'
    """

    shape: PieceShape
    name: str
    """What people call it: "cross", "black pawn", "stick"."""
    light: bool = False
    """Drawn light (a white pawn) rather than dark; marks and sticks are drawn in their own ink."""


class Result(enum.Enum):
    """A game's result from one player's point of view."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


@dataclass(frozen=True)
class Symmetry:
    """A rearrangement of the board that keeps the game the same.

    ``cells[i]`` is the cell of the real board shown at cell ``i`` of the image, so a move at
    image square ``m`` is the real move ``moves[m]``.
    """

    name: str
    cells: tuple[int, ...]
    moves: tuple[int, ...]
    _image: Callable[[State], State] = field(init=False, repr=False, compare=False)
    """``apply`` done in C (``operator.itemgetter``): canonical forms are taken thousands of
    times when a machine is loaded."""

    def __post_init__(self) -> None:
        cells = self.cells
        image: Callable[[State], State]
        if len(cells) > 1:
            image = itemgetter(*cells)
        else:  # itemgetter of one index gives the item, not a tuple: a slice keeps it a tuple
            image = itemgetter(slice(cells[0], cells[0] + 1) if cells else slice(0))
        object.__setattr__(self, "_image", image)

    def apply(self, state: State) -> State:
        """The image of ``state`` under this symmetry."""
        return self._image(state)

    def real_move(self, image_move: Move) -> Move:
        """The real move that the image's ``image_move`` stands for."""
        return self.moves[image_move]

    def image_move(self, real_move: Move) -> Move:
        """The image move that stands for ``real_move``."""
        return self.moves.index(real_move)


class Game(Protocol):
    """A small two-player game of perfect information, the first player (``Side.X``) moving first.

    The contract every game keeps, so that the learner, storage, the use cases and the front ends
    never need to know which game they run:

    * A state is a tuple of small ints (``0 <= v < 256``): the cells, plus whatever else the
      position needs (Hexapawn adds the side to move, since its pieces move). It is hashable and
      compared as a tuple: the canonical form of a position is its greatest image.
    * Moves are ints ``0 .. move_count - 1`` with ``move_count <= 256`` (stored as one byte).
    * A game ends within :attr:`max_plies` moves, at most 255. :meth:`legal_moves` is ``()``
      exactly when :meth:`outcome` is not None.
    * ``symmetries[0]`` is the identity, named "as it is"; every symmetry permutes the whole
      state (``cells``) and the moves consistently, and its name tells a person how to turn or
      flip the real board to match a box's drawing. A game without symmetry has only the identity.
    * :meth:`encode` gives at most 16 characters (the stored form of a box's position) and
      :meth:`decode` reads them back, raising :class:`IllegalMoveError` for text that is not a
      position; :meth:`move_name` and :meth:`parse_move` likewise for moves.
    * For drawing: the board is :attr:`rows` x :attr:`cols` cells, state indices ``0 ..
      rows*cols-1`` row by row from the top; :attr:`glyphs` gives a cell value's one-character mark;
      :attr:`pieces` gives each cell value's piece (its shape, colour and name), which every
      picture draws the one way :mod:`menace.render.pieces` draws it; :attr:`side_names` is the
      one word for each side that every output uses ("White" and "Black" in Hexapawn, not X and O);
      :meth:`move_cells` says where a move goes (``(None, cell)`` for a game that places pieces,
      ``(from, to)`` for one that moves them).
    * Bead colours: :meth:`colour_slot` is the colour (0 .. ``colours - 1``) of the bead for a
      move in a box; tic-tac-toe gives each square its colour, Hexapawn colours a box's moves in
      order.
    * Drawings that are not a board of squares (Nim's heap of sticks): :attr:`grid` false draws no
      lines between the cells; :meth:`caption` is words under a drawing ("13 sticks", or "" for a
      board); :attr:`moves_on_board` false means a move is not drawn on the cells but named, with
      :meth:`move_text` ("take 2"), in a box's bead key and on the buttons a person clicks.
    * Long games: :attr:`max_plies` may be up to 255 (a game of 15 moves or more is stored with its
      length in a byte of its own).
    """

    name: str
    title: str
    """The game's name for people: "noughts and crosses", "Hexapawn"."""
    move_count: int
    """How many distinct moves there are (moves are ``0 .. move_count-1``)."""
    max_plies: int
    symmetries: tuple[Symmetry, ...]
    """Every symmetry of the board, the identity first."""
    side_names: dict[Side, str]
    """The one word for each side, in every output: "X" and "O", "White" and "Black"."""
    pieces: dict[int, Piece]
    """The piece of each cell value other than 0 (an empty cell), for every drawing."""
    rows: int
    cols: int
    row_labels: str
    """How people name the rows, top first: "abc" (noughts and crosses), "321" (Hexapawn)."""
    col_labels: str
    glyphs: str
    """The mark of each cell value, by value: ``".XO"``."""
    colours: int
    """How many bead colours a machine of this game needs."""
    grid: bool
    """Lines between the cells when the position is drawn (a board); false for loose pieces (sticks)."""
    moves_on_board: bool
    """A move is drawn on the cells (a square, an arrow); false: it is named (Nim's "take 2")."""

    def initial(self) -> State: ...

    def to_move(self, state: State) -> Side: ...

    def legal_moves(self, state: State) -> tuple[Move, ...]: ...

    def play(self, state: State, move: Move) -> State: ...

    def outcome(self, state: State) -> Outcome | None: ...

    def encode(self, state: State) -> str: ...

    def decode(self, text: str) -> State: ...

    def move_name(self, move: Move) -> str: ...

    def parse_move(self, text: str) -> Move: ...

    def move_hint(self, state: State) -> str:
        """How a person types a move in ``state``, for prompts: "a1-c3 or 1-9", "e.g. a2-a3"."""
        ...

    def move_cells(self, move: Move) -> tuple[int | None, int]: ...

    def move_text(self, move: Move) -> str:
        """The move in words for a key or a button: "a1", "b1-b2", "take 2"."""
        ...

    def caption(self, state: State) -> str:
        """Words under the position's drawing: "" for a board, "13 sticks" for Nim's heap."""
        ...

    def winning_cells(self, state: State, moves: Sequence[Move]) -> tuple[int, ...]:
        """The cells to highlight on a won board ``state`` reached by ``moves``: noughts and crosses'
        line of three; the square a winning move reached; none where the game has no board cells
        or was won by a resignation."""
        ...

    def colour_slot(self, position: State, move: Move) -> int: ...


T = TypeVar("T")


def once_per_game(build: Callable[[Game], T]) -> Callable[[Game], T]:
    """``build(game)``, computed once per process for each game (games are told apart by name).

    For tables that depend only on the rules: the game tree, minimax scores, position codes.
    """
    built: dict[str, T] = {}

    def get(game: Game) -> T:
        if game.name not in built:
            built[game.name] = build(game)
        return built[game.name]

    get.__doc__ = build.__doc__
    return get


class IllegalMoveError(InvalidInputError):
    """A move that is not legal in the position, or text that names no move."""


def canonical(game: Game, state: State) -> tuple[State, Symmetry]:
    """The greatest image of ``state`` over the game's symmetries, and the symmetry giving it.

    The greatest tuple puts the pieces towards the top left, which is how people draw boxes.

    >>> from menace.games import DEFAULT_GAME, find_game
    >>> game = find_game(DEFAULT_GAME)
    >>> canonical(game, game.decode("..X......"))[0] == game.decode("X........")
    True
    """
    best = state
    best_sym = game.symmetries[0]
    for sym in game.symmetries[1:]:
        image = sym._image(state)
        if image > best:
            best, best_sym = image, sym
    return best, best_sym


def stabilizer(game: Game, state: State) -> tuple[Symmetry, ...]:
    """The symmetries that leave ``state`` unchanged (the position's own symmetry)."""
    return tuple(sym for sym in game.symmetries if sym.apply(state) == state)


def distinct_moves(game: Game, state: State) -> tuple[Move, ...]:
    """The legal moves that differ under the position's own symmetry, least of each class."""
    own = stabilizer(game, state)
    return tuple(m for m in game.legal_moves(state) if m == min(s.real_move(m) for s in own))
