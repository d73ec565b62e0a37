"""The built-in players, registered by name. ``menace opponents`` lists them in this order."""

from __future__ import annotations

from typing import TypeVar

from menace.players import PlayerParamError, PlayerSpec, perfect, posswin, register, td
from menace.players.basic import RandomPlayer, SmartPlayer
from menace.players.movetable import MovetablePlayer
from menace.players.oxo import OxoPlayer

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
    "seed 000's SmartPlayer: win, block, centre, opposite corner, X-O-X defence, else random",
    lambda g, rng, param: no_param("smart", param, SmartPlayer()),
    games=TTT,
))
register(PlayerSpec(
    "movetable",
    "Rich & Knight's Program 1: a 19,683-board lookup table, generated from perfect play",
    lambda g, rng, param: no_param("movetable", param, MovetablePlayer()),
    ("program1",),
    games=TTT,
))
register(PlayerSpec(
    "posswin",
    "Rich & Knight's Program 2: a rule per turn with Make2, Posswin and Go",
    lambda g, rng, param: posswin.PosswinPlayer(magic=posswin.parse_param(param)),
    ("program2",),
    param_help="posswin:magic finds wins with the magic square (Program 2'); it plays the same moves",
    games=TTT,
))
register(PlayerSpec(
    "perfect",
    "Rich & Knight's Program 3: full minimax, never loses, takes the fastest win",
    lambda g, rng, param: perfect.PerfectPlayer(g, deterministic=perfect.parse_param(param)),
    ("minimax", "program3"),
    param_help="perfect:det always takes the lowest-numbered best square (default: random among them)",
))
register(PlayerSpec(
    "oxo",
    "McLean's APL OXO: win, block, centre, a random corner, else the first free square",
    lambda g, rng, param: no_param("oxo", param, OxoPlayer()),
    games=TTT,
))
register(PlayerSpec(
    "td",
    "TTTML: temporal-difference values learned by self-play; keeps learning as it plays",
    lambda g, rng, param: td.trained(g, rng, td.parse_param(param)),
    ("tttml",),
    param_help="td:N trains on N games against itself first (default 3000)",
    games=TTT,
))
