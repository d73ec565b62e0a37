"""What every player shares: the rule player's base class, the registry's entry, the errors.

The player modules import this, never the package: :mod:`menace.players` imports them (through
:mod:`menace.players.registry`), so that no import goes in a circle.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field

from menace.core.errors import InvalidInputError
from menace.core.game import Game, Move, Outcome, State
from menace.core.player import Player
from menace.games import family_of


class RulePlayer(ABC):
    """A player whose move depends only on the position: uniform among :meth:`options`."""

    name = "rule"

    @abstractmethod
    def options(self, state: State) -> tuple[Move, ...]:
        """The moves this player picks from, uniformly, in ``state``."""

    def choose(self, state: State, rng: random.Random) -> Move:
        opts = self.options(state)
        return opts[int(rng.random() * len(opts))]

    def game_over(self, state: State, outcome: Outcome) -> None:  # noqa: B027 - deliberately empty
        """Rule players do not learn: the outcome changes nothing."""


class UnknownPlayerError(InvalidInputError):
    """No player is registered under that name."""


class PlayerParamError(InvalidInputError):
    """The text after a player's colon (``td:abc``) is not a parameter that player takes."""


Factory = Callable[[Game, random.Random, "str | None"], Player]
"""Makes a player for a game, with a random source (for training) and an optional parameter."""


@dataclass(frozen=True)
class PlayerSpec:
    """A registered player: its name, a one-line description and how to make one.

    A name may carry a parameter after a colon (``td:5000``); it reaches the factory as text.
    """

    name: str
    description: str
    factory: Factory
    aliases: tuple[str, ...] = field(default=())
    param_help: str | None = None
    """What the parameter after the colon means, if the player takes one."""
    games: tuple[str, ...] | None = None
    """The games it can play, by registered name (``nim`` covers every heap); None: any game."""
    check: Callable[[str | None], object] | None = None
    """Reads the parameter (raising :class:`PlayerParamError`) without making a player: a ``td``
    player trains on creation, so a bad parameter is refused before anything else is done."""
    learns: bool = False
    """It keeps learning as it plays (a frozen machine cannot be measured against it: it changes)."""

    def plays(self, game: Game) -> bool:
        return self.games is None or family_of(game.name) in self.games

    def check_param(self, param: str | None) -> None:
        """Refuse a parameter this player cannot take, as :meth:`create` would, but at once."""
        if self.check is not None:
            self.check(param)
        elif param is not None:
            raise PlayerParamError(f"{self.name} takes no parameter (after the colon), not {param!r}")

    def create(self, game: Game, rng: random.Random | None = None, param: str | None = None) -> Player:
        return self.factory(game, rng or random.Random(), param)


def split_name(name: str) -> tuple[str, str | None]:
    """``"td:5000"`` -> ``("td", "5000")``; ``"random"`` -> ``("random", None)``."""
    base, sep, param = name.strip().partition(":")
    return base.lower(), (param if sep else None)
