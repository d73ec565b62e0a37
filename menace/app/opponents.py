"""Who can play a machine: the opponents that fit its game, the one to offer first, and the check
a front end makes before it starts a tournament (so a misfit is refused at once, not after the
tournament has started).
"""

from __future__ import annotations

from dataclasses import dataclass

from menace.app.database import Database
from menace.app.machines import MachineSummary, list_machines
from menace.core.errors import InvalidInputError
from menace.players import all_players, default_opponent, find_player, split_name


@dataclass(frozen=True)
class Opponent:
    """An opponent a front end can offer: its name (as ``menace tournament`` takes it) and what it is."""

    name: str
    description: str
    machine: bool = False
    """Another machine of the database (``menace:NAME``), which learns too."""


@dataclass(frozen=True)
class Opponents:
    """The opponents that fit one machine's game, and the one to choose unless told."""

    machine: str
    game: str
    players: list[Opponent]
    default: str


def opponents_for(db: Database, name: str) -> Opponents:
    """Every player that can play machine ``name``'s game, then the other machines of that game
    (for a Hexapawn machine: no ``smart``, and ``random`` first choice)."""
    machines = list_machines(db)
    me = next((m for m in machines if m.name == name), None)
    if me is None:
        from menace.app.machines import machine_summary

        me = machine_summary(db, name)  # raises the library's one-line "no machine" error
    players = [Opponent(p.name, p.description) for p in all_players(me.game)]
    players += [Opponent(f"menace:{m.name}", f"another machine in this database, {m.name!r}; it learns too", True)
                for m in machines if m.name != name and m.game.name == me.game.name]
    return Opponents(name, me.game.name, players, default_opponent(me.game))


def check_opponent(db: Database, machine: MachineSummary, opponent: str) -> None:
    """Refuse an opponent that cannot play ``machine``'s game (:class:`InvalidInputError`, one line)."""
    base, param = split_name(opponent)
    if base != "menace":
        find_player(opponent, machine.game).check_param(param)
        return
    if not param:
        raise InvalidInputError("name the other machine: menace:NAME")
    other = next((m for m in list_machines(db) if m.name == param), None)
    if other is None:
        raise InvalidInputError(f"no machine {param!r} in this database to play against")
    if other.name == machine.name:
        raise InvalidInputError("a machine cannot play itself here", hint="build a second machine to play against it")
    if other.game.name != machine.game.name:
        raise InvalidInputError(f"machine {param!r} plays {other.game.title}, not {machine.game.title}")
