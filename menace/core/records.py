"""Packing games compactly, and reading them back. Pure, no I/O.

A game is one header byte, ``n_moves << 4 | menace_side << 2 | winner``, then one byte per move.
A game of :data:`LONG` (15) moves or more (a long game of Nim) writes 15 in the header's length and
its real length in the byte after the header. A block of games is those bytes compressed with zlib:
a typical tournament game takes about two bytes on disk.

>>> from menace.core.learner import GameRecord, X_WINS
>>> from menace.core.game import Side
>>> games = [GameRecord(Side.X, [4, 1, 0, 8, 6, 3, 2], X_WINS)]
>>> decode_block(encode_block(games)) == games
True
"""

from __future__ import annotations

import hashlib
import sys
import zlib
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from menace.core.errors import DamagedError
from menace.core.game import Side
from menace.core.learner import DRAWN, O_WINS, X_WINS, GameRecord


class CorruptHistoryError(DamagedError):
    """Stored games that cannot be decoded."""


LONG = 15
"""A header's length of 15 means the game's length is in the next byte (a game of 15 to 255 moves)."""
MAX_MOVES = 255
"""The most moves a stored game may have."""


def record_end(data: bytes | bytearray | memoryview, i: int) -> int:
    """Where the game whose header is at byte ``i`` ends (one past its last move); past the data's
    end when the game is cut short."""
    n = data[i] >> 4
    if n < LONG:
        return i + 1 + n
    return i + 2 + data[i + 1] if i + 1 < len(data) else len(data) + 1


def moves_start(data: bytes | bytearray | memoryview, i: int) -> int:
    """Where the moves of the game whose header is at byte ``i`` start."""
    return i + 1 if data[i] >> 4 < LONG else i + 2


class GameBuffer:
    """Finished games packed as they are played: the tournament's hot loop appends here.

    ``outcomes[side << 2 | winner]`` counts games by MENACE's side and the winner code.
    """

    def __init__(self) -> None:
        self.data = bytearray()
        self.outcomes = [0] * 12

    def add(self, side: int, moves: Sequence[int], winner: int) -> None:
        n = len(moves)
        if n < LONG:
            self.data.append(n << 4 | side << 2 | winner)
        else:
            self.data += bytes((LONG << 4 | side << 2 | winner, n))
        self.data.extend(moves)
        self.outcomes[side << 2 | winner] += 1

    @property
    def games(self) -> int:
        return sum(self.outcomes)

    @property
    def wins(self) -> int:
        return self.outcomes[int(Side.X) << 2 | X_WINS] + self.outcomes[int(Side.O) << 2 | O_WINS]

    @property
    def draws(self) -> int:
        return self.outcomes[int(Side.X) << 2 | DRAWN] + self.outcomes[int(Side.O) << 2 | DRAWN]

    @property
    def losses(self) -> int:
        return self.games - self.wins - self.draws

    def clear(self) -> None:
        self.data.clear()
        self.outcomes[:] = [0] * 12

    def block(self) -> bytes:
        return zlib.compress(bytes(self.data), 1)  # level 1: fast, and still under 4 bytes a game

    def results(self) -> bytes:
        """The games' results as bit planes (:func:`result_planes`), stored beside the block."""
        return result_planes(result_codes(self.data))

    def packed(self) -> PackedGames:
        """The games as they are stored (half the bytes or less), to hold until they are written."""
        return PackedGames(self.games, self.wins, self.draws, self.losses, self.block(), self.results())


@dataclass(frozen=True)
class PackedGames:
    """A :class:`GameBuffer`'s games as a block stores them: compressed, with their results' bit planes
    and their tally (a tournament holds blocks so between writes)."""

    games: int
    wins: int
    draws: int
    losses: int
    data: bytes
    planes: bytes

    def block(self) -> bytes:
        return self.data

    def results(self) -> bytes:
        return self.planes

    @property
    def size(self) -> int:
        """The bytes held."""
        return len(self.data) + len(self.planes)


def encode_games(games: Sequence[GameRecord]) -> bytes:
    buf = GameBuffer()
    for g in games:
        buf.add(int(g.menace_side), g.moves, g.winner)
    return bytes(buf.data)


def decode_games(data: bytes) -> list[GameRecord]:
    games: list[GameRecord] = []
    append = games.append
    sides = (None, Side.X, Side.O, None)  # a tuple lookup: Side(n) per game is the slow part
    i = 0
    size = len(data)
    while i < size:
        head = data[i]
        side, winner = sides[head >> 2 & 3], head & 3
        end = record_end(data, i)
        if side is None or not winner or end > size or (head >> 4 == LONG and data[i + 1] < LONG):
            raise CorruptHistoryError(f"bad game record at byte {i}")
        append(GameRecord(side, list(data[moves_start(data, i):end]), winner))
        i = end
    return games


def outcome_codes(data: bytes) -> bytearray:
    """Each game's header code, ``menace_side << 2 | winner``, without building the games.

    A learning curve needs only these: a million games are scanned in a fraction of a second.
    """
    out = bytearray()
    append = out.append
    i = 0
    size = len(data)
    while i < size:
        append(data[i] & 15)
        i = record_end(data, i)
    if i != size:
        raise CorruptHistoryError("the last stored game is cut short")
    return out


def encode_block(games: Sequence[GameRecord]) -> bytes:
    return zlib.compress(encode_games(games), 1)


def decode_block(data: bytes) -> list[GameRecord]:
    return decode_games(unpack_block(data))


def unpack_block(data: bytes) -> bytes:
    """A block's games as packed bytes (decompressed), for readers that walk them without objects."""
    try:
        return zlib.decompress(data)
    except zlib.error as exc:
        raise CorruptHistoryError(f"stored games are damaged: {exc}") from None


def unpack_block_bounded(data: bytes, games: int) -> bytes:
    """:func:`unpack_block` for a block said to hold ``games`` games, from an untrusted source:
    never more than ``games * MAX_GAME_BYTES`` bytes are inflated (a zip bomb stops there), and
    :class:`CorruptHistoryError` unless the bytes are exactly ``games`` whole games."""
    limit = games * MAX_GAME_BYTES
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(data, limit + 1)
    except zlib.error as exc:
        raise CorruptHistoryError(f"stored games are damaged: {exc}") from None
    if len(raw) > limit:
        raise CorruptHistoryError(f"a block said to hold {games:,} games inflates to more than {limit:,} bytes")
    if inflate.unconsumed_tail or inflate.unused_data or not inflate.eof:
        raise CorruptHistoryError("a block of stored games is truncated or has bytes after its end")
    i = found = 0
    size = len(raw)
    while i < size:
        i = record_end(raw, i)
        found += 1
    if i != size:
        raise CorruptHistoryError("a block of stored games ends inside a game")
    if found != games:
        raise CorruptHistoryError(f"a block holds {found:,} games, not the {games:,} it says")
    return raw


# -- checkpoints: the beads as they stood after a game ---------------------------------------------
Layout = Sequence[Sequence[int]]
"""Per box (in box-number order), the bead colours it holds: the moves of its initial beads, sorted."""


def pack_beads(counts: Sequence[Sequence[int]], layout: Layout) -> bytes:
    """Every box's bead counts (colour by colour, as ``layout`` lists them), compressed.

    Signed 64-bit little-endian integers under zlib: about 1-3 KB for Michie's 1,720 beads.
    """
    flat = array("q", (counts[b][m] for b, moves in enumerate(layout) for m in moves))
    if sys.byteorder != "little":
        flat.byteswap()
    return zlib.compress(flat.tobytes(), 6)


def _inflate_counts(data: bytes, layout: Layout) -> bytes:
    """A checkpoint's counts as packed bytes, checked: exactly one count per move of ``layout``, the
    stream whole and nothing after it. Decompressed no further than that: a zip bomb stops there."""
    expected = sum(len(moves) for moves in layout)
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(data, 8 * expected + 1)
    except zlib.error as exc:
        raise CorruptHistoryError(f"a stored checkpoint is damaged: {exc}") from None
    if len(raw) <= 8 * expected and (not inflate.eof or inflate.unused_data):
        raise CorruptHistoryError("a stored checkpoint is truncated or has bytes after its end")
    if len(raw) != 8 * expected:
        raise CorruptHistoryError(f"a stored checkpoint holds {len(raw) // 8} counts, not {expected}")
    return raw


def _counts(raw: bytes) -> array[int]:
    flat = array("q")
    flat.frombytes(raw)
    if sys.byteorder != "little":
        flat.byteswap()
    return flat


def unpack_beads(data: bytes, layout: Layout, width: int) -> list[list[int]]:
    """The counts :func:`pack_beads` packed: one list of ``width`` counts per box (0 off its colours)."""
    flat = _counts(_inflate_counts(data, layout))
    out: list[list[int]] = []
    i = 0
    for moves in layout:
        row = [0] * width
        for m in moves:
            row[m] = flat[i]
            i += 1
        out.append(row)
    return out


def unpack_box(data: bytes, layout: Layout, index: int, width: int) -> list[int]:
    """Box ``index``'s counts in a checkpoint, as :func:`unpack_beads` gives them (``width`` counts, 0 off
    its colours), checked as strictly, without building the other boxes' lists: a bead series reads one
    box from hundreds of checkpoints."""
    raw = _inflate_counts(data, layout)
    at = sum(len(moves) for moves in layout[:index])
    moves = layout[index]
    row = [0] * width
    for m, count in zip(moves, _counts(raw[8 * at:8 * (at + len(moves))])):
        row[m] = count
    return row


def chain_digest(previous: str, first_game: int, n_games: int, tally: tuple[int, int, int], data: bytes,
                 beads: bytes | None) -> str:
    """The history's running checksum after one more block: what ``check`` has verified up to a
    block is trusted later only while this still comes out the same, so a block or checkpoint
    changed since (or a block taken out before it) is noticed without replaying the games."""
    h = hashlib.sha256(previous.encode("ascii"))
    h.update(f"|{first_game}|{n_games}|{tally[0]}|{tally[1]}|{tally[2]}|{len(data)}|".encode("ascii"))
    h.update(data)
    h.update(b"|-" if beads is None else b"|+")
    if beads is not None:
        h.update(beads)
    return h.hexdigest()


def results_in(raw: bytes) -> Iterator[tuple[int, int]]:
    """``(menace_side, winner)`` of every game packed in ``raw`` (decompressed) bytes, in order."""
    i = 0
    size = len(raw)
    while i < size:
        head = raw[i]
        yield head >> 2 & 3, head & 3
        i = record_end(raw, i)


# -- a block's results: what the learning curve reads instead of its games -------------------------
RESULT_WORD = 64
"""Games per word of a block's result planes: each plane is padded to whole 64-bit words."""


def _plane_table(win: bool) -> bytes:
    """For each header code ``menace_side << 2 | winner``: ``b"1"`` where MENACE won (``win``) or drew
    (not ``win``), ``b"0"`` elsewhere."""
    out = bytearray(b"0" * 256)
    for code in range(256):
        side, winner = code >> 2 & 3, code & 3
        hit = winner == side if win else winner == DRAWN
        if hit and winner:
            out[code] = ord("1")
    return bytes(out)


_WIN_DIGITS = bytes.maketrans(bytes(range(256)), _plane_table(True))
_DRAW_DIGITS = bytes.maketrans(bytes(range(256)), _plane_table(False))


def result_codes(raw: bytes | bytearray) -> bytes:
    """Each packed game's header code, ``menace_side << 2 | winner``, in order (``raw`` decompressed)."""
    out = bytearray()
    append = out.append
    i = 0
    size = len(raw)
    while i < size:
        head = raw[i]
        append(head & 15)
        n = head >> 4
        i += 1 + n if n < LONG else 2 + raw[i + 1] if i + 1 < size else 2
    if i != size:
        raise CorruptHistoryError("the last stored game is cut short")
    return bytes(out)


def result_planes(codes: bytes) -> bytes:
    """A block's results from MENACE's side, from its games' header codes (:func:`result_codes`): a
    plane of wins then a plane of draws, one bit per game (game ``i`` of the block is bit ``i % 8`` of
    byte ``i // 8``), each padded with zeros to whole :data:`RESULT_WORD`-game words. A loss is neither.

    The running wins and draws at any game of the block are then a count of bits, without reading its
    games (:func:`menace.app.series.LearningSampler.feed_results`): a quarter of a byte per game.

    >>> result_planes(bytes([0b0101, 0b0111, 0b0110])).hex()  # X wins, X draws, X loses (O wins)
    '01000000000000000200000000000000'
    """
    size = (len(codes) + RESULT_WORD - 1) // RESULT_WORD * (RESULT_WORD // 8)
    if not codes:
        return b""
    # a string of binary digits, the block's last game first, read as one integer (linear time for
    # base 2): bit i is game i
    return b"".join(int(codes.translate(table)[::-1], 2).to_bytes(size, "little")
                    for table in (_WIN_DIGITS, _DRAW_DIGITS))


def block_results(data: bytes) -> bytes:
    """:func:`result_planes` of a stored (compressed) block of games."""
    return result_planes(result_codes(unpack_block(data)))


def skip_games(raw: bytes, n: int, start: int = 0) -> int:
    """The byte ``n`` games after byte ``start`` of packed games."""
    i = start
    for _ in range(n):
        i = record_end(raw, i)
    return i


MAX_GAME_BYTES = 2 + MAX_MOVES
"""A game takes at most 257 bytes packed: a header, a length byte and at most 255 moves. (Noughts
and crosses and Hexapawn take at most 10; a block read from outside is bounded by this.)"""
