"""Packing games compactly, and reading them back. Pure, no I/O.

A game is one header byte, ``n_moves << 4 | menace_side << 2 | winner``, then one byte per move.
A block of games is those bytes compressed with zlib: a typical tournament game takes about two
bytes on disk.

>>> from menace.core.learner import GameRecord, X_WINS
>>> from menace.core.game import Side
>>> games = [GameRecord(Side.X, [4, 1, 0, 8, 6, 3, 2], X_WINS)]
>>> decode_block(encode_block(games)) == games
True
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from menace.core.errors import DamagedError
from menace.core.game import Side
from menace.core.learner import DRAWN, O_WINS, X_WINS, GameRecord


class CorruptHistoryError(DamagedError):
    """Stored games that cannot be decoded."""


class GameBuffer:
    """Finished games packed as they are played: the tournament's hot loop appends here.

    ``outcomes[side << 2 | winner]`` counts games by MENACE's side and the winner code.
    """

    def __init__(self) -> None:
        self.data = bytearray()
        self.outcomes = [0] * 12

    def add(self, side: int, moves: Sequence[int], winner: int) -> None:
        self.data.append(len(moves) << 4 | side << 2 | winner)
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
        n, side, winner = head >> 4, sides[head >> 2 & 3], head & 3
        end = i + 1 + n
        if side is None or not winner or end > size:
            raise CorruptHistoryError(f"bad game record at byte {i}")
        append(GameRecord(side, list(data[i + 1:end]), winner))
        i = end
    return games


def encode_block(games: Sequence[GameRecord]) -> bytes:
    return zlib.compress(encode_games(games), 1)


def decode_block(data: bytes) -> list[GameRecord]:
    try:
        raw = zlib.decompress(data)
    except zlib.error as exc:
        raise CorruptHistoryError(f"stored games are damaged: {exc}") from None
    return decode_games(raw)
