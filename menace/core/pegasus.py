"""The learning rule of Michie and Martin's program for the Ferranti Pegasus 2, which simulated the
matchbox machine (Donald Michie, "Experiments on the mechanization of game-learning. Part 1.
Characterization of the model and its parameters", The Computer Journal 6(3), 1963, pp. 232-236).
Pure, standard library only.

Each box holds, for each distinct move, its odds of being chosen. After a play every move the machine
made has its odds ``p/(1-p)`` multiplied by ``M_n`` after a win and divided by ``M_n`` after a defeat
(a draw leaves them), the other moves of the box keeping their ratios to one another. ``n`` is the
move's distance from the end of the play, both sides' moves counted: the last move has ``n = 1``.
``M_n = A^(B^(8-n))``, and ``M_1`` is infinite: a move that wins at once becomes certain.

How odds are kept. A box holds one whole-number *weight* per move; a move's chance is its weight over
the box's total. Multiplying one move's odds by ``M`` while the others keep their ratios is multiplying
its weight by ``M`` and leaving the others alone (the paper's example: chances 2/5 and 3/5 are weights
2 and 3; after a win with M = 2 they are 4 and 3, chances 4/7 and 3/7). Weights are integers so that
a replay gives back every weight to the unit on any computer and the database keeps them as it keeps
bead counts:

- every move starts at :data:`UNIT` (2**32): equal odds;
- a factor is applied in fixed point, ``weight * round(factor * 2**32)`` rounded to the nearest whole
  number; the factors themselves are worked out with :mod:`decimal` (correctly rounded, the same on
  every platform), not with the platform's ``pow``;
- an infinite factor (``M_1`` after a win) makes the move certain: its weight stays, every other
  move's weight becomes 0. A zero factor (``1/M_1``: a defeat on the machine's own last move) makes
  the move impossible (weight 0), unless it is the only move left possible, which stays (a box never
  empties);
- a move that was possible stays possible: a finite factor never takes a weight below 1;
- when a box's largest weight leaves ``[2**24, 2**48]`` every weight of the box is shifted by the same
  power of two back to about 2**32 (exact for the ratios, except that a weight more than 2**32
  times smaller than the largest loses its last bits; it floors at 1, as above).

The refined rule of the paper's Table 3 is an option: a decayed average ``mu`` of the machine's past
outcomes (win +1, draw 0, defeat -1), and reinforcement ``M_n^(1-mu)`` after a win, ``M_n^(-mu)`` after
a draw, ``M_n^(-1-mu)`` after a defeat: a machine that usually wins learns little from another win and
much from a draw. ``mu`` starts at 0. The decay ``D`` is the weight the past keeps over a hundred
plays. Michie's program updated ``mu`` once per hundred plays, from that hundred's average outcome
(:attr:`Refinement.HUNDRED`: ``mu <- D*mu + (1-D)*average``, ``mu`` held in between); the per-play
ideal it approximates (:attr:`Refinement.PER_PLAY`) updates it after every play with
``d = D**(1/100)``: ``mu <- d*mu + (1-d)*outcome``. Each play is reinforced with ``mu`` as it stood
before the play.

>>> [round(multiplier(PegasusRule(), n), 4) for n in range(8, 1, -1)]  # Fig. 6 prints 3 decimals
[1.025, 1.0506, 1.1038, 1.2184, 1.4845, 2.2038, 4.8565]
>>> multiplier(PegasusRule(), 1)
inf
>>> weights = [2 * UNIT, 3 * UNIT]
>>> apply_factor(weights, 0, fixed_factor(2))
>>> [w / sum(weights) for w in weights] == [4 / 7, 3 / 7]
True
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction

from menace.core.errors import InvalidInputError

UNIT = 1 << 32
"""The weight every move of a box starts with: equal odds."""
FRACTION_BITS = 32
"""Bits after the point of a factor in fixed point."""
ONE = 1 << FRACTION_BITS
"""The factor 1 in fixed point: a draw under the plain rule."""
INFINITE = -1
"""A fixed-point factor standing for infinity (``M_1`` after a win): the move becomes certain."""
LOW, HIGH, TARGET = 24, 48, 33
"""A box whose largest weight has fewer than ``LOW`` or more than ``HIGH`` bits is shifted back to
``TARGET`` bits."""

_CONTEXT = Context(prec=60)


class PegasusRuleError(InvalidInputError):
    """Parameters of the Pegasus rule that make no sense (A not above 1, a decay outside 0..1, ...)."""


class Refinement(enum.Enum):
    """Whether the refined rule of the paper's Table 3 is used, and how its mean outcome decays."""

    NONE = "none"
    """The trial runs' rule (Figs. 7-9): M_n after a win, 1/M_n after a defeat, a draw changes nothing."""
    HUNDRED = "hundred"
    """Table 3 as Michie's program ran it: the mean outcome updated once per hundred plays."""
    PER_PLAY = "per-play"
    """Table 3's ideal: the mean outcome updated after every play."""


@dataclass(frozen=True)
class PegasusRule:
    """The parameters of the Pegasus program's rule: ``M_n = A^(B^(8-n))``, the refinement and its decay."""

    a: float = 1.025
    b: float = 2.0
    refinement: Refinement = Refinement.NONE
    decay: float = 0.5
    """D: the weight past outcomes keep over a hundred plays (used by the refined rule only)."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.a) and self.a > 1):
            raise PegasusRuleError(f"A must be a number above 1, not {self.a!r}")
        if not (math.isfinite(self.b) and self.b > 0):
            raise PegasusRuleError(f"B must be a number above 0, not {self.b!r}")
        if not (math.isfinite(self.decay) and 0 <= self.decay <= 1):
            raise PegasusRuleError(f"the decay D must be between 0 and 1, not {self.decay!r}")
        if math.log(self.b) * 6 + math.log(math.log(self.a)) > math.log(690.0):  # M_2 = A^(B^6) < 1e300
            raise PegasusRuleError(f"A = {self.a!r} and B = {self.b!r} make M_2 too large to compute")

    @property
    def refined(self) -> bool:
        """Table 3's refined rule: the machine keeps a mean outcome besides its odds."""
        return self.refinement is not Refinement.NONE

    def describe(self) -> str:
        """The rule in a line, for people."""
        text = f"Pegasus: M_n = {self.a:g}^({self.b:g}^(8-n))"
        if self.refinement is Refinement.HUNDRED:
            return f"{text}, refined (Table 3), D = {self.decay:g} per hundred plays, updated per hundred"
        if self.refinement is Refinement.PER_PLAY:
            return f"{text}, refined (Table 3), D = {self.decay:g} per hundred plays, updated every play"
        return text


def _decimal(x: float) -> Decimal:
    """A parameter as the decimal a person wrote (1.025, not the binary double nearest to it)."""
    return Decimal(repr(float(x)))


@functools.lru_cache(maxsize=256)
def _multiplier(rule: PegasusRule, n: int) -> Decimal:
    """``M_n`` in decimal arithmetic (n >= 2); worked out once per rule and distance (two powers of
    60 digits: most of the refined rule's cost when each play worked them out again)."""
    exponent = _CONTEXT.power(_decimal(rule.b), Decimal(8 - n))
    return _CONTEXT.power(_decimal(rule.a), exponent)


def multiplier(rule: PegasusRule, n: int) -> float:
    """``M_n = A^(B^(8-n))`` for the move ``n`` moves from the end (1 = the last); ``inf`` for n = 1."""
    if n < 1:
        raise ValueError(f"a move's distance from the end is at least 1, not {n}")
    return math.inf if n == 1 else float(_multiplier(rule, n))


def fixed_factor(value: float | Decimal | Fraction) -> int:
    """A positive finite factor in fixed point (``round(value * 2**32)``, at least 1)."""
    if isinstance(value, Fraction):
        value = _CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))
    # to the nearest whole number; a factor of more digits than the context keeps (M_2 = 1.5^(3^6) is
    # about 1e128) is whole already and kept as it is
    scaled = (Decimal(value) * ONE).to_integral_value(rounding=ROUND_HALF_EVEN, context=_CONTEXT)
    return max(1, int(scaled))


def factor(rule: PegasusRule, n: int, exponent: float) -> int:
    """``M_n ** exponent`` in fixed point: :data:`INFINITE` for an infinite factor, 0 for a zero one.

    ``exponent`` is +1 (a win) or -1 (a defeat) under the plain rule, ``1-mu``, ``-mu`` or ``-1-mu``
    under the refined one. An exponent of 0 is the factor 1, even for ``M_1``.
    """
    if exponent == 0:
        return ONE
    if n == 1:
        return INFINITE if exponent > 0 else 0
    value = _CONTEXT.power(_multiplier(rule, n), Decimal(exponent))
    return fixed_factor(value)


def apply_factor(weights: MutableSequence[int], move: int, fixed: int) -> None:
    """Multiply the odds of ``move`` by a fixed-point factor (see :func:`factor`), the other moves
    keeping their ratios, and keep the box's weights within bounds. In place."""
    if fixed == INFINITE:
        if weights[move] > 0:
            for m in range(len(weights)):
                if m != move:
                    weights[m] = 0
            weights[move] = UNIT
        return
    w = weights[move]
    if w <= 0 or fixed == ONE:
        return
    if fixed == 0:
        if any(c > 0 for m, c in enumerate(weights) if m != move):
            weights[move] = 0
        return
    new = (w * fixed + (ONE >> 1)) >> FRACTION_BITS
    weights[move] = new if new > 0 else 1
    _rescale(weights)


def _rescale(weights: MutableSequence[int]) -> None:
    top = max(weights).bit_length()
    if LOW <= top <= HIGH:
        return
    shift = top - TARGET
    for m, c in enumerate(weights):
        if c > 0:
            if shift > 0:
                c >>= shift
                weights[m] = c if c > 0 else 1
            else:
                weights[m] = c << -shift


def chances(weights: Sequence[int]) -> list[float]:
    """Each move's chance of being chosen, in percent (0 for a box with no weight at all)."""
    total = sum(weights)
    return [100.0 * w / total if total else 0.0 for w in weights]


class MeanOutcome:
    """The decayed mean ``mu`` of a machine's outcomes, as the refined rule keeps it.

    Its whole state is :attr:`state` ``(mu, outcomes summed in the current hundred, plays in it)``,
    floats and integers that a replay computes again bit for bit.
    """

    def __init__(self, rule: PegasusRule, state: tuple[float, int, int] = (0.0, 0, 0)) -> None:
        self.rule = rule
        self.mu, self.block_sum, self.block_plays = state
        self._per_play = float(_CONTEXT.power(_decimal(rule.decay), Decimal(1) / Decimal(100)))
        """``D**(1/100)``: the decay of one play, for the per-play ideal."""

    @property
    def state(self) -> tuple[float, int, int]:
        return self.mu, self.block_sum, self.block_plays

    def record(self, value: int) -> None:
        """Take in one play's outcome (+1, 0 or -1)."""
        refinement = self.rule.refinement
        if refinement is Refinement.PER_PLAY:
            d = self._per_play
            self.mu = d * self.mu + (1.0 - d) * value
        elif refinement is Refinement.HUNDRED:
            self.block_sum += value
            self.block_plays += 1
            if self.block_plays == 100:
                d = float(_decimal(self.rule.decay))
                self.mu = d * self.mu + (1.0 - d) * (self.block_sum / 100)
                self.block_sum = self.block_plays = 0


def exponent(rule: PegasusRule, value: int, mu: float) -> float:
    """The power of ``M_n`` a play with outcome ``value`` (+1, 0, -1) calls for: +1/-1/0 (a draw leaves
    the odds) under the plain rule, ``value - mu`` under the refined one (Table 3)."""
    if rule.refinement is Refinement.NONE:
        return float(value)
    return value - mu


class Reinforcer:
    """A machine's learning under the Pegasus rule: the factors (cached) and, for the refined rule,
    the mean outcome. :meth:`learn` applies one play."""

    def __init__(self, rule: PegasusRule, state: tuple[float, int, int] = (0.0, 0, 0)) -> None:
        self.rule = rule
        self.mean = MeanOutcome(rule, state)
        self._plain: dict[tuple[int, int], int] = {}
        self._refined: dict[tuple[int, int], int] = {}
        """Under the refined rule, the factors for the current mean outcome (:attr:`_refined_mu`)."""
        self._refined_mu = self.mean.mu
        self.plain = rule.refinement is Refinement.NONE
        """The trial runs' rule: fixed factors per distance from the end (:attr:`wins`, :attr:`losses`)."""
        self.wins: list[int] = [ONE]
        """Under the plain rule, the fixed-point factor after a win by distance from the end (index 0 unused)."""
        self.losses: list[int] = [ONE]
        """The same after a defeat."""

    def factors_up_to(self, n: int) -> None:
        """Make :attr:`wins` and :attr:`losses` reach distance ``n`` (they grow as longer games come)."""
        while len(self.wins) <= n:
            k = len(self.wins)
            self.wins.append(self.fixed(k, 1))
            self.losses.append(self.fixed(k, -1))

    def learn_plain(self, drawn: Sequence[tuple[MutableSequence[int], int, int, int]], length: int, won: bool,
                    totals: MutableSequence[int]) -> None:
        """The plain rule after a win (``won``) or a defeat, fast: ``drawn`` holds ``(weights, move, box
        index, ply)`` per move from a box; each box's total in ``totals`` is kept up to date. The same
        arithmetic as :func:`apply_factor`, inlined for the common case (a finite factor, no rescale)."""
        if length >= len(self.wins):
            self.factors_up_to(length)
        factors = self.wins if won else self.losses
        half, bits, high, low = ONE >> 1, FRACTION_BITS, HIGH, 1 << LOW
        for weights, m, b, ply in drawn:
            f = factors[length - ply]
            w = weights[m]
            if f > 0 and w > 0:
                new = (w * f + half) >> bits
                weights[m] = new if new > 0 else 1
                if new.bit_length() > high or (new < low and max(weights) < low):
                    _rescale(weights)
            else:
                apply_factor(weights, m, f)
            totals[b] = sum(weights)

    def fixed(self, n: int, value: int) -> int:
        """The fixed-point factor for a move ``n`` from the end of a play with outcome ``value``."""
        if self.rule.refinement is Refinement.NONE:
            key = (n, value)
            f = self._plain.get(key)
            if f is None:
                f = self._plain[key] = factor(self.rule, n, float(value))
            return f
        mu = self.mean.mu
        if mu != self._refined_mu:  # a new mean (every play, or every hundred): other factors
            self._refined.clear()
            self._refined_mu = mu
        key = (n, value)
        f = self._refined.get(key)
        if f is None:
            f = self._refined[key] = factor(self.rule, n, exponent(self.rule, value, mu))
        return f

    def learn(self, boxes: Sequence[MutableSequence[int]], made: Sequence[tuple[int, int, int]],
              length: int, value: int) -> None:
        """Reinforce a play of ``length`` moves (both sides') with outcome ``value`` (+1, 0, -1): ``made``
        lists the machine's moves that came from a box as ``(box index, move in the box, ply)``, ply
        counted from 0 (the play's first move)."""
        if value or self.rule.refinement is not Refinement.NONE:
            for b, m, ply in made:
                f = self.fixed(length - ply, value)
                if f != ONE:
                    apply_factor(boxes[b], m, f)
        self.mean.record(value)
