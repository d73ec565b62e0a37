"""Commands about whole machines: ``init``, ``stats``, ``show``, ``machines``, ``colours``,
``upgrade``, ``check`` and ``unlock``."""

from __future__ import annotations

import sys

import click

from menace.cli.common import (
    AppContext,
    board_marks,
    by_move,
    colours_option,
    game_of,
    game_rule_options,
    machine_colours,
    pass_app,
    plural,
    printable,
    where_options,
)
from menace.core.colours import BeadColour, format_colours
from menace.core.settings import (
    PRESETS,
    SIDE_WORDS,
    EmptyPolicy,
    Scope,
    SettingsError,
    parse_reinforcement,
    parse_schedule,
)
from menace.games import DEFAULT_GAME, game_names
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


@click.command()
@click.option("--game", type=click.Choice(game_names()), default=DEFAULT_GAME, show_default=True,
              help="tictactoe: Michie's MENACE. hexapawn: Gardner's HER (or HIM with --side X). nim: the "
                   "classroom's cups, one per heap size (choose the rules with --heap, --take, --last-stick).")
@game_rule_options
@click.option("--preset", type=click.Choice(list(PRESETS)),
              help="michie: Michie's machine, its opening box refilled when empty. michie-1961: exactly "
                   "as Michie ran it (an empty box resigns, even the opening one). rubyquiz: the rules of the "
                   "Ruby Quiz MENACE. gardner: Gardner's Hexapawn rules. classroom: Nim's cups, one bead per "
                   "move, playing both sides, the losing bead taken out after a loss: the rule a class can "
                   "follow and see working [default: the game's own: michie, gardner, classroom].")
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
@click.option("--rule", type=click.Choice(["michie", "pegasus"]), default="michie", show_default=True,
              help="How the machine learns. michie: beads added and taken (the matchbox machine). pegasus: the "
                   "program Michie and Martin wrote for the Pegasus 2 computer (1963): each box keeps odds per "
                   "move, multiplied by M_n = A^(B^(8-n)) after a win, divided after a defeat.")
@click.option("--pegasus-a", "pegasus_a", type=float, metavar="A",
              help="The Pegasus rule's A [default: 1.025, as in the paper's trial runs].")
@click.option("--pegasus-b", "pegasus_b", type=float, metavar="B",
              help="The Pegasus rule's B [default: 2].")
@click.option("--refined", type=click.Choice(["hundred", "per-play"]),
              help="The Pegasus rule refined as in the paper's Table 3 (reinforcement relative to the decayed mean "
                   "outcome): hundred: the mean updated once per hundred plays, as Michie's program did; "
                   "per-play: the ideal it approximates, updated after every play.")
@click.option("--decay", type=float, metavar="D",
              help="The refined rule's decay: the weight past outcomes keep over a hundred plays [default: 0.5].")
@click.option("--replace", is_flag=True, help="Rebuild the machine if one of that name exists (its games go too).")
@where_options
@pass_app
def init(app: AppContext, game: str, rules: dict[str, int | str | None], preset: str | None, side: str | None,
         schedule: str | None,
         reinforcement: str | None, scope: str | None, all_squares: bool | None,
         symmetry: bool | None, empty_box: str | None, colours: tuple[BeadColour, ...] | None,
         rule: str, pegasus_a: float | None, pegasus_b: float | None, refined: str | None, decay: float | None,
         replace: bool) -> None:
    """Build a machine: one matchbox per position where MENACE is to move.

    \b
    Examples:
      menace init                                  Michie's machine: 304 boxes, 1,720 beads
      menace init -m second --side O               a machine that moves second: 289 boxes
      menace init -m mscroggs --beads 8,4,2,1      the online MENACE's bead schedule
      menace init -m ruby --preset rubyquiz        the Ruby Quiz MENACE
      menace init -m exact --preset michie-1961    Michie's exact rules: may stop at an empty box
      menace init -m her --game hexapawn           Gardner's HER: 19 boxes, plays Black
      menace init -m nim --game nim                Nim's 20 cups, 59 beads: 21 sticks, take 1-3
      menace init -m n2 --game nim --heap 15 --take 4 --last-stick wins --side second
      menace init -m pegasus --rule pegasus        the Pegasus program's rule: odds, not beads
    """
    from menace.app.machines import init_machine, settings_for

    try:
        chosen, settings, label = settings_for(
            game_of(game, rules).name, preset, side=side, schedule=schedule, reinforcement=reinforcement,
            scope=scope, all_squares=all_squares, symmetry=symmetry, empty_box=empty_box, rule=rule, a=pegasus_a,
            b=pegasus_b, refinement=refined, decay=decay,
        )
    except SettingsError as exc:  # options that do not go together (beads for the Pegasus rule, ...)
        raise click.UsageError(str(exc)) from None
    if colours is not None:
        # enough of them for the game, none lettered like a piece on its board
        machine_colours(None, colours, needed=chosen.colours, marks=board_marks(chosen))
    try:
        summary = init_machine(app.database, app.machine, settings, label, replace, game=chosen,
                               colours=None if colours is None else format_colours(colours))
    except SettingsError as exc:  # a schedule that does not fit the game's moves is a bad --beads
        raise click.BadParameter(str(exc), param_hint="'--beads'") from None
    click.echo(f"Built machine {summary.name!r} ({chosen.title}, {label}) in {app.where}:")
    click.echo(f"  {plural(summary.boxes, 'box', 'boxes')} ({by_move(summary.boxes_by_move)} by move)")
    if settings.pegasus is not None:
        click.echo(f"  {settings.pegasus.describe()}; every move of a box starts with equal odds")
    else:
        click.echo(f"  {plural(summary.beads, 'bead')} ({by_move(summary.beads_by_move)} by move)")
    from menace.players import training_opponent  # every player: what init names, not what stats or show need

    click.echo(f"Next: {app.command('play')}, or "
               f"{app.command('tournament', '--vs', training_opponent(chosen), '-n', '2000')}")


@click.command()
@where_options
@pass_app
def stats(app: AppContext) -> None:
    """Settings, games played, wins/draws/losses, beads and empty boxes of a machine.

    Example: menace stats -m second
    """
    from menace.app.machines import machine_summary

    s = machine_summary(app.database, app.machine)
    click.echo(f"Machine {printable(s.name)!r} ({s.game.title}, {s.preset or 'custom'}), built "
               f"{s.created_at:%Y-%m-%d %H:%M}")
    for key, value in s.settings.describe().items():
        if key == "side":
            value = " and ".join(s.game.side_names[side] for side in s.settings.sides)
        click.echo(f"  {key:<14} {value}")
    click.echo(f"  {'matchboxes':<14} {s.boxes:,} ({by_move(s.boxes_by_move)} by move)")
    if s.settings.pegasus is None:  # a Pegasus machine keeps odds: no beads to count, no box ever empty
        click.echo(f"  {'beads now':<14} {s.beads:,} ({by_move(s.beads_by_move)} by move)")
        empties = ", ".join(map(str, s.empty_boxes[:20])) + (" ..." if len(s.empty_boxes) > 20 else "")
        click.echo(f"  {'empty boxes':<14} {len(s.empty_boxes)}" + (f": {empties}" if s.empty_boxes else ""))
    if s.games:
        pct = [100 * v / s.games for v in (s.wins, s.draws, s.losses)]
        click.echo(f"  {'games':<14} {s.games:,}: {s.wins:,} won, {s.draws:,} drawn, {s.losses:,} lost "
                   f"({pct[0]:.1f}% / {pct[1]:.1f}% / {pct[2]:.1f}%)")
        fw, fd, fl = s.frozen
        if fw + fd + fl:
            click.echo(f"  {'frozen':<14} {fw + fd + fl:,} of them played without learning: {fw:,} won, "
                       f"{fd:,} drawn, {fl:,} lost")
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

    view = find_box(app.database, app.machine, box, at)
    b, game = view.box, view.game
    colours = machine_colours(view.colours, None, places_pieces(game))
    colour = use_colour(sys.stdout.isatty())
    when = "" if at is None else f" after game {at:,}" + (" (as built)" if at == 0 else "")
    odds = view.settings.pegasus is not None
    click.echo(f"Box {b.number} of {printable(view.machine)!r}{when}: MENACE's move {b.move_number}, "
               f"{game.side_names[b.side]} to play, "
               + ("each move's chance (the Pegasus rule keeps odds, not beads)" if odds else plural(b.total, 'bead')))
    if view.matched_from is not None and view.symmetry != "as it is":
        click.echo(f"(your position matches this box when you {view.symmetry})")
    placing = all(game.move_cells(m)[0] is None for m in b.beads)
    drawing = box_lines(game, b.position, b.beads, colours, colour) if placing else board_lines(game, b.position)
    for line in drawing:
        click.echo("  " + line)
    share = chances(b.beads)
    names = max([10] + [len(colours[game.colour_slot(b.position, m) % len(colours)].name) for m in b.beads])
    width = max([5] + [len(f"{n:,}") for n in b.beads.values()])  # a column as wide as its longest count
    if odds:
        start = chances(b.initial)
        for m in b.beads:
            c = colours[game.colour_slot(b.position, m) % len(colours)]
            click.echo(f"  {paint(c.letter, c, colour)} {c.name:<{names}} {game.move_name(m):<6} {share[m]:6.2f}%"
                       f"  started at {start[m]:.2f}%")
        return
    for m, count in b.beads.items():
        c = colours[game.colour_slot(b.position, m) % len(colours)]
        click.echo(f"  {paint(c.letter, c, colour)} {c.name:<{names}} {game.move_name(m):<6} {count:>{width},} "
                   f"({share[m]:5.1f}%)  started with {b.initial[m]:,}")
    click.echo(f"  beads: {beads_text(game, b.position, b.beads, colours, colour)}")


@click.command()
@where_options
@pass_app
def machines(app: AppContext) -> None:
    """List the machines in the database.

    Example: menace --db club.db machines
    """
    from menace.app.machines import list_machines

    found = list_machines(app.database)
    if not found:
        click.echo(f"No machines yet; create one with: {app.command('init')}")
        return
    width = max(8, *(len(printable(s.name)) for s in found))
    click.echo(f"{'machine':<{width}}  {'game':<11} {'side':<4} {'boxes':>7} {'beads':>11} {'games':>15}")
    for s in found:
        side = "/".join(s.game.side_names[x] for x in s.settings.sides)
        click.echo(f"{printable(s.name):<{width}}  {s.game.name:<11} {side:<4} {s.boxes:>7,} "
                   f"{s.beads:>11,} {s.games:>15,}")


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
        _, game = machine_colours_text(app.database, app.machine)
        machine_colours(None, colour_list, needed=game.colours, marks=board_marks(game))
    if colour_list is not None or standard:
        set_machine_colours(app.database, app.machine, None if standard else format_colours(colour_list or ()))
    text, game = machine_colours_text(app.database, app.machine)
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
    before, after, backup = app.database.upgrade()
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

    report = check_database(app.database, None if all_machines else app.machine, full=full)
    for fault in report.faults:
        click.echo(f"FAULT: {printable(fault)}")
    names = ", ".join(printable(n) for n in report.machines) or "no machine"
    if report.faults:
        click.echo(f"{report.database}: {len(report.faults)} fault(s) in {names}.", err=True)
        sys.exit(1)
    trusted = report.games - report.replayed
    # a machine of the Pegasus rule keeps odds, not beads
    match = " and ".join(w for rule, w in (("michie", "beads"), ("pegasus", "odds")) if rule in report.rules) or "beads"
    if not trusted:
        click.echo(f"{report.database}: OK ({names}; {plural(report.games, 'game')} replayed, {match} match).")
        return
    click.echo(f"{report.database}: OK ({names}; {plural(report.games, 'game')}: {report.replayed:,} replayed, "
               f"{trusted:,} verified before or summarized; {match} match).")


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
    held = machine_lease(app.database, app.machine)
    if held is None:
        click.echo(f"Nobody holds {name!r}.")
        return
    state = ("a process with that id is running on this computer (menace still at work, or another "
             "program that got the id)") if held.running_here else "no process of it is seen from here"
    click.echo(f"{name!r} is held by {printable(str(held))}, renewed {held.renewed_seconds_ago:.0f} s ago; {state}.")
    if not yes and not click.confirm("Remove the lease?", default=False):
        click.echo("Left as it is.")
        return
    remove_lease(app.database, app.machine, held)
    click.echo(f"Removed the lease of {printable(str(held))} on {name!r}.")
