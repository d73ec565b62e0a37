"""What every command shares: the context (database and machine), the options that choose them,
the way library errors become one line, and small helpers for prompts and numbers.

Nothing here imports SQLAlchemy or matplotlib, so that ``menace --help`` starts fast.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from menace.core import names
from menace.core.colours import BeadColour, ColourError, check_marks, default_colours, parse_colours
from menace.core.errors import MenaceError
from menace.core.names import DEFAULT_MACHINE
from menace.core.numbers import plural as plural

if TYPE_CHECKING:
    from menace.app.database import Database
    from menace.core.game import Game
    from menace.core.settings import Settings
    from menace.core.tree import TreeCache
    from menace.storage.repository import StoredMachine

DEFAULT_DB = "menace.db"
ENV_VAR = "MENACE_DB"


@dataclass
class AppContext:
    """Where the database is and which machine: from ``--db``/``-m`` before or after the command."""

    db: str | None = None
    machine: str = DEFAULT_MACHINE
    _database: Database | None = field(default=None, repr=False, compare=False)

    @property
    def url(self) -> str:
        from menace.storage.database import resolve_url

        return resolve_url(self.db)

    @property
    def database(self) -> Database:
        """The database this command works on, opened once for the command and closed at its end."""
        if self._database is None:
            from menace.app.database import Database

            self._database = Database(self.url)
            ctx = click.get_current_context(silent=True)
            if ctx is not None:
                ctx.find_root().call_on_close(self._database.close)
        return self._database

    @property
    def where(self) -> str:
        """The database as a person would name it: the file, or the URL without its password."""
        target = self.db or os.environ.get(ENV_VAR) or DEFAULT_DB
        if "://" not in target:
            return target
        from sqlalchemy.engine import make_url

        return make_url(target).render_as_string(hide_password=True)

    def command(self, *words: str, machine: str | None = None) -> str:
        """A command to suggest, naming this database and this machine (or ``machine``), quoted for
        a shell: typed as shown it acts on what this command acted on, never on the defaults.

        >>> AppContext("club.db", "exact").command("reconcile", "1")
        'menace --db club.db -m exact reconcile 1'
        """
        return shlex.join(["menace", "--db", self.where, "-m", machine or self.machine, *words])

    def mention_commands(self, text: str) -> str:
        """``text`` with every ``menace COMMAND`` it suggests naming this database and machine."""
        return _SUGGESTED.sub(lambda found: self.command(found.group(1) or found.group(2)), text)


pass_app = click.make_pass_decorator(AppContext, ensure=True)

_SUGGESTED = re.compile(r"(?<=run ')menace (check|upgrade|unlock|reconcile|init|stats|replay|undo|tournament|play|"
                        r"export)\b|(?<=with: )menace (check|upgrade|unlock|reconcile|init)\b")
"""A command a library message suggests (``run 'menace check'``, ``create one with: menace init``),
without a database or machine: the CLI adds both. Not a holder's name (``a tournament (menace
tournament)``)."""


def init_options(game: str, settings: Settings, preset: str | None, colours: str | None) -> list[str]:
    """The ``menace init`` options that build a machine with exactly these settings again.

    >>> from menace.core.settings import MICHIE_1961
    >>> from menace.games import DEFAULT_GAME
    >>> init_options(DEFAULT_GAME, MICHIE_1961, "michie-1961", None)
    ['--preset', 'michie-1961']
    """
    from menace.core.settings import PRESETS, format_numbers
    from menace.games import DEFAULT_GAME, DEFAULT_PRESETS

    name = (preset or "").split(",")[0].strip()
    if name not in PRESETS:
        name = DEFAULT_PRESETS[game]
    base = PRESETS[name]
    options = ([] if game == DEFAULT_GAME else ["--game", game]) + ["--preset", name]
    if settings.side != base.side:
        options += ["--side", settings.side]
    if settings.schedule != base.schedule:
        options += ["--beads", format_numbers(settings.schedule)]
    if (settings.win, settings.draw, settings.loss) != (base.win, base.draw, base.loss):
        options += ["--reinforce", f"{settings.win},{settings.draw},{settings.loss}"]
    if settings.scope != base.scope:
        options += ["--scope", settings.scope.value]
    if settings.all_squares != base.all_squares:
        options.append("--all-squares" if settings.all_squares else "--distinct-moves")
    if settings.symmetry != base.symmetry:
        options.append("--symmetry" if settings.symmetry else "--no-symmetry")
    if settings.empty_policy != base.empty_policy:
        options += ["--empty-box", settings.empty_policy.value]
    if colours:
        options += ["--colours", colours]
    return options


def opening_empty_help(app: AppContext, stored: StoredMachine, boxes: Sequence[int], of: int,
                       ways_only: bool = False) -> str:
    """What to say when boxes for MENACE's first move are empty under ``resign``, and how to go on:
    each way named as a command for this database and machine, the rebuild keeping its settings."""
    what = reach = ""
    if ways_only:
        pass
    elif len(boxes) == of == 1:
        what, reach = f"the opening box (box {boxes[0]}) of {stored.name!r} is empty", "every game"
    else:
        what = f"first-move box{'es' if len(boxes) > 1 else ''} {', '.join(map(str, boxes))} of " \
               f"{stored.name!r} {'are' if len(boxes) > 1 else 'is'} empty"
        reach = "every game that reaches " + ("them" if len(boxes) > 1 else "it")
    options = init_options(stored.game, stored.settings, stored.preset, stored.colours)
    revive = [o for o in options if o not in ("--empty-box", "resign")]
    if "--preset" in revive and revive[revive.index("--preset") + 1] == "michie-1961":
        revive[revive.index("--preset") + 1] = "michie"  # Michie's machine as its operators revived it
    else:
        revive += ["--empty-box", "revive"]
    machine = stored.name
    refill = app.command("reconcile", str(boxes[0] if boxes else 1), machine=machine)
    ways = (f"refill it ({refill}), rebuild the machine as it was built, losing its games "
            f"({app.command('init', '--replace', *options, machine=machine)}), "
            f"or rebuild it so that its first-move boxes are refilled when they run dry "
            f"({app.command('init', '--replace', *revive, machine=machine)})")
    return f"{what}: under 'resign' MENACE resigns {reach}. To go on, {ways}" if what else ways


def use_user_tree_cache() -> None:
    """Keep game trees in the user's cache folder between runs (``$MENACE_CACHE_DIR`` chooses another
    folder; empty: none), so that a command does not build the tree of its game every time."""
    from menace.core.tree import use_tree_cache

    use_tree_cache(_UserTreeCache())


class _UserTreeCache:
    """The user's tree cache (:func:`menace.app.tree_cache.user_tree_cache`), found the first time a
    command needs a game's tree: a command that needs none (``stats``, ``history``) does not import
    what finding and writing it takes."""

    def __init__(self) -> None:
        self._cache: TreeCache | None = None
        self._found = False

    def _open(self) -> TreeCache | None:
        if not self._found:
            from menace.app.tree_cache import user_tree_cache

            self._cache, self._found = user_tree_cache(), True
        return self._cache

    def load(self, game: Game) -> bytes | None:
        cache = self._open()
        return cache.load(game) if cache is not None else None

    def save(self, game: Game, packed: bytes) -> None:
        cache = self._open()
        if cache is not None:
            cache.save(game, packed)


def check_machine_name(value: str) -> str:
    """The name, or :class:`click.BadParameter` saying what a name may be (the rule of
    :mod:`menace.core.names`, the same for ``-m``, ``--as``, ``--store`` and imported files)."""
    try:
        return names.check_machine_name(value)
    except names.MachineNameError as exc:
        raise click.BadParameter(exc.message) from None


def machine_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    check_machine_name(value)
    if ctx.parent is not None:  # after the command name: the group made the context already
        ctx.ensure_object(AppContext).machine = value
    return value


def _db_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        ctx.ensure_object(AppContext).db = value
    return value


F = TypeVar("F", bound=Callable[..., Any])


def where_options(command: F) -> F:
    """``--db`` and ``-m/--machine`` accepted after the command name too (``menace stats -m x``)."""
    command = click.option("--db", metavar="PATH|URL", expose_value=False, callback=_db_option, is_eager=True,
                           help="Database file or URL (as before the command).")(command)
    command = click.option("-m", "--machine", metavar="NAME", expose_value=False, callback=machine_option,
                           is_eager=True, help="Which machine in the database (as before the command).")(command)
    return command


# -- errors -------------------------------------------------------------------------------------
HINTS: dict[str, dict[str, str]] = {
    # error class name -> command -> what to type; "*" for any command
    "MachineExistsError": {
        "init": "rebuild it with --replace (its games go too), or name another with -m NAME",
        "import": "replace it with --replace, or import it beside it with --as NAME",
        "*": "choose another name",
    },
}


def printable(text: str) -> str:
    """``text`` with control characters (ANSI escapes, NUL, ...) shown as escapes, never obeyed."""
    return names.safe_text(text)


def one_line(exc: MenaceError, command: str | None, app: AppContext | None = None) -> str:
    """A library error as the terminal shows it: the message, then the hint for this command; a
    command it suggests names the database and machine this one was given."""
    app = app or AppContext()
    kind = type(exc).__name__
    hints = HINTS.get(kind, {})
    hint = hints.get(command or "", hints.get("*")) or exc.hint
    stored = getattr(exc, "stored", None)  # the machine of an empty opening box (app.session)
    if kind == "UnknownMachineError":
        hint = f"create it with: {app.command('init')} (or choose another with -m NAME)"
    elif kind == "OpeningBoxEmptyError" and stored is not None:
        boxes: list[int] = getattr(exc, "boxes", [])
        of: int = getattr(exc, "of", 1)
        hint = "to go on, " + opening_empty_help(app, stored, boxes, of, ways_only=True)
        return printable(" ".join(f"{exc.message}; {hint}".split()))
    text = app.mention_commands(exc.message + (f"; {hint}" if hint else ""))
    return printable(" ".join(text.split()))


# -- exit statuses ------------------------------------------------------------------------------
EXIT_ERROR = 1
"""A library error: the one-line message says what and what to do."""
EXIT_USAGE = 2
"""A bad option or argument (click's usage errors)."""
EXIT_STOPPED_EARLY = 3
"""A tournament stopped before its games or time were done (an empty first-move box under resign)."""
EXIT_SIGINT = 130
EXIT_SIGTERM = 143


class FilePath(click.Path):
    """``click.Path`` that refuses a NUL character as a usage error (click's own check crashes on it)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and "\0" in value:
            self.fail(f"{value!r} is not a file name: it holds a NUL character", param, ctx)
        return super().convert(value, param, ctx)


P = TypeVar("P", bound=object)


def out_file(ctx: click.Context, param: click.Parameter, value: P) -> P:
    """A callback for an option naming a file written at the end of long work: a target that
    could never be written is refused before the work starts."""
    if value is None:
        return value
    from menace.app.files import FileWriteError, check_target

    try:
        check_target(str(value))
    except FileWriteError as exc:
        raise click.BadParameter(exc.message) from None
    return value


def leave(code: int) -> NoReturn:
    sys.exit(code)


def ask(prompt: Callable[[], Any], abandon_message: str) -> Any:
    """Ask something at the terminal. End of input leaves with ``abandon_message`` and status 1;
    Ctrl-C the same with 130, as everywhere."""
    try:
        return prompt()
    except (click.Abort, EOFError, KeyboardInterrupt) as exc:
        click.echo(f"\n{abandon_message}", err=True)
        # click turns both into Abort; what caused it is still its context.
        interrupted = isinstance(exc, KeyboardInterrupt) or isinstance(exc.__context__, KeyboardInterrupt)
        leave(EXIT_SIGINT if interrupted else EXIT_ERROR)


def by_move(counts: dict[int, int]) -> str:
    return " + ".join(f"{v:,}" for v in counts.values())




def colours_option(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[BeadColour, ...] | None:
    """``--colours``: the builder's nine bead colours (None: the machine's own, or the standard set)."""
    if value is None:
        return None
    try:
        return parse_colours(value)
    except ColourError as exc:
        raise click.BadParameter(str(exc)) from None


def board_marks(game: Game) -> str:
    """The marks a game puts on the board where bead letters are drawn too (none for a game whose
    beads are arrows)."""
    from menace.render.beads import places_pieces

    return game.glyphs[1:] if places_pieces(game) else ""


def machine_colours(stored: str | None, given: tuple[BeadColour, ...] | None,
                    places_pieces: bool = True, needed: int = 1, marks: str = "") -> tuple[BeadColour, ...]:
    """The colours to use: those given now (at least ``needed`` of them, no letter among the board's
    ``marks``), else those stored with the machine, else the standard set."""
    if given is not None:
        if len(given) < needed:
            raise click.BadParameter(f"this machine's game needs {needed} colours, not {len(given)}",
                                     param_hint="'--colours'")
        try:
            check_marks(given, marks)
        except ColourError as exc:
            raise click.BadParameter(str(exc), param_hint="'--colours'") from None
        return given
    if stored:
        return parse_colours(stored)
    return default_colours(places_pieces)


def game_rule_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """An option for each rule a game lets its players choose (Nim's ``--heap``, ``--take`` and
    ``--last-stick``), gathered into one ``rules`` argument: ``{name: value or None}``. A new game's
    rules become options of every command that chooses a game without touching this file."""
    from menace.games import game_options

    options = game_options()
    keys = {option.name.replace("-", "_"): option.name for option in options}

    def gather(*args: Any, **kwargs: Any) -> Any:
        kwargs["rules"] = {name: kwargs.pop(key) for key, name in keys.items()}
        return command(*args, **kwargs)

    functools.update_wrapper(gather, command)  # keeps the options already given (click keeps them on the function)
    wrapped: Callable[..., Any] = gather
    for option in reversed(options):
        kind: Any = click.Choice(option.choices) if option.choices else click.IntRange(option.low, option.high)
        shown = f"{option.low}-{option.high}" if not option.choices else "|".join(option.choices)
        wrapped = click.option(f"--{option.name}", type=kind, metavar=shown.upper() if option.choices else shown,
                               help=f"{option.game} only: {option.help} [default: {option.default}].")(wrapped)
    return wrapped


def game_of(name: str, rules: dict[str, Any]) -> Any:
    """The game ``name`` with the ``rules`` its options chose; a rule the game does not have is a
    usage error naming the option."""
    from menace.games import UnknownGameError, game_with_options

    try:
        return game_with_options(name, rules)
    except UnknownGameError as exc:
        wrong = next((key for key, value in rules.items() if value is not None), "game")
        raise click.BadParameter(str(exc), param_hint=f"'--{wrong}'") from None
