"""The built-in players, registered by name. ``menace opponents`` lists them in this order."""

from __future__ import annotations

from typing import TypeVar

from menace.games.nim import Nim
from menace.players import PlayerParamError, PlayerSpec, perfect, posswin, register, td
from menace.players.basic import RandomPlayer, SmartPlayer
from menace.players.movetable import MovetablePlayer
from menace.players.nim import NimPerfectPlayer
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
))
