"""A stand-in for ``menace.app.session.PlaySession`` (the interface announced for main), built on
the library's TurnByTurnGame, so the browser's play routes can be tested before it lands."""

from __future__ import annotations

import random
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from menace.app.machines import open_machine
from menace.app.shelf import shelf_place
from menace.core.game import Side
from menace.core.turns import TurnByTurnGame


@dataclass
class BoxToOpen:
    box_number: int
    shelf_place: str
    symmetry: str
    box_position: tuple[int, ...]
    beads: dict[int, int]


@dataclass
class GameEnd:
    result: Any
    ledger: list[Any]
    game_number: int


class PlaySession:
    @classmethod
    def open(cls, url: str, machine: str, *, holder: str, menace_side: Side | None = None,
             seed: int | None = None, operated: bool = False) -> PlaySession:
        return cls(url, machine, holder, menace_side, seed, operated)

    def __init__(self, url: str, machine: str, holder: str, side: Side | None, seed: int | None,
                 operated: bool) -> None:
        self._stack = ExitStack()
        self.m = self._stack.enter_context(open_machine(url, machine, holder=holder))
        self.machine = machine
        self.menace_side = side or self.m.engine.settings.sides[0]
        self.g = TurnByTurnGame(self.m.engine, self.menace_side, random.Random(seed))
        self.operated = operated

    @property
    def state(self) -> tuple[int, ...]:
        return self.g.state

    @property
    def moves(self) -> list[int]:
        return self.g.moves

    @property
    def over(self) -> bool:
        return self.g.over

    @property
    def menace_to_move(self) -> bool:
        return self.g.menace_to_move

    def legal_moves(self) -> tuple[int, ...]:
        return self.g.game.legal_moves(self.g.state)

    def menace_move(self) -> Any:
        return self.g.menace_move()

    def box_to_open(self) -> BoxToOpen | None:
        found = self.g.box_to_open()
        if found is None:
            return None
        index, sym = found
        box = self.m.engine.boxes[index]
        counts = self.m.engine.counts[index]
        return BoxToOpen(box.number, str(shelf_place(self.m.engine.boxes, box.number)), sym, box.position,
                         {mv: counts[mv] for mv in box.initial})

    def operator_move(self, bead: int) -> Any:
        return self.g.operator_move(bead)

    def other_move(self, move: int) -> None:
        self.g.person_move(move)

    def finish(self) -> GameEnd:
        ledger = self.g.finish()
        run = self.m.start_run("operate" if self.operated else "play", "operator" if self.operated else "person", None)
        self.m.save(run, [self.g.record()], end_run=True)
        return GameEnd(self.g.result, ledger, self.m.games_played)

    def abandon(self) -> None:
        self.m.discard_unsaved()

    def close(self) -> None:
        self._stack.close()
