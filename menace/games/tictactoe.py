"""Tic-tac-toe: board, lines, the eight symmetries, outcome. Pure, no I/O.

Squares are numbered 0..8 row by row. People name them ``a1``..``c3`` (rows a-c, columns 1-3,
as in the Ruby Quiz MENACE) or ``1``..``9`` (row by row).

>>> board = TICTACTOE.decode("XO..X....")
>>> TICTACTOE.legal_moves(board)
(2, 3, 5, 6, 7, 8)
>>> square_name(8), parse_square("c3"), parse_square("9")
('c3', 8, 8)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from menace.core.game import IllegalMoveError, Move, Outcome, Piece, PieceShape, Side, State, Symmetry

Square = int
EMPTY = 0
CELLS = 9
ROWS = "abc"
MARKS = ".XO"

LINES: tuple[tuple[Square, Square, Square], ...] = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),  # rows
    (0, 3, 6), (1, 4, 7), (2, 5, 8),  # columns
    (0, 4, 8), (2, 4, 6),  # diagonals
)
CENTRE: Square = 4
CORNERS: tuple[Square, ...] = (0, 2, 6, 8)
EDGES: tuple[Square, ...] = (1, 3, 5, 7)


def _symmetry(name: str, where: Callable[[int, int], tuple[int, int]]) -> Symmetry:
    """The symmetry that carries the real square (row, col) to ``where(row, col)`` in the image."""
    cells = [0] * CELLS
    for square in range(CELLS):
        row, col = divmod(square, 3)
        new_row, new_col = where(row, col)
        cells[new_row * 3 + new_col] = square
    perm = tuple(cells)
    return Symmetry(name, perm, perm)


# Names say how to move the real board so that it looks like the box's drawing.
SYMMETRIES: tuple[Symmetry, ...] = (
    _symmetry("as it is", lambda r, c: (r, c)),
    _symmetry("turn a quarter clockwise", lambda r, c: (c, 2 - r)),
    _symmetry("turn it round (a half turn)", lambda r, c: (2 - r, 2 - c)),
    _symmetry("turn a quarter anticlockwise", lambda r, c: (2 - c, r)),
    _symmetry("flip left to right", lambda r, c: (r, 2 - c)),
    _symmetry("flip top to bottom", lambda r, c: (2 - r, c)),
    _symmetry("flip over the main diagonal (a1-c3)", lambda r, c: (c, r)),
    _symmetry("flip over the other diagonal (a3-c1)", lambda r, c: (2 - c, 2 - r)),
)


def winner(board: State) -> Side | None:
    """The side with three in a line, if any."""
    for a, b, c in LINES:
        mark = board[a]
        if mark and mark == board[b] == board[c]:
            return Side(mark)
    return None


def square_name(square: Square) -> str:
    """``square_name(0) == 'a1'``."""
    row, col = divmod(square, 3)
    return f"{ROWS[row]}{col + 1}"


def parse_square(text: str) -> Square:
    """A square from ``a1``..``c3`` or ``1``..``9``; :class:`IllegalMoveError` otherwise."""
    t = text.strip().lower()
    if len(t) == 1 and t in "123456789":
        return int(t) - 1
    if len(t) == 2 and t[0] in ROWS and t[1] in "123":
        return ROWS.index(t[0]) * 3 + int(t[1]) - 1
    raise IllegalMoveError(f"{text.strip()!r} is not a square: type a1..c3 or 1..9")


class TicTacToe:
    """Noughts and crosses on a 3 x 3 board, X first."""

    name = "tictactoe"
    title = "noughts and crosses"
    move_count = CELLS
    max_plies = CELLS
    symmetries = SYMMETRIES
    side_names = {Side.X: "X", Side.O: "O"}
    pieces = {1: Piece(PieceShape.CROSS, "cross"), 2: Piece(PieceShape.NOUGHT, "nought")}
    rows = 3
    cols = 3
    row_labels = ROWS
    col_labels = "123"
    glyphs = MARKS
    colours = CELLS
    grid = True
    moves_on_board = True

    def initial(self) -> State:
        return (EMPTY,) * CELLS

    def to_move(self, state: State) -> Side:
        return Side.X if state.count(Side.X) == state.count(Side.O) else Side.O

    def legal_moves(self, state: State) -> tuple[Move, ...]:
        if winner(state) is not None:
            return ()
        return tuple(s for s in range(CELLS) if state[s] == EMPTY)

    def play(self, state: State, move: Move) -> State:
        if not 0 <= move < CELLS or state[move] != EMPTY or winner(state) is not None:
            raise IllegalMoveError(f"{square_name(move) if 0 <= move < CELLS else move} is not free")
        return state[:move] + (int(self.to_move(state)),) + state[move + 1:]

    def outcome(self, state: State) -> Outcome | None:
        side = winner(state)
        if side is not None:
            return Outcome(side)
        if EMPTY not in state:
            return Outcome(None)
        return None

    def encode(self, state: State) -> str:
        return "".join(MARKS[v] for v in state)

    def decode(self, text: str) -> State:
        """Nine characters of ``X``, ``O`` and ``.`` (``-``, ``_`` or a space also mean empty)."""
        t = text.strip().upper().replace("-", ".").replace("_", ".").replace(" ", ".")
        if len(t) != CELLS or any(ch not in MARKS for ch in t):
            raise IllegalMoveError(f"{text!r} is not a board: give nine characters of X, O and .")
        state = tuple(MARKS.index(ch) for ch in t)
        xs, os_ = state.count(Side.X), state.count(Side.O)
        if xs - os_ not in (0, 1):
            raise IllegalMoveError(f"{text!r} cannot happen in a game: X moves first, in turn")
        return state

    def move_name(self, move: Move) -> str:
        return square_name(move)

    def move_hint(self, state: State) -> str:
        return "a1-c3 or 1-9"

    def parse_move(self, text: str) -> Move:
        return parse_square(text)

    def move_cells(self, move: Move) -> tuple[int | None, int]:
        return None, move

    def move_text(self, move: Move) -> str:
        return square_name(move)

    def caption(self, state: State) -> str:
        return ""

    def winning_cells(self, state: State, moves: Sequence[Move]) -> tuple[int, ...]:
        for line in LINES:
            if state[line[0]] and all(state[i] == state[line[0]] for i in line):
                return tuple(line)
        return ()  # a resignation: no line

    def colour_slot(self, position: State, move: Move) -> int:
        """A bead's colour is its square: the same nine colours in every box."""
        return move


TICTACTOE = TicTacToe()
