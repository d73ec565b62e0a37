"""The games a matchbox machine can learn, found by name.

Everything above this layer reaches a particular game only through :func:`find_game`: the learner,
storage, the use cases and the front ends work on any game that keeps the
:class:`~menace.core.game.Game` contract.

>>> find_game("tictactoe").name
'tictactoe'
>>> sorted(game_names())
['hexapawn', 'nim', 'tictactoe']
>>> find_game("nim-15-4-normal").title
'Nim (15 sticks, take 1-4, last stick wins)'
>>> game_with_options("nim", {"heap": 15, "take": 4, "last-stick": "wins"}).name
'nim-15-4-normal'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from menace.core.errors import InvalidInputError
from menace.core.game import Game

_MODULES = {
    "tictactoe": ("menace.games.tictactoe", "TICTACTOE"),
    "hexapawn": ("menace.games.hexapawn", "HEXAPAWN"),
    "nim": ("menace.games.nim", "NIM"),
}
_ALIASES = {"noughts-and-crosses": "tictactoe", "tic-tac-toe": "tictactoe", "ttt": "tictactoe"}
DEFAULT_GAME = "tictactoe"


@dataclass(frozen=True)
class GameOption:
    """A rule a game lets its players choose (Nim's heap size): a whole number in ``low .. high``,
    or one of ``choices``. A front end offers each as an option of its own."""

    game: str
    name: str
    help: str
    default: int | str
    low: int = 0
    high: int = 0
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Family:
    """A game with rules to choose: its options, how to make the game from them, and how to find
    a variant from its stored name."""

    options: tuple[GameOption, ...]
    make: Callable[[Mapping[str, int | str]], Game]
    named: Callable[[str], Game | None]
    values: Callable[[Game], Mapping[str, int | str]]
    """The rules a game of this family was made with."""


def _nim_family() -> _Family:
    from menace.games import nim

    def make(values: Mapping[str, int | str]) -> Game:
        return nim.nim_variant(int(values["heap"]), int(values["take"]), values["last-stick"] == "loses")

    return _Family((
        GameOption("nim", "heap", "sticks in the heap at the start", nim.DEFAULT_HEAP, nim.HEAPS.start,
                   nim.HEAPS.stop - 1),
        GameOption("nim", "take", "the most sticks one move may take", nim.DEFAULT_TAKE, nim.TAKES.start,
                   nim.TAKES.stop - 1),
        GameOption("nim", "last-stick", "whoever takes the last stick loses (misère play) or wins (normal play)",
                   "loses", choices=("loses", "wins")),
    ), make, nim.nim_named, lambda game: nim.rules_of(game))


_FAMILIES: dict[str, Callable[[], _Family]] = {"nim": _nim_family}
"""Games whose rules can be chosen, by their registered name; a variant is stored under a name of
its own that starts with the family's and a dash (``nim-15-4-normal``)."""


def game_options() -> list[GameOption]:
    """Every option of every game that has some, in registration order."""
    return [option for family in _FAMILIES.values() for option in family().options]


def is_game_name(name: str) -> bool:
    """Whether ``name`` is a game's stored name: a registered game, or a variant of one with rules
    (``nim-15-4-normal``), exactly as stored (no aliases, no other spelling)."""
    try:
        return find_game(name).name == name
    except InvalidInputError:
        return False


def family_of(name: str) -> str:
    """The registered game a game's name belongs to: ``nim`` for ``nim-15-4-normal``."""
    head = name.split("-", 1)[0]
    return head if head in _FAMILIES else name


def game_with_options(name: str, values: Mapping[str, int | str | None]) -> Game:
    """The game ``name`` with the rules in ``values`` (an option left None keeps its default);
    :class:`UnknownGameError` for an option the game does not have."""
    game = find_game(name)
    given = {key: value for key, value in values.items() if value is not None}
    if not given:
        return game
    maker = _FAMILIES.get(family_of(game.name))
    family = maker() if maker is not None else None
    known = [option.name for option in family.options] if family is not None else []
    for key in given:
        if key not in known:
            raise UnknownGameError(f"{game.title} has no rule {key!r} to choose"
                                   + (f"; it has {', '.join(known)}" if known else ""))
    if family is None:
        return game
    return family.make({**family.values(game), **given})


class UnknownGameError(InvalidInputError):
    """No game is registered under that name."""


def game_names() -> list[str]:
    """Every registered game's name, in registration order."""
    return list(_MODULES)


def find_game(name: str) -> Game:
    """The game registered as ``name`` (or an alias); :class:`UnknownGameError` otherwise."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    family = _FAMILIES.get(family_of(key))
    if family is not None and key not in _MODULES:
        variant = family().named(key)
        if variant is None:
            raise UnknownGameError(f"unknown game {name!r}; choose from {', '.join(_MODULES)}")
        return variant
    try:
        module, attr = _MODULES[key]
    except KeyError:
        raise UnknownGameError(f"unknown game {name!r}; choose from {', '.join(_MODULES)}") from None
    game: Game = getattr(importlib.import_module(module), attr)
    return game


PRESET_GAMES: dict[str, str] = {"michie": "tictactoe", "michie-1961": "tictactoe", "rubyquiz": "tictactoe",
                                "gardner": "hexapawn", "classroom": "nim"}
"""The game each preset is for (by its registered name: a preset fits every variant of its game)."""
DEFAULT_PRESETS: dict[str, str] = {"tictactoe": "michie", "hexapawn": "gardner", "nim": "classroom"}
"""The preset a new machine of each game gets unless told otherwise."""
