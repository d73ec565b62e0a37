"""Sweeps: many independent machines trained from scratch, in parallel, summed up per setting.

A sweep crosses the values given for each machine option into :class:`SweepSetting` s, trains
one fresh machine per (setting, seed) against an opponent, entirely in memory, and measures each
run the same way:

* the game after which the opening box was empty, if it emptied (only under ``resign``: from
  then on MENACE resigns every game it opens on that side). The run still plays all its games,
  the resignations counting as losses, so that every run's figures cover the same games;
* the game that ends the first stretch of :data:`STRETCH` games in a row without a loss;
* wins, draws and losses over the last :data:`LAST_SHARE` of the games;
* wins, draws and losses of the trained machine, frozen (it no longer learns), against the
  ``random`` player.

Seeds are 1..N, and a run depends on its setting and seed alone, so results are the same
whatever the number of worker processes, on this machine or on a Dask cluster
(``run_sweep(..., cluster="tcp://HOST:8786")``, see :mod:`menace.app.pools`). Nothing is printed
and nothing is stored here unless asked (:func:`store_machines`, in the calling process).

>>> from menace.core.settings import MICHIE
>>> settings = expand_settings(MICHIE, beads=[(4, 3, 2, 1), (8, 4, 2, 1)])
>>> [s.label for s in settings]
['beads=4,3,2,1', 'beads=8,4,2,1']
>>> result = run_sweep(settings[:1], "perfect", games=50, seeds=2, workers=1, eval_games=10)
>>> len(result.runs), result.runs[0].seed
(2, 1)
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import random
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from menace.app.files import write_text
from menace.app.pools import DaskPool
from menace.core.errors import InvalidInputError, known
from menace.core.game import Game, Side
from menace.core.learner import DRAWN, GameRecord, Learner, build_boxes
from menace.core.match import MenacePlayer, play_game
from menace.core.pegasus import MeanOutcome
from menace.core.settings import EmptyPolicy, Settings, SettingsError, format_numbers
from menace.games import DEFAULT_GAME, find_game
from menace.players import Player, RulePlayer, find_player, split_name

if TYPE_CHECKING:  # the sweep's workers never import SQLAlchemy
    from menace.app.database import Database

STRETCH = 20
"""A run has learnt when it plays this many games in a row without losing one."""
LAST_SHARE = 0.2
"""The share of a run's games, at its end, over which its final form is measured."""
EVAL_OPPONENT = "random"
"""The frozen machine is measured against this player."""
EVAL_GAMES = 1000


class SweepError(InvalidInputError):
    """A sweep that cannot be run or saved: no settings, a label used twice, a plot format, ..."""


@dataclass(frozen=True)
class SweepSetting:
    """One point of a sweep: a machine's settings under a short label such as ``beads=8,4,2,1``."""

    label: str
    settings: Settings


@dataclass
class TrainedMachine:
    """What a run leaves behind when it is kept to be stored: final beads and every game."""

    counts: list[list[int]]
    records: list[GameRecord]
    mean: tuple[float, int, int] | None = None
    """The refined Pegasus rule's mean outcome after the last game (None: the machine keeps none)."""


@dataclass
class RunResult:
    """One machine trained from scratch: the figures a sweep measures on it."""

    label: str
    seed: int
    games: int
    wins: int
    draws: int
    losses: int
    opening_emptied: int | None
    """The game (1-based) after which the opening box was empty; None if it never emptied."""
    first_stretch: int | None
    """The game ending the first :data:`STRETCH` games in a row without a loss; None if never."""
    last_loss: int | None
    """The run's last lost game (after it, the machine never lost again); None if it never lost."""
    last_games: int
    last_wins: int
    last_draws: int
    last_losses: int
    eval_games: int
    eval_wins: int
    eval_draws: int
    eval_losses: int
    trained: TrainedMachine | None = field(default=None, repr=False)

    def row(self) -> dict[str, Any]:
        """The figures as a flat dict (what the CSV and JSON files hold)."""
        out = asdict(self)
        del out["trained"]
        return out


@dataclass
class SweepResult:
    """Every run of a sweep, in setting order and then seed order."""

    settings: list[SweepSetting]
    opponent: str
    games: int
    seeds: int
    eval_games: int
    runs: list[RunResult]
    workers: int
    seconds: float
    game: str = DEFAULT_GAME
    cluster: str | None = None
    """The Dask scheduler it ran on; None: this machine. (Like ``workers`` and ``seconds``, it is
    in no file: the files of a sweep are the same wherever it ran.)"""

    def runs_for(self, label: str) -> list[RunResult]:
        return [r for r in self.runs if r.label == label]


@dataclass(frozen=True)
class SummaryRow:
    """A setting's figures over all its runs (per-1,000 figures are means over the runs)."""

    label: str
    runs: int
    emptied: int
    """Runs whose opening box emptied."""
    emptied_median: float | None
    """Median game at which it emptied, over those runs."""
    stretch_median: float | None
    """Median game ending the first stretch without a loss, over the runs that had one."""
    stretch_never: int
    last_loss_median: float | None
    """Median over the runs of each run's last lost game (a run that never lost counts as 0)."""
    last_loss_max: int
    last_games: int
    last: tuple[float, float, float]
    """Wins, draws, losses per 1,000 over each run's last games."""
    eval_games: int
    frozen: tuple[float, float, float] | None
    """Wins, draws, losses per 1,000 of the frozen machine against random (None: not measured)."""

    @property
    def emptied_share(self) -> float:
        return self.emptied / self.runs if self.runs else math.nan


# -- settings ----------------------------------------------------------------------------------
def expand_settings(
    base: Settings,
    beads: Sequence[tuple[int, ...]] = (),
    reinforce: Sequence[tuple[int, int, int]] = (),
    empty_box: Sequence[EmptyPolicy] = (),
    all_squares: Sequence[bool] = (),
    side: Sequence[str] = (),
    base_label: str = "michie",
) -> list[SweepSetting]:
    """Every combination of the values given for each option, on top of ``base``.

    An option given no values keeps ``base``'s; the label names the options that were given
    (``"beads=8,4,2,1 empty=resign"``), or is ``base_label`` when none were. Repeated values
    count once.

    >>> from menace.core.settings import MICHIE
    >>> [s.label for s in expand_settings(MICHIE, beads=[(4, 3, 2, 1)], side=["X", "O"])]
    ['beads=4,3,2,1 side=X', 'beads=4,3,2,1 side=O']
    """
    axes: list[list[tuple[str, dict[str, Any]]]] = []
    if beads:
        axes.append([(f"beads={format_numbers(b)}", {"schedule": tuple(b)}) for b in _unique(beads)])
    if reinforce:
        axes.append([
            (f"reinforce={format_numbers(r)}", {"win": r[0], "draw": r[1], "loss": r[2]})
            for r in _unique(reinforce)
        ])
    if empty_box:
        axes.append([(f"empty={p.value}", {"empty_policy": p}) for p in _unique(empty_box)])
    if all_squares:
        axes.append([
            (f"squares={'all' if a else 'distinct'}", {"all_squares": a}) for a in _unique(all_squares)
        ])
    if side:
        axes.append([(f"side={s}", {"side": s}) for s in _unique(side)])
    if not axes:
        return [SweepSetting(base_label, base)]
    out = []
    for combo in itertools.product(*axes):
        changes: dict[str, Any] = {}
        for _, change in combo:
            changes.update(change)
        out.append(SweepSetting(" ".join(label for label, _ in combo), Settings(**{**base.__dict__, **changes})))
    return out


def sweep_settings(
    game: str = DEFAULT_GAME,
    preset: str | None = None,
    *,
    rules: Sequence[str] = (),
    beads: Sequence[tuple[int, ...]] = (),
    reinforce: Sequence[tuple[int, int, int]] = (),
    empty_box: Sequence[EmptyPolicy] = (),
    all_squares: Sequence[bool] = (),
    side: Sequence[str] = (),
    pegasus_a: Sequence[float] = (),
    pegasus_b: Sequence[float] = (),
    refined: Sequence[str] = (),
    decay: Sequence[float] = (),
) -> list[SweepSetting]:
    """The settings of a sweep of ``game``: every combination of the values given, on top of
    ``preset`` (the game's own by default), for each learning rule in ``rules`` (michie, pegasus).

    The matchbox machine's settings are :func:`expand_settings`'s; a Pegasus setting is built as
    ``menace init --rule pegasus`` builds its machine (:func:`~menace.app.machines.pegasus_settings`),
    crossed with the values of A, B, the refinement and the decay D, and with the options that are
    not about beads (squares, side). With both rules the bead options vary the michie settings only;
    with the Pegasus rule alone they are refused, as are the Pegasus parameters without that rule
    (:class:`~menace.core.settings.SettingsError`). Once ``rules`` is given, every label starts with
    its rule (``rule=pegasus A=1.05``).

    >>> [s.label for s in sweep_settings(rules=["michie", "pegasus"], beads=[(8, 4, 2, 1)])]
    ['rule=michie beads=8,4,2,1', 'rule=pegasus']
    """
    # Only the calling process builds settings: the sweep's workers never import SQLAlchemy.
    from menace.app.machines import PEGASUS_ONLY, check_rule, no_beads, pegasus_settings, settings_for

    _, base, base_label = settings_for(game, preset)
    for rule in rules:
        check_rule(rule)
    chosen = _unique(rules)
    if "pegasus" not in chosen:
        if pegasus_a or pegasus_b or refined or decay:
            raise SettingsError(PEGASUS_ONLY)
        if not chosen:
            return expand_settings(base, beads, reinforce, empty_box, all_squares, side, base_label)
    elif "michie" not in chosen:
        given = [what for what, values in (("initial beads", beads), ("bead reinforcement", reinforce),
                                           ("empty-box policy", empty_box)) if values]
        if given:
            raise no_beads(given)
    out: list[SweepSetting] = []
    for rule in chosen:
        if rule == "michie":
            out += _prefixed("rule=michie", expand_settings(base, beads, reinforce, empty_box, all_squares, side, ""))
            continue
        unset: list[None] = [None]
        for a, b, refinement, d in itertools.product(
            _unique(pegasus_a) or unset, _unique(pegasus_b) or unset, _unique(refined) or unset,
            _unique(decay) or unset,
        ):
            # A number as Python writes it back (1.025, not a rounding that two values could share).
            words = ["rule=pegasus"] + [f"{name}={value}" for name, value in (("A", a), ("B", b),
                                                                             ("refined", refinement), ("D", d))
                                        if value is not None]
            odds = pegasus_settings(base, a, b, refinement, d)
            out += _prefixed(" ".join(words), expand_settings(odds, all_squares=all_squares, side=side, base_label=""))
    return out


def _prefixed(prefix: str, settings: Sequence[SweepSetting]) -> list[SweepSetting]:
    return [SweepSetting(f"{prefix} {s.label}".rstrip(), s.settings) for s in settings]


T = TypeVar("T")


def _unique(values: Sequence[T]) -> list[T]:
    return list(dict.fromkeys(values))


# -- one run -----------------------------------------------------------------------------------
class Trainer:
    """Trains fresh machines of one game, reusing what takes longest to build.

    Building a learner and tabulating an opponent take tens of milliseconds, a whole run a few,
    so a trainer keeps them between runs (its learners are reset in place). A trainer is not
    shared: two sweeps in two threads each have their own, and each worker process has one.
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._learners: dict[Settings, Learner] = {}
        self._rule_players: dict[str, RulePlayer | None] = {}
        self._tables: dict[str, list[tuple[int, ...]]] = {}

    def learner(self, settings: Settings) -> Learner:
        """A learner for ``settings`` on its initial beads."""
        learner = self._learners.get(settings)
        if learner is None:
            learner = self._learners[settings] = Learner(self.game, settings, build_boxes(self.game, settings))
        else:
            # In place: the learner's position tables hold these very lists.
            for counts, initial in zip(learner.counts, learner.initial):
                counts[:] = initial
            learner.counts_changed()
            if learner.pegasus is not None:  # the refined rule's mean outcome starts at 0 too
                learner.pegasus.mean = MeanOutcome(learner.pegasus.rule)
        return learner

    def rule_player(self, name: str) -> RulePlayer | None:
        """The one rule player called ``name``; None if that player is not a rule player (it may
        learn, so each run makes its own). Raises for an unknown name or one not for this game."""
        if name not in self._rule_players:
            player = self.make_player(name, random.Random(0))
            self._rule_players[name] = player if isinstance(player, RulePlayer) else None
        return self._rule_players[name]

    def make_player(self, name: str, rng: random.Random) -> Player:
        return find_player(name, self.game).create(self.game, rng, split_name(name)[1])

    def table(self, name: str, learner: Learner) -> list[tuple[int, ...]] | None:
        """The rule player's choices in every position, tabulated once."""
        table = self._tables.get(name)
        if table is None:
            player = self.rule_player(name)
            if player is None:
                return None
            # Every learner of a game numbers the positions the same way, so one table serves all.
            table = self._tables[name] = learner.options_table(player.options)
        return table

    def run_one(self, setting: SweepSetting, opponent: str, games: int, seed: int, eval_games: int = EVAL_GAMES,
                keep: bool = False) -> RunResult:
        """See :func:`run_one`."""
        return _run_one(self, setting, opponent, games, seed, eval_games, keep)


def check_opponent(name: str, game: Game | None = None) -> None:
    """Raise :class:`~menace.players.UnknownPlayerError` or
    :class:`~menace.players.PlayerParamError` if ``name`` is not a player a sweep can use."""
    Trainer(game or find_game(DEFAULT_GAME)).rule_player(name)


def _opening_boxes(learner: Learner) -> dict[Side, list[int]]:
    """The boxes of MENACE's first move on each side, when an empty one means resigning."""
    if learner.settings.empty_policy is not EmptyPolicy.RESIGN:
        return {}
    found = {
        side: [i for i, box in enumerate(learner.boxes) if box.side is side and box.move_number == 1]
        for side in learner.settings.sides
    }
    return {side: boxes for side, boxes in found.items() if boxes}


def last_games(games: int) -> int:
    """How many games at the end of a run measure its final form: :data:`LAST_SHARE` of them."""
    return max(1, min(games, round(games * LAST_SHARE)))


def run_one(
    setting: SweepSetting,
    opponent: str,
    games: int,
    seed: int,
    eval_games: int = EVAL_GAMES,
    keep: bool = False,
    game: Game | None = None,
) -> RunResult:
    """Train a fresh machine for ``games`` games against ``opponent`` and measure it.

    Everything random comes from ``random.Random(seed)``, so a seed gives the same run every
    time, in any process. A machine that plays both sides alternates, X first. ``keep`` keeps
    the final beads and every game, to be stored.

    >>> from menace.core.settings import MICHIE
    >>> run = run_one(SweepSetting("michie", MICHIE), "perfect", 200, seed=3, eval_games=100)
    >>> run.wins
    0
    """
    return _run_one(Trainer(game or find_game(DEFAULT_GAME)), setting, opponent, games, seed, eval_games, keep)


def _run_one(trainer: Trainer, setting: SweepSetting, opponent: str, games: int, seed: int, eval_games: int,
             keep: bool) -> RunResult:
    if games < 1:
        raise SweepError("a run needs at least one game")
    learner = trainer.learner(setting.settings)
    rng = random.Random(seed)
    table = trainer.table(opponent, learner)
    player = None if table is not None else trainer.make_player(opponent, rng)
    sides = learner.settings.sides
    nsides = len(sides)
    opening = _opening_boxes(learner)
    counts = learner.counts
    records: list[GameRecord] | None = [] if keep else None
    tally = [0, 0, 0]  # wins, draws, losses
    last = [0, 0, 0]
    n_last = last_games(games)
    last_from = games - n_last
    emptied: int | None = None
    stretch: int | None = None
    lost_last: int | None = None
    streak = 0
    play = learner.play_table
    for g in range(games):
        side = sides[g % nsides]
        if table is not None:
            res, moves = play(side, table, rng)
        else:
            res, moves = _play_general(learner, known(player, "the opponent"), side, rng)
        if records is not None:
            records.append(GameRecord(side, moves, res))
        if res == DRAWN:
            k = 1
        elif res == side:
            k = 0
        else:
            k = 2
            lost_last = g + 1
            # Only a loss takes beads, so only then can the opening box have emptied.
            if emptied is None and side in opening and any(not any(counts[i]) for i in opening[side]):
                emptied = g + 1
        tally[k] += 1
        if g >= last_from:
            last[k] += 1
        if stretch is None:
            streak = 0 if k == 2 else streak + 1
            if streak == STRETCH:
                stretch = g + 1
    trained = None
    if records is not None:
        mean = learner.pegasus.mean.state if learner.pegasus is not None and learner.settings.keeps_mean else None
        trained = TrainedMachine([list(c) for c in counts], records, mean)
    frozen = [0, 0, 0]
    if eval_games:
        eval_table = known(trainer.table(EVAL_OPPONENT, learner), "the frozen machine's opponent table")
        for g in range(eval_games):
            side = sides[g % nsides]
            res, _ = play(side, eval_table, rng, learn=False)
            frozen[1 if res == DRAWN else 0 if res == side else 2] += 1
    return RunResult(
        label=setting.label, seed=seed, games=games, wins=tally[0], draws=tally[1], losses=tally[2],
        opening_emptied=emptied, first_stretch=stretch, last_loss=lost_last,
        last_games=n_last, last_wins=last[0], last_draws=last[1], last_losses=last[2],
        eval_games=eval_games, eval_wins=frozen[0], eval_draws=frozen[1], eval_losses=frozen[2],
        trained=trained,
    )


def _play_general(learner: Learner, player: Player, side: Side, rng: random.Random) -> tuple[int, list[int]]:
    me = MenacePlayer(learner, side)
    x, o = (me, player) if side is Side.X else (player, me)
    record = play_game(learner.game, x, o, rng).record(side)
    return record.winner, record.moves


# -- many runs ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Task:
    game: str
    setting: SweepSetting
    opponent: str
    games: int
    seeds: tuple[int, ...]
    eval_games: int
    keep: bool


_WORKER = threading.local()
"""In a worker (a process of the local pool, or one of a Dask worker's threads, which may run
tasks side by side): its trainers per game, kept between tasks."""


PARENT_CHECK_SECONDS = 0.5


def _watch_parent(parent: int) -> None:
    """In a local pool worker: end this process as soon as the sweep that started it is gone
    (killed with SIGKILL, say), instead of waiting on its pipe for ever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="parent watchdog", daemon=True).start()


def _run_task(task: _Task, trainer: Trainer | None = None) -> list[RunResult]:
    if trainer is None:
        trainers: dict[str, Trainer] = _WORKER.__dict__.setdefault("trainers", {})
        trainer = trainers.get(task.game)
        if trainer is None:
            trainer = trainers[task.game] = Trainer(find_game(task.game))
    return [trainer.run_one(task.setting, task.opponent, task.games, s, task.eval_games, task.keep)
            for s in task.seeds]


def run_sweep(
    settings: Sequence[SweepSetting],
    opponent: str,
    games: int,
    seeds: int,
    workers: int | None = None,
    eval_games: int = EVAL_GAMES,
    progress: Callable[[int, int], None] | None = None,
    keep: bool = False,
    game: str = DEFAULT_GAME,
    cluster: str | None = None,
) -> SweepResult:
    """Train ``seeds`` machines (seeds 1..N) per setting against ``opponent``, on ``workers``
    processes (default: every core); ``progress(done, total)`` hears of finished runs.

    With ``cluster`` (a Dask scheduler's address, ``tcp://HOST:8786``) the runs go to that
    cluster's workers instead, ``workers`` being ignored: see :class:`~menace.app.pools.DaskPool`
    for the errors. Work goes out in batches of seeds, a few per worker, so each process builds its
    engines and tables once. The result does not depend on ``workers`` or on where it ran.
    """
    settings = list(settings)
    if not settings:
        raise SweepError("a sweep needs at least one setting")
    labels = [s.label for s in settings]
    if len(set(labels)) != len(labels):
        raise SweepError("every setting of a sweep needs its own label")
    if games < 1 or seeds < 1 or eval_games < 0:
        raise SweepError("a sweep needs at least one game and one seed, and no negative evaluation")
    # The opponent is checked before any work; in this process the trainer serves every task.
    trainer = Trainer(find_game(game))
    trainer.rule_player(opponent)
    start = time.perf_counter()
    dask = None if cluster is None else DaskPool(cluster)
    workers = dask.workers if dask is not None else workers or os.cpu_count() or 1
    total = len(settings) * seeds
    # A few batches per worker keep them all busy to the end, without a task per run.
    size = max(1, math.ceil(seeds * len(settings) / (workers * 4)))
    tasks = [
        _Task(game, s, opponent, games, tuple(range(first, min(first + size, seeds + 1))), eval_games, keep)
        for s in settings
        for first in range(1, seeds + 1, size)
    ]
    workers = min(workers, len(tasks))
    done = 0
    results: list[list[RunResult]] = [[] for _ in tasks]
    if workers == 1 and dask is None:
        for i, task in enumerate(tasks):
            results[i] = _run_task(task, trainer)
            done += len(task.seeds)
            if progress is not None:
                progress(done, total)
    else:
        # A local worker ends itself when the sweep dies (see _watch_parent).
        pool_of = dask if dask is not None else ProcessPoolExecutor(
            max_workers=workers, initializer=_watch_parent, initargs=(os.getpid(),))
        with pool_of as pool:
            futures = {pool.submit(_run_task, task): i for i, task in enumerate(tasks)}
            for future in as_completed(futures):
                i = futures[future]
                results[i] = future.result()
                done += len(tasks[i].seeds)
                if progress is not None:
                    progress(done, total)
    runs = [run for batch in results for run in batch]
    return SweepResult(settings, opponent, games, seeds, eval_games, runs, workers, time.perf_counter() - start,
                       game, cluster)


# -- summing up --------------------------------------------------------------------------------
def summarize(result: SweepResult) -> list[SummaryRow]:
    """A row per setting, in the sweep's order."""
    rows = []
    for setting in result.settings:
        runs = result.runs_for(setting.label)
        emptied = [r.opening_emptied for r in runs if r.opening_emptied is not None]
        stretches = [r.first_stretch for r in runs if r.first_stretch is not None]
        last = _per_thousand(runs, lambda r: (r.last_wins, r.last_draws, r.last_losses, r.last_games))
        frozen = (
            _per_thousand(runs, lambda r: (r.eval_wins, r.eval_draws, r.eval_losses, r.eval_games))
            if result.eval_games else None
        )
        last_lost = [r.last_loss or 0 for r in runs]
        rows.append(SummaryRow(
            setting.label, len(runs), len(emptied), _median(emptied), _median(stretches),
            len(runs) - len(stretches), _median(last_lost), max(last_lost, default=0), last_games(result.games),
            last, result.eval_games, frozen,
        ))
    return rows


def _median(values: Sequence[int]) -> float | None:
    return float(statistics.median(values)) if values else None


def _per_thousand(
    runs: Sequence[RunResult], figures: Callable[[RunResult], tuple[int, int, int, int]]
) -> tuple[float, float, float]:
    """Mean over the runs of each run's wins, draws and losses per 1,000 games."""
    if not runs:
        return (math.nan, math.nan, math.nan)
    sums = [0.0, 0.0, 0.0]
    for r in runs:
        w, d, l_, n = figures(r)
        for i, v in enumerate((w, d, l_)):
            sums[i] += 1000 * v / n
    return (sums[0] / len(runs), sums[1] / len(runs), sums[2] / len(runs))


# -- files -------------------------------------------------------------------------------------
RUN_FIELDS = list(RunResult.__dataclass_fields__)[:-1]


def write_csv(result: SweepResult, path: str | Path) -> None:
    """A row per run (every figure of :class:`RunResult`); empty cells where a run has none."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=RUN_FIELDS)
    writer.writeheader()
    for run in result.runs:
        writer.writerow({k: "" if v is None else v for k, v in run.row().items()})
    write_text(path, text.getvalue())


def settings_dict(settings: Settings) -> dict[str, Any]:
    return {
        "side": settings.side, "schedule": list(settings.schedule), "win": settings.win,
        "draw": settings.draw, "loss": settings.loss, "all_squares": settings.all_squares,
        "symmetry": settings.symmetry, "empty_policy": settings.empty_policy.value,
        "scope": settings.scope.value, "forced_boxes": settings.forced_boxes, "rule": settings.rule_name,
        "pegasus": None if settings.pegasus is None else {
            "a": settings.pegasus.a, "b": settings.pegasus.b, "refinement": settings.pegasus.refinement.value,
            "decay": settings.pegasus.decay,
        },
    }


def to_json(result: SweepResult) -> dict[str, Any]:
    """The sweep as plain data: what was run, the summary per setting and every run."""
    return {
        "game": result.game,
        "opponent": result.opponent,
        "games": result.games,
        "seeds": result.seeds,
        "eval_games": result.eval_games,
        "eval_opponent": EVAL_OPPONENT,
        "stretch": STRETCH,
        "last_games": last_games(result.games),
        "settings": [{"label": s.label, **settings_dict(s.settings)} for s in result.settings],
        "summary": [_summary_dict(r) for r in summarize(result)],
        "runs": [run.row() for run in result.runs],
    }


def _summary_dict(row: SummaryRow) -> dict[str, Any]:
    def nan_to_none(v: float) -> float | None:
        return None if math.isnan(v) else v

    return {
        "label": row.label, "runs": row.runs, "opening_emptied": row.emptied,
        "opening_emptied_share": nan_to_none(row.emptied_share), "opening_emptied_median_game": row.emptied_median,
        "first_stretch_median_game": row.stretch_median, "first_stretch_never": row.stretch_never,
        "last_loss_median_game": row.last_loss_median, "last_loss_max_game": row.last_loss_max,
        "last_games": row.last_games,
        "last_per_1000": dict(zip(("wins", "draws", "losses"), map(nan_to_none, row.last))),
        "frozen_vs_random_per_1000": (
            None if row.frozen is None else dict(zip(("wins", "draws", "losses"), map(nan_to_none, row.frozen)))
        ),
    }


def write_json(result: SweepResult, path: str | Path) -> None:
    write_text(path, json.dumps(to_json(result), indent=1) + "\n")


# -- storing -----------------------------------------------------------------------------------
def machine_names(settings: Sequence[SweepSetting], seeds: int, prefix: str) -> list[str]:
    """The names sweep machines are stored under: ``PREFIX-K-SEED`` for the K-th setting."""
    return [f"{prefix}-{k}-{seed}" for k in range(1, len(settings) + 1) for seed in range(1, seeds + 1)]


def taken_names(db: Database, names: Sequence[str]) -> list[str]:
    """Those of ``names`` already used by machines in ``db``."""
    from menace.storage import repository as repo

    db.creating()
    with db.reading() as s:
        existing = set(repo.machine_names(s))
    return [n for n in names if n in existing]


def store_machines(db: Database, prefix: str, result: SweepResult) -> list[str]:
    """Store every run's machine (run with ``keep=True``) with its games, in one transaction,
    as ``PREFIX-K-SEED``; returns the names. Fails, storing nothing, if a name is taken."""
    from menace.storage import repository as repo

    names = machine_names(result.settings, result.seeds, prefix)
    by_key = {(r.label, r.seed): r for r in result.runs}
    db.creating()
    with db.writing() as s:
        taken = set(repo.machine_names(s)).intersection(names)
        if taken:
            raise repo.MachineExistsError(
                f"machines named {', '.join(sorted(taken)[:3])}{' ...' if len(taken) > 3 else ''} exist; "
                f"choose another prefix"
            )
        for k, setting in enumerate(result.settings):
            for seed in range(1, result.seeds + 1):
                run = by_key[(setting.label, seed)]
                if run.trained is None:
                    raise SweepError("run the sweep with keep=True to store its machines")
                name = names[k * result.seeds + seed - 1]
                stored = repo.create_machine(s, name, find_game(result.game), setting.settings, "sweep")
                updates = [
                    (box_id, m, run.trained.counts[i][m])
                    for i, (box, box_id) in enumerate(zip(stored.boxes, stored.box_ids))
                    for m, initial in box.initial.items()
                    if run.trained.counts[i][m] != initial
                ]
                run_id = repo.start_run(s, stored.id, "sweep", result.opponent, seed)
                repo.save_games(s, stored.id, run_id, 1, run.trained.records, updates)
                if run.trained.mean is not None:
                    repo.save_mean_outcome(s, stored.id, run.trained.mean)
                repo.end_run(s, run_id)
    return names

