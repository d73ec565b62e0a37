"""Round robins between players: everyone plays everyone else, as X and as O. Pure, no printing.

>>> import random
>>> from menace.games import DEFAULT_GAME, find_game
>>> game = find_game(DEFAULT_GAME)
>>> from menace.players import find_player
>>> entrants = [(name, find_player(name).create(game)) for name in ("perfect", "random")]
>>> result = run_arena(game, entrants, 10, random.Random(1))
>>> result.versus("perfect", "random").losses
0
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from menace.core.errors import InternalError, InvalidInputError
from menace.core.game import Game, Move, Result, Side, State
from menace.core.match import play_game
from menace.players import Player, RulePlayer

EntrantFactory = Callable[[random.Random], Player]
"""Makes a fresh player for one pairing, from the arena's random source (for training)."""



class ArenaError(InvalidInputError):
    """An arena that cannot be run: too few entrants, a label used twice, no games."""


@dataclass(frozen=True)
class Entrant:
    """A player in the arena under a label.

    ``player`` is either a :class:`~menace.players.Player`, used for every pairing as it is
    (pass a MENACE with ``learn=False`` to keep it frozen), or a factory called afresh for each
    pairing, so that a learning player starts every pairing from the same point. ``sides`` are the
    sides it can take (a MENACE built only for X plays only X).
    """

    label: str
    player: Player | EntrantFactory
    sides: tuple[Side, ...] = (Side.X, Side.O)


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses from one player's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """A win is a point, a draw half a point."""
        return self.wins + 0.5 * self.draws

    @property
    def share(self) -> float:
        """Points as a share of the games played (NaN when none were)."""
        return self.points / self.games if self.games else math.nan

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def reversed(self) -> Tally:
        """The same games seen from the other player."""
        return Tally(self.losses, self.draws, self.wins)

    def add(self, result: Result) -> Tally:
        return self + Tally(int(result is Result.WIN), int(result is Result.DRAW), int(result is Result.LOSS))

    def __str__(self) -> str:
        return f"{self.wins}/{self.draws}/{self.losses}"


@dataclass(frozen=True)
class ArenaResult:
    """Every ordered pairing's tally, from the X player's point of view."""

    labels: tuple[str, ...]
    games_per_pair: int
    pairs: dict[tuple[str, str], Tally] = field(default_factory=dict)
    """``pairs[x, o]``: how X did against O over ``games_per_pair`` games (absent: not played)."""

    def as_x(self, x: str, o: str) -> Tally:
        """How ``x`` did playing X against ``o``."""
        return self.pairs.get((x, o), Tally())

    def versus(self, row: str, col: str) -> Tally:
        """How ``row`` did against ``col``, both sides together."""
        return self.as_x(row, col) + self.as_x(col, row).reversed()

    def total(self, label: str) -> Tally:
        """How ``label`` did against everyone, both sides together."""
        total = Tally()
        for other in self.labels:
            if other != label:
                total += self.versus(label, other)
        return total

    @property
    def games(self) -> int:
        return sum(t.games for t in self.pairs.values())


def _entrant(item: Entrant | tuple[str, Player | EntrantFactory]) -> Entrant:
    return item if isinstance(item, Entrant) else Entrant(item[0], item[1])


class _Tabulated(RulePlayer):
    """A rule player whose options are remembered per position: same moves, found once."""

    def __init__(self, inner: RulePlayer) -> None:
        self.inner = inner
        self.name = inner.name
        self.table: dict[State, tuple[Move, ...]] = {}

    def options(self, state: State) -> tuple[Move, ...]:
        opts = self.table.get(state)
        if opts is None:
            opts = self.table[state] = self.inner.options(state)
        return opts


def _speed_up(player: Player) -> Player:
    # Only a rule player that chooses the standard way can be tabulated without changing its play.
    if isinstance(player, RulePlayer) and type(player).choose is RulePlayer.choose:
        return _Tabulated(player)
    return player


def run_arena(
    game: Game,
    entrants: Sequence[Entrant | tuple[str, Player | EntrantFactory]],
    games_per_pair: int,
    rng: random.Random,
    progress: Callable[[int], None] | None = None,
) -> ArenaResult:
    """Play every entrant against every other, ``games_per_pair`` games with each as X.

    Pairings go in the entrants' order (first as X against each later one as O, and so on);
    ``progress`` hears the number of games each time a pairing finishes.
    """
    field_ = [_entrant(e) for e in entrants]
    labels = tuple(e.label for e in field_)
    if len(field_) < 2:
        raise ArenaError("an arena needs at least two players")
    if len(set(labels)) != len(labels):
        twice = sorted({label for label in labels if labels.count(label) > 1})
        raise ArenaError(f"each player may enter once: {', '.join(twice)} listed twice")
    if games_per_pair < 1:
        raise ArenaError("play at least one game per pairing")
    shared: dict[str, Player] = {}
    for e in field_:
        if isinstance(e.player, Player):
            shared[e.label] = _speed_up(e.player)
    pairs: dict[tuple[str, str], Tally] = {}
    for x in field_:
        for o in field_:
            if x is o or Side.X not in x.sides or Side.O not in o.sides:
                continue
            x_player = shared[x.label] if x.label in shared else _speed_up(_fresh(x, rng))
            o_player = shared[o.label] if o.label in shared else _speed_up(_fresh(o, rng))
            tally = Tally()
            for _ in range(games_per_pair):
                tally = tally.add(play_game(game, x_player, o_player, rng).result_for(Side.X))
            pairs[x.label, o.label] = tally
            if progress is not None:
                progress(games_per_pair)
    return ArenaResult(labels, games_per_pair, pairs)


def _fresh(entrant: Entrant, rng: random.Random) -> Player:
    factory = entrant.player
    if isinstance(factory, Player):
        raise InternalError("a fresh player is made from a factory, not from a player")
    return factory(rng)


def pairings(entrants: Iterable[Entrant | tuple[str, Player | EntrantFactory]]) -> int:
    """How many ordered pairings :func:`run_arena` will play."""
    field_ = [_entrant(e) for e in entrants]
    return sum(
        1
        for x in field_
        for o in field_
        if x is not o and Side.X in x.sides and Side.O in o.sides
    )
