"""The ``experiment`` commands: Michie's published experiments of 1963 run again, printed as a table
and drawn as a figure; and a stored machine's tournament drawn as the paper's Fig. 4.

Each simulated experiment is a subcommand made from :data:`menace.app.experiments.EXPERIMENTS`; it
needs no database. ``michie-1963-fig4`` reads the machine named by ``-m`` from the database.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from menace.app.experiments import EXPERIMENTS, PLAYS, SEEDS, Experiment
from menace.cli.common import AppContext, pass_app, where_options

FIG4 = "michie-1963-fig4"


def _out_files(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[Path, ...]:
    from menace.cli.history import _out_file

    return tuple(_out_file(ctx, param, v) for v in values)


def _out_option(default: str) -> Callable[[Any], Any]:
    return click.option("-o", "--out", "outs", multiple=True, default=(default,), show_default=True,
                        callback=_out_files, metavar="FILE",
                        help="The figure to write: .png, .svg or .pdf (repeat for several).")


class _InOrder(click.Group):
    """Lists the paper's figures in order, then the random baseline."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.commands, key=lambda name: (name == "random", name))


@click.group(cls=_InOrder)
def experiment() -> None:
    """Run Michie's published experiments of 1963 again, over many seeds, and draw them in the
    paper's own form (Donald Michie, "Experiments on the mechanization of game-learning", The
    Computer Journal 6(3), 1963, pp. 232-236).

    Each prints a table (per block of 100 plays: wins, draws and losses over the runs) and writes
    a figure for a slide. Seeds are 1..N: the same command gives the same figures.

    \b
    Examples:
      menace experiment random --seeds 10
      menace experiment michie-1963-fig4 -o fig4.png
    """


def _simulated(e: Experiment) -> click.Command:
    @click.option("--seeds", type=click.IntRange(1, 100_000), default=SEEDS, show_default=True,
                  help="Runs, each from fresh machines with its own seed (1..N).")
    @click.option("--workers", type=click.IntRange(1, 1024),
                  help=f"Processes to run on [default: every core, here {os.cpu_count() or 1}].")
    @_out_option(f"{e.name}.png")
    def command(seeds: int, workers: int | None, outs: tuple[Path, ...]) -> None:
        from menace.app.experiments import run_experiment
        from menace.games import DEFAULT_GAME, find_game
        from menace.render.experiments import experiment_table, render_experiment

        click.echo(f"{e.title}: {seeds:,} run{'s' if seeds != 1 else ''} of {PLAYS:,} plays", err=True)
        with click.progressbar(length=seeds, label="playing", file=sys.stderr) as bar:
            last = 0

            def progress(done: int, _total: int) -> None:
                nonlocal last
                bar.update(done - last)
                last = done

            result = run_experiment(e.name, seeds, workers, progress)
        game = find_game(DEFAULT_GAME)
        for line in experiment_table(result, game):
            click.echo(line)
        for out in outs:
            _written(lambda: render_experiment(result, game, out), out)  # noqa: B023 - called at once

    command.__doc__ = f"""{e.line}

    {e.title} ({e.figure} of Michie, 1963). {_more(e)}

    \b
    Example:
      menace experiment {e.name} --seeds 10 -o {e.name}.pdf
    """
    return click.command(e.name, short_help=e.line)(command)


def _more(e: Experiment) -> str:
    if not e.learners:
        return ("Both sides play every legal move with equal chance; the table's first row is the exact "
                "average, worked out over the whole game tree.")
    return (f"Counted for {e.who}, by blocks of 100 plays, beside the exact random average. The learners "
            f"learn by the rule of Michie and Martin's Pegasus program with the trial runs' A = 1.025 and B = 2: "
            f"each move made has its odds multiplied by M_n = A^(B^(8-n)) after a win and divided by it after "
            f"a defeat, n counting back from the end of the play (M_1 is infinite).")


def _written(write: Callable[[], object], out: Path) -> None:
    try:
        write()
    except OSError as exc:
        raise click.ClickException(f"cannot write {exc.filename or out}: {exc.strerror or exc}") from None
    click.echo(f"written to {out}")


for _e in EXPERIMENTS.values():
    experiment.add_command(_simulated(_e))


@experiment.command(FIG4, short_help="Fig. 4: a stored machine's games as cumulative 3W + D - L.")
@_out_option(f"{FIG4}.png")
@where_options
@pass_app
def fig4(app: AppContext, outs: tuple[Path, ...]) -> None:
    """A stored machine's tournament as the paper's Fig. 4: its cumulative 3W + D - L.

    Michie's Fig. 4 follows MENACE's first tournament game by game: the score rises 3 for a win and 1
    for a draw and falls 1 for a defeat. This draws the same for any machine in the database, a dot a
    game (a line for a very long history).

    \b
    Example:
      menace -m menace experiment michie-1963-fig4 -o fig4.pdf
    """
    from menace.app.experiments import tournament_score
    from menace.render.experiments import render_score

    curve = tournament_score(app.database, app.machine)
    w, d, l_ = curve.totals
    click.echo(f"{app.machine}: {curve.played:,} games, {w:,} won, {d:,} drawn, {l_:,} lost; "
               f"3W + D - L = {3 * w + d - l_:,}")
    for out in outs:
        _written(lambda: render_score(curve, out), out)  # noqa: B023 - called at once
