"""How a machine is built and how it learns: :class:`Settings`, the named presets (Michie's, Gardner's
for Hexapawn, the classroom's for Nim, ...) and the parsing of settings written as text. Pure, no I/O.

>>> find_preset("michie-1961").describe()["reinforcement"]
'+3 win, +1 draw, -1 loss'
>>> parse_schedule("4,3,2,1")
(4, 3, 2, 1)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, replace

from menace.core.errors import InvalidInputError
from menace.core.game import Result, Side
from menace.core.pegasus import UNIT, PegasusRule


class SettingsError(InvalidInputError):
    """Machine settings that make no sense (a bad schedule, an unknown preset, ...)."""


class EmptyPolicy(enum.Enum):
    """What happens when MENACE opens a box with no beads left."""

    RESIGN = "resign"
    """MENACE resigns: the game is a loss (Michie's machine)."""
    RESTOCK = "restock"
    """The box is refilled with its initial beads and MENACE draws from it."""
    KEEP_LAST = "keep-last"
    """A loss never takes a box's last bead, so no box ever empties."""
    REVIVE = "revive"
    """MENACE resigns on an empty box, except a box for its first move, which is refilled with its
    initial beads (as Michie's operators revived the opening box): training never stalls."""


class Scope(enum.Enum):
    """Which beads a game's result reinforces."""

    EVERY = "every"
    """Every bead drawn in the game (Michie)."""
    LAST = "last"
    """Only the bead of the machine's last move (Gardner's Hexapawn)."""


SIDE_CHOICES = {"X": (Side.X,), "O": (Side.O,), "both": (Side.X, Side.O)}

SIDE_WORDS = {"x": "X", "o": "O", "both": "both", "first": "X", "second": "O", "white": "X", "black": "O",
              "him": "X", "her": "O"}
"""Ways to name the side a machine is built for (a key of :data:`SIDE_CHOICES`): the mark, first or
second, Hexapawn's colours and Gardner's names."""

ONE_SIDE_WORDS = {"x": Side.X, "first": Side.X, "white": Side.X, "o": Side.O, "second": Side.O, "black": Side.O}
"""The words a person may use for one side of a game (a tournament's): the mark, the order of play,
or Hexapawn's colour."""


@dataclass(frozen=True)
class Settings:
    """How a machine is built and how it learns."""

    side: str = "X"
    """``X`` (MENACE moves first), ``O`` (second) or ``both``."""
    schedule: tuple[int, ...] = (4, 3, 2, 1)
    """Initial beads per move for MENACE's 1st, 2nd, ... move: one number per move with a box, or one
    number for every move."""
    win: int = 3
    draw: int = 1
    loss: int = -1
    all_squares: bool = False
    """Beads for every legal move, instead of only moves distinct under the box's symmetry."""
    symmetry: bool = True
    """One box per position up to rotation and reflection; off: one box per raw position."""
    empty_policy: EmptyPolicy = EmptyPolicy.RESIGN
    scope: Scope = Scope.EVERY
    """Which beads the result reinforces: every bead drawn, or only the last."""
    forced_boxes: bool = False
    """Boxes also for positions with a single legal move (published Hexapawn kits have them)."""
    pegasus: PegasusRule | None = None
    """The learning rule of Michie and Martin's Pegasus program (odds per move, see
    :mod:`menace.core.pegasus`) instead of beads; None: the matchbox machine's beads."""

    def __post_init__(self) -> None:
        if self.side not in SIDE_CHOICES:
            raise SettingsError(f"side must be X, O or both, not {self.side!r}")
        if not self.schedule or any(n < 1 for n in self.schedule):
            raise SettingsError("every move needs at least one bead per colour at the start")

    @property
    def sides(self) -> tuple[Side, ...]:
        return SIDE_CHOICES[self.side]

    @property
    def keeps_mean(self) -> bool:
        """The machine learns by the refined Pegasus rule, whose state is a mean outcome besides the
        odds: its history keeps every game and no checkpoint of odds alone (a checkpoint would lack it)."""
        return self.pegasus is not None and self.pegasus.refined

    @property
    def rule_name(self) -> str:
        """``michie`` (beads) or ``pegasus`` (odds)."""
        return "michie" if self.pegasus is None else "pegasus"

    @property
    def curve_values(self) -> tuple[int, int, int]:
        """What a win, a draw and a loss add to the machine's cumulative learning curve: the beads added
        per bead drawn, or, under the Pegasus rule (odds, not beads), the outcome, +1, 0 or -1."""
        return (1, 0, -1) if self.pegasus is not None else (self.win, self.draw, self.loss)

    def delta(self, result: Result) -> int:
        """Beads added (negative: taken) for each bead drawn in a game with this result."""
        return {Result.WIN: self.win, Result.DRAW: self.draw, Result.LOSS: self.loss}[result]

    def beads_for_move(self, move_number: int) -> int:
        if self.pegasus is not None:
            return UNIT  # equal odds for every move
        return self.schedule[min(move_number, len(self.schedule)) - 1]  # a single number serves every move

    def describe(self) -> dict[str, str]:
        """The settings as short strings, for people."""
        if self.pegasus is not None:
            return {
                "side": self.side,
                "rule": self.pegasus.describe(),
                "odds on": "every legal move" if self.all_squares else "moves distinct under symmetry",
                "boxes": "one per position up to symmetry" if self.symmetry else "one per raw position",
            }
        return {
            "side": self.side,
            "initial beads": format_numbers(self.schedule),
            "reinforcement": f"{self.win:+d} win, {self.draw:+d} draw, {self.loss:+d} loss",
            "beads on": "every empty square" if self.all_squares else "moves distinct under symmetry",
            "boxes": "one per position up to symmetry" if self.symmetry else "one per raw position",
            "empty box": self.empty_policy.value,
            "reinforced": "every bead drawn" if self.scope is Scope.EVERY else "the last bead drawn only",
        }


MICHIE_1961 = Settings()
"""Michie's machine exactly as he ran it in 1961: 4,3,2,1 beads, +3/+1/-1, and an empty box resigns,
the opening box too (then every game is resigned until somebody refills it)."""
MICHIE = replace(MICHIE_1961, empty_policy=EmptyPolicy.REVIVE)
"""Michie's machine as its operators kept it going: the same, but an empty opening box is refilled
with its first beads, so that a training run never stalls at game 20."""
RUBYQUIZ = Settings(
    schedule=(4, 3, 2, 1), win=2, draw=0, loss=-1, all_squares=True, symmetry=False,
    empty_policy=EmptyPolicy.KEEP_LAST,
)
GARDNER = Settings(
    side="O", schedule=(1,), win=0, draw=0, loss=-1, empty_policy=EmptyPolicy.RESIGN, scope=Scope.LAST,
    forced_boxes=True,
)
"""Gardner's HER for Hexapawn: one bead per move, nothing added after a win, after a loss only the
bead of the last move taken away, an empty box resigns (its previous move's bead is still taken)."""
CLASSROOM = Settings(
    side="both", schedule=(1,), win=0, draw=0, loss=-1, empty_policy=EmptyPolicy.REVIVE, scope=Scope.LAST,
)
"""The Nim machine a class builds: one cup per heap size serving both sides, one bead per move, and
Gardner's rule (after a loss the bead that lost is taken out, nothing else changes): every bead a
pupil takes out is a move that lost, so the cups are easy to read, and an empty cup is a heap the
machine has found it cannot win from, so it resigns there; a cup for its first move is refilled
instead (21 sticks is a lost heap for whoever starts, and the class still wants to play)."""
PRESETS: dict[str, Settings] = {"michie": MICHIE, "michie-1961": MICHIE_1961, "rubyquiz": RUBYQUIZ,
                                 "gardner": GARDNER, "classroom": CLASSROOM}


def find_preset(name: str) -> Settings:
    """The named preset; :class:`SettingsError` naming the known ones otherwise."""
    try:
        return PRESETS[name.lower()]
    except KeyError:
        raise SettingsError(f"unknown preset {name!r}; choose from {', '.join(PRESETS)}") from None


MAX_BEADS = 1_000_000
"""The most beads any setting may name: more than any real machine and well inside a database integer."""


def format_numbers(values: Iterable[int]) -> str:
    return ",".join(str(v) for v in values)


def parse_numbers(text: str, count: int | None = None, what: str = "list") -> tuple[int, ...]:
    """``"4,3,2,1"`` -> ``(4, 3, 2, 1)``; :class:`SettingsError` on anything else."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise SettingsError(f"{what} {text!r} is not a comma-separated list of whole numbers") from None
    if count is not None and len(values) != count:
        raise SettingsError(f"{what} {text!r} needs exactly {count} numbers")
    if any(abs(v) > MAX_BEADS for v in values):
        raise SettingsError(f"{what} {text!r}: keep each number within {MAX_BEADS:,} beads")
    return values


def parse_schedule(text: str) -> tuple[int, ...]:
    values = parse_numbers(text, what="schedule")
    if any(v < 1 for v in values):
        raise SettingsError(f"schedule {text!r}: every move needs at least 1 bead per colour")
    return values


def parse_reinforcement(text: str) -> tuple[int, int, int]:
    win, draw, loss = parse_numbers(text, 3, what="reinforcement (win,draw,loss)")
    return win, draw, loss
