"""What every command shares: the context (database and machine), the options that choose them,
the way library errors become one line, and small helpers for prompts and numbers.

Nothing here imports SQLAlchemy or matplotlib, so that ``menace --help`` starts fast.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar

import click

from menace.core import names
from menace.core.colours import BeadColour, ColourError, default_colours, parse_colours
from menace.core.errors import MenaceError

DEFAULT_MACHINE = "menace"
DEFAULT_DB = "menace.db"
ENV_VAR = "MENACE_DB"


@dataclass
class AppContext:
    """Where the database is and which machine: from ``--db``/``-m`` before or after the command."""

    db: str | None = None
    machine: str = DEFAULT_MACHINE

    @property
    def url(self) -> str:
        from menace.storage.database import resolve_url

        return resolve_url(self.db)

    @property
    def where(self) -> str:
        """The database as a person would name it: the file, or the URL without its password."""
        target = self.db or os.environ.get(ENV_VAR) or DEFAULT_DB
        if "://" not in target:
            return target
        from sqlalchemy.engine import make_url

        return make_url(target).render_as_string(hide_password=True)

    def m_flag(self) -> str:
        """``-m NAME `` to repeat in a suggested command, or nothing for the default machine."""
        return "" if self.machine == DEFAULT_MACHINE else f"-m {self.machine} "


pass_app = click.make_pass_decorator(AppContext, ensure=True)


def use_user_tree_cache() -> None:
    """Keep game trees in the user's cache folder between runs (``$MENACE_CACHE_DIR`` chooses another
    folder; empty: none), so that a command does not build the tree of its game every time."""
    from menace.app.tree_cache import user_tree_cache
    from menace.core.tree import use_tree_cache

    use_tree_cache(user_tree_cache())


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
    "UnknownMachineError": {"*": "create one with: menace init (or choose with -m NAME)"},
    "OpeningBoxEmptyError": {"*": "refill it (menace reconcile BOX), rebuild it (menace init --replace), or build "
                                  "one with --empty-box revive"},
}


def printable(text: str) -> str:
    """``text`` with control characters (ANSI escapes, NUL, ...) shown as escapes, never obeyed."""
    return names.safe_text(text)


def one_line(exc: MenaceError, command: str | None) -> str:
    """A library error as the terminal shows it: the message, then the hint for this command."""
    hints = HINTS.get(type(exc).__name__, {})
    hint = hints.get(command or "", hints.get("*")) or exc.hint
    text = exc.message + (f"; {hint}" if hint else "")
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


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 game``, ``2 games``, ``1,000 games``."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def colours_option(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[BeadColour, ...] | None:
    """``--colours``: the builder's nine bead colours (None: the machine's own, or the standard set)."""
    if value is None:
        return None
    try:
        return parse_colours(value)
    except ColourError as exc:
        raise click.BadParameter(str(exc)) from None


def machine_colours(stored: str | None, given: tuple[BeadColour, ...] | None,
                    places_pieces: bool = True, needed: int = 1) -> tuple[BeadColour, ...]:
    """The colours to use: those given now (at least ``needed`` of them), else those stored with
    the machine, else the standard set."""
    if given is not None:
        if len(given) < needed:
            raise click.BadParameter(f"this machine's game needs {needed} colours, not {len(given)}",
                                     param_hint="'--colours'")
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
