"""Michie's published Pegasus runs, run again over many seeds (in memory; nothing is stored).

``michie-1963-fig7``: the opening player learns under the Pegasus rule (A = 1.025, B = 2), the other
plays at random; ``fig8``: the second player learns; ``fig9``: both learn; ``random``: the exact
random-versus-random baseline that the figures' left-hand "random average" block shows. Each run is
tallied in blocks of one hundred plays, as the paper plots them (see :mod:`menace.core.michie1963`).

>>> result = run_experiment("michie-1963-random")
>>> result.baseline.wins
Fraction(737, 1260)
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from menace.core.errors import InvalidInputError
from menace.core.game import Game, Side
from menace.core.learner import DRAWN, Settings, build_boxes
from menace.core.michie1963 import CITATION, STATEMENTS
from menace.core.pegasus import TRIAL_RUNS, PegasusLearner, PegasusRule, RandomBaseline, play_two, random_baseline
from menace.core.tree import game_tree
from menace.games import find_game

BLOCK = 100
"""Plays per block, as the paper counts them."""
MAX_SEEDS = 10_000
MAX_PLAYS = 1_000_000


class UnknownExperimentError(InvalidInputError):
    """No published experiment of that name."""


@dataclass(frozen=True)
class Experiment:
    """A published run: who learns, and what the paper says about it."""

    name: str
    title: str
    learners: tuple[Side, ...]
    """The sides that learn (none: random against random)."""
    statement: str


EXPERIMENTS: dict[str, Experiment] = {
    "michie-1963-fig7": Experiment("michie-1963-fig7", "Fig. 7: the opening player learns, the other plays at random",
                                   (Side.X,), STATEMENTS["fig7"]),
    "michie-1963-fig8": Experiment("michie-1963-fig8", "Fig. 8: the second player learns, the opener plays at random",
                                   (Side.O,), STATEMENTS["fig8"]),
    "michie-1963-fig9": Experiment("michie-1963-fig9", "Fig. 9: both players learn", (Side.X, Side.O),
                                   STATEMENTS["fig9"]),
    "michie-1963-random": Experiment("michie-1963-random", "Random against random: the exact baseline", (),
                                     "The left-hand block of Figs. 7 and 8: both players choose at random."),
}
ALIASES = {"fig7": "michie-1963-fig7", "fig8": "michie-1963-fig8", "fig9": "michie-1963-fig9",
           "random": "michie-1963-random", "baseline": "michie-1963-random"}


def find_experiment(name: str) -> Experiment:
    """The named experiment (``fig7`` is short for ``michie-1963-fig7``); a clear error otherwise."""
    key = ALIASES.get(name.lower(), name.lower())
    try:
        return EXPERIMENTS[key]
    except KeyError:
        raise UnknownExperimentError(f"unknown experiment {name!r}; choose from {', '.join(EXPERIMENTS)}") from None


@dataclass(frozen=True)
class BlockSummary:
    """One block of one hundred plays over every seed: per result, the median and quartiles."""

    first: int
    last: int
    mean: tuple[float, float, float]
    median: tuple[float, float, float]
    low: tuple[float, float, float]
    """The lower quartile of wins, draws and losses."""
    high: tuple[float, float, float]


@dataclass(frozen=True)
class EmergedLine:
    """Fig. 9: the line of play both machines settled into (up to symmetry), and from which block."""

    moves: tuple[str, ...]
    seeds: int
    """How many seeds settled into it."""
    from_block: float
    """The median block from which it was played in most plays of every later block."""
    settled: int
    """How many seeds settled into any one line by the last block."""


@dataclass
class ExperimentResult:
    """The tallies of every seed, block by block, from the point of view of :attr:`side`."""

    experiment: Experiment
    rule: PegasusRule
    seeds: int
    plays: int
    side: Side
    """Whose wins, draws and losses the tallies count: the learner's (the opening player's in Fig. 9)."""
    baseline: RandomBaseline
    tallies: list[list[tuple[int, int, int]]] = field(default_factory=list)
    """Per seed, per block of one hundred plays: wins, draws, losses."""
    emerged: EmergedLine | None = None
    citation: str = CITATION

    @property
    def baseline_block(self) -> tuple[Fraction, Fraction, Fraction]:
        """The "random average" block: expected wins, draws and losses in one hundred random plays,
        for :attr:`side`, exactly."""
        b = self.baseline
        w, d, loss = b.wins * BLOCK, b.draws * BLOCK, b.losses * BLOCK
        return (w, d, loss) if self.side is Side.X else (loss, d, w)

    def blocks(self) -> list[BlockSummary]:
        """Each block's median, quartiles and mean over the seeds."""
        out = []
        for i in range(self.plays // BLOCK):
            cols = [[t[i][r] for t in self.tallies] for r in range(3)]
            qs = [_quartiles(c) for c in cols]
            out.append(BlockSummary(
                i * BLOCK + 1, (i + 1) * BLOCK,
                (statistics.fmean(cols[0]), statistics.fmean(cols[1]), statistics.fmean(cols[2])),
                (qs[0][1], qs[1][1], qs[2][1]), (qs[0][0], qs[1][0], qs[2][0]), (qs[0][2], qs[1][2], qs[2][2])))
        return out

    def mean(self, result: int, first: int, last: int) -> float:
        """The mean over the seeds of wins (0), draws (1) or losses (2) in plays ``first``..``last``
        (whole blocks)."""
        lo, hi = (first - 1) // BLOCK, last // BLOCK
        return statistics.fmean(sum(t[i][result] for i in range(lo, hi)) for t in self.tallies)


def _quartiles(values: Sequence[int]) -> tuple[float, float, float]:
    if len(values) == 1:
        return (float(values[0]),) * 3
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[1], q[2]


Progress = Callable[[int, int], None]
"""Called with (plays done, plays in all) as the seeds run."""


def run_experiment(name: str, seeds: int = 50, plays: int = 1000, rule: PegasusRule = TRIAL_RUNS,
                   first_seed: int = 0, progress: Progress | None = None) -> ExperimentResult:
    """Run a published experiment for ``seeds`` seeds (``first_seed``, ``first_seed + 1``, ...) of
    ``plays`` plays each, on tic-tac-toe; every machine starts fresh, with one box per position up to
    symmetry and even odds for its distinct moves."""
    experiment = find_experiment(name)
    if not 1 <= seeds <= MAX_SEEDS:
        raise InvalidInputError(f"the number of seeds must be between 1 and {MAX_SEEDS:,}, not {seeds}")
    if not BLOCK <= plays <= MAX_PLAYS or plays % BLOCK:
        raise InvalidInputError(f"plays come in blocks of {BLOCK}: give a multiple of {BLOCK} up to {MAX_PLAYS:,}, "
                                f"not {plays}")
    game = find_game("tictactoe")
    side = experiment.learners[0] if len(experiment.learners) == 1 else Side.X
    result = ExperimentResult(experiment, rule, seeds, plays, side, random_baseline(game))
    if not experiment.learners:
        result.seeds = 0
        result.plays = 0
        return result
    lines: list[tuple[tuple[int, ...], int] | None] = []
    for i in range(seeds):
        rng = random.Random(first_seed + i)
        done = i * plays

        def step(n: int, done: int = done) -> None:
            if progress is not None:
                progress(done + n, seeds * plays)

        if len(experiment.learners) == 1:
            result.tallies.append(_one_learner(game, rule, side, plays, rng, step))
        else:
            tally, line = _two_learners(game, rule, plays, rng, step)
            result.tallies.append(tally)
            lines.append(line)
    if lines:
        result.emerged = _emerged(game, lines)
    return result


def _learner(game: Game, rule: PegasusRule, side: Side) -> PegasusLearner:
    settings = Settings(side=side.name, schedule=(1,))
    return PegasusLearner(game, settings, rule, build_boxes(game, settings))


def _code(res: int, side: Side) -> int:
    return 1 if res == DRAWN else 0 if res == side else 2


def _one_learner(game: Game, rule: PegasusRule, side: Side, plays: int, rng: random.Random,
                 step: Callable[[int], None]) -> list[tuple[int, int, int]]:
    learner = _learner(game, rule, side)
    table = game_tree(game).legal
    tally: list[tuple[int, int, int]] = []
    for b in range(plays // BLOCK):
        counts = [0, 0, 0]
        for _ in range(BLOCK):
            res, _moves = learner.play_table(side, table, rng)
            counts[_code(res, side)] += 1
        tally.append((counts[0], counts[1], counts[2]))
        step((b + 1) * BLOCK)
    return tally


def _two_learners(game: Game, rule: PegasusRule, plays: int, rng: random.Random, step: Callable[[int], None],
                  ) -> tuple[list[tuple[int, int, int]], tuple[tuple[int, ...], int] | None]:
    x, o = _learner(game, rule, Side.X), _learner(game, rule, Side.O)
    tally: list[tuple[int, int, int]] = []
    commonest: list[tuple[tuple[int, ...], int]] = []
    for b in range(plays // BLOCK):
        counts = [0, 0, 0]
        seen: Counter[tuple[int, ...]] = Counter()
        for _ in range(BLOCK):
            res, moves = play_two(x, o, rng)
            counts[_code(res, Side.X)] += 1
            seen[_canonical_line(game, moves)] += 1
        tally.append((counts[0], counts[1], counts[2]))
        commonest.append(seen.most_common(1)[0])
        step((b + 1) * BLOCK)
    line, times = commonest[-1]
    if times * 2 <= BLOCK:
        return tally, None
    start = len(commonest) - 1
    while start > 0 and commonest[start - 1][0] == line and commonest[start - 1][1] * 2 > BLOCK:
        start -= 1
    return tally, (line, start + 1)


def _canonical_line(game: Game, moves: Sequence[int]) -> tuple[int, ...]:
    """A play's moves, the same for all its images under the board's symmetries."""
    return min(tuple(sym.moves[m] for m in moves) for sym in game.symmetries)


def _emerged(game: Game, lines: Sequence[tuple[tuple[int, ...], int] | None]) -> EmergedLine | None:
    settled = [line for line in lines if line is not None]
    if not settled:
        return None
    common, seeds = Counter(line for line, _ in settled).most_common(1)[0]
    blocks = [start for line, start in settled if line == common]
    return EmergedLine(tuple(game.move_name(m) for m in common), seeds, statistics.median(blocks), len(settled))
