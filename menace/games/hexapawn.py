"""Martin Gardner's Hexapawn (Scientific American, March 1962): three pawns a side on a 3 x 3
board. Board, moves, the mirror symmetry, outcome. Pure, no I/O.

The cells are numbered 0..8 row by row from the top as drawn: Black's back rank (rank 3) is
the top row, White's (rank 1) the bottom one. People name squares as in chess, files ``a``-``c``
left to right and ranks ``1``-``3`` bottom to top, so cell 0 is ``a3`` and cell 8 is ``c1``.

A state is the nine cells (0 empty, 1 White, 2 Black) and a tenth entry, the side to move (1
White, 2 Black): pawns move and get captured, so unlike tic-tac-toe the board alone does not
say whose turn it is. White is :attr:`Side.X` (moves first), Black is :attr:`Side.O`.

A move is an index into :data:`STEPS`, the 28 (from-cell, to-cell) steps a pawn can ever make
(14 for each side), in order of from-cell then to-cell. A step says which side makes it, so a
move's name needs no position; it fits in a byte.

>>> HEXAPAWN.move_count, HEXAPAWN.move_name(0), HEXAPAWN.move_name(27), HEXAPAWN.move_cells(27)
(28, 'a3-a2', 'c1-c2', (8, 5))

>>> start = HEXAPAWN.initial()
>>> HEXAPAWN.encode(start)
'BBB/.../WWW:W'
>>> [HEXAPAWN.move_name(m) for m in HEXAPAWN.legal_moves(start)]
['a1-a2', 'b1-b2', 'c1-c2']
>>> after = HEXAPAWN.play(start, HEXAPAWN.parse_move("B1 B2"))
>>> HEXAPAWN.encode(after), [HEXAPAWN.move_name(m) for m in HEXAPAWN.legal_moves(after)]
('BBB/.W./W.W:B', ['a3-a2', 'a3-b2', 'c3-b2', 'c3-c2'])
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from menace.core.game import IllegalMoveError, Move, Outcome, Piece, PieceShape, Side, State, Symmetry

Cell = int
EMPTY = 0
WHITE = int(Side.X)
BLACK = int(Side.O)
CELLS = 9
TURN = 9
"""The index of the side to move in a state (after the nine cells)."""
FILES = "abc"
RANKS = "123"
GLYPHS = ".WB"
"""One character per cell value (empty, White, Black), for text boards and :meth:`Hexapawn.encode`."""
SIDE_LETTERS = {Side.X: "W", Side.O: "B"}
FORWARD = {Side.X: -1, Side.O: 1}
"""Which way a side's pawns go, in rows: White up the drawing (towards row 0), Black down."""
FAR_ROW = {Side.X: 0, Side.O: 2}
"""The row a side wins by reaching: the other side's back rank."""


def cell_name(cell: Cell) -> str:
    """``cell_name(0) == 'a3'``, ``cell_name(8) == 'c1'``."""
    row, col = divmod(cell, 3)
    return f"{FILES[col]}{RANKS[2 - row]}"


def _steps() -> tuple[tuple[Side, Cell, Cell], ...]:
    """Every step a pawn can ever make: one row forward, to the same file or a neighbouring one.

    A pawn never stands on the far rank with the game going on (reaching it ends the game), so
    only pawns on the other two rows have steps.
    """
    steps = []
    for side in (Side.X, Side.O):
        for frm in range(CELLS):
            row, col = divmod(frm, 3)
            if row == FAR_ROW[side]:
                continue
            for new_col in (col - 1, col, col + 1):
                if 0 <= new_col < 3:
                    steps.append((side, frm, (row + FORWARD[side]) * 3 + new_col))
    return tuple(sorted(steps, key=lambda s: (s[1], s[2])))


STEPS: tuple[tuple[Side, Cell, Cell], ...] = _steps()
"""``STEPS[move]`` is (the side that makes it, from-cell, to-cell)."""
MOVE_OF: dict[tuple[Cell, Cell], Move] = {(frm, to): m for m, (_, frm, to) in enumerate(STEPS)}


def _mirror_cell(cell: Cell) -> Cell:
    """The cell on the same rank, the other side of the b-file."""
    row, col = divmod(cell, 3)
    return row * 3 + 2 - col


# The mirror is its own inverse, so the same tables map real to image and back. Its name says
# how to move the real board so that it looks like the box's drawing.
SYMMETRIES: tuple[Symmetry, ...] = (
    Symmetry("as it is", tuple(range(CELLS + 1)), tuple(range(len(STEPS)))),
    Symmetry(
        "mirror left to right",
        tuple(_mirror_cell(c) for c in range(CELLS)) + (TURN,),
        tuple(MOVE_OF[_mirror_cell(frm), _mirror_cell(to)] for _, frm, to in STEPS),
    ),
)

_SQUARE = "([a-c][1-3])"
_MOVE_TEXT = re.compile(rf"{_SQUARE}\s*[-x ]?\s*{_SQUARE}")


def _pawn_steps(state: State) -> tuple[Move, ...]:
    """The side to move's steps by the pawn rules alone, whether or not the game is over."""
    side = Side(state[TURN])
    enemy = int(side.other)
    return tuple(
        m for m, (who, frm, to) in enumerate(STEPS)
        if who is side and state[frm] == side
        # Straight ahead to an empty cell, diagonally only to take an enemy pawn.
        and state[to] == (EMPTY if frm % 3 == to % 3 else enemy)
    )


def winner(state: State) -> Side | None:
    """The side that has won: it reached the far rank, took every enemy pawn, or the side to
    move is stuck."""
    board = state[:CELLS]
    if WHITE in board[0:3]:
        return Side.X
    if BLACK in board[6:9]:
        return Side.O
    if BLACK not in board:
        return Side.X
    if WHITE not in board:
        return Side.O
    if not _pawn_steps(state):
        return Side(state[TURN]).other
    return None


class Hexapawn:
    """Gardner's Hexapawn, White first. There are no draws."""

    name = "hexapawn"
    title = "Hexapawn"
    move_count = len(STEPS)
    max_plies = 7
    """The longest game (a test walks every game to check it)."""
    symmetries = SYMMETRIES
    rows = 3
    cols = 3
    row_labels = "321"
    col_labels = "abc"
    side_names = {Side.X: "White", Side.O: "Black"}
    pieces = {WHITE: Piece(PieceShape.PAWN, "white pawn", light=True), BLACK: Piece(PieceShape.PAWN, "black pawn")}
    glyphs = GLYPHS
    colours = 4
    grid = True
    moves_on_board = True
    """The most legal moves in any position (a test checks it): a box's moves get colours 1 to 4."""

    def initial(self) -> State:
        return (BLACK,) * 3 + (EMPTY,) * 3 + (WHITE,) * 3 + (WHITE,)

    def to_move(self, state: State) -> Side:
        return Side(state[TURN])

    def legal_moves(self, state: State) -> tuple[Move, ...]:
        if winner(state) is not None:
            return ()
        return _pawn_steps(state)

    def play(self, state: State, move: Move) -> State:
        if move not in self.legal_moves(state):
            what = self.move_name(move) if 0 <= move < len(STEPS) else str(move)
            raise IllegalMoveError(f"{what} is not legal in {self.encode(state)}")
        _, frm, to = STEPS[move]
        cells = list(state)
        cells[to], cells[frm] = cells[frm], EMPTY
        cells[TURN] = int(Side(state[TURN]).other)
        return tuple(cells)

    def outcome(self, state: State) -> Outcome | None:
        side = winner(state)
        return None if side is None else Outcome(side)

    def encode(self, state: State) -> str:
        rows = ("".join(GLYPHS[v] for v in state[r * 3:r * 3 + 3]) for r in range(3))
        return "/".join(rows) + ":" + SIDE_LETTERS[Side(state[TURN])]

    def decode(self, text: str) -> State:
        """Nine cells of ``W``, ``B`` and ``.`` from the top row down (``/`` between rows
        optional), ``:`` and the side to move, ``W`` or ``B``: ``BBB/.../WWW:W`` is the start."""
        t = text.strip().upper().replace("/", "").replace("-", ".").replace("_", ".")
        cells, colon, side = t.partition(":")
        if not colon or len(cells) != CELLS or any(ch not in GLYPHS for ch in cells) or side not in ("W", "B"):
            raise IllegalMoveError(
                f"{text!r} is not a Hexapawn position: give nine cells of W, B and . from the top row, "
                "then :W or :B for the side to move"
            )
        state = tuple(GLYPHS.index(ch) for ch in cells) + (int(Side.X if side == "W" else Side.O),)
        pawns = state[:CELLS]
        if pawns.count(WHITE) > 3 or pawns.count(BLACK) > 3:
            raise IllegalMoveError(f"{text!r} cannot happen in a game: each side has at most three pawns")
        # Reaching the far rank or taking the last enemy pawn happens on a side's own move, so
        # that side cannot be the one to move next.
        for won in (Side.X, Side.O):
            far = pawns[FAR_ROW[won] * 3:FAR_ROW[won] * 3 + 3]
            if (won in far or won.other not in pawns) and state[TURN] == won:
                raise IllegalMoveError(
                    f"{text!r} cannot happen in a game: {self.side_names[won]} has already won, so it is not its turn"
                )
        return state

    def move_name(self, move: Move) -> str:
        _, frm, to = STEPS[move]
        return f"{cell_name(frm)}-{cell_name(to)}"

    def move_hint(self, state: State) -> str:
        moves = self.legal_moves(state)
        return f"e.g. {self.move_name(moves[0])}" if moves else "the pawn's square, then where it goes"

    def parse_move(self, text: str) -> Move:
        """A move from ``a2-b3``, ``a2b3``, ``a2 b3`` or ``A2-B3``; :class:`IllegalMoveError` otherwise."""
        found = _MOVE_TEXT.fullmatch(text.strip().lower())
        if found is not None:
            frm, to = (self.parse_cell(found.group(i)) for i in (1, 2))
            move = MOVE_OF.get((frm, to))
            if move is not None:
                return move
            raise IllegalMoveError(f"{text.strip()!r} is no pawn move: a pawn steps one rank forward")
        raise IllegalMoveError(f"{text.strip()!r} is not a move: type from and to squares, like a2-b3")

    @staticmethod
    def parse_cell(text: str) -> Cell:
        """``'a3'`` -> 0 (the text is already checked to be a square name)."""
        return (2 - RANKS.index(text[1])) * 3 + FILES.index(text[0])

    def move_text(self, move: Move) -> str:
        return self.move_name(move)

    def caption(self, state: State) -> str:
        return ""

    def winning_cells(self, state: State, moves: Sequence[Move]) -> tuple[int, ...]:
        return (self.move_cells(moves[-1])[1],) if moves else ()

    def colour_slot(self, position: State, move: Move) -> int:
        """A box's moves are coloured in order, as Gardner coloured the arrows on his boxes."""
        return self.legal_moves(position).index(move)

    def move_cells(self, move: Move) -> tuple[int | None, int]:
        """The cells a move goes from and to, for drawing an arrow."""
        _, frm, to = STEPS[move]
        return frm, to


HEXAPAWN = Hexapawn()
