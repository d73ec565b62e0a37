"""The ``sweep`` command: many machines trained from scratch in parallel, summed up per setting.

The command stands alone; the main group attaches it. It needs the database only with
``--store``, and then finds it through the ``url`` of the click context object when the group
provides one (``$MENACE_DB`` or ``menace.db`` otherwise). ``--cluster`` (or ``$MENACE_DASK``)
sends the runs to a Dask scheduler; the machines are then still stored from here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import click

from menace.app.sweep import (
    EVAL_GAMES,
    EVAL_OPPONENT,
    check_opponent,
    machine_names,
    run_sweep,
    store_machines,
    summarize,
    sweep_settings,
    taken_names,
    write_csv,
    write_json,
)
from menace.cli.common import (
    AppContext,
    FilePath,
    check_machine_name,
    game_of,
    game_rule_options,
    out_file,
    pass_app,
    where_options,
)
from menace.core.game import Game
from menace.core.learner import Box, build_boxes, check_schedule
from menace.core.settings import (
    PRESETS,
    EmptyPolicy,
    Settings,
    SettingsError,
    parse_reinforcement,
    parse_schedule,
)
from menace.games import DEFAULT_GAME, DEFAULT_PRESETS, PRESET_GAMES, family_of, game_names
from menace.players import PlayerParamError, UnknownPlayerError
from menace.render.figures import FORMATS
from menace.render.tables import sweep_table

SQUARES = {"all": True, "distinct": False}
CLUSTER_ENV = "MENACE_DASK"
T = TypeVar("T")


def _schedules(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> list[tuple[int, ...]]:
    try:
        return [parse_schedule(v) for v in values]
    except SettingsError as exc:
        raise click.BadParameter(str(exc)) from None


def _reinforcements(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> list[tuple[int, int, int]]:
    try:
        return [parse_reinforcement(v) for v in values]
    except SettingsError as exc:
        raise click.BadParameter(str(exc)) from None


def _opponent(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        check_opponent(value)
    except (UnknownPlayerError, PlayerParamError) as exc:
        raise click.BadParameter(str(exc)) from None
    return value


def _plot_path(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    if value is not None and value.suffix.lower() not in FORMATS:
        raise click.BadParameter(f"give a file ending in {', '.join(FORMATS)}, not {value.name!r}")
    return out_file(ctx, param, value)


OUT_FILE = FilePath(dir_okay=False, writable=True, path_type=Path)


@click.command()
@click.option("--seeds", type=click.IntRange(1, 1_000_000), default=100, show_default=True,
              help="Machines per setting, each trained from scratch with its own seed (1..N).")
@click.option("-n", "--games", type=click.IntRange(1, 10**9), default=1000, show_default=True,
              help="Training games per machine.")
@click.option("--vs", "opponent", default="perfect", show_default=True, metavar="NAME", callback=_opponent,
              help="The opponent every machine trains against (see menace opponents).")
@click.option("--game", type=click.Choice(game_names()), default=DEFAULT_GAME, show_default=True,
              help="The game the machines learn.")
@game_rule_options
@click.option("--preset", type=click.Choice(list(PRESETS)),
              help="The machine the swept options change [default: the game's own: michie, gardner, classroom].")
@click.option("--beads", "schedules", multiple=True, callback=_schedules, metavar="N,N,...",
              help="Initial beads per move, e.g. 8,4,2,1. Repeat to sweep several.")
@click.option("--reinforce", "reinforcements", multiple=True, callback=_reinforcements, metavar="WIN,DRAW,LOSS",
              help="Beads added per bead drawn after a win, draw, loss, e.g. 3,1,-1. Repeatable.")
@click.option("--empty-box", "empty_boxes", multiple=True, type=click.Choice([p.value for p in EmptyPolicy]),
              help="When a box runs out of beads: revive, resign, restock or keep-last. Repeatable.")
@click.option("--squares", multiple=True, type=click.Choice(list(SQUARES)),
              help="Beads for every empty square (all) or only for distinct moves. Repeatable.")
@click.option("--side", "sides", multiple=True, type=click.Choice(["X", "O", "both"]),
              help="MENACE moves first (X), second (O) or both (alternating). Repeatable.")
@click.option("--rule", "learning_rules", multiple=True, type=click.Choice(["michie", "pegasus"]),
              help="How the machines learn (see menace init): michie's beads or the Pegasus program's odds. "
                   "Repeatable; with both, the bead options vary the michie machines only.")
@click.option("--pegasus-a", "pegasus_a", multiple=True, type=float, metavar="A",
              help="The Pegasus rule's A [default: 1.025]. Repeatable.")
@click.option("--pegasus-b", "pegasus_b", multiple=True, type=float, metavar="B",
              help="The Pegasus rule's B [default: 2]. Repeatable.")
@click.option("--refined", multiple=True, type=click.Choice(["hundred", "per-play"]),
              help="The Pegasus rule refined as in the paper's Table 3 (see menace init). Repeatable.")
@click.option("--decay", multiple=True, type=float, metavar="D",
              help="The refined rule's decay over a hundred plays [default: 0.5]. Repeatable.")
@click.option("--workers", type=click.IntRange(1, 1024),
              help=f"Processes to train on [default: every core, here {os.cpu_count() or 1}].")
@click.option("--cluster", metavar="tcp://HOST:8786", envvar=CLUSTER_ENV, show_envvar=True,
              help="Train on the workers of this Dask scheduler instead of here (needs menace[dask]).")
@click.option("--eval-games", type=click.IntRange(0, 10**9), default=EVAL_GAMES, show_default=True,
              help=f"Games of each trained machine, frozen, against {EVAL_OPPONENT} (0: skip).")
@click.option("--csv", "csv_path", type=OUT_FILE, callback=out_file, help="Write a row per machine to this CSV file.")
@click.option("--json", "json_path", type=OUT_FILE, callback=out_file,
              help="Write the summary and every machine's figures as JSON.")
@click.option("--plot", "plot_path", type=OUT_FILE, callback=_plot_path,
              help="Draw each setting's spread over its machines (.png, .svg or .pdf).")
@click.option("--store", "store_prefix", metavar="PREFIX",
              help="Also store every trained machine, with its games, as PREFIX-K-SEED (K: the setting's number).")
@where_options
@pass_app
def sweep(
    app: AppContext, seeds: int, games: int, opponent: str, game: str, rules: dict[str, int | str | None],
    preset: str | None,
    schedules: list[tuple[int, ...]],
    reinforcements: list[tuple[int, int, int]], empty_boxes: tuple[str, ...], squares: tuple[str, ...],
    sides: tuple[str, ...], learning_rules: tuple[str, ...], pegasus_a: tuple[float, ...],
    pegasus_b: tuple[float, ...], refined: tuple[str, ...], decay: tuple[float, ...], workers: int | None,
    cluster: str | None, eval_games: int, csv_path: Path | None,
    json_path: Path | None, plot_path: Path | None, store_prefix: str | None,
) -> None:
    """Train many machines from scratch, in parallel, and compare settings.

    Every option that builds a machine can be repeated; the sweep tries every combination.
    For each setting it prints: in how many runs the opening box emptied (under resign, after
    which MENACE resigns every game) and the median game it did; the median game ending the
    first 20 games in a row without a loss; wins/draws/losses per 1,000 over the last fifth of
    the games; and the same for the trained machine, frozen, against random. Seeds are 1..N:
    the same command gives the same figures, on any number of cores. Nothing is stored unless
    --store is given.

    \b
    Examples:
      menace sweep --seeds 200 --games 1000 --vs perfect --preset michie-1961 --beads 4,3,2,1 --beads 8,4,2,1
      menace sweep --vs smart --empty-box resign --empty-box restock --json sweep.json
      menace sweep --side X --side O --squares all --squares distinct --plot sweep.png
      menace sweep --game hexapawn --vs perfect --seeds 200 --games 100   when HER stops losing
      menace sweep --vs random --rule michie --rule pegasus --seeds 10 --games 300 --eval-games 100   beads or odds
      menace sweep --seeds 1000 --games 10000 --cluster tcp://scheduler:8786
    """
    if cluster is not None and workers is not None:
        raise click.UsageError(f"--workers counts processes here; with --cluster (or ${CLUSTER_ENV}) the "
                               f"cluster's workers train")
    chosen = game_of(game, rules)
    preset = preset or DEFAULT_PRESETS[family_of(chosen.name)]
    if PRESET_GAMES[preset] != family_of(chosen.name):
        raise click.BadParameter(f"{preset} is a preset for {PRESET_GAMES[preset]}, not {chosen.name}",
                                 param_hint="'--preset'")
    check_opponent(opponent, chosen)
    try:
        settings = sweep_settings(
            chosen.name, preset, rules=learning_rules, beads=schedules, reinforce=reinforcements,
            empty_box=[EmptyPolicy(e) for e in empty_boxes], all_squares=[SQUARES[s] for s in squares],
            side=sides, pegasus_a=pegasus_a, pegasus_b=pegasus_b, refined=refined, decay=decay,
        )
        _check_schedules(chosen, [s.settings for s in settings])
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    if store_prefix is not None:
        check_machine_name(f"{store_prefix}-1-1")
        names = machine_names(settings, seeds, store_prefix)
        taken = _checked(lambda: taken_names(app.database, names))
        if taken:
            raise click.ClickException(
                f"machines named {', '.join(taken[:3])}{' ...' if len(taken) > 3 else ''} exist; "
                f"choose another --store prefix"
            )
    total = len(settings) * seeds
    click.echo(f"{len(settings)} setting{'s' if len(settings) != 1 else ''} x {seeds} machines x {games:,} games "
               f"against {opponent}", err=True)
    with click.progressbar(length=total, label="training", file=sys.stderr) as bar:
        last = 0

        def progress(done: int, _total: int) -> None:
            nonlocal last
            bar.update(done - last)
            last = done

        result = run_sweep(settings, opponent, games, seeds, workers, eval_games, progress,
                           keep=store_prefix is not None, game=chosen.name, cluster=cluster)
    where = f"{result.workers} process{'es' if result.workers != 1 else ''}"
    if result.cluster is not None:
        threads = f"{result.workers} worker thread{'s' if result.workers != 1 else ''}"
        where = f"the Dask cluster at {result.cluster} ({threads})"
    click.echo(f"{total:,} machines trained in {result.seconds:.1f} s on {where}", err=True)
    for line in sweep_table(summarize(result)):
        click.echo(line)
    from menace.render.sweep import plot_distributions

    for path, write in ((csv_path, write_csv), (json_path, write_json), (plot_path, plot_distributions)):
        if path is not None:
            _checked(lambda: write(result, path))  # noqa: B023 - called at once, in this iteration
            click.echo(f"written to {path}")
    if store_prefix is not None:
        prefix = store_prefix
        click.echo(f"storing {total:,} machines and their games ...", err=True)
        names = _checked(lambda: store_machines(app.database, prefix, result))
        click.echo(f"stored {len(names)} machines, {names[0]} to {names[-1]}")


def _check_schedules(game: Game, settings: list[Settings]) -> None:
    """Each schedule fits its machine's moves (the boxes are built once per shape of machine)."""
    built: dict[Settings, list[Box]] = {}
    for s in settings:
        if s.pegasus is not None:
            continue  # odds, not beads: the schedule is not used
        shape = replace(s, schedule=(1,))
        if shape not in built:
            built[shape] = build_boxes(game, shape)
        check_schedule(s, built[shape])


def _checked(action: Callable[[], T]) -> T:
    """Run ``action``; a file that cannot be written is one line, exit 1."""
    try:
        return action()
    except OSError as exc:
        raise click.ClickException(f"cannot write {exc.filename or ''}: {exc.strerror or exc}") from None
