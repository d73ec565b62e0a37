"""The ``menace`` command line: parse, call the library, print. Nothing else lives here."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, NoReturn

import click

from menace import __version__
from menace.app.machines import BoxNotFoundError, MachineSummary
from menace.app.transfer import MachineFileError
from menace.cli.common import opening_empty_help
from menace.core.colours import DEFAULT_COLOURS, ColourError
from menace.core.game import IllegalMoveError, Side
from menace.core.learner import (
    EmptyPolicy,
    Settings,
    SettingsError,
    find_preset,
    parse_reinforcement,
    parse_schedule,
)
from menace.games.tictactoe import TICTACTOE, draw_board, square_name
from menace.players import PlayerParamError, UnknownPlayerError
from menace.storage.database import StorageError, resolve_url
from menace.storage.repository import DEFAULT_MACHINE, MachineBusyError, MachineExistsError, UnknownMachineError

# Library errors a user can cause: shown as one line, exit 1, never a traceback.
USER_ERRORS: tuple[type[Exception], ...] = (
    StorageError, UnknownMachineError, MachineExistsError, SettingsError, BoxNotFoundError,
    IllegalMoveError, UnknownPlayerError, MachineBusyError, PlayerParamError, MachineFileError, ColourError,
)


@dataclass
class AppContext:
    """What every command shares: where the database is and which machine."""

    db: str | None
    machine: str

    @property
    def url(self) -> str:
        return resolve_url(self.db)

    def resolve_player(self, name: str) -> Any:
        """``menace:NAME``: a stored machine, frozen, for the arena."""
        from menace.app.machines import frozen_player

        return frozen_player(self.url, name)


pass_app = click.make_pass_decorator(AppContext)


# Commands in their own modules, imported only when used: drawing labels or plots needs
# matplotlib, which a tournament should not pay for at start-up.
LAZY_COMMANDS = {
    "history": "menace.cli.history:history",
    "replay": "menace.cli.history:replay",
    "undo": "menace.cli.history:undo",
    "plot": "menace.cli.history:plot",
    "labels": "menace.cli.labels:labels",
    "operate": "menace.cli.operate:operate",
    "reconcile": "menace.cli.operate:reconcile",
    "export": "menace.cli.operate:export_cmd",
    "import": "menace.cli.operate:import_cmd",
    "opponents": "menace.cli.arena:opponents",
    "arena": "menace.cli.arena:arena",
    "sweep": "menace.cli.sweep:sweep",
    "puzzle": "menace.cli.puzzle:puzzle",
    "serve": "menace.cli.serve:serve",
}


class MenaceGroup(click.Group):
    """Loads the commands of :data:`LAZY_COMMANDS` when asked for, and turns the library's own
    errors into one-line messages."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in LAZY_COMMANDS:
            import importlib

            module, attr = LAZY_COMMANDS[cmd_name].split(":")
            command = getattr(importlib.import_module(module), attr)
            assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except USER_ERRORS as exc:
            raise click.ClickException(str(exc)) from None


MACHINE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _machine_name(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not MACHINE_NAME.match(value):
        raise click.BadParameter(f"{value!r}: a machine's name is 1 to 64 letters, digits, '-', '_' or '.', "
                                 f"starting with a letter or digit")
    return value


@click.group(cls=MenaceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", metavar="PATH|URL", help="Database file or URL [default: $MENACE_DB or menace.db].")
@click.option("-m", "--machine", default=DEFAULT_MACHINE, show_default=True, callback=_machine_name,
              help="Which machine in the database.")
@click.version_option(__version__, prog_name="menace")
@click.pass_context
def cli(ctx: click.Context, db: str | None, machine: str) -> None:
    """MENACE, Donald Michie's 1961 matchbox machine that learns noughts and crosses.

    \b
    Start here:
      menace init                      build Michie's 304-box machine in menace.db
      menace play                      play it at the terminal
      menace tournament --vs smart -n 2000
      menace stats
    """
    ctx.obj = AppContext(db, machine)


# -- init -------------------------------------------------------------------------------------
def _schedule(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    try:
        return parse_schedule(value)
    except SettingsError as exc:
        raise click.BadParameter(str(exc)) from None


def _reinforcement(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[int, int, int] | None:
    if value is None:
        return None
    try:
        return parse_reinforcement(value)
    except SettingsError as exc:
        raise click.BadParameter(str(exc)) from None


@cli.command()
@click.option("--preset", type=click.Choice(["michie", "rubyquiz"]), default="michie", show_default=True,
              help="michie: Michie's 1961 machine. rubyquiz: the rules of the Ruby MENACE (seed 000).")
@click.option("--side", type=click.Choice(["X", "O", "both"]), help="MENACE moves first (X), second (O) or both.")
@click.option("--beads", "schedule", callback=_schedule, metavar="N,N,N,N",
              help="Initial beads per colour for MENACE's 1st, 2nd, ... move, e.g. 8,4,2,1.")
@click.option("--reinforce", "reinforcement", callback=_reinforcement, metavar="WIN,DRAW,LOSS",
              help="Beads added per bead drawn after a win, a draw, a loss, e.g. 3,1,-1.")
@click.option("--all-squares/--distinct-moves", default=None,
              help="Beads for every empty square, or only for moves distinct under the box's symmetry.")
@click.option("--symmetry/--no-symmetry", default=None,
              help="One box per position up to rotation and reflection, or one per raw position.")
@click.option("--empty-box", type=click.Choice([p.value for p in EmptyPolicy]),
              help="When a box runs out of beads: resign the game, restock the box, or keep-last "
                   "(a loss never takes a box's last bead).")
@click.option("--replace", is_flag=True, help="Rebuild the machine if one of that name exists (its games go too).")
@pass_app
def init(app: AppContext, preset: str, side: str | None, schedule: tuple[int, ...] | None,
         reinforcement: tuple[int, int, int] | None, all_squares: bool | None, symmetry: bool | None,
         empty_box: str | None, replace: bool) -> None:
    """Build a machine: one matchbox per position where MENACE is to move.

    \b
    Examples:
      menace init                                  Michie's machine: 304 boxes, 1,720 beads
      menace init -m second --side O               a machine that moves second: 289 boxes
      menace init -m mscroggs --beads 8,4,2,1      the online MENACE's bead schedule
      menace init -m ruby --preset rubyquiz        the Ruby MENACE of seed 000
    """
    from menace.app.machines import init_machine

    base = find_preset(preset)
    changes: dict[str, Any] = {}
    if side is not None:
        changes["side"] = side
    if schedule is not None:
        changes["schedule"] = schedule
    if reinforcement is not None:
        changes["win"], changes["draw"], changes["loss"] = reinforcement
    if all_squares is not None:
        changes["all_squares"] = all_squares
    if symmetry is not None:
        changes["symmetry"] = symmetry
    if empty_box is not None:
        changes["empty_policy"] = EmptyPolicy(empty_box)
    settings = Settings(**{**base.__dict__, **changes})
    label = preset if not changes else f"{preset}, modified"
    summary = init_machine(app.url, app.machine, settings, label, replace)
    click.echo(f"Built machine {summary.name!r} ({label}) in {_where(app)}:")
    click.echo(f"  {summary.boxes:,} boxes ({_by_move(summary.boxes_by_move)} by move)")
    click.echo(f"  {summary.beads:,} beads ({_by_move(summary.beads_by_move)} by move)")
    m = "" if app.machine == DEFAULT_MACHINE else f"-m {app.machine} "
    click.echo(f"Next: menace {m}play, or menace {m}tournament --vs smart -n 2000")


def _where(app: AppContext) -> str:
    url = app.url
    return url[len("sqlite:///"):] if url.startswith("sqlite:///") else url


def _by_move(counts: dict[int, int]) -> str:
    return " + ".join(f"{v:,}" for v in counts.values())


# -- stats and show ------------------------------------------------------------------------------
@cli.command()
@pass_app
def stats(app: AppContext) -> None:
    """Settings, games played, wins/draws/losses, beads and empty boxes of a machine.

    Example: menace stats -m second
    """
    from menace.app.machines import machine_summary

    _print_summary(machine_summary(app.url, app.machine))


def _print_summary(s: MachineSummary) -> None:
    click.echo(f"Machine {s.name!r} ({s.preset or 'custom'}), built {s.created_at:%Y-%m-%d %H:%M}")
    for key, value in s.settings.describe().items():
        click.echo(f"  {key:<14} {value}")
    click.echo(f"  {'matchboxes':<14} {s.boxes:,} ({_by_move(s.boxes_by_move)} by move)")
    click.echo(f"  {'beads now':<14} {s.beads:,} ({_by_move(s.beads_by_move)} by move)")
    empties = ", ".join(map(str, s.empty_boxes[:20])) + (" ..." if len(s.empty_boxes) > 20 else "")
    click.echo(f"  {'empty boxes':<14} {len(s.empty_boxes)}" + (f": {empties}" if s.empty_boxes else ""))
    if s.games:
        pct = [100 * v / s.games for v in (s.wins, s.draws, s.losses)]
        click.echo(f"  {'games':<14} {s.games:,}: {s.wins:,} won, {s.draws:,} drawn, {s.losses:,} lost "
                   f"({pct[0]:.1f}% / {pct[1]:.1f}% / {pct[2]:.1f}%)")
    else:
        click.echo(f"  {'games':<14} none yet")


@cli.command()
@click.argument("box")
@pass_app
def show(app: AppContext, box: str) -> None:
    """Draw one matchbox with its beads, by number or by position.

    A position is nine characters row by row, X, O and . for empty; it is found
    whichever way round the real board is.

    \b
    Examples:
      menace show 1
      menace show X...O....
    """
    from menace.app.machines import find_box

    view = find_box(app.url, app.machine, box)
    b = view.box
    click.echo(f"Box {b.number} of {view.machine!r}: MENACE's move {b.move_number}, {b.side.name} to play, "
               f"{b.total:,} beads")
    if view.matched_from is not None and view.symmetry != "as it is":
        click.echo(f"(your position matches this box when you {view.symmetry})")
    letters = {m: DEFAULT_COLOURS[m].letter for m in b.beads}
    for line in draw_board(b.position, letters):
        click.echo("  " + line)
    for m, count in b.beads.items():
        colour = DEFAULT_COLOURS[m]
        click.echo(f"  {colour.letter} {colour.name:<10} {square_name(m)}: {count:>3}  "
                   f"(started with {b.initial[m]})")


# -- play --------------------------------------------------------------------------------------
@cli.command()
@click.option("--first", type=click.Choice(["me", "menace"]),
              help="Who starts, when the machine plays both sides [default: ask].")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Seed for MENACE's draws, to repeat a game exactly.")
@pass_app
def play(app: AppContext, first: str | None, seed: int | None) -> None:
    """Play a game against the machine at the terminal; it learns from the result.

    Type squares as a1..c3 (rows a-c, columns 1-3) or 1..9 row by row. For each of its
    moves MENACE shows the box it opens, how your board maps onto the box's drawing, the
    beads in the box and the bead it draws. End of input or Ctrl-C abandons the game and
    changes nothing.

    Example: menace play
    """
    from menace.app.machines import open_machine
    from menace.core.turns import TurnByTurnGame

    with open_machine(app.url, app.machine, holder="a game at the terminal (menace play)") as m:
        sides = m.engine.settings.sides
        if len(sides) == 1:
            menace_side = sides[0]
        else:
            if first is None:
                first = _ask(lambda: click.prompt("Who starts?", type=click.Choice(["me", "menace"]),
                                                  default="menace"))
            menace_side = Side.X if first == "menace" else Side.O
        if menace_side is Side.X and m.engine.opening_empty(menace_side):
            raise click.ClickException(opening_empty_help(app, m.engine, menace_side))
        g = TurnByTurnGame(m.engine, menace_side, random.Random(seed))
        click.echo(f"You are {menace_side.other.name}; MENACE ({app.machine!r}) is {menace_side.name}.")
        while not g.over:
            if g.menace_to_move:
                _show_menace_turn(g.menace_move())
            else:
                _print_board(g.state)
                while True:
                    text = _ask(lambda: click.prompt("Your move (a1-c3 or 1-9)", prompt_suffix=" > "))
                    try:
                        g.person_move(TICTACTOE.parse_move(text))
                        break
                    except IllegalMoveError as exc:
                        click.echo(f"  {exc}")
        _print_board(g.state)
        ledger = g.finish()
        run = m.start_run("play", "person", seed)
        m.save(run, [g.record()], end_run=True)
    words = {"win": "MENACE wins.", "draw": "A draw.", "loss": "You win!"}
    click.echo(words[g.result.value])
    if ledger:
        click.echo("Reinforcement (stored):")
        for line in ledger:
            colour = DEFAULT_COLOURS[line.bead]
            click.echo(f"  box {line.box_number:>3}: {colour.name} ({colour.letter}) {line.before} -> "
                       f"{line.after} ({line.change:+d})")


def _ask(prompt: Callable[[], str]) -> str:
    try:
        return prompt()
    except (click.Abort, EOFError, KeyboardInterrupt):
        click.echo("\nGame abandoned: nothing was reinforced and nothing was stored.", err=True)
        sys.exit(1)


def _print_board(state: tuple[int, ...]) -> None:
    click.echo("")
    for line in draw_board(state):
        click.echo("  " + line)
    click.echo("")


def _show_menace_turn(t: Any) -> None:
    if t.box_number is None:
        click.echo(f"MENACE's move is forced: {square_name(t.square)}.")
        return
    click.echo(f"MENACE opens box {t.box_number}. To match its drawing, {t.symmetry}:")
    letters = {m: DEFAULT_COLOURS[m].letter for m in t.beads}
    for line in draw_board(t.box_position, letters):
        click.echo("    " + line)
    beads = ", ".join(f"{DEFAULT_COLOURS[m].letter}={c}" for m, c in t.beads.items())
    click.echo(f"  beads: {beads}")
    if t.resigned:
        click.echo("  The box is empty: MENACE resigns.")
        return
    if t.restocked:
        click.echo("  The box was empty and is restocked with its first beads.")
    colour = DEFAULT_COLOURS[t.bead]
    click.echo(f"  It draws a {colour.name} bead ({colour.letter}): {square_name(t.bead)} on the drawing, "
               f"{square_name(t.square)} on your board.")


# -- tournament ---------------------------------------------------------------------------------
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


@cli.command()
@click.option("--vs", "opponent", default="smart", show_default=True, metavar="NAME",
              help="The opponent (see menace opponents).")
@click.option("-n", "--games", type=click.IntRange(min=1), help="How many games [default: 1000 unless --for].")
@click.option("--for", "duration", type=DurationType(), help="Play for this long instead, e.g. 8h or 30m.")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1),
              help="Seed: the same seed on the same machine gives the same beads.")
@click.option("--side", type=click.Choice(["X", "O"]), help="For a machine that plays both sides: only this one.")
@pass_app
def tournament(app: AppContext, opponent: str, games: int | None, duration: float | None, seed: int | None,
               side: str | None) -> None:
    """Train the machine against an opponent, saving every second.

    Ctrl-C (or SIGTERM) stops after the current game and keeps every finished game.

    \b
    Examples:
      menace tournament --vs smart -n 2000 --seed 1
      menace tournament --vs random --for 8h          overnight
    """
    from menace.app.machines import learning_partner, open_machine
    from menace.app.tournament import OPENING_EMPTY, PARTNER_EMPTY, Interrupted, run_tournament
    from menace.players import find_player, split_name

    if games is not None and duration is not None:
        raise click.UsageError("give either -n/--games or --for, not both")
    if games is None and duration is None:
        games = 1000
    if split_name(opponent)[0] != "menace":
        try:
            find_player(opponent)  # an unknown name fails before anything is opened
        except UnknownPlayerError as exc:
            raise click.BadParameter(str(exc), param_hint="'--vs'") from None
    bar = _ProgressLine(games, duration)
    with open_machine(app.url, app.machine, holder=f"a tournament against {opponent} (menace tournament)") as m:
        sides = m.engine.settings.sides
        if side is not None and Side[side] not in sides:
            raise click.BadParameter(f"machine {app.machine!r} has no boxes for {side}; it plays "
                                     f"{'/'.join(s.name for s in sides)}", param_hint="'--side'")
        playing = Side[side] if side else sides[0]
        if len(sides) == 1 or side is not None:
            if m.engine.opening_empty(playing):
                raise click.ClickException(opening_empty_help(app, m.engine, playing))
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
                )
            except PlayerParamError as exc:
                raise click.BadParameter(str(exc), param_hint="'--vs'") from None
            except Interrupted as stop:
                click.echo(f"Stopped by {stop.signal_name} while {opponent} prepared: no game was played.",
                           err=True)
                _exit(130 if stop.signal_name == "SIGINT" else 143)
    bar.close()
    rate = result.games / result.seconds if result.seconds > 0 else 0.0
    click.echo(f"{result.games:,} games against {opponent} in {result.seconds:.2f} s "
               f"({rate:,.0f} games/s, seed {result.seed}): {result.wins:,} won, {result.draws:,} drawn, "
               f"{result.losses:,} lost.")
    click.echo(f"Machine {result.machine!r} has played {result.total_games:,} games in all.")
    if result.stopped == OPENING_EMPTY:
        click.echo(f"Stopped after game {result.total_games:,}: "
                   f"{opening_empty_help(app, m.engine, result.last_side)}.")
    elif result.stopped == PARTNER_EMPTY and partner is not None:
        click.echo(f"Stopped after game {result.total_games:,}: "
                   f"{opening_empty_help(AppContext(app.db, partner.machine.name), partner.engine, partner.side)}.")
    elif result.stopped:
        click.echo(f"Stopped by {result.stopped} after game {result.total_games:,}; every finished game is saved.")
        _exit(130 if result.stopped == "SIGINT" else 143)


def _exit(code: int) -> NoReturn:
    sys.exit(code)


class _ProgressLine:
    """A one-line progress bar on stderr, redrawn in place; silent when stderr is not a terminal."""

    def __init__(self, games: int | None, seconds: float | None) -> None:
        self.games = games
        self.seconds = seconds
        self.live = sys.stderr.isatty()
        self.drawn = False

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

    def close(self) -> None:
        if self.drawn:
            click.echo("", err=True)


# -- database housekeeping -------------------------------------------------------------------------
@cli.command()
@pass_app
def machines(app: AppContext) -> None:
    """List the machines in the database.

    Example: menace --db club.db machines
    """
    from menace.app.machines import list_machines

    found = list_machines(app.url)
    if not found:
        click.echo("No machines yet; create one with: menace init")
    for s in found:
        click.echo(f"{s.name:<16} side {s.settings.side:<4} {s.boxes:>5} boxes {s.beads:>7,} beads "
                   f"{s.games:>9,} games")


@cli.command()
@pass_app
def upgrade(app: AppContext) -> None:
    """Bring an older database's schema up to date, backing the file up first.

    Example: menace --db old.db upgrade
    """
    from menace.storage.database import upgrade_database

    before, after, backup = upgrade_database(app.url)
    if backup is None and before == after:
        click.echo(f"{_where(app)} is up to date (schema {after}).")
        return
    if backup is not None:
        click.echo(f"Backed up to {backup}")
    click.echo(f"Upgraded {_where(app)} from schema {before} to {after}.")


@cli.command()
@click.option("--all", "all_machines", is_flag=True, help="Check every machine, not only --machine.")
@pass_app
def check(app: AppContext, all_machines: bool) -> None:
    """Verify a database: schema, boxes, beads, and every game replayed against the beads.

    Exits 0 only when everything holds; otherwise names every fault found.

    \b
    Examples:
      menace check
      menace --db club.db check --all
    """
    from menace.app.check import check_database

    report = check_database(app.url, None if all_machines else app.machine)
    for fault in report.faults:
        click.echo(f"FAULT: {fault}")
    names = ", ".join(report.machines) or "no machine"
    if report.faults:
        click.echo(f"{report.database}: {len(report.faults)} fault(s) in {names}.", err=True)
        _exit(1)
    games = f"{report.games:,} game{'' if report.games == 1 else 's'}"
    click.echo(f"{report.database}: OK ({names}; {games} replayed, beads match).")


def main() -> None:
    cli(prog_name="menace")
