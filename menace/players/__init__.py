"""Players and opponents behind one small interface, found by name in a registry.

A :class:`Player` chooses a move for a position and hears how the game ended. A
:class:`RulePlayer` is a player whose choice depends on the position alone (uniform among a
set of equally good moves); tournaments tabulate such players once and play them at full speed.

>>> find_player("smart").name
'smart'
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


_REGISTRY: dict[str, PlayerSpec] = {}
_ALIASES: dict[str, str] = {}


def register(spec: PlayerSpec) -> PlayerSpec:
    """Add a player to the registry (its name and aliases must be new)."""
    for key in (spec.name, *spec.aliases):
        if key in _REGISTRY or key in _ALIASES:
            raise ValueError(f"player name {key!r} is taken")
    _REGISTRY[spec.name] = spec
    for alias in spec.aliases:
        _ALIASES[alias] = spec.name
    return spec


def split_name(name: str) -> tuple[str, str | None]:
    """``"td:5000"`` -> ``("td", "5000")``; ``"random"`` -> ``("random", None)``."""
    base, sep, param = name.strip().partition(":")
    return base.lower(), (param if sep else None)


def find_player(name: str, game: Game | None = None) -> PlayerSpec:
    """The player registered as ``name`` (or an alias; a ``:parameter`` suffix is ignored), that
    can play ``game`` if one is given; :class:`UnknownPlayerError` otherwise."""
    _load_builtins()
    key = split_name(name)[0]
    key = _ALIASES.get(key, key)
    try:
        spec = _REGISTRY[key]
    except KeyError:
        known = ", ".join(s.name for s in all_players(game))
        raise UnknownPlayerError(f"unknown opponent {name!r}; choose from {known} or menace:NAME") from None
    if game is not None and not spec.plays(game):
        known = ", ".join(s.name for s in all_players(game))
        raise UnknownPlayerError(f"{spec.name} plays {' and '.join(spec.games or ())} only, not {game.name}; "
                                 f"for {game.name} choose from {known} or menace:NAME")
    return spec


def default_opponent(game: Game) -> str:
    """The opponent a tournament plays unless told: the Ruby Quiz's SmartPlayer where it can play,
    else a random mover."""
    return "smart" if find_player("smart").plays(game) else "random"


def training_opponent(game: Game) -> str:
    """The opponent to suggest for a first real training run: the Ruby Quiz's SmartPlayer where it
    can play, else a perfect player, else a random mover."""
    for name in ("smart", "perfect"):
        if find_player(name).plays(game):
            return name
    return "random"


def all_players(game: Game | None = None) -> list[PlayerSpec]:
    """Every registered player (that can play ``game``, if given), in registration order."""
    _load_builtins()
    return [spec for spec in _REGISTRY.values() if game is None or spec.plays(game)]


def _load_builtins() -> None:
    # Imported here so that each player module can import this one.
    from menace.players import registry  # noqa: F401


__all__ = ["Player", "PlayerParamError", "PlayerSpec", "RulePlayer", "UnknownPlayerError", "all_players",
           "default_opponent", "find_player", "register", "split_name"]
