"""One game of a stored machine, turn by turn: the use case every front end plays through.

A :class:`PlaySession` opens a machine under a lease (renewed by a heartbeat while it waits for
a person, however long), takes MENACE's turns and the other side's, and at the end stores the
game and its reinforcement in one transaction that proves the lease. ``menace play`` and
``menace operate`` are thin loops over it; the web front end holds one across requests.

Nothing is stored until :meth:`PlaySession.finish`; :meth:`PlaySession.abandon` (or closing a
session that did not finish) leaves the machine as it was.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType

from menace.app.database import Database
from menace.app.machines import OpenMachine, open_machine, refuse_without_beads
from menace.app.shelf import shelf_place
from menace.core.errors import ConflictError, InvalidInputError, known
from menace.core.game import Game, IllegalMoveError, Move, Result, Side, State
from menace.core.learner import GameRecord
from menace.core.settings import EmptyPolicy
from menace.core.turns import LedgerLine, MenaceTurn, TurnByTurnGame
from menace.storage.repository import StoredMachine


class OpeningBoxEmptyError(ConflictError):
    """A box for MENACE's first move is empty under ``resign``: it would resign every game."""

    def __init__(self, message: str, hint: str | None = None, *, stored: StoredMachine | None = None,
                 boxes: Sequence[int] = (), of: int = 1) -> None:
        super().__init__(message, hint)
        self.stored = stored
        """The machine, so that a front end can say how to rebuild it with its own settings."""
        self.boxes = list(boxes)
        """The empty boxes' numbers."""
        self.of = of
        """How many boxes the side's first move has."""


class TwinDisagreesError(ConflictError):
    """The operator drew a colour the database says the box has run out of."""


@dataclass(frozen=True)
class MenaceMove:
    """What MENACE did on one turn (see :class:`~menace.core.turns.MenaceTurn`), with names."""

    turn: MenaceTurn
    move_name: str | None
    """The real move, as people write it (None when MENACE resigned)."""

    @property
    def box_number(self) -> int | None:
        return self.turn.box_number

    @property
    def resigned(self) -> bool:
        return self.turn.resigned


@dataclass(frozen=True)
class BoxToOpen:
    """For an operated game: the box the operator opens now and how to hold the board."""

    box_number: int
    shelf: str
    """Where it stands, e.g. "move 2 shelf, row 1, place 3 from the left"."""
    symmetry: str
    """How to turn or flip the real board to match the box's drawing."""
    position: State
    beads: dict[Move, int]
    """What the database says the box holds now, by bead."""

    @property
    def empty(self) -> bool:
        return not any(self.beads.values())


@dataclass(frozen=True)
class GameEnd:
    """A finished, stored game: the result for MENACE and every bead the result changed."""

    result: Result
    winner: Side | None
    ledger: list[LedgerLine]
    game_number: int
    """Its number in the machine's history."""
    record: GameRecord


Listener = Callable[[str, object], None]
"""Hears ``("menace", MenaceMove)``, ``("other", move)`` and ``("end", GameEnd)`` as they happen."""


@dataclass
class PlaySession:
    """One game of a stored machine against a person, or on a physical machine (``operated``)."""

    machine: OpenMachine
    menace_side: Side
    rng: random.Random
    operated: bool = False
    listeners: list[Listener] = field(default_factory=list)
    frozen: bool = False
    """The machine plays without learning: the game is stored, marked so, and changes no bead."""
    _closer: Callable[[], None] | None = None
    corrected_boxes: list[int] = field(default_factory=list)
    """Boxes whose count the operator corrected in this game (stored at once, kept if it is abandoned)."""
    _end: GameEnd | None = None

    def __post_init__(self) -> None:
        self.turns = TurnByTurnGame(self.machine.learner, self.menace_side, self.rng)

    # -- opening and closing ------------------------------------------------------------------
    @classmethod
    def open(cls, db: Database, machine: str, *, holder: str, menace_side: Side | None = None,
             seed: int | None = None, operated: bool = False, frozen: bool = False) -> PlaySession:
        """Take the machine's lease and start a game; :meth:`close` gives the lease back.

        ``menace_side`` is needed only for a machine that plays both sides; for a one-sided
        machine it must be that side. Refused at once if another holder has the machine, and
        (under ``resign``) if the box for MENACE's first move is empty. ``frozen``: the machine plays
        without learning (not for an operated game: a physical machine's operator reinforces it).
        """
        if frozen and operated:
            raise InvalidInputError("an operated game is played on the physical machine, which learns as its "
                                    "operator reinforces it: it cannot be played without learning")
        context = open_machine(db, machine, holder=holder)
        opened = context.__enter__()
        try:
            if operated:
                refuse_without_beads(opened.learner.settings, machine, "matchbox machine to operate")
            sides = opened.learner.settings.sides
            if menace_side is None:
                if len(sides) > 1:
                    raise InvalidInputError(f"machine {machine!r} plays both sides: say which one MENACE takes")
                menace_side = sides[0]
            if menace_side not in sides:
                game = opened.game
                raise InvalidInputError(
                    f"machine {machine!r} plays {'/'.join(side_name(game, s) for s in sides)} only, "
                    f"so MENACE cannot be {side_name(game, menace_side)}"
                )
            learner = opened.learner
            if learner.opening_empty(menace_side):
                first = learner.first_boxes(menace_side)
                empty = [learner.boxes[i].number for i in first if not any(learner.counts[i])]
                raise OpeningBoxEmptyError(
                    f"box {', '.join(map(str, empty))} of {machine!r}, for MENACE's first move, is empty: "
                    f"under 'resign' MENACE resigns every game that reaches it",
                    hint="refill it with a recount, rebuild the machine, or use another empty-box policy",
                    stored=opened.stored, boxes=empty, of=len(first),
                )
        except BaseException:
            context.__exit__(None, None, None)
            raise
        def closer() -> None:
            context.__exit__(None, None, None)

        return cls(opened, menace_side, random.Random(seed), operated, frozen=frozen, _closer=closer)

    def close(self) -> None:
        """Give the machine back; an unfinished game is abandoned (nothing stored)."""
        if self._end is None:
            self.machine.discard_unsaved()
        if self._closer is not None:
            closer, self._closer = self._closer, None
            closer()

    def __enter__(self) -> PlaySession:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # -- the game -------------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.machine.game

    @property
    def name(self) -> str:
        return self.machine.name

    @property
    def state(self) -> State:
        return self.turns.state

    @property
    def moves(self) -> list[Move]:
        return self.turns.moves

    @property
    def over(self) -> bool:
        return self.turns.over

    @property
    def finished(self) -> GameEnd | None:
        """The stored game, once :meth:`finish` has run."""
        return self._end

    @property
    def menace_to_move(self) -> bool:
        return self.turns.menace_to_move

    def legal_moves(self) -> tuple[Move, ...]:
        return () if self.over else self.game.legal_moves(self.state)

    def _tell(self, what: str, value: object) -> None:
        for listener in self.listeners:
            listener(what, value)

    def _named(self, turn: MenaceTurn) -> MenaceMove:
        move = MenaceMove(turn, None if turn.square is None else self.game.move_name(turn.square))
        self._tell("menace", move)
        return move

    def menace_move(self) -> MenaceMove:
        """MENACE opens its box, draws a bead and plays (or resigns on an empty box)."""
        return self._named(self.turns.menace_move())

    def other_move(self, move: Move) -> None:
        """The other side's move (a person's, or typed by an operator)."""
        self.turns.person_move(move)
        self._tell("other", move)

    def parse_move(self, text: str) -> Move:
        """A move typed by a person (:meth:`other_move` checks it against the position)."""
        return self.game.parse_move(text)

    # -- a physical machine -----------------------------------------------------------------
    def box_to_open(self) -> BoxToOpen | None:
        """The box the operator opens now (None: MENACE's move is forced, no box)."""
        opened = self.turns.box_to_open()
        if opened is None:
            return None
        index, symmetry = opened
        learner = self.machine.learner
        box = learner.boxes[index]
        counts = learner.counts[index]
        place = shelf_place(learner.boxes, box.number, names=learner.game.side_names)
        return BoxToOpen(box.number, str(place), symmetry, box.position, {m: counts[m] for m in box.initial})

    @property
    def keeps_odds(self) -> bool:
        """The machine learns by the Pegasus rule: its boxes hold odds (weights), not beads."""
        return self.machine.learner.settings.pegasus is not None

    @property
    def resigns_on_empty(self) -> bool:
        """An empty box means MENACE resigns (rather than being refilled)."""
        return self.machine.learner.settings.empty_policy in (EmptyPolicy.RESIGN, EmptyPolicy.REVIVE)

    def operator_move(self, bead: Move | None = None, confirm_empty: bool = False) -> MenaceMove:
        """MENACE's move on the physical machine: the operator reports the bead that came out.

        ``bead`` is a bead of the box (a move of its drawing); None for a forced move. When the
        database says the box has none of that colour left, :class:`TwinDisagreesError` is
        raised unless ``confirm_empty``: then the database is corrected at once (one bead of
        that colour, recorded as a correction, kept whatever becomes of the game: the real box
        held it) and the move is played.
        """
        opened = self.box_to_open()
        if opened is None:
            return self._named(self.turns.operator_move(0))
        if bead is None or bead not in opened.beads:
            raise IllegalMoveError(f"box {opened.box_number} holds no beads of that colour")
        if opened.beads[bead] <= 0:
            if not confirm_empty:
                raise TwinDisagreesError(f"the database says box {opened.box_number} has none of that colour left")
            index = opened.box_number - 1
            why = (f"the operator drew bead {self.game.move_name(bead)} from box {opened.box_number}, "
                   f"which the twin had as empty")
            self.machine.correct(index, {bead: 1}, why)
            self.corrected_boxes.append(opened.box_number)
        return self._named(self.turns.operator_move(bead))

    def resign(self) -> MenaceMove:
        """The real box is empty too: MENACE resigns."""
        return self._named(self.turns.resign())

    # -- the end ------------------------------------------------------------------------------
    def finish(self) -> GameEnd:
        """Apply the learning rule and store the game with it, in one transaction.

        Raises :class:`~menace.storage.leases.LeaseLostError` (and stores nothing; the learner
        is put back) if another writer took the machine over meanwhile: :attr:`record` still
        holds the game for the person.
        """
        if self._end is not None:
            return self._end
        if not self.over:
            raise IllegalMoveError("the game is not over")
        ledger = self.turns.finish(learn=not self.frozen)
        record = self.turns.record()
        m = self.machine
        try:
            run = m.start_run("operate" if self.operated else "play", "operator" if self.operated else "person", None,
                              self.frozen)
            m.save(run, [record], end_run=True)
        except BaseException:
            m.discard_unsaved()
            raise
        outcome = known(self.turns.outcome, "the finished game's outcome")
        self._end = GameEnd(self.turns.result, outcome.winner, ledger, m.games_played, record)
        self._tell("end", self._end)
        return self._end

    def record(self) -> GameRecord | None:
        """The game so far as a record, once it is over (to keep it if it cannot be stored)."""
        return self.turns.record() if self.over else None

    def abandon(self) -> None:
        """Give up the game: nothing is reinforced and nothing is stored."""
        self.close()


def side_name(game: Game, side: Side) -> str:
    """How the game calls a side: X and O in noughts and crosses, White and Black in Hexapawn."""
    return game.side_names[side]
