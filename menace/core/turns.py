"""A game played one move at a time, for a person at the terminal or an operator. Pure.

The caller shows what :meth:`TurnByTurnGame.menace_move` returns (box, turn of the board,
beads, the bead drawn) and passes the person's moves in; :meth:`TurnByTurnGame.finish` applies
the learning rule and returns the ledger, which the caller stores in one transaction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from menace.core.errors import InvalidInputError, known
from menace.core.game import IllegalMoveError, Move, Outcome, Result, Side, State, canonical
from menace.core.learner import WINNER_CODE, Draw, EmptyBoxError, GameRecord, Learner
from menace.core.pegasus import chances


@dataclass(frozen=True)
class MenaceTurn:
    """What MENACE did on one turn."""

    square: Move | None
    """The real square played (None when it resigned)."""
    box_number: int | None = None
    """The box opened (None when the move was forced: one square left, no box)."""
    symmetry: str = "as it is"
    """How to turn or flip the real board so that it matches the box's drawing."""
    box_position: State | None = None
    beads: dict[Move, int] = field(default_factory=dict)
    """The box's beads before the draw, by square of the box's drawing."""
    bead: Move | None = None
    """The bead drawn: a square of the box's drawing."""
    restocked: bool = False
    resigned: bool = False


@dataclass(frozen=True)
class LedgerLine:
    """A box used in the game, the bead colour drawn, and how its count changed."""

    box_number: int
    bead: Move
    before: int
    after: int
    chance_before: float | None = None
    """For a machine of the Pegasus rule (weights of odds, not beads): the move's chance in %, before
    the game was learnt from; None for beads."""
    chance_after: float | None = None
    """...and after."""

    @property
    def change(self) -> int:
        return self.after - self.before


class TurnByTurnGame:
    """One game of a machine against a person (or a physical machine's operator)."""

    def __init__(self, learner: Learner, menace_side: Side, rng: random.Random) -> None:
        if menace_side not in learner.settings.sides:
            raise InvalidInputError(f"this machine has no boxes for {menace_side.name}")
        self.learner = learner
        self.game = learner.game
        self.menace_side = menace_side
        self.rng = rng
        self.state = self.game.initial()
        self.moves: list[Move] = []
        self.drawn: list[Draw] = []
        self.outcome: Outcome | None = None

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def menace_to_move(self) -> bool:
        return not self.over and self.game.to_move(self.state) is self.menace_side

    def _play(self, move: Move) -> None:
        self.state = self.game.play(self.state, move)
        self.moves.append(move)
        self.outcome = self.game.outcome(self.state)

    def menace_move(self) -> MenaceTurn:
        """MENACE opens its box, draws a bead and plays (or resigns on an empty box)."""
        if not self.menace_to_move:
            raise IllegalMoveError("it is not MENACE's turn")
        found = self.learner.box_for(self.state)
        if found is None:
            square, _ = self.learner.draw(self.state, self.rng)
            self._play(square)
            return MenaceTurn(square)
        index, _ = found
        box = self.learner.boxes[index]
        counts = self.learner.counts[index]
        before = {m: counts[m] for m in box.initial}
        sym = canonical(self.game, self.state)[1] if self.learner.settings.symmetry else self.game.symmetries[0]
        restocked = not any(before.values()) and self.learner.refill[index]
        try:
            square, draw = self.learner.draw(self.state, self.rng, len(self.moves))
        except EmptyBoxError:
            self.outcome = Outcome(self.menace_side.other)
            return MenaceTurn(None, box.number, sym.name, box.position, before, resigned=True)
        drawn = known(draw, "the drawn bead")
        self.drawn.append(drawn)
        self._play(square)
        return MenaceTurn(square, box.number, sym.name, box.position, before, drawn.bead, restocked)

    def box_to_open(self) -> tuple[int, str] | None:
        """The box MENACE opens now (index, how to turn the real board), None if forced."""
        if not self.menace_to_move:
            raise IllegalMoveError("it is not MENACE's turn")
        found = self.learner.box_for(self.state)
        if found is None:
            return None
        sym = canonical(self.game, self.state)[1] if self.learner.settings.symmetry else self.game.symmetries[0]
        return found[0], sym.name

    def operator_move(self, bead: Move) -> MenaceTurn:
        """MENACE's move on the physical machine: the operator reports the bead that came out.

        ``bead`` is a square of the box's drawing. It must be one of the box's colours with at
        least one bead in the twin (record a correction first if the real box disagrees).
        """
        opened = self.box_to_open()
        if opened is None:
            square = self.game.legal_moves(self.state)[0]
            self._play(square)
            return MenaceTurn(square)
        index, sym_name = opened
        box = self.learner.boxes[index]
        counts = self.learner.counts[index]
        if bead not in box.initial:
            raise IllegalMoveError(f"box {box.number} has no beads of that colour")
        if counts[bead] <= 0:
            raise IllegalMoveError(f"box {box.number} has no beads of that colour left, says the twin")
        before = {m: counts[m] for m in box.initial}
        found = known(self.learner.box_for(self.state), "the box for this position")
        real = found[1][bead]
        self.drawn.append(Draw(index, bead, len(self.moves)))
        self._play(real)
        return MenaceTurn(real, box.number, sym_name, box.position, before, bead)

    def resign(self) -> MenaceTurn:
        """The box is empty (on the real machine too): MENACE resigns."""
        opened = self.box_to_open()
        number = self.learner.boxes[opened[0]].number if opened else None
        self.outcome = Outcome(self.menace_side.other)
        return MenaceTurn(None, number, resigned=True)

    def person_move(self, move: Move) -> None:
        """The other side's move; :class:`IllegalMoveError` if the square is taken."""
        if self.over:
            raise IllegalMoveError("the game is over")
        if self.menace_to_move:
            raise IllegalMoveError("it is MENACE's turn")
        if move not in self.game.legal_moves(self.state):
            name = self.game.move_name(move)
            if self.game.move_cells(move)[0] is None:  # a game that places pieces: the cell is taken
                raise IllegalMoveError(f"{name} is taken; choose an empty square")
            raise IllegalMoveError(f"{name} is not a legal move here")
        self._play(move)

    @property
    def result(self) -> Result:
        if self.outcome is None:
            raise ValueError("the game is not over")
        return self.outcome.for_side(self.menace_side)

    def finish(self, learn: bool = True) -> list[LedgerLine]:
        """Apply the learning rule to the engine; the ledger of every bead drawn. With ``learn``
        false (a frozen machine) nothing changes and the ledger is empty."""
        if not learn:
            return []
        counts = self.learner.counts
        before = {(d.box, d.bead): counts[d.box][d.bead] for d in self.drawn}
        odds = self.learner.pegasus is not None
        chances_before = {d.box: chances(counts[d.box]) for d in self.drawn} if odds else {}
        self.learner.reinforce(self.drawn, self.result, len(self.moves))
        seen: set[tuple[int, int]] = set()
        ledger = []
        for d in self.drawn:
            key = (d.box, d.bead)
            if key in seen:
                continue
            seen.add(key)
            line = LedgerLine(d.box + 1, d.bead, before[key], counts[d.box][d.bead])
            if odds:
                line = replace(line, chance_before=chances_before[d.box][d.bead],
                               chance_after=chances(counts[d.box])[d.bead])
            ledger.append(line)
        return ledger

    def record(self) -> GameRecord:
        outcome = known(self.outcome, "the finished game's outcome")
        return GameRecord(self.menace_side, list(self.moves), WINNER_CODE[outcome.winner])
