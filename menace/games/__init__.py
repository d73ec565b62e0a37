"""The games a matchbox machine can learn, found by name.

Everything above this layer reaches a particular game only through :func:`find_game`: the learner,
storage, the use cases and the front ends work on any game that keeps the
:class:`~menace.core.game.Game` contract.

>>> find_game("tictactoe").name
'tictactoe'
>>> sorted(game_names())
['hexapawn', 'tictactoe']
"""

from __future__ import annotations

import importlib

from menace.core.errors import InvalidInputError
from menace.core.game import Game

_MODULES = {
    "tictactoe": ("menace.games.tictactoe", "TICTACTOE"),
    "hexapawn": ("menace.games.hexapawn", "HEXAPAWN"),
}
_ALIASES = {"noughts-and-crosses": "tictactoe", "tic-tac-toe": "tictactoe", "ttt": "tictactoe"}
DEFAULT_GAME = "tictactoe"


class UnknownGameError(InvalidInputError):
    """No game is registered under that name."""


def game_names() -> list[str]:
    """Every registered game's name, in registration order."""
    return list(_MODULES)


def find_game(name: str) -> Game:
    """The game registered as ``name`` (or an alias); :class:`UnknownGameError` otherwise."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    try:
        module, attr = _MODULES[key]
    except KeyError:
        raise UnknownGameError(f"unknown game {name!r}; choose from {', '.join(_MODULES)}") from None
    game: Game = getattr(importlib.import_module(module), attr)
    return game


PRESET_GAMES: dict[str, str] = {"michie": "tictactoe", "michie-1961": "tictactoe", "rubyquiz": "tictactoe",
                                "gardner": "hexapawn"}
"""The game each preset is for."""
DEFAULT_PRESETS: dict[str, str] = {"tictactoe": "michie", "hexapawn": "gardner"}
"""The preset a new machine of each game gets unless told otherwise."""
