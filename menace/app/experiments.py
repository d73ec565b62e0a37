"""Michie's published experiments of 1963, run again: many seeds of each, in memory, summed up by
blocks of a hundred plays as the paper drew them.

The source is Donald Michie, "Experiments on the mechanization of game-learning. Part 1.
Characterization of the model and its parameters", *The Computer Journal* 6(3), 1963, pp. 232-236.
Its Figs. 7 to 9 are trial runs of the program Michie and D. J. M. Martin wrote for a Ferranti
Pegasus 2 to simulate the matchbox machine; its left-hand "random average" block is what two random
players score. Each experiment here is one of those set-ups (:data:`EXPERIMENTS`); a run plays it
once from fresh machines with one seed, and a run's plays are counted by blocks of
:data:`BLOCK` from one side's point of view (the learner's, or the opening player's when nobody
learns). Nothing is stored: the machines live in memory for the run and are thrown away.

Seeds are 1..N and a run depends on its experiment and seed alone, so the figures are the same
whatever the number of worker processes.

The exact chances of two random players (every legal move equally likely) come from the whole game
tree in fractions: the opening player wins 737/1260 of games, draws 8/63 and loses 121/420.

>>> from fractions import Fraction
>>> from menace.games import DEFAULT_GAME, find_game
>>> random_outcomes(find_game(DEFAULT_GAME)) == (Fraction(737, 1260), Fraction(8, 63), Fraction(121, 420))
True
>>> result = run_experiment("random", seeds=2, workers=1)
>>> [len(run.blocks) for run in result.runs], result.blocks[0].first, result.blocks[0].last
([10, 10], 1, 100)
"""

from __future__ import annotations

import math
import os
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from menace.core.errors import InvalidInputError
from menace.core.game import Game, Move, Side
from menace.core.learner import Box, Learner, build_boxes, play_learners
from menace.core.pegasus import PegasusRule
from menace.core.settings import Settings
from menace.core.tree import DRAWN, WINNER_CODE, game_tree
from menace.games import DEFAULT_GAME, find_game

if TYPE_CHECKING:  # the experiments' workers never import SQLAlchemy
    from menace.app.database import Database

BLOCK = 100
"""Plays per block: the paper counts its runs by the hundred."""
PLAYS = 1000
"""Plays per run: the longer of the paper's two runs of Fig. 7."""
SEEDS = 50
"""Runs per experiment, by default."""
STEREOTYPE_SHARE = 0.5
"""A block is stereotyped when one line of play (up to rotation and reflection) makes up at least
this share of its plays: half, so that a line that has the upper hand counts though the learners
still stray from it now and then (with both sides learning, a run of 1,000 plays rarely plays one
line 90 times in 100)."""
PAPER = ('Donald Michie, "Experiments on the mechanization of game-learning. Part 1. Characterization of the '
         'model and its parameters", The Computer Journal 6(3), 1963, pp. 232-236')
"""The source of every experiment here, as people cite it."""
PAPER_VALUES_MISSING = ("the block values of the paper's own runs are not included: they are read off its "
                        "figures, and no copy of the figures could be read to transcribe them")
"""Said beside every figure and table: only runs made here are drawn."""


class ExperimentError(InvalidInputError):
    """An experiment that cannot be run as asked: an unknown name, no seeds, too few plays."""


@dataclass(frozen=True)
class Experiment:
    """One published set-up: who learns, and from whose side its plays are counted."""

    name: str
    line: str
    """What it is, in one line (the command's help lists it)."""
    title: str
    """The figure's title."""
    learners: tuple[Side, ...]
    """The sides that learn; the others play at random (every legal move equally likely)."""
    view: Side
    """Whose wins, draws and losses the blocks count."""
    figure: str
    """The paper's figure, for people: "Fig. 7"."""

    @property
    def who(self) -> str:
        """The counted side, for people: "the learner (X, moving first)"."""
        order = "moving first" if self.view is Side.X else "moving second"
        role = "the learner" if self.view in self.learners and len(self.learners) == 1 else \
            "the opening player" if self.view is Side.X else "the second player"
        return f"{role} ({self.view.name}, {order})"


EXPERIMENTS: dict[str, Experiment] = {
    "michie-1963-fig7": Experiment(
        "michie-1963-fig7", "Fig. 7: the opening player learns, the other is random.",
        "The opening player learns, the other plays at random", (Side.X,), Side.X, "Fig. 7"),
    "michie-1963-fig8": Experiment(
        "michie-1963-fig8", "Fig. 8: the second player learns, the opener is random.",
        "The second player learns, the opening player plays at random", (Side.O,), Side.O, "Fig. 8"),
    "michie-1963-fig9": Experiment(
        "michie-1963-fig9", "Fig. 9: both learn, until one line of play remains.",
        "Both players learn", (Side.X, Side.O), Side.X, "Fig. 9"),
    "random": Experiment(
        "random", "The random average: both random, exact and simulated.",
        "Random against random", (), Side.X, "the random average block"),
}
"""Every experiment, by the name the command takes."""


def find_experiment(name: str) -> Experiment:
    """The experiment called ``name``; :class:`ExperimentError` otherwise."""
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise ExperimentError(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}") from None


# -- the exact random average ---------------------------------------------------------------------
def random_outcomes(game: Game) -> tuple[Fraction, Fraction, Fraction]:
    """The exact chances that the opening player wins, draws and loses when both sides play every
    legal move with equal chance: every position of the game tree weighed exactly (a position's
    chances depend on the position alone, so each is worked out once).

    A position's chances are kept as three whole numbers over one denominator, in lowest terms, and
    made fractions only at the start position: the same values as summing fractions, at a tenth of
    the cost (a fraction reduces itself at every sum).
    """
    tree = game_tree(game)
    result, kids, legal = tree.result, tree.kids, tree.legal
    chances: list[tuple[int, int, int, int] | None] = [None] * len(tree.states)
    """Per position: wins, draws, losses of the opening player, and the denominator."""
    ends = {WINNER_CODE[Side.X]: (1, 0, 0, 1), DRAWN: (0, 1, 0, 1), WINNER_CODE[Side.O]: (0, 0, 1, 1)}
    gcd, lcm = math.gcd, math.lcm
    # Children come after their parents in the tree's breadth-first order: work backwards.
    for k in range(len(tree.states) - 1, -1, -1):
        if result[k]:
            chances[k] = ends[result[k]]
            continue
        moves = legal[k]
        children = []
        for m in moves:
            c = chances[kids[k][m]]
            if c is None:  # a child numbered before its parent: the tree's order is not what we rely on
                raise ExperimentError("the game tree is not in breadth-first order")
            children.append(c)
        common = lcm(*(c[3] for c in children))
        w = d = lo = 0
        for cw, cd, cl, cn in children:
            scale = common // cn
            w, d, lo = w + cw * scale, d + cd * scale, lo + cl * scale
        n = common * len(moves)
        g = gcd(w, d, lo, n)
        chances[k] = (w // g, d // g, lo // g, n // g)
    root = chances[tree.root]
    if root is None:
        raise ExperimentError("the game has no start position")
    w, d, lo, n = root
    return Fraction(w, n), Fraction(d, n), Fraction(lo, n)


def random_average(experiment: Experiment, game: Game) -> tuple[Fraction, Fraction, Fraction]:
    """The random average from the counted side: its chances of a win, a draw and a loss."""
    x_wins, draws, o_wins = random_outcomes(game)
    return (x_wins, draws, o_wins) if experiment.view is Side.X else (o_wins, draws, x_wins)


# -- one run -------------------------------------------------------------------------------------
Line = tuple[Move, ...]
"""A play's moves, both sides', in order."""


@dataclass(frozen=True)
class Stereotype:
    """The line of play a run settled into: the moves (in the least of their images under rotation
    and reflection) and the block from which every block was stereotyped on it."""

    line: Line
    block: int
    """1 for plays 1-100, 2 for plays 101-200, ..."""


@dataclass(frozen=True)
class Run:
    """One run of an experiment: its wins, draws and losses per block, from the counted side."""

    seed: int
    blocks: tuple[tuple[int, int, int], ...]
    stereotype: Stereotype | None = None
    """The stereotyped line it ended in (looked for when both sides learn); None: none."""


def canonical_line(game: Game, moves: Sequence[Move]) -> Line:
    """The least image of a line of play under the game's symmetries: the same for a line and its
    rotations and reflections.

    >>> from menace.games import DEFAULT_GAME, find_game
    >>> game = find_game(DEFAULT_GAME)
    >>> canonical_line(game, (8, 4, 0)) == canonical_line(game, (0, 4, 8)) == (0, 4, 8)
    True
    """
    return min(tuple(sym.moves[m] for m in moves) for sym in game.symmetries)


def stereotype(lines: Sequence[Line], block: int = BLOCK, share: float = STEREOTYPE_SHARE) -> Stereotype | None:
    """The line that makes up at least ``share`` of each of the last blocks of ``lines`` (canonical
    lines, one per play), and the first of those blocks; None when the last block has no such line.

    >>> stereotype([(0,)] * 50 + [(1,)] * 150, block=50)
    Stereotype(line=(1,), block=2)
    >>> stereotype([(0,)] * 20 + [(1,)] * 15 + [(2,)] * 15, block=50) is None
    True
    """
    blocks = [lines[i:i + block] for i in range(0, len(lines) - block + 1, block)]
    found: Stereotype | None = None
    for number in range(len(blocks), 0, -1):
        line, n = Counter(blocks[number - 1]).most_common(1)[0]
        if n < share * block or (found is not None and line != found.line):
            break
        found = Stereotype(line, number)
    return found


def _count(view: Side, codes: Sequence[int], block: int) -> tuple[tuple[int, int, int], ...]:
    """Wins, draws and losses from ``view`` per whole block of winner codes."""
    win, loss = WINNER_CODE[view], WINNER_CODE[view.other]
    out = []
    for start in range(0, len(codes) - block + 1, block):
        part = codes[start:start + block]
        out.append((part.count(win), part.count(DRAWN), part.count(loss)))
    return tuple(out)


def play_run(name: str, seed: int, plays: int = PLAYS, block: int = BLOCK) -> Run:
    """One run of the experiment ``name`` with ``seed``: fresh machines, ``plays`` plays."""
    experiment = find_experiment(name)
    game = find_game(DEFAULT_GAME)
    rng = random.Random(seed)
    codes: list[int] = []
    lines: list[Line] = []
    keep_lines = len(experiment.learners) == 2
    play = _player(experiment, game)
    canonical: dict[Line, Line] = {}  # a run settles into a few lines: each one's least image is found once
    for _ in range(plays):
        code, moves = play(rng)
        codes.append(code)
        if keep_lines:
            key = tuple(moves)
            line = canonical.get(key)
            if line is None:
                line = canonical[key] = canonical_line(game, key)
            lines.append(line)
    return Run(seed, _count(experiment.view, codes, block), stereotype(lines, block) if keep_lines else None)


def _player(experiment: Experiment, game: Game) -> Callable[[random.Random], tuple[int, Sequence[Move]]]:
    """One play of the experiment's set-up at a time: its winner code and its moves."""
    if not experiment.learners:
        tree = game_tree(game)
        result, kids, legal, root = tree.result, tree.kids, tree.legal, tree.root

        def random_play(rng: random.Random) -> tuple[int, Sequence[Move]]:
            rnd = rng.random
            k = root
            moves = []
            while not result[k]:
                options = legal[k]
                m = options[int(rnd() * len(options))]
                moves.append(m)
                k = kids[k][m]
            return result[k], moves

        return random_play
    machines = {side: _machine(game, side) for side in experiment.learners}
    if len(machines) == 2:
        x, o = machines[Side.X], machines[Side.O]
        return lambda rng: play_learners(x, o, rng)
    ((side, machine),) = machines.items()
    opponent = _random_opponent(machine, side.other)
    return lambda rng: machine.play_table(side, opponent, rng)


_opponents: dict[tuple[str, Side], list[tuple[int, ...]]] = {}
"""The random opponent's table per game and side, made once per process: the same for every run, and
a learner given the same table object reuses what it worked out from it (see ``Learner.play_table``)."""


def _random_opponent(machine: Learner, side: Side) -> list[tuple[int, ...]]:
    """The random player's choices on ``side`` in every position of ``machine``'s game."""
    key = (machine.game.name, side)
    table = _opponents.get(key)
    if table is None:
        table = _opponents[key] = machine.options_table(machine.game.legal_moves, movers={side})
    return table


RULE = PegasusRule(a=1.025, b=2.0)
"""The rule of the trial runs (Figs. 6 to 9): M_n = 1.025^(2^(8-n)), a draw leaving the odds."""


def _machine(game: Game, side: Side) -> Learner:
    """A fresh machine for ``side`` learning by :data:`RULE`, a box per position up to rotation and
    reflection (as the matchboxes, which the Pegasus program simulated), every distinct move at
    equal odds."""
    settings = Settings(side=side.name, pegasus=RULE)
    key = (game.name, side)
    boxes = _boxes.get(key)
    if boxes is None:  # the same boxes for every run: a learner reads their beads and never changes them
        boxes = _boxes[key] = build_boxes(game, settings)
    return Learner(game, settings, boxes)


_boxes: dict[tuple[str, Side], list[Box]] = {}


# -- many runs -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Spread:
    """One figure of a block over the runs: its mean, median, quartiles and extremes."""

    mean: float
    median: float
    q1: float
    q3: float
    low: int
    high: int

    @classmethod
    def of(cls, values: Sequence[int]) -> Spread:
        if len(values) == 1:
            v = values[0]
            return cls(float(v), float(v), float(v), float(v), v, v)
        q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
        return cls(statistics.fmean(values), float(statistics.median(values)), q1, q3, min(values), max(values))


@dataclass(frozen=True)
class BlockSummary:
    """A block of plays over every run: plays ``first``..``last`` and the spread of each result."""

    first: int
    last: int
    wins: Spread
    draws: Spread
    losses: Spread


@dataclass(frozen=True)
class ExperimentResult:
    """Every run of an experiment and what they add up to."""

    experiment: Experiment
    plays: int
    block: int
    runs: list[Run]
    random_average: tuple[Fraction, Fraction, Fraction]
    """The exact chances of a win, a draw and a loss from the counted side, both sides random."""
    workers: int

    @property
    def seeds(self) -> int:
        return len(self.runs)

    @property
    def blocks(self) -> list[BlockSummary]:
        """A summary per block, in order."""
        out = []
        for i in range(len(self.runs[0].blocks)):
            figures = [run.blocks[i] for run in self.runs]
            out.append(BlockSummary(i * self.block + 1, (i + 1) * self.block,
                                    *(Spread.of([f[k] for f in figures]) for k in range(3))))
        return out

    def stereotypes(self) -> StereotypeSummary | None:
        """The lines the runs settled into (when both sides learn), or None."""
        if len(self.experiment.learners) != 2:
            return None
        found = [run.stereotype for run in self.runs if run.stereotype is not None]
        if not found:
            return StereotypeSummary(self.seeds, 0, None, 0, None)
        line, n = Counter(s.line for s in found).most_common(1)[0]
        return StereotypeSummary(self.seeds, len(found), line, n,
                                 float(statistics.median(s.block for s in found)))


@dataclass(frozen=True)
class StereotypeSummary:
    """How many runs ended in a stereotyped line, the commonest such line and when they got there."""

    runs: int
    stereotyped: int
    line: Line | None
    """The commonest line among the stereotyped runs (least image under rotation and reflection)."""
    with_line: int
    """How many runs ended in that line."""
    median_block: float | None
    """The median block from which a stereotyped run stayed on its line."""


def run_experiment(name: str, seeds: int = SEEDS, workers: int | None = None,
                   progress: Callable[[int, int], None] | None = None, plays: int = PLAYS,
                   block: int = BLOCK) -> ExperimentResult:
    """Runs 1..``seeds`` of the experiment ``name``, on ``workers`` processes (default: every core);
    ``progress(done, total)`` hears of each finished run. The result does not depend on ``workers``.
    """
    experiment = find_experiment(name)
    if seeds < 1:
        raise ExperimentError("an experiment needs at least one seed")
    if block < 1 or plays < block:
        raise ExperimentError(f"an experiment needs at least one block of {block} plays")
    game = find_game(DEFAULT_GAME)
    _player(experiment, game)  # a set-up that cannot be played fails here, before any process starts
    workers = max(1, min(workers or os.cpu_count() or 1, seeds))
    runs: list[Run | None] = [None] * seeds
    done = 0
    if workers == 1:
        for seed in range(1, seeds + 1):
            runs[seed - 1] = play_run(name, seed, plays, block)
            done += 1
            if progress is not None:
                progress(done, seeds)
    else:
        size = max(1, math.ceil(seeds / (workers * 4)))
        batches = [tuple(range(first, min(first + size, seeds + 1))) for first in range(1, seeds + 1, size)]
        from menace.app.sweep import _watch_parent  # a worker ends itself when the command dies, as a sweep's

        with ProcessPoolExecutor(max_workers=workers, initializer=_watch_parent, initargs=(os.getpid(),)) as pool:
            futures = {pool.submit(_play_batch, name, batch, plays, block): batch for batch in batches}
            for future in as_completed(futures):
                for run in future.result():
                    runs[run.seed - 1] = run
                done += len(futures[future])
                if progress is not None:
                    progress(done, seeds)
    return ExperimentResult(experiment, plays, block, [r for r in runs if r is not None],
                            random_average(experiment, game), workers)


def _play_batch(name: str, seeds: Sequence[int], plays: int, block: int) -> list[Run]:
    return [play_run(name, seed, plays, block) for seed in seeds]


# -- a stored machine's tournament, as Fig. 4 ----------------------------------------------------
@dataclass(frozen=True)
class ScoreCurve:
    """A machine's tournament score so far, 3 for a win, 1 for a draw and -1 for a defeat (the
    matchboxes' own reinforcement, as the paper's Fig. 4 plots it), at up to a few thousand games."""

    machine: str
    games: list[int]
    score: list[int]
    totals: tuple[int, int, int]
    """Wins, draws and losses over the whole history."""

    @property
    def played(self) -> int:
        return self.games[-1] if self.games else 0


SCORE_POINTS = 4_000
"""Points of a score curve at most: every game of a tournament of Michie's length."""


def tournament_score(db: Database, name: str, points: int = SCORE_POINTS) -> ScoreCurve:
    """The cumulative 3W + D - L curve of machine ``name``'s history, whatever its rule; a
    :class:`~menace.app.series.PlotError` when it has played no games."""
    from menace.app.history import running_results

    games, totals = running_results(db, name, points)
    return ScoreCurve(name, games, [3 * w + d - lo for w, d, lo in totals], totals[-1])
