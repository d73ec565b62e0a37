"""``menace tournament``: train a machine against an opponent, saving every second."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any

import click

from menace.cli.common import (
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_STOPPED_EARLY,
    AppContext,
    leave,
    opening_empty_help,
    pass_app,
    plural,
    where_options,
)
from menace.core.game import Side
from menace.core.settings import ONE_SIDE_WORDS
from menace.players import PlayerParamError, UnknownPlayerError

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

    from menace.app.machines import OpenMachine


def _opening_empty(app: AppContext, machine: OpenMachine, side: Side | None) -> str:
    """What to say when a box for MENACE's first move is empty under ``resign``, and how to go on."""
    from menace.app.machines import empty_first_boxes

    empty, of = empty_first_boxes(machine.learner, side or machine.learner.settings.sides[0])
    return opening_empty_help(app, machine.stored, empty, of)


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
@click.option("--side", type=click.Choice(list(ONE_SIDE_WORDS), case_sensitive=False),
              help="For a machine that plays both sides: only this one.")
@click.option("--keep-all", is_flag=True,
              help="Store every game, however long the run [default: every game of the first 10 million, "
                   "then a summary per block].")
@click.option("--frozen", is_flag=True,
              help="Play without learning: no bead changes; the games are kept in the history marked frozen "
                   "(against an opponent that does not learn either).")
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
      menace tournament --vs perfect -n 1000 --frozen  measure it without changing it
    """
    from menace.app.tournament import (
        KEEP_GAMES,
        OPENING_EMPTY,
        PARTNER_EMPTY,
        FrozenOpponentError,
        Interrupted,
        NoSuchSideError,
        OpeningEmptyError,
        parse_side,
        train,
    )

    if games is not None and duration is not None:
        raise click.UsageError("give either -n/--games or --for, not both")
    if games is None and duration is None:
        games = 1000
    playing = parse_side(side) if side is not None else None
    bar = _ProgressLine(games, duration)
    try:
        done = train(app.database, app.machine, opponent, holder="a tournament against {opponent} (menace tournament)",
                     games=games, seconds=duration, seed=seed, side=playing, progress=bar, handle_signals=True,
                     keep_games=None if keep_all else KEEP_GAMES, waiting=bar.waiting, frozen=frozen)
    except NoSuchSideError as exc:
        raise click.BadParameter(exc.message, param_hint="'--side'") from None
    except FrozenOpponentError as exc:
        raise click.BadParameter(exc.message, param_hint="'--vs'") from None
    except (UnknownPlayerError, PlayerParamError) as exc:
        # an unknown name, one that does not play this game or a parameter it cannot take: a bad --vs,
        # refused before anything is opened
        raise click.BadParameter(str(exc), param_hint="'--vs'") from None
    except OpeningEmptyError as exc:
        # the condition a run meets when the box empties under it: the same status
        click.echo(f"Error: {_opening_empty(app, exc.machine, exc.side)}.", err=True)
        leave(EXIT_STOPPED_EARLY)
    except Interrupted as stop:
        click.echo(f"Stopped by {stop.signal_name} while {opponent or 'the opponent'} prepared: no game was played.",
                   err=True)
        leave(EXIT_SIGINT if stop.signal_name == "SIGINT" else EXIT_SIGTERM)
    result, m, partner = done.result, done.machine, done.partner
    opponent = result.opponent
    bar.close()
    rate = result.games / result.seconds if result.seconds > 0 else 0.0
    click.echo(f"{plural(result.games, 'game')} against {opponent} in {result.seconds:.2f} s "
               f"({rate:,.0f} games/s, seed {result.seed}): {result.wins:,} won, {result.draws:,} drawn, "
               f"{result.losses:,} lost.")
    if frozen:
        unchanged = "no odds changed" if m.learner.pegasus is not None else "no bead changed"
        click.echo(f"Played without learning (frozen): {unchanged}; the games are kept in the history, "
                   f"marked frozen.")
    click.echo(f"Machine {result.machine!r} has played {plural(result.total_games, 'game')} in all.")
    if result.stopped == OPENING_EMPTY:
        click.echo(f"Stopped early, after game {result.total_games:,}: "
                   f"{_opening_empty(app, m, result.last_side)}.", err=True)
        leave(EXIT_STOPPED_EARLY)
    elif result.stopped == PARTNER_EMPTY and partner is not None:
        click.echo(f"Stopped early, after game {result.total_games:,}: "
                   f"{_opening_empty(app, partner.machine, partner.side)}.",
                   err=True)
        leave(EXIT_STOPPED_EARLY)
    elif result.stopped:
        click.echo(f"Stopped by {result.stopped} after game {result.total_games:,}; every finished game is saved.")
        leave(EXIT_SIGINT if result.stopped == "SIGINT" else EXIT_SIGTERM)


class _ProgressLine:
    """click's progress bar on stderr (as labels, sweep and arena draw theirs), the tally and the
    rate beside it; nothing when stderr is not a terminal. A run for a time fills the bar with its
    seconds (in tenths), a run of games with its games."""

    def __init__(self, games: int | None, seconds: float | None) -> None:
        self.by_time = games is None
        length = games if games is not None else max(round((seconds or 0) * 10), 1)
        self.bar: ProgressBar[Any] | None = None
        if sys.stderr.isatty():
            self.bar = click.progressbar(length=length, label="playing", file=sys.stderr, width=30,
                                         show_pos=not self.by_time, item_show_func=self._tally)
        self.drawn = False
        self.last_wait = -1.0

    @staticmethod
    def _tally(p: Any) -> str | None:
        if p is None:
            return None
        rate = p.games / p.seconds if p.seconds > 0 else 0
        return f"{p.games:,} games  W {p.wins:,}  D {p.draws:,}  L {p.losses:,}  {rate:,.0f}/s"

    def __call__(self, p: Any) -> None:
        if self.bar is None:
            return
        done = min(round(p.seconds * 10), self.bar.length or 0) if self.by_time else p.games
        self.bar.update(max(done - self.bar.pos, 0), p)
        self.drawn = True

    def waiting(self, waited: float, limit: float, games: int) -> None:
        """The database is busy: say so (every few seconds), whether or not stderr is a terminal."""
        if waited - self.last_wait >= 5.0 or waited == 0.0 or self.last_wait < 0:
            self.last_wait = waited
            click.echo(f"{chr(10) if self.drawn else ''}database busy (another writer): waiting to store "
                       f"{games:,} games, {waited:.0f} s of at most {limit:.0f} s", err=True)

    def close(self) -> None:
        if self.bar is not None and self.drawn:
            self.bar.render_finish()
