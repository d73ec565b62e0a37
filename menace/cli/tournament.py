"""``menace tournament``: train a machine against an opponent, saving every second."""

from __future__ import annotations

import re
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

import click

from menace.cli.common import (
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_STOPPED_EARLY,
    AppContext,
    leave,
    pass_app,
    plural,
    where_options,
)
from menace.core.game import Side
from menace.players import PlayerParamError, UnknownPlayerError

if TYPE_CHECKING:
    from menace.core.learner import Learner


def opening_empty_help(app: AppContext, learner: Learner, side: Side | None) -> str:
    """What to say when a box for MENACE's first move is empty under ``resign``, and how to go on."""
    from menace.app.machines import empty_first_boxes

    empty, of = empty_first_boxes(learner, side or learner.settings.sides[0])
    if len(empty) == of == 1:
        what, reach = f"the opening box (box {empty[0]}) of {app.machine!r} is empty", "every game"
    else:
        boxes = ", ".join(map(str, empty))
        what = f"first-move box{'es' if len(empty) > 1 else ''} {boxes} of {app.machine!r} " \
               f"{'are' if len(empty) > 1 else 'is'} empty"
        reach = "every game that reaches " + ("them" if len(empty) > 1 else "it")
    return (f"{what}: under 'resign' MENACE resigns {reach}. To go on, refill it "
            f"(menace {app.m_flag()}reconcile {empty[0] if empty else 1}), rebuild the machine "
            f"(menace {app.m_flag()}init --replace), or build one with --empty-box revive")


DURATION = re.compile(r"^\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*(?:(\d+)\s*s?)?\s*$")


class DurationType(click.ParamType):  # type: ignore[type-arg]
    name = "duration"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        match = DURATION.match(str(value))
        if not match or not any(match.groups()):
            self.fail(f"{value!r} is not a duration like 8h, 90m, 1h30m or 45s", param, ctx)
        h, m, s = (int(g or 0) for g in match.groups())
        total = h * 3600 + m * 60 + s
        if total <= 0:
            self.fail("the duration must be more than zero", param, ctx)
        return float(total)


@click.command()
@click.option("--vs", "opponent", metavar="NAME",
              help="The opponent (see menace opponents) [default: smart for noughts and crosses, else random].")
@click.option("-n", "--games", type=click.IntRange(min=1), help="How many games [default: 1000 unless --for].")
@click.option("--for", "duration", type=DurationType(), help="Play for this long instead, e.g. 8h or 30m.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1),
              help="Seed: the same seed on the same machine gives the same beads.")
@click.option("--side", type=click.Choice(["X", "O", "first", "second", "white", "black"], case_sensitive=False),
              help="For a machine that plays both sides: only this one.")
@click.option("--keep-all", is_flag=True,
              help="Store every game, however long the run [default: every game of the first 10 million, "
                   "then a summary per block].")
@click.option("--no-learning", "frozen", is_flag=True,
              help="Play without learning: the games are stored, marked as played without learning, and the "
                   "machine's beads (or odds) stay exactly as they are. To measure a trained machine.")
@where_options
@pass_app
def tournament(app: AppContext, opponent: str | None, games: int | None, duration: float | None, seed: int | None,
               side: str | None, keep_all: bool, frozen: bool) -> None:
    """Train the machine against an opponent, saving every second.

    Ctrl-C (or SIGTERM) stops after the current game and keeps every finished game (exit
    status 130, or 143). A tournament that cannot go on before its games or its time are done
    (under the empty-box policy resign, a first-move box ran dry) stops with status 3. A run
    stores every game of its first 10 million; beyond, each block keeps its wins, draws and
    losses and the beads at its end (--keep-all stores every game).

    \b
    Examples:
      menace tournament --vs smart -n 2000 --seed 1
      menace tournament --vs random --for 8h          overnight
      menace tournament --vs perfect -n 500 --no-learning   measure it, unchanged
    """
    from menace.app.machines import learning_partner, open_machine
    from menace.app.tournament import KEEP_GAMES, OPENING_EMPTY, PARTNER_EMPTY, Interrupted, run_tournament
    from menace.players import find_player, split_name

    if games is not None and duration is not None:
        raise click.UsageError("give either -n/--games or --for, not both")
    if games is None and duration is None:
        games = 1000
    if side is not None:
        side = {"x": "X", "first": "X", "white": "X", "o": "O", "second": "O", "black": "O"}[side.lower()]
    if opponent is None or side is not None:
        # Read from the machine's row before anything is written (a refusal leaves the file as it was).
        from menace.app.machines import machine_header
        from menace.players import default_opponent

        game, settings = machine_header(app.url, app.machine)
        if side is not None and Side[side] not in settings.sides:
            raise click.BadParameter(f"machine {app.machine!r} has no boxes for {side}; it plays "
                                     f"{'/'.join(s.name for s in settings.sides)}", param_hint="'--side'")
        opponent = opponent or default_opponent(game)
    base, param = split_name(opponent)
    if base != "menace":
        try:
            # an unknown name or a parameter it cannot take fails before anything is opened
            find_player(opponent).check_param(param)
        except (UnknownPlayerError, PlayerParamError) as exc:
            raise click.BadParameter(str(exc), param_hint="'--vs'") from None
    bar = _ProgressLine(games, duration)
    with open_machine(app.url, app.machine, holder=f"a tournament against {opponent} (menace tournament)") as m:
        sides = m.learner.settings.sides
        if side is not None and Side[side] not in sides:
            raise click.BadParameter(f"machine {app.machine!r} has no boxes for {side}; it plays "
                                     f"{'/'.join(s.name for s in sides)}", param_hint="'--side'")
        playing = Side[side] if side else sides[0]
        if len(sides) == 1 or side is not None:
            if m.learner.opening_empty(playing):
                raise click.ClickException(opening_empty_help(app, m.learner, playing))
        partner = None
        with ExitStack() as stack:
            resolve = None
            if split_name(opponent)[0] == "menace":
                partner = stack.enter_context(
                    learning_partner(app.url, opponent, m, Side[side] if side else None, app.machine))
                resolve = lambda _name: partner  # noqa: E731
            try:
                result = run_tournament(
                    m, opponent, games=games, seconds=duration, seed=seed,
                    side=Side[side] if side else None, progress=bar, resolve=resolve, handle_signals=True,
                    keep_games=None if keep_all else KEEP_GAMES,
                    waiting=bar.waiting, frozen=frozen,
                )
            except PlayerParamError as exc:
                raise click.BadParameter(str(exc), param_hint="'--vs'") from None
            except Interrupted as stop:
                click.echo(f"Stopped by {stop.signal_name} while {opponent} prepared: no game was played.",
                           err=True)
                leave(EXIT_SIGINT if stop.signal_name == "SIGINT" else EXIT_SIGTERM)
    bar.close()
    rate = result.games / result.seconds if result.seconds > 0 else 0.0
    if frozen:
        click.echo("Played without learning: the machine is as it was.")
    click.echo(f"{plural(result.games, 'game')} against {opponent} in {result.seconds:.2f} s "
               f"({rate:,.0f} games/s, seed {result.seed}): {result.wins:,} won, {result.draws:,} drawn, "
               f"{result.losses:,} lost.")
    click.echo(f"Machine {result.machine!r} has played {plural(result.total_games, 'game')} in all.")
    if result.stopped == OPENING_EMPTY:
        click.echo(f"Stopped early, after game {result.total_games:,}: "
                   f"{opening_empty_help(app, m.learner, result.last_side)}.", err=True)
        leave(EXIT_STOPPED_EARLY)
    elif result.stopped == PARTNER_EMPTY and partner is not None:
        click.echo(f"Stopped early, after game {result.total_games:,}: "
                   f"{opening_empty_help(AppContext(app.db, partner.machine.name), partner.learner, partner.side)}.",
                   err=True)
        leave(EXIT_STOPPED_EARLY)
    elif result.stopped:
        click.echo(f"Stopped by {result.stopped} after game {result.total_games:,}; every finished game is saved.")
        leave(EXIT_SIGINT if result.stopped == "SIGINT" else EXIT_SIGTERM)


class _ProgressLine:
    """A one-line progress bar on stderr, redrawn in place; silent when stderr is not a terminal."""

    def __init__(self, games: int | None, seconds: float | None) -> None:
        self.games = games
        self.seconds = seconds
        self.live = sys.stderr.isatty()
        self.drawn = False
        self.last_wait = -1.0

    def __call__(self, p: Any) -> None:
        if not self.live:
            return
        if p.target:
            frac = p.games / p.target
        elif p.limit_seconds:
            frac = min(p.seconds / p.limit_seconds, 1.0)
        else:
            frac = 0.0
        filled = int(frac * 30)
        rate = p.games / p.seconds if p.seconds > 0 else 0
        line = (f"\r[{'#' * filled}{'.' * (30 - filled)}] {frac:6.1%}  {p.games:,} games  "
                f"W {p.wins:,}  D {p.draws:,}  L {p.losses:,}  {rate:,.0f}/s ")
        click.echo(line, nl=False, err=True)
        self.drawn = True

    def waiting(self, waited: float, limit: float, games: int) -> None:
        """The database is busy: say so (every few seconds), whether or not stderr is a terminal."""
        if waited - self.last_wait >= 5.0 or waited == 0.0 or self.last_wait < 0:
            self.last_wait = waited
            click.echo(f"{chr(13) if self.drawn else ''}database busy (another writer): waiting to store "
                       f"{games:,} games, {waited:.0f} s of at most {limit:.0f} s", err=True)

    def close(self) -> None:
        if self.drawn:
            click.echo("", err=True)
