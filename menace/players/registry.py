"""The registry of players: found by name (with aliases), listed per game. ``menace opponents`` lists
the built-in players in the order they are registered at the end of this module."""

from __future__ import annotations

from typing import TypeVar

import menace.players.perfect as perfect
import menace.players.posswin as posswin
import menace.players.td as td
from menace.core.game import Game
from menace.games.nim import Nim
from menace.players.base import PlayerParamError, PlayerSpec, UnknownPlayerError, split_name
from menace.players.basic import RandomPlayer, SmartPlayer
from menace.players.movetable import MovetablePlayer
from menace.players.nim import NimPerfectPlayer
from menace.players.oxo import OxoPlayer

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


def find_player(name: str, game: Game | None = None) -> PlayerSpec:
    """The player registered as ``name`` (or an alias; a ``:parameter`` suffix is ignored), that
    can play ``game`` if one is given; :class:`UnknownPlayerError` otherwise."""
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
    return [spec for spec in _REGISTRY.values() if game is None or spec.plays(game)]


# -- the built-in players -------------------------------------------------------------------------
P = TypeVar("P")
TTT = ("tictactoe",)
"""The seed programs play noughts and crosses only."""


def no_param(name: str, param: str | None, player: P) -> P:
    """``player``, for a name that takes no parameter: ``random:3`` is refused."""
    if param is not None:
        raise PlayerParamError(f"{name} takes no parameter (after the colon), not {param!r}")
    return player


register(PlayerSpec(
    "random",
    "any legal move, uniformly at random (any game)",
    lambda g, rng, param: no_param("random", param, RandomPlayer(g)),
    ("dumb",),
))
register(PlayerSpec(
    "smart",
    "the Ruby Quiz MENACE's SmartPlayer: win, block, centre, opposite corner, X-O-X defence, else random",
    lambda g, rng, param: no_param("smart", param, SmartPlayer()),
    games=TTT,
))
register(PlayerSpec(
    "movetable",
    "Program 1 of Rich & Knight's Artificial Intelligence: a 19,683-board move table, from perfect play",
    lambda g, rng, param: no_param("movetable", param, MovetablePlayer()),
    ("program1",),
    games=TTT,
))
register(PlayerSpec(
    "posswin",
    "Program 2 of Rich & Knight's Artificial Intelligence: a rule per turn with Make2, Posswin and Go",
    lambda g, rng, param: posswin.PosswinPlayer(magic=posswin.parse_param(param)),
    ("program2",),
    param_help="posswin:magic finds wins with the magic square (Program 2'); it plays the same moves",
    games=TTT,
    check=posswin.parse_param,
))
register(PlayerSpec(
    "perfect",
    "Program 3 of Rich & Knight's Artificial Intelligence: full minimax, never loses, wins fastest",
    lambda g, rng, param: (NimPerfectPlayer(g, perfect.parse_param(param)) if isinstance(g, Nim)
                           else perfect.PerfectPlayer(g, deterministic=perfect.parse_param(param))),
    ("minimax", "program3"),
    param_help="perfect:det always takes the lowest-numbered best move (default: random among them); in Nim "
               "the best move is the winning rule's (leave a multiple of take+1, one more in misère play), any "
               "move from a lost heap",
    check=perfect.parse_param,
))
register(PlayerSpec(
    "oxo",
    "W. W. McLean's APL program OXO: win, block, centre, a random corner, else the first free square",
    lambda g, rng, param: no_param("oxo", param, OxoPlayer()),
    games=TTT,
))
register(PlayerSpec(
    "td",
    "a temporal-difference learner after TTTML: values learned by self-play; keeps learning as it plays",
    lambda g, rng, param: td.trained(g, rng, td.parse_param(param)),
    ("tttml",),
    param_help="td:N trains on N games against itself first (default 3000)",
    games=TTT,
    check=td.parse_param,
    learns=True,
))
