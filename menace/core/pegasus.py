"""The rule of Michie and Martin's Pegasus 2 program: odds multiplied, not beads counted. Pure, no I/O.

Donald Michie, "Experiments on the mechanization of game-learning. Part 1. Characterization of the
model and its parameters", *The Computer Journal* 6(3), 1963, pp. 232-236, describes besides the
matchbox machine the program he and D. J. M. Martin wrote for a Ferranti Pegasus 2 to simulate it.
Each box holds, for each distinct move, its odds of being chosen. After a play every move the machine
made has its odds multiplied by ``M_n`` after a win and by ``1/M_n`` after a defeat; a draw leaves
them. ``n`` counts back from the end of the play (its last move has ``n = 1``, both sides' moves
counted) and ``M_n = A ** (B ** (8 - n))``: with A = 1.025 and B = 2, M_8 = 1.025, M_2 = 4.856 and
M_1 is infinite.

Multiplying one move's odds ``p / (1 - p)`` by ``M`` while the other moves keep their ratios is the
same as multiplying a weight of that move by ``M``, its chance being its weight over the box's sum:
the paper's 2/5 and 3/5 become 4/7 and 3/7 after a win with M = 2.

How the odds are kept, exactly
------------------------------
A weight is ``M_1 ** level * A ** log``: a move that won at once (``M_1``, infinite) is certain,
``level`` says how many times, and among the moves of the highest level of a box the chances follow
``A ** log``. Every factor is a power of A (or of M_1), so a reinforcement only adds to ``log`` (or
``level``): the rule is integer arithmetic, on integers in fixed units (:attr:`PegasusRule.scale`),
and a replay of the games gives back the very same numbers. The refined rule of Table 3 raises each
factor to a power built from the decayed average ``mu`` of past outcomes; ``mu`` is kept on a grid
of 2**-32 (rounded half to even after each update), so it too is exact and replays to the bit.
Stored and exported, a move's odds are two exact fractions: ``level`` and ``log`` in units of A.

>>> from menace.games import find_game
>>> rule = PegasusRule()
>>> [f"{rule.multiplier(n):.3f}" for n in range(8, 1, -1)]  # Fig. 6 prints 1.484 and 4.856 for M_4, M_2
['1.025', '1.051', '1.104', '1.218', '1.485', '2.204', '4.857']
>>> rule.multiplier(1)
inf
"""

from __future__ import annotations

import enum
import math
import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import NamedTuple

from menace.core.errors import InvalidInputError
from menace.core.game import Game, IllegalMoveError, Move, Side, State
from menace.core.learner import (
    DRAWN,
    O_WINS,
    X_WINS,
    Box,
    EmptyPolicy,
    GameRecord,
    OpponentRow,
    Scope,
    Settings,
    StopSignal,
    _layout,
    _opponent_rows_of,
)
from menace.core.tree import game_tree

GRID = 1 << 32
"""``mu`` and every power of a multiplier are kept in units of 1/2**32."""


class PegasusSettingsError(InvalidInputError):
    """Pegasus-rule parameters that make no sense (A not above 1, a decay outside 0..1, ...)."""


class Refinement(enum.Enum):
    """Whether, and how, the reinforcement depends on past outcomes (the paper's Table 3)."""

    NONE = "none"
    """The trial runs' rule: ``M_n`` after a win, ``1/M_n`` after a defeat, nothing after a draw."""
    PER_HUNDRED = "per-100"
    """Table 3 as Michie's program applied it: ``mu`` decays once per set of one hundred plays,
    towards that set's average outcome (an approximation)."""
    PER_PLAY = "per-play"
    """Table 3's ideal: ``mu`` decays after every play, towards that play's outcome."""


def parse_fraction(text: str, what: str) -> Fraction:
    """``"1.025"`` -> ``Fraction(41, 40)``, exactly; :class:`PegasusSettingsError` otherwise."""
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise PegasusSettingsError(f"{what} {text!r} is not a number") from None
    if value.numerator.bit_length() > 64 or value.denominator.bit_length() > 64:
        raise PegasusSettingsError(f"{what} {text!r} has too many digits")
    return value


def fraction_text(value: Fraction) -> str:
    """A fraction as it is stored: ``"41/40"``, ``"2"``, ``"-3/2"`` (a decimal when it is short)."""
    return str(value)


@dataclass(frozen=True)
class PegasusRule:
    """The parameters of the Pegasus program's learning rule."""

    a: Fraction = Fraction(41, 40)
    """A: ``M_8 = A``, the smallest multiplier (1.025 in the trial runs)."""
    b: Fraction = Fraction(2)
    """B: each step nearer the end of the play raises the multiplier to the power B (2 in the runs)."""
    refinement: Refinement = Refinement.NONE
    decay: Fraction = Fraction(1, 2)
    """D of Table 3: ``mu <- D * mu + (1 - D) * outcome`` (only used by a refinement)."""
    longest: int = 9
    """The most moves a play of the game can have (9 for tic-tac-toe); fixes :attr:`scale`."""

    def __post_init__(self) -> None:
        if self.a <= 1:
            raise PegasusSettingsError(f"A must be above 1, not {self.a}")
        if self.a > 1000:
            raise PegasusSettingsError(f"A must be at most 1000, not {self.a}")
        if not 0 < self.b <= 100:
            raise PegasusSettingsError(f"B must be above 0 and at most 100, not {self.b}")
        if not 0 <= self.decay < 1:
            raise PegasusSettingsError(f"the decay D must be at least 0 and below 1, not {self.decay}")

    @property
    def scale(self) -> int:
        """Units of ``log`` per power of A: every ``B ** (8 - n)`` times it is a whole number."""
        s = 1
        for n in range(2, max(self.longest, 2) + 1):
            s = math.lcm(s, (self.b ** (8 - n)).denominator)
        return s * GRID

    def exponent(self, n: int) -> Fraction:
        """``log_A(M_n) = B ** (8 - n)``, for ``n >= 2``."""
        return self.b ** (8 - n)

    def multiplier(self, n: int) -> float:
        """``M_n`` as a float (``inf`` for n = 1)."""
        if n <= 1:
            return math.inf
        try:
            value: float = float(self.a) ** float(self.exponent(n))
            return value
        except OverflowError:
            return math.inf

    def describe(self) -> dict[str, str]:
        """The rule in short strings, for people."""
        out = {"rule": "pegasus (odds multiplied by M_n = A^(B^(8-n)))",
               "A": _decimal(self.a), "B": _decimal(self.b)}
        if self.refinement is Refinement.NONE:
            out["refinement"] = "none: M_n after a win, 1/M_n after a defeat, a draw leaves the odds"
        else:
            how = ("mu decays once per 100 plays (Michie's approximation)" if self.refinement
                   is Refinement.PER_HUNDRED else "mu decays after every play (the ideal)")
            out["refinement"] = f"Table 3 ({self.refinement.value}): {how}, D = {_decimal(self.decay)}"
        return out


def _decimal(value: Fraction) -> str:
    """A fraction as a short decimal when it has one (``1.025``), else as ``p/q``."""
    d = value.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d != 1:
        return str(value)
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
    return f"{float(value):.{digits}f}" if digits <= 15 else str(value)


def rule_params_text(rule: PegasusRule) -> str:
    """The rule as stored with a machine: ``a=41/40 b=2 refinement=none decay=1/2 longest=9``."""
    return (f"a={rule.a} b={rule.b} refinement={rule.refinement.value} decay={rule.decay} "
            f"longest={rule.longest}")


def parse_rule_params(text: str) -> PegasusRule:
    """The inverse of :func:`rule_params_text`; :class:`PegasusSettingsError` on anything else."""
    try:
        fields = dict(part.split("=", 1) for part in text.split())
        if set(fields) != {"a", "b", "refinement", "decay", "longest"}:
            raise ValueError
        return PegasusRule(a=Fraction(fields["a"]), b=Fraction(fields["b"]),
                           refinement=Refinement(fields["refinement"]), decay=Fraction(fields["decay"]),
                           longest=int(fields["longest"]))
    except (ValueError, ZeroDivisionError):
        raise PegasusSettingsError(f"the Pegasus rule's parameters {text[:80]!r} cannot be read") from None


def pegasus_settings_of(settings: Settings) -> Settings:
    """A machine's bead settings as a Pegasus machine keeps them: its shape (side, symmetry, moves) and
    one bead per move, which never changes (the odds do the learning)."""
    return replace(settings, schedule=(1,), win=0, draw=0, loss=0, empty_policy=EmptyPolicy.RESTOCK,
                   scope=Scope.EVERY)


TRIAL_RUNS = PegasusRule()
"""The rule of the paper's trial runs (Figs. 7 to 9): A = 1.025, B = 2, no refinement."""


class Odds(NamedTuple):
    """One move's odds in a box, exactly: its weight is ``M_1 ** level * A ** log``."""

    level: Fraction
    log: Fraction

    def text(self) -> str:
        """As stored and exported: ``"0 -3/2"`` (level, then log)."""
        return f"{self.level} {self.log}"

    @classmethod
    def parse(cls, text: str) -> Odds:
        """The inverse of :meth:`text`; :class:`ValueError` on anything else."""
        parts = text.split()
        if len(parts) != 2:
            raise ValueError(f"odds {text!r} are not two numbers")
        level, log = (Fraction(p) for p in parts)
        if max(level.numerator.bit_length(), log.numerator.bit_length()) > 256:
            raise ValueError(f"odds {text!r} are out of range")
        return cls(level, log)


EVEN = Odds(Fraction(0), Fraction(0))
"""A move's odds in a new box: every distinct move of a box is as likely as the others."""


@dataclass
class Memory:
    """The refined rule's memory: ``mu`` (in units of 1/2**32) and the current set of plays."""

    mu: int = 0
    plays: int = 0
    """Plays of the current set of one hundred so far (the per-100 approximation only)."""
    total: int = 0
    """Their outcomes summed (win +1, draw 0, defeat -1)."""

    def text(self) -> str:
        return f"{self.mu} {self.plays} {self.total}"

    @classmethod
    def parse(cls, text: str) -> Memory:
        parts = text.split()
        if len(parts) != 3:
            raise ValueError(f"memory {text!r} is not three whole numbers")
        mu, plays, total = (int(p) for p in parts)
        if not (-GRID <= mu <= GRID and 0 <= plays < 100 and abs(total) <= plays):
            raise ValueError(f"memory {text!r} is out of range")
        return cls(mu, plays, total)

    @property
    def mean(self) -> Fraction:
        """``mu`` itself, between -1 and 1."""
        return Fraction(self.mu, GRID)


def multiply_chances(chances: Sequence[Fraction], move: int, m: Fraction) -> list[Fraction]:
    """The chances after one move's odds ``p / (1 - p)`` are multiplied by ``m`` while the other moves
    keep their ratios (the paper's worked example):

    >>> multiply_chances([Fraction(2, 5), Fraction(3, 5)], 0, Fraction(2))
    [Fraction(4, 7), Fraction(3, 7)]
    """
    p = chances[move]
    total = m * p + (1 - p)
    return [(m * c if i == move else c) / total for i, c in enumerate(chances)]


def chances(odds: Sequence[Odds], log_a: float) -> list[float]:
    """Each move's chance of being chosen, from its odds (``log_a``: the natural log of A)."""
    if not odds:
        return []
    top = max(o.level for o in odds)
    best = max(o.log for o in odds if o.level == top)
    weights = [math.exp(float(o.log - best) * log_a) if o.level == top else 0.0 for o in odds]
    total = sum(weights)
    return [w / total for w in weights]


class PegasusLearner:
    """A machine's boxes under the Pegasus rule, tabulated for speed like :class:`Learner`.

    ``levels[b][m]`` and ``logs[b][m]`` are box ``b``'s odds for move ``m`` (box frame) in units:
    a level in 1/2**32 of a power of M_1, a log in 1/:attr:`PegasusRule.scale` of a power of A.
    """

    def __init__(self, game: Game, settings: Settings, rule: PegasusRule, boxes: Sequence[Box],
                 odds: Sequence[dict[Move, Odds]] | None = None, memory: Memory | None = None) -> None:
        self.game = game
        self.settings = settings
        self.rule = rule
        self.boxes = list(boxes)
        self.memory = Memory() if memory is None else Memory(memory.mu, memory.plays, memory.total)
        self.scale = rule.scale
        self._log_a = math.log(rule.a)
        self._unit = self._log_a / self.scale
        width = game.move_count
        self.colours: list[tuple[int, ...]] = [tuple(sorted(box.initial)) for box in self.boxes]
        self.levels: list[list[int]] = [[0] * width for _ in self.boxes]
        self.logs: list[list[int]] = [[0] * width for _ in self.boxes]
        if odds is not None:
            self.set_odds(odds)
        tree = game_tree(game)
        self.states, self.index, self.root = tree.states, tree.index, tree.root
        self.result, self.kids, self.to_move = tree.result, tree.kids, tree.to_move
        longest = _longest(game)
        if longest > rule.longest:
            raise PegasusSettingsError(f"{game.name} plays can last {longest} moves; the rule was set for "
                                       f"{rule.longest}")
        self.factor = [0, 0] + [int(rule.exponent(n) * (self.scale // GRID)) for n in range(2, longest + 1)]
        """Per distance n from the end, ``B ** (8 - n)`` in log units per 1/2**32 of a power."""
        self.weights: list[list[float]] = [[0.0] * width for _ in self.boxes]
        self._ref: list[int] = [0] * len(self.boxes)
        """Per box, the log its weights are measured from (a weight is ``A ** (log - ref)``)."""
        self.cands: list[tuple[int, ...]] = [()] * len(self.boxes)
        self.totals: list[float] = [0.0] * len(self.boxes)
        for b in range(len(self.boxes)):
            self._settle(b)
        self.fast: dict[Side, list[tuple[int, int] | tuple[int, tuple[int, ...], tuple[int, ...]] | None]] = {}
        for side, (_, fast_rows, box_rows) in _layout(game, settings, self.boxes).items():
            fast: list[tuple[int, int] | tuple[int, tuple[int, ...], tuple[int, ...]] | None] = list(fast_rows)  # type: ignore[arg-type]
            for k, real, after, b in box_rows:
                fast[k] = (b, real, after)
            self.fast[side] = fast
        self._opponent: tuple[Sequence[tuple[int, ...]], list[OpponentRow]] | None = None

    # -- the odds --------------------------------------------------------------------------
    def set_odds(self, odds: Sequence[dict[Move, Odds]]) -> None:
        """Put exact odds (as stored) into the learner's units; :class:`ValueError` if one is not a
        whole number of units (it cannot have come from this rule)."""
        if len(odds) != len(self.boxes):
            raise ValueError(f"odds for {len(odds)} boxes, but the machine has {len(self.boxes)}")
        for b, box_odds in enumerate(odds):
            if set(box_odds) != set(self.colours[b]):
                raise ValueError(f"box {b + 1}: odds for moves {sorted(box_odds)}, expected {list(self.colours[b])}")
            for m, o in box_odds.items():
                level, log = o.level * GRID, o.log * self.scale
                if level.denominator != 1 or log.denominator != 1:
                    raise ValueError(f"box {b + 1}: odds {o.text()} are not in this rule's units")
                self.levels[b][m], self.logs[b][m] = int(level), int(log)
        if hasattr(self, "weights"):
            for b in range(len(self.boxes)):
                self._settle(b)

    def odds(self, b: int) -> dict[Move, Odds]:
        """Box ``b``'s odds, exactly, by move in the box's frame."""
        lv, lg = self.levels[b], self.logs[b]
        return {m: Odds(Fraction(lv[m], GRID), Fraction(lg[m], self.scale)) for m in self.colours[b]}

    def all_odds(self) -> list[dict[Move, Odds]]:
        return [self.odds(b) for b in range(len(self.boxes))]

    def chances(self, b: int) -> dict[Move, float]:
        """Box ``b``'s chance of each move (0 to 1)."""
        total = self.totals[b]
        return {m: self.weights[b][m] / total for m in self.colours[b]}

    def _settle(self, b: int) -> None:
        """Work out box ``b``'s float weights from its exact odds (after a change of level, or when
        the weights have drifted far from 1): the likeliest move of the top level weighs 1."""
        colours, lv, lg, w = self.colours[b], self.levels[b], self.logs[b], self.weights[b]
        top = best = None
        for m in colours:
            level = lv[m]
            if top is None or level > top:
                top, best = level, lg[m]
            elif level == top and lg[m] > best:  # type: ignore[operator]
                best = lg[m]
        unit = self._unit
        cands = []
        total = 0.0
        for m in colours:
            x = math.exp((lg[m] - best) * unit) if lv[m] == top else 0.0  # type: ignore[operator]
            w[m] = x
            if x > 0.0:
                cands.append(m)
                total += x
        self.cands[b] = tuple(cands)
        self.totals[b] = total
        self._ref[b] = best  # type: ignore[assignment]

    def _bump(self, b: int, m: int) -> None:
        """Box ``b``'s move ``m`` changed its log (not its level): its weight alone is worked out
        again, against the box's reference, unless that would lose precision or a move's chance
        appears or vanishes (then :meth:`_settle`)."""
        w = self.weights[b]
        old = w[m]
        if old == 0.0:  # below the top level, or too unlikely to be drawn: stays out unless settled
            self._settle(b)
            return
        x = math.exp((self.logs[b][m] - self._ref[b]) * self._unit)
        total = self.totals[b] + x - old
        if x == 0.0 or x > 1e150 or total < 0.5 * self.totals[b]:
            self._settle(b)
            return
        w[m] = x
        self.totals[b] = total

    def opening_empty(self, side: Side) -> bool:
        """Never: a box of odds cannot run out (a :class:`Learner`'s question, asked by tournaments)."""
        return False

    def snapshot_odds(self) -> list[tuple[list[int], list[int]]]:
        """Every box's levels and logs, copied (to see later what changed)."""
        return [(list(lv), list(lg)) for lv, lg in zip(self.levels, self.logs)]

    def changed_since(self, snapshot: Sequence[tuple[list[int], list[int]]]) -> list[tuple[int, Move]]:
        """The ``(box, move)`` whose odds differ from ``snapshot``."""
        out: list[tuple[int, Move]] = []
        for b, (lv, lg) in enumerate(snapshot):
            now_lv, now_lg = self.levels[b], self.logs[b]
            if now_lv != lv or now_lg != lg:
                out.extend((b, m) for m in self.colours[b] if now_lv[m] != lv[m] or now_lg[m] != lg[m])
        return out

    def restore(self, snapshot: Sequence[tuple[list[int], list[int]]], memory: Memory) -> None:
        """Put back the odds and memory of a snapshot (an abandoned game)."""
        for b, (lv, lg) in enumerate(snapshot):
            self.levels[b][:] = lv
            self.logs[b][:] = lg
            self._settle(b)
        self.memory = Memory(memory.mu, memory.plays, memory.total)

    # -- learning ---------------------------------------------------------------------------
    def power(self, outcome: int) -> int:
        """The power (in 1/2**32) the multipliers are raised to after a play with this outcome
        (+1 win, 0 draw, -1 defeat) for the machine: ±1 or 0, or Table 3's ``1-mu``, ``-mu``,
        ``-1-mu``."""
        if self.rule.refinement is Refinement.NONE:
            return outcome * GRID
        return outcome * GRID - self.memory.mu

    def remember(self, outcome: int) -> None:
        """Table 3's memory after a play: ``mu`` decays towards the outcome (each play, or each set
        of one hundred plays' average)."""
        how = self.rule.refinement
        if how is Refinement.NONE:
            return
        d = self.rule.decay
        mem = self.memory
        if how is Refinement.PER_PLAY:
            mem.mu = round(d * mem.mu + (1 - d) * outcome * GRID)
            return
        mem.plays += 1
        mem.total += outcome
        if mem.plays == 100:
            mem.mu = round(d * mem.mu + (1 - d) * Fraction(mem.total * GRID, 100))
            mem.plays = mem.total = 0

    def reinforce(self, drawn: Sequence[tuple[int, int, int]], length: int, outcome: int) -> None:
        """Apply the rule to the moves ``(box, move, ply)`` the machine made in a play of ``length``
        moves whose outcome for it was ``outcome`` (+1, 0, -1); then update the memory."""
        p = self.power(outcome)
        if p:
            levels, logs, factor = self.levels, self.logs, self.factor
            for b, m, ply in drawn:
                n = length - ply
                if n == 1:
                    levels[b][m] += p
                    self._settle(b)
                else:
                    logs[b][m] += p * factor[n]
                    self._bump(b, m)
        if self.rule.refinement is not Refinement.NONE:
            self.remember(outcome)

    # -- playing ----------------------------------------------------------------------------
    def choose(self, b: int, rnd: float) -> int:
        """The move (box frame) of box ``b`` for a uniform number ``rnd`` in [0, 1)."""
        w = self.weights[b]
        r = rnd * self.totals[b]
        cands = self.cands[b]
        m = cands[-1]
        for m in cands:
            r -= w[m]
            if r < 0:
                break
        return m

    def opponent_table(self, options: Callable[[State], Sequence[Move]], sides: Collection[Side],
                       ) -> list[tuple[int, ...]]:
        """A stateless opponent's choices (``options(state)``) wherever it is to move against this
        machine playing one of ``sides`` (for :meth:`play_table` and :meth:`play_batch`)."""
        movers = {side.other for side in sides}
        to_move, result = self.to_move, self.result
        return [tuple(options(s)) if not result[i] and to_move[i] in movers else ()
                for i, s in enumerate(self.states)]

    def _opponent_rows(self, opponent: Sequence[tuple[int, ...]]) -> list[OpponentRow]:
        if self._opponent is None or self._opponent[0] is not opponent:
            kids = self.kids
            known = _opponent_rows_of.get((id(opponent), id(kids)))
            if known is not None and known[0] is opponent and known[1] is kids:
                rows = known[2]
            else:
                none: OpponentRow = ((), 0, ())
                rows = [(e, len(e), tuple(map(kids[k].__getitem__, e))) if e else none
                        for k, e in enumerate(opponent)]
                if len(_opponent_rows_of) >= 16:
                    _opponent_rows_of.clear()
                _opponent_rows_of[id(opponent), id(kids)] = (opponent, kids, rows)
            self._opponent = (opponent, rows)
        return self._opponent[1]

    def play_table(self, side: Side, opponent: Sequence[tuple[int, ...]], rng: random.Random,
                   learn: bool = True) -> tuple[int, list[int]]:
        """One game against a tabulated opponent (its choices per tree position, picked uniformly);
        the machine learns from it unless ``learn`` is false. The winner code and the moves."""
        rnd = rng.random
        res_t = self.result
        fast = self.fast[side]
        opp = self._opponent_rows(opponent)
        weights, cands, totals = self.weights, self.cands, self.totals
        moves: list[int] = []
        add = moves.append
        drawn: list[tuple[int, int, int]] = []
        k = self.root
        if side is Side.O:
            e, ln, nx = opp[k]
            i = int(rnd() * ln)
            add(e[i])
            k = nx[i]
        while True:
            ent = fast[k]
            if len(ent) == 2:  # type: ignore[arg-type]
                s, k = ent  # type: ignore[misc]
            else:
                b, real, nexts = ent  # type: ignore[misc]
                w = weights[b]
                r = rnd() * totals[b]
                cs = cands[b]
                m = cs[-1]
                for m in cs:
                    r -= w[m]
                    if r < 0:
                        break
                drawn.append((b, m, len(moves)))
                s = real[m]
                k = nexts[m]
            add(s)
            res = res_t[k]
            if res:
                break
            e, ln, nx = opp[k]
            i = int(rnd() * ln)
            add(e[i])
            k = nx[i]
            res = res_t[k]
            if res:
                break
        if learn:
            self.reinforce(drawn, len(moves), 0 if res == DRAWN else 1 if res == side else -1)
        return res, moves

    def play_batch(self, side: Side, opponent: Sequence[tuple[int, ...]], rng: random.Random, n: int,
                   data: bytearray, outcomes: list[int], stop: StopSignal | None = None,
                   learn: bool = True) -> int:
        """Up to ``n`` games as :meth:`play_table` plays them, each packed into ``data`` as
        :class:`~menace.core.records.GameBuffer` packs it and counted in ``outcomes[side << 2 |
        winner]`` (see :meth:`Learner.play_batch`); stops early once ``stop.requested`` is set."""
        rnd = rng.random
        res_t = self.result
        fast = self.fast[side]
        opp = self._opponent_rows(opponent)
        weights, cands, totals = self.weights, self.cands, self.totals
        reinforce = self.reinforce
        side_bits = int(side) << 2
        root = self.root
        o_first = side is Side.O
        put = data.append
        played = 0
        while played < n:
            head = len(data)
            put(0)  # the header, written when the game ends
            drawn: list[tuple[int, int, int]] = []
            k = root
            if o_first:
                e, ln, nx = opp[k]
                i = int(rnd() * ln)
                put(e[i])
                k = nx[i]
            while True:
                ent = fast[k]
                if len(ent) == 2:  # type: ignore[arg-type]
                    s, k = ent  # type: ignore[misc]
                else:
                    b, real, nexts = ent  # type: ignore[misc]
                    w = weights[b]
                    r = rnd() * totals[b]
                    cs = cands[b]
                    m = cs[-1]
                    for m in cs:
                        r -= w[m]
                        if r < 0:
                            break
                    drawn.append((b, m, len(data) - head - 1))
                    s = real[m]
                    k = nexts[m]
                put(s)
                res = res_t[k]
                if res:
                    break
                e, ln, nx = opp[k]
                i = int(rnd() * ln)
                put(e[i])
                k = nx[i]
                res = res_t[k]
                if res:
                    break
            length = len(data) - head - 1
            if learn:
                reinforce(drawn, length, 0 if res == DRAWN else 1 if res == side else -1)
            code = side_bits | res
            data[head] = length << 4 | code
            outcomes[code] += 1
            played += 1
            if stop is not None and stop.requested:
                break
        return played

    # -- replaying --------------------------------------------------------------------------
    def drawn_in(self, record: GameRecord) -> list[tuple[int, int, int]]:
        """The moves ``(box, move in box frame, ply)`` the machine made in a recorded game;
        :class:`IllegalMoveError` for a move that was not legal."""
        side = record.menace_side
        fast = self.fast[side]
        kids, result = self.kids, self.result
        k = self.root
        drawn: list[tuple[int, int, int]] = []
        for ply, move in enumerate(record.moves):
            row = kids[k]
            if result[k] or not 0 <= move < len(row) or row[move] < 0:
                raise IllegalMoveError(f"move {move} is not legal in {self.game.encode(self.states[k])}")
            ent = fast[k]
            if ent is not None and len(ent) == 3:
                b, real, _ = ent
                drawn.append((b, real.index(move), ply))
            k = row[move]
        return drawn

    def learn(self, record: GameRecord) -> list[tuple[int, int, int]]:
        """Reinforce as after the recorded game (a replay); the moves the machine made."""
        drawn = self.drawn_in(record)
        res = record.winner
        self.reinforce(drawn, len(record.moves), 0 if res == DRAWN else 1 if res == record.menace_side else -1)
        return drawn


def _longest(game: Game) -> int:
    """The most moves a play of ``game`` can have (the depth of its tree)."""
    return _depths.get(game.name) or _depths.setdefault(game.name, _tree_depth(game))


_depths: dict[str, int] = {}


def _tree_depth(game: Game) -> int:
    tree = game_tree(game)
    depth: dict[int, int] = {}

    def walk(k: int) -> int:
        if k not in depth:
            depth[k] = max((walk(c) + 1 for c in tree.kids[k] if c >= 0), default=0)
        return depth[k]

    return walk(tree.root)


def longest_play(game: Game) -> int:
    """The most moves a play of ``game`` can have: 9 for tic-tac-toe."""
    return _longest(game)


def play_two(x: PegasusLearner, o: PegasusLearner, rng: random.Random, learn: bool = True) -> tuple[int, list[int]]:
    """One play between two Pegasus machines of the same game, ``x`` opening; both learn from it."""
    rnd = rng.random
    res_t = x.result
    machines = (x, o)
    tables = (x.fast[Side.X], o.fast[Side.O])
    drawn: tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]] = ([], [])
    moves: list[int] = []
    k = x.root
    turn = 0
    while True:
        ent = tables[turn][k]
        if len(ent) == 2:  # type: ignore[arg-type]
            s, k = ent  # type: ignore[misc]
        else:
            b, real, nexts = ent  # type: ignore[misc]
            m = machines[turn].choose(b, rnd())
            drawn[turn].append((b, m, len(moves)))
            s = real[m]
            k = nexts[m]
        moves.append(s)
        res = res_t[k]
        if res:
            break
        turn ^= 1
    if learn:
        x_out = 0 if res == DRAWN else 1 if res == X_WINS else -1
        x.reinforce(drawn[0], len(moves), x_out)
        o.reinforce(drawn[1], len(moves), -x_out)
    return res, moves


@dataclass(frozen=True)
class RandomBaseline:
    """Exact chances of a play between two random players, for the opening player."""

    wins: Fraction
    draws: Fraction
    losses: Fraction


def random_baseline(game: Game) -> RandomBaseline:
    """The opening player's exact chances when both sides choose uniformly among legal moves.

    >>> from menace.games import find_game
    >>> b = random_baseline(find_game("tictactoe"))
    >>> b.wins, b.draws, b.losses
    (Fraction(737, 1260), Fraction(8, 63), Fraction(121, 420))
    """
    tree = game_tree(game)
    one, zero = Fraction(1), Fraction(0)
    ends = {X_WINS: (one, zero, zero), DRAWN: (zero, one, zero), O_WINS: (zero, zero, one)}
    chance: dict[int, tuple[Fraction, Fraction, Fraction]] = {}

    def walk(k: int) -> tuple[Fraction, Fraction, Fraction]:
        known = chance.get(k)
        if known is None:
            res = tree.result[k]
            if res:
                known = ends[res]
            else:
                kids = [walk(c) for c in tree.kids[k] if c >= 0]
                known = (sum((c[0] for c in kids), zero) / len(kids), sum((c[1] for c in kids), zero) / len(kids),
                         sum((c[2] for c in kids), zero) / len(kids))
            chance[k] = known
        return known

    w, d, loss = walk(tree.root)
    return RandomBaseline(w, d, loss)
