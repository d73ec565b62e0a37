"""Commands about whole machines: ``init``, ``stats``, ``show``, ``machines``, ``colours``,
``upgrade``, ``check`` and ``unlock``."""

from __future__ import annotations

import sys
from typing import Any

import click

from menace.cli.common import (
    AppContext,
    by_move,
    colours_option,
    machine_colours,
    pass_app,
    plural,
    printable,
    where_options,
)
from menace.core.colours import BeadColour, format_colours
from menace.core.learner import (
    PRESETS,
    EmptyPolicy,
    Scope,
    SettingsError,
    parse_reinforcement,
    parse_schedule,
)
from menace.games import find_game, game_names
from menace.players import training_opponent
from menace.render.beads import places_pieces
from menace.render.text import beads_text, board_lines, box_lines, chances, paint, use_colour


def _schedule(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_schedule(value)
    except SettingsError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


def _reinforcement(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        parse_reinforcement(value)
    except SettingsError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


SIDE_WORDS = {"x": "X", "o": "O", "both": "both", "first": "X", "second": "O", "white": "X", "black": "O",
              "him": "X", "her": "O"}


@click.command()
@click.option("--game", type=click.Choice(game_names()), default="tictactoe", show_default=True,
              help="tictactoe: Michie's MENACE. hexapawn: Gardner's HER (or HIM with --side X).")
@click.option("--preset", type=click.Choice(list(PRESETS)),
              help="michie: Michie's machine, its opening box refilled when empty. michie-1961: exactly "
                   "as Michie ran it (an empty box resigns, even the opening one). rubyquiz: the rules of the "
                   "Ruby Quiz MENACE. gardner: Gardner's Hexapawn rules [default: the game's own: michie, "
                   "gardner].")
@click.option("--side", type=click.Choice(sorted(SIDE_WORDS), case_sensitive=False),
              help="MENACE moves first (X, white, HIM), second (O, black, HER) or both.")
@click.option("--beads", "schedule", callback=_schedule, metavar="N,N,N,N",
              help="Initial beads per colour for MENACE's 1st, 2nd, ... move, e.g. 8,4,2,1.")
@click.option("--reinforce", "reinforcement", callback=_reinforcement, metavar="WIN,DRAW,LOSS",
              help="Beads added per bead drawn after a win, a draw, a loss, e.g. 3,1,-1.")
@click.option("--scope", type=click.Choice([s.value for s in Scope]),
              help="Which beads the result reinforces: every bead drawn (Michie) or the last only (Gardner).")
@click.option("--all-squares/--distinct-moves", default=None,
              help="Beads for every legal move, or only for moves distinct under the box's symmetry.")
@click.option("--symmetry/--no-symmetry", default=None,
              help="One box per position up to rotation and reflection, or one per raw position.")
@click.option("--empty-box", type=click.Choice([p.value for p in EmptyPolicy]),
              help="When a box runs out of beads: resign the game, restock the box, keep-last (a loss never "
                   "takes a box's last bead), or revive (resign, but refill a first-move box).")
@click.option("--colours", callback=colours_option, metavar="LIST",
              help="Your bead colours, kept with the machine (see menace colours).")
@click.option("--replace", is_flag=True, help="Rebuild the machine if one of that name exists (its games go too).")
@click.option("--rule", type=click.Choice(["michie", "pegasus"]), default="michie", show_default=True,
              help="michie: beads added and taken. pegasus: the 1963 Pegasus program's rule, each move's odds "
                   "multiplied by M_n = A^(B^(8-n)) after a win, divided after a defeat.")
@click.option("--a", "rule_a", metavar="A", help="Pegasus rule: A, the smallest multiplier M_8 [default: 1.025].")
@click.option("--b", "rule_b", metavar="B", help="Pegasus rule: B [default: 2].")
@click.option("--refine", type=click.Choice(["none", "per-100", "per-play"]),
              help="Pegasus rule: Table 3's refinement by the decayed average of past outcomes, applied per set "
                   "of 100 plays (Michie's approximation) or after every play (the ideal) [default: none].")
@click.option("--decay", metavar="D", help="Pegasus rule, Table 3: the decay factor D [default: 0.5].")
@where_options
@pass_app
def init(app: AppContext, game: str, preset: str | None, side: str | None, schedule: str | None,
         reinforcement: str | None, scope: str | None, all_squares: bool | None,
         symmetry: bool | None, empty_box: str | None, colours: tuple[BeadColour, ...] | None,
         replace: bool, rule: str, rule_a: str | None, rule_b: str | None, refine: str | None,
         decay: str | None) -> None:
    """Build a machine: one matchbox per position where MENACE is to move.

    \b
    Examples:
      menace init                                  Michie's machine: 304 boxes, 1,720 beads
      menace init -m second --side O               a machine that moves second: 289 boxes
      menace init -m mscroggs --beads 8,4,2,1      the online MENACE's bead schedule
      menace init -m ruby --preset rubyquiz        the Ruby Quiz MENACE
      menace init -m exact --preset michie-1961    Michie's exact rules: may stop at an empty box
      menace init -m her --game hexapawn           Gardner's HER: 19 boxes, plays Black
      menace init -m pegasus --rule pegasus        Michie and Martin's 1963 program: odds, not beads
    """
    from menace.app.machines import init_machine, pegasus_rule_for, settings_for
    from menace.core.pegasus import PegasusSettingsError

    pegasus = None
    if rule == "pegasus":
        for flag, value in (("--preset", preset), ("--beads", schedule), ("--reinforce", reinforcement),
                            ("--scope", scope), ("--empty-box", empty_box)):
            if value is not None:
                raise click.UsageError(f"{flag} sets beads, and a machine with --rule pegasus has odds, not beads")
        try:
            pegasus = pegasus_rule_for(find_game(game), rule_a or "1.025", rule_b or "2", refine or "none",
                                       decay or "0.5")
        except PegasusSettingsError as exc:
            raise click.UsageError(str(exc)) from None
    elif any(v is not None for v in (rule_a, rule_b, refine, decay)):
        raise click.UsageError("--a, --b, --refine and --decay are the Pegasus rule's: add --rule pegasus")

    chosen, settings, label = settings_for(
        game, preset, side=side, schedule=schedule, reinforcement=reinforcement, scope=scope,
        all_squares=all_squares, symmetry=symmetry, empty_box=empty_box,
    )
    if colours is not None:
        machine_colours(None, colours, needed=chosen.colours)  # enough of them for the game
    try:
        summary = init_machine(app.url, app.machine, settings, label, replace, game=chosen,
                               colours=None if colours is None else format_colours(colours), rule=pegasus)
    except SettingsError as exc:  # a schedule that does not fit the game's moves is a bad --beads
        raise click.BadParameter(str(exc), param_hint="'--beads'") from None
    click.echo(f"Built machine {summary.name!r} ({chosen.title}, {summary.preset or label}) in {app.where}:")
    click.echo(f"  {plural(summary.boxes, 'box', 'boxes')} ({by_move(summary.boxes_by_move)} by move)")
    if summary.rule is not None:
        click.echo(f"  odds: every distinct move of a box as likely as the others; {summary.rule.describe()['rule']}")
    else:
        click.echo(f"  {plural(summary.beads, 'bead')} ({by_move(summary.beads_by_move)} by move)")
    click.echo(f"Next: menace {app.m_flag()}play, or menace {app.m_flag()}tournament --vs "
               f"{training_opponent(chosen)} -n 2000")


@click.command()
@where_options
@pass_app
def stats(app: AppContext) -> None:
    """Settings, games played, wins/draws/losses, beads and empty boxes of a machine.

    Example: menace stats -m second
    """
    from menace.app.machines import machine_summary

    s = machine_summary(app.url, app.machine)
    click.echo(f"Machine {printable(s.name)!r} ({s.game.title}, {s.preset or 'custom'}), built "
               f"{s.created_at:%Y-%m-%d %H:%M}")
    sides = " and ".join(s.game.side_names[side] for side in s.settings.sides)
    if s.rule is not None:
        click.echo(f"  {'side':<14} {sides}")
        for key, value in s.rule.describe().items():
            click.echo(f"  {key:<14} {value}")
        shape = s.settings.describe()
        click.echo(f"  {'odds on':<14} {shape['beads on']}")
        click.echo(f"  {'boxes':<14} {shape['boxes']}")
        if s.rule.refinement.value != "none" and s.memory is not None:
            click.echo(f"  {'mu':<14} {float(s.memory.mean):+.4f} (the decayed average of past outcomes)")
        click.echo(f"  {'matchboxes':<14} {s.boxes:,} ({by_move(s.boxes_by_move)} by move)")
    else:
        for key, value in s.settings.describe().items():
            click.echo(f"  {key:<14} {sides if key == 'side' else value}")
        click.echo(f"  {'matchboxes':<14} {s.boxes:,} ({by_move(s.boxes_by_move)} by move)")
        click.echo(f"  {'beads now':<14} {s.beads:,} ({by_move(s.beads_by_move)} by move)")
        empties = ", ".join(map(str, s.empty_boxes[:20])) + (" ..." if len(s.empty_boxes) > 20 else "")
        click.echo(f"  {'empty boxes':<14} {len(s.empty_boxes)}" + (f": {empties}" if s.empty_boxes else ""))
    if s.games:
        pct = [100 * v / s.games for v in (s.wins, s.draws, s.losses)]
        click.echo(f"  {'games':<14} {s.games:,}: {s.wins:,} won, {s.draws:,} drawn, {s.losses:,} lost "
                   f"({pct[0]:.1f}% / {pct[1]:.1f}% / {pct[2]:.1f}%)")
    else:
        click.echo(f"  {'games':<14} none yet")


@click.command()
@click.argument("box")
@click.option("--at", type=click.IntRange(min=0), metavar="N",
              help="The box as it stood after game N (0: as built), replayed from the nearest checkpoint.")
@where_options
@pass_app
def show(app: AppContext, box: str, at: int | None) -> None:
    """Draw one matchbox with its beads, by number or by position.

    A position is typed as the game writes it (nine characters row by row, X, O and . for
    noughts and crosses); it is found whichever way round the real board is.

    \b
    Examples:
      menace show 1
      menace show X...O....
      menace show 1 --at 1000     box 1 as it stood after game 1,000
    """
    from menace.app.machines import find_box

    view = find_box(app.url, app.machine, box, at)
    b, game = view.box, view.game
    colours = machine_colours(view.colours, None, places_pieces(game))
    colour = use_colour(sys.stdout.isatty())
    when = "" if at is None else f" after game {at:,}" + (" (as built)" if at == 0 else "")
    if view.chances is not None and view.odds is not None:
        click.echo(f"Box {b.number} of {printable(view.machine)!r}{when}: MENACE's move {b.move_number}, "
                   f"{game.side_names[b.side]} to play; odds, not beads (the Pegasus rule)")
        if view.matched_from is not None and view.symmetry != "as it is":
            click.echo(f"(your position matches this box when you {view.symmetry})")
        for line in board_lines(game, b.position):
            click.echo("  " + line)
        for m, chance in view.chances.items():
            click.echo(f"  {game.move_name(m):<6} {chance:7.2%}   odds {odds_words(view.odds[m])}")
        return
    click.echo(f"Box {b.number} of {printable(view.machine)!r}{when}: MENACE's move {b.move_number}, "
               f"{game.side_names[b.side]} to play, {plural(b.total, 'bead')}")
    if view.matched_from is not None and view.symmetry != "as it is":
        click.echo(f"(your position matches this box when you {view.symmetry})")
    placing = all(game.move_cells(m)[0] is None for m in b.beads)
    drawing = box_lines(game, b.position, b.beads, colours, colour) if placing else board_lines(game, b.position)
    for line in drawing:
        click.echo("  " + line)
    share = chances(b.beads)
    for m, count in b.beads.items():
        c = colours[game.colour_slot(b.position, m) % len(colours)]
        click.echo(f"  {paint(c.letter, c, colour)} {c.name:<10} {game.move_name(m):<6} {count:>5,} "
                   f"({share[m]:5.1f}%)  started with {b.initial[m]}")
    click.echo(f"  beads: {beads_text(game, b.position, b.beads, colours, colour)}")


def odds_words(odds: Any) -> str:
    """A move's exact odds for people: ``A^3/2``, ``certain (M_1^1) x A^2``."""
    log = "1" if odds.log == 0 else f"A^{odds.log}" if odds.log.denominator == 1 else f"A^({odds.log})"
    if odds.level == 0:
        return log
    return f"M_1^{odds.level} x {log}" + (" (certain)" if odds.level > 0 else " (never)")


@click.command()
@where_options
@pass_app
def machines(app: AppContext) -> None:
    """List the machines in the database.

    Example: menace --db club.db machines
    """
    from menace.app.machines import list_machines

    found = list_machines(app.url)
    if not found:
        click.echo("No machines yet; create one with: menace init")
        return
    width = max(8, *(len(printable(s.name)) for s in found))
    click.echo(f"{'machine':<{width}}  {'game':<11} {'side':<4} {'boxes':>7} {'beads':>11} {'games':>15}")
    for s in found:
        side = "/".join(s.game.side_names[x] for x in s.settings.sides)
        beads = "odds" if s.rule is not None else f"{s.beads:,}"
        click.echo(f"{printable(s.name):<{width}}  {s.game.name:<11} {side:<4} {s.boxes:>7,} "
                   f"{beads:>11} {s.games:>15,}")


@click.command()
@click.argument("colour_list", metavar="[LIST]", required=False, callback=colours_option)
@click.option("--standard", is_flag=True, help="Go back to the standard colours.")
@where_options
@pass_app
def colours(app: AppContext, colour_list: tuple[BeadColour, ...] | None, standard: bool) -> None:
    """Show the bead colours kept with a machine, or change them.

    LIST is nine name=#rrggbb (or name:L=#rrggbb) items, comma-separated, in the order of the
    squares a1..c3 (for Hexapawn: a box's first, second, ... move). operate, reconcile, show and
    labels use them.

    \b
    Examples:
      menace colours
      menace colours "red=#d62728,orange=#ff7f0e,..."
      menace colours --standard
    """
    from menace.app.machines import machine_colours_text, set_machine_colours

    if colour_list is not None:
        _, game = machine_colours_text(app.url, app.machine)
        machine_colours(None, colour_list, needed=game.colours)
    if colour_list is not None or standard:
        set_machine_colours(app.url, app.machine, None if standard else format_colours(colour_list or ()))
    text, game = machine_colours_text(app.url, app.machine)
    chosen = machine_colours(text, None, places_pieces(game))
    colour = use_colour(sys.stdout.isatty())
    for i, c in enumerate(chosen, start=1):
        click.echo(f"  {i}. {paint(c.letter, c, colour)} {c.name:<12} {c.hex}")


@click.command()
@where_options
@pass_app
def upgrade(app: AppContext) -> None:
    """Bring an older database's schema up to date, backing the file up first.

    Example: menace --db old.db upgrade
    """
    from menace.storage.database import upgrade_database

    before, after, backup = upgrade_database(app.url)
    if backup is None and before == after:
        click.echo(f"{app.where} is up to date (schema {after}).")
        return
    if backup is not None:
        click.echo(f"Backed up to {backup}")
    click.echo(f"Upgraded {app.where} from schema {before} to {after}.")


@click.command()
@click.option("--all", "all_machines", is_flag=True, help="Check every machine, not only --machine.")
@click.option("--full", is_flag=True, help="Replay every game, trusting nothing a previous check verified.")
@where_options
@pass_app
def check(app: AppContext, all_machines: bool, full: bool) -> None:
    """Verify a database: schema, boxes, beads, and the games replayed against the beads.

    Exits 0 only when everything holds; otherwise names every fault found. What a check has
    verified is remembered by a checksum: the next one re-reads those bytes (no replay) and
    replays only the newer games; --full replays all of them.

    \b
    Examples:
      menace check
      menace check --full
      menace --db club.db check --all
    """
    from menace.app.check import check_database

    report = check_database(app.url, None if all_machines else app.machine, full=full)
    for fault in report.faults:
        click.echo(f"FAULT: {printable(fault)}")
    names = ", ".join(printable(n) for n in report.machines) or "no machine"
    if report.faults:
        click.echo(f"{report.database}: {len(report.faults)} fault(s) in {names}.", err=True)
        sys.exit(1)
    trusted = report.games - report.replayed
    if not trusted:
        click.echo(f"{report.database}: OK ({names}; {plural(report.games, 'game')} replayed, beads match).")
        return
    click.echo(f"{report.database}: OK ({names}; {plural(report.games, 'game')}: {report.replayed:,} replayed, "
               f"{trusted:,} verified before or summarized; beads match).")


@click.command()
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@where_options
@pass_app
def unlock(app: AppContext, yes: bool) -> None:
    """Remove the lease a holder left on a machine (a crashed program on another computer).

    A lease whose holder has stopped renewing it is taken over by itself after 30 seconds (even
    when its process id now belongs to another program), so this is rarely needed. It asks first,
    saying whether a process with the holder's id runs on this computer; --yes does not ask. Only
    the lease shown is removed: one taken meanwhile by a new holder stays. Removing the lease of a
    holder that is still running is safe but stops it: its next save is refused (nothing it had
    not saved is stored; a game at the terminal prints its moves).

    Example: menace unlock
    """
    from menace.app.machines import machine_lease, remove_lease

    name = printable(app.machine)
    held = machine_lease(app.url, app.machine)
    if held is None:
        click.echo(f"Nobody holds {name!r}.")
        return
    state = ("a process with that id is running on this computer (menace still at work, or another "
             "program that got the id)") if held.running_here else "no process of it is seen from here"
    click.echo(f"{name!r} is held by {printable(str(held))}, renewed {held.renewed_seconds_ago:.0f} s ago; {state}.")
    if not yes and not click.confirm("Remove the lease?", default=False):
        click.echo("Left as it is.")
        return
    remove_lease(app.url, app.machine, held)
    click.echo(f"Removed the lease of {printable(str(held))} on {name!r}.")
