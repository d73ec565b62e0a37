"""The game tree: every position reachable from the start, its moves and results, by dense index.

The learner's hot loops, the replayer and the players that move by position all index the same tree,
built once per process (:func:`game_tree`). Building it plays every move of the game once; a
:class:`TreeCache` set up by a front end (:func:`use_tree_cache`) keeps it packed between processes
(:func:`pack_tree`), which is a few milliseconds instead of tens. No I/O here: the cache does it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

from menace.core.game import Game, Move, Side, State, once_per_game

# Results of a position in the engine's tables.
ONGOING, X_WINS, O_WINS, DRAWN = 0, 1, 2, 3
WINNER_CODE = {Side.X: X_WINS, Side.O: O_WINS, None: DRAWN}


@dataclass(frozen=True)
class GameTree:
    """Every position reachable from the start, with dense indices: ``kids[i][move]`` is the
    position after ``move`` (-1 where the move is not legal), ``result[i]`` its outcome code."""

    states: list[State]
    index: dict[State, int]
    root: int
    result: list[int]
    kids: list[list[int]]
    to_move: list[Side]
    legal: list[tuple[Move, ...]]


def build_game_tree(game: Game) -> GameTree:
    """The game's tree, built from the rules: breadth first, each move played once."""
    start = game.initial()
    states = [start]
    index = {start: 0}
    kids: list[list[int]] = []
    legal_of: list[tuple[Move, ...]] = []
    i = 0
    while i < len(states):
        state = states[i]
        legal = game.legal_moves(state)
        row = [-1] * game.move_count
        for m in legal:
            child = game.play(state, m)
            k = index.get(child)
            if k is None:
                k = index[child] = len(states)
                states.append(child)
            row[m] = k
        kids.append(row)
        legal_of.append(legal)
        i += 1
    result = [WINNER_CODE[o.winner] if (o := game.outcome(s)) else ONGOING for s in states]
    return GameTree(states, index, 0, result, kids, [game.to_move(s) for s in states], legal_of)


_PACK_HEAD = struct.Struct("<4sIHH")
_PACK_MAGIC = b"MGT1"


def pack_tree(tree: GameTree) -> bytes | None:
    """The tree in a few bytes per position, for a :class:`TreeCache` (None when the game's positions
    differ in length: such a tree is not packed, only built).

    A header (``MGT1``, the number of positions, a position's length, the number of moves), then by
    position: its cells (a byte each), its kids (32-bit little-endian, -1 for no move), its result,
    the side to move, how many legal moves; then the legal moves themselves, a byte each.
    """
    states = tree.states
    width = len(states[0])
    if not width or any(len(s) != width for s in states):
        return None
    move_count = len(tree.kids[0])
    try:
        return b"".join([
            _PACK_HEAD.pack(_PACK_MAGIC, len(states), width, move_count),
            bytes(v for s in states for v in s),
            struct.pack(f"<{len(states) * move_count}i", *(k for row in tree.kids for k in row)),
            bytes(tree.result), bytes(tree.to_move),
            bytes(map(len, tree.legal)), bytes(m for moves in tree.legal for m in moves),
        ])
    except (ValueError, struct.error):  # a value past a byte: outside the game contract, but not worth failing
        return None


def unpack_tree(game: Game, packed: bytes) -> GameTree:
    """The tree :func:`pack_tree` packed for ``game``; :class:`ValueError` for bytes that are not one
    (written by other code, or damaged).

    The sizes, the start, the results and the sides are checked, not every move against the rules nor
    every kid's index (2 ms of a 5 ms read): a cache guards its bytes with a checksum and names the code
    that wrote them.
    """
    try:
        magic, n, width, move_count = _PACK_HEAD.unpack_from(packed)
        if magic != _PACK_MAGIC or not n or not width or move_count != game.move_count:
            raise ValueError("not a packed tree of this game")
        view = memoryview(packed)
        at = [_PACK_HEAD.size, n * width, 4 * n * move_count, n, n, n]
        ends = list(accumulate(at))
        cells, kid_bytes, results, movers, counts = (view[a:b] for a, b in zip(ends, ends[1:]))
        if len(packed) != ends[-1] + sum(counts):
            raise ValueError("the sizes do not add up")
        states: list[State] = list(struct.iter_unpack(f"{width}B", cells))
        kids = list(map(list, struct.iter_unpack(f"<{move_count}i", kid_bytes)))
        if states[0] != game.initial():
            raise ValueError("it does not start where the game starts")
        result = list(results)
        if max(result) > DRAWN:
            raise ValueError("a result that is not one")
        to_move = list(map(_SIDE_CODES.__getitem__, movers))
        moves = packed[ends[-1]:]
        starts = list(accumulate(counts, initial=0))
        legal = [tuple(moves[a:b]) for a, b in zip(starts, starts[1:])]
    except (struct.error, KeyError, ValueError) as exc:  # KeyError: a side that is not one
        raise ValueError(f"not a game tree of {game.name}: {exc}") from None
    index = dict(zip(states, range(n)))
    if len(index) != n:
        raise ValueError(f"not a game tree of {game.name}: a position appears twice")
    return GameTree(states, index, 0, result, kids, to_move, legal)


_SIDE_CODES = {int(Side.X): Side.X, int(Side.O): Side.O}


class TreeCache(Protocol):
    """Somewhere to keep game trees from one process to the next (see :func:`use_tree_cache`)."""

    def load(self, game: Game) -> bytes | None:
        """What :meth:`save` kept for ``game``, if this very code saved it; else None."""

    def save(self, game: Game, packed: bytes) -> None:
        """Keep ``packed`` (:func:`pack_tree`) for ``game``, failing quietly: a cache is never needed."""


_tree_cache: TreeCache | None = None


def use_tree_cache(cache: TreeCache | None) -> None:
    """Let :func:`game_tree` read and write its trees in ``cache`` (None: build them every time).

    The front ends set one up (``menace.app.tree_cache``): which folder to write in is theirs to
    say, and this module does no I/O of its own.
    """
    global _tree_cache
    _tree_cache = cache


def cached_game_tree(game: Game, cache: TreeCache | None) -> GameTree:
    """The game's tree from ``cache`` when it holds a good one; else built (:func:`build_game_tree`)
    and left in the cache, over whatever was there."""
    if cache is not None:
        packed = cache.load(game)
        if packed is not None:
            try:
                return unpack_tree(game, packed)
            except ValueError:
                pass  # built below, and the cache written anew
    tree = build_game_tree(game)
    if cache is not None and (packed := pack_tree(tree)) is not None:
        cache.save(game, packed)
    return tree


@once_per_game
def game_tree(game: Game) -> GameTree:
    """The game's tree, once per process (through the tree cache, if one is set up)."""
    return cached_game_tree(game, _tree_cache)
