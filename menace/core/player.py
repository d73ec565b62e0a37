"""The one protocol every player keeps, from a random mover to a stored MENACE."""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from menace.core.game import Move, Outcome, State


@runtime_checkable
class Player(Protocol):
    """Anything that can take a turn: choose a move; hear the outcome."""

    name: str

    def choose(self, state: State, rng: random.Random) -> Move: ...

    def game_over(self, state: State, outcome: Outcome) -> None: ...
