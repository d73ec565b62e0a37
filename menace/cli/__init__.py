"""The ``menace`` command line: parse, call the library, print. Nothing else lives here.

Every command lives in its own module and is imported only when used, so that ``menace --help``
loads neither SQLAlchemy nor matplotlib. The library's errors become one line and a non-zero exit
in exactly one place, :meth:`MenaceGroup.invoke`.
"""

from __future__ import annotations

import gc
import importlib
from typing import Any

import click

from menace import __version__
from menace.cli.common import AppContext, machine_option, one_line, use_user_tree_cache
from menace.core.errors import InternalError, MenaceError
from menace.core.names import DEFAULT_MACHINE
from menace.interrupts import command_begins, interrupted, interruption, reached

COMMANDS = {
    "init": ("menace.cli.machines:init", "Build a machine: one matchbox per position where MENACE is to move."),
    "play": ("menace.cli.play:play", "Play a game against the machine at the terminal; it learns from the result."),
    "tournament": ("menace.cli.tournament:tournament", "Train the machine against an opponent, saving every second."),
    "stats": ("menace.cli.machines:stats", "Settings, games played, wins/draws/losses, beads and empty boxes."),
    "show": ("menace.cli.machines:show", "Draw one matchbox with its beads, by number or by position."),
    "machines": ("menace.cli.machines:machines", "List the machines in the database."),
    "colours": ("menace.cli.machines:colours", "Show or change the bead colours kept with a machine."),
    "upgrade": ("menace.cli.machines:upgrade", "Bring an older database's schema up to date, backing it up first."),
    "check": ("menace.cli.machines:check", "Verify a database: schema, boxes, beads, and every game replayed."),
    "unlock": ("menace.cli.machines:unlock", "Remove a machine's lease left by a holder that is gone."),
    "history": ("menace.cli.history:history", "List the games a machine has played, newest last."),
    "replay": ("menace.cli.history:replay", "Show one stored game move by move, with MENACE's boxes and beads."),
    "undo": ("menace.cli.history:undo", "Take back the last game and its reinforcement, exactly."),
    "plot": ("menace.cli.history:plot", "Draw a machine's history as a picture (PNG, SVG or PDF)."),
    "labels": ("menace.cli.labels:labels", "Print the build kit for a real MENACE: labels and lists."),
    "worksheets": ("menace.cli.worksheets:worksheets", "Print the lesson's worksheets: a results tally and a graph."),
    "operate": ("menace.cli.play:operate", "Run a game on the real matchbox machine, with the database as twin."),
    "reconcile": ("menace.cli.play:reconcile", "Set a box's beads from a count of the real beads."),
    "export": ("menace.cli.transfer:export_cmd", "Write the whole machine to a JSON file."),
    "import": ("menace.cli.transfer:import_cmd", "Read a machine file written by menace export."),
    "opponents": ("menace.cli.arena:opponents", "List every player you can play against or put in the arena."),
    "arena": ("menace.cli.arena:arena", "Play every player against every other and print who beat whom."),
    "sweep": ("menace.cli.sweep:sweep", "Train many machines from scratch, in parallel, and compare settings."),
    "experiment": ("menace.cli.experiment:experiment", "Run Michie's 1963 experiments again and draw them."),
    "puzzle": ("menace.cli.puzzle:puzzle", "Two puzzles: McLean's MAGIC and the pegboard triangle."),
    "serve": ("menace.cli.serve:serve", "Show the machine in a browser: wall, play, train, learning, console."),
}
"""Every command: where it lives and its one-line help (listed without importing it)."""

freeze_command_imports = False
"""Whether the command's module is imported with the collector off and then frozen, as
:mod:`menace.__main__` does with the command line's: set there, in a process that is the command; never
in one that runs many (a test's), where what is frozen would never be collected."""


class MenaceGroup(click.Group):
    """Loads each command when asked for, and turns the library's own errors into one line."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attr = COMMANDS[cmd_name][0].split(":")
        if not freeze_command_imports:
            command = getattr(importlib.import_module(module), attr)
        else:
            # As in menace.__main__: the command's imports (SQLAlchemy the most) make objects that live
            # as long as the process and little garbage, so the collector stays off while they are made
            # and never walks them afterwards (a tenth of a read command's start-up).
            collecting = gc.isenabled()
            gc.disable()
            try:
                command = getattr(importlib.import_module(module), attr)
            finally:
                gc.freeze()
                if collecting:
                    gc.enable()
        if not isinstance(command, click.Command):
            raise InternalError(f"{module}:{attr} is not a command")
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # The one-line help comes from COMMANDS: listing commands imports none of them.
        with formatter.section("Commands"):
            formatter.write_dl([(name, text) for name, (_, text) in COMMANDS.items()])

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # A command line from a shell never holds a NUL; one from a program can, and no file
        # name, machine name or number may.
        if any("\x00" in arg for arg in args):
            raise click.UsageError("an argument holds a NUL character (\\0)", ctx)
        return super().parse_args(ctx, args)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        # Ctrl-C while the arguments are parsed: click's main would say "Aborted!" and exit 1.
        try:
            reached("parsing")
            return super().make_context(info_name, args, parent, **extra)
        except KeyboardInterrupt:
            interrupted()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except MenaceError as exc:
            # The one place where the library's errors become what a terminal shows.
            raise click.ClickException(one_line(exc, ctx.invoked_subcommand, ctx.find_object(AppContext))) from None
        except KeyboardInterrupt:
            # Ctrl-C outside a prompt (loading, drawing, writing): 130 as everywhere, not click's 1.
            interrupted()
        except click.Abort as exc:
            if isinstance(exc.__context__, KeyboardInterrupt):  # Ctrl-C at a prompt click asked
                interrupted()
            raise
        except Exception as exc:  # Ctrl-C wrapped by Python, as in a class made by a late import
            if interruption(exc) is None:
                raise
            interrupted()


@click.group(cls=MenaceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", metavar="PATH|URL", help="Database file or URL [default: $MENACE_DB or menace.db].")
@click.option("-m", "--machine", default=DEFAULT_MACHINE, show_default=True, callback=machine_option,
              help="Which machine in the database.")
@click.version_option(__version__, prog_name="menace")
@click.pass_context
def cli(ctx: click.Context, db: str | None, machine: str) -> None:
    """MENACE, Donald Michie's 1961 matchbox machine that learns noughts and crosses
    (and Martin Gardner's Hexapawn machine, HER).

    \b
    Start here:
      menace init                      build Michie's 304-box machine in menace.db
      menace play                      play it at the terminal
      menace tournament --vs smart -n 2000
      menace stats
    --db and -m work before or after the command name.
    """
    ctx.obj = AppContext(db, machine)
    use_user_tree_cache()
    reached("command")
    command_begins()


def main() -> None:
    try:
        cli(prog_name="menace")
    except KeyboardInterrupt:  # before a command began or after it ended
        interrupted()
