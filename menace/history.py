"""Packing games compactly, and reading them back. Pure, no I/O.

A game is one header byte, ``n_moves << 4 | menace_side << 2 | winner``, then its moves two
to a byte (the first in the high nibble). A block of games is those bytes, compressed with
zlib. A typical tournament game takes about two bytes on disk.

>>> from menace.machine import GameRecord, X_WINS
>>> from menace.game import Side
>>> games = [GameRecord(Side.X, [4, 0, 8, 2, 6, 1, 3], X_WINS)]
>>> decode_block(encode_block(games)) == games
True
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from menace.game import Side
from menace.machine import GameRecord


class CorruptHistoryError(ValueError):
    """Stored games that cannot be decoded."""


def encode_games(games: Sequence[GameRecord]) -> bytes:
    out = bytearray()
    for g in games:
        moves = g.moves
        n = len(moves)
        out.append(n << 4 | int(g.menace_side) << 2 | g.winner)
        for i in range(0, n - 1, 2):
            out.append(moves[i] << 4 | moves[i + 1])
        if n % 2:
            out.append(moves[-1] << 4)
    return bytes(out)


def decode_games(data: bytes) -> list[GameRecord]:
    games: list[GameRecord] = []
    i = 0
    size = len(data)
    try:
        while i < size:
            head = data[i]
            n, side, winner = head >> 4, head >> 2 & 3, head & 3
            if side not in (1, 2) or winner not in (1, 2, 3) or n > 15:
                raise CorruptHistoryError(f"bad game header at byte {i}")
            moves: list[int] = []
            for j in range((n + 1) // 2):
                b = data[i + 1 + j]
                moves.append(b >> 4)
                moves.append(b & 15)
            del moves[n:]
            games.append(GameRecord(Side(side), moves, winner))
            i += 1 + (n + 1) // 2
    except IndexError:
        raise CorruptHistoryError("stored games end in the middle of a game") from None
    return games


def encode_block(games: Sequence[GameRecord]) -> bytes:
    return zlib.compress(encode_games(games), 6)


def decode_block(data: bytes) -> list[GameRecord]:
    try:
        raw = zlib.decompress(data)
    except zlib.error as exc:
        raise CorruptHistoryError(f"stored games are damaged: {exc}") from None
    return decode_games(raw)
