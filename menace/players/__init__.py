"""Players and opponents behind one small interface, found by name in a registry.

A :class:`Player` chooses a move for a position and hears how the game ended. A
:class:`RulePlayer` is a player whose choice depends on the position alone (uniform among a
set of equally good moves); tournaments tabulate such players once and play them at full speed.

>>> find_player("smart").name
'smart'
"""

from __future__ import annotations

from menace.core.player import Player
from menace.players.base import PlayerParamError, PlayerSpec, RulePlayer, UnknownPlayerError, split_name
from menace.players.registry import all_players, default_opponent, find_player, register, training_opponent

__all__ = ["Player", "PlayerParamError", "PlayerSpec", "RulePlayer", "UnknownPlayerError", "all_players",
           "default_opponent", "find_player", "register", "split_name", "training_opponent"]
