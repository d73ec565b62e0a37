"""Ctrl-C and SIGTERM while the command line starts: one line and status 130 (SIGTERM: 143), at
every stage of start-up, until the command begins (from there each command handles them its own
way: a tournament stops after its game).

Standard library only, and imported by both :mod:`menace.__main__` (before the command line is
imported) and :mod:`menace.cli`, so that neither imports the other.
"""

from __future__ import annotations

import signal
import sys

TYPE_CHECKING = False  # typing itself is not imported while a Ctrl-C could land unhandled

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import NoReturn

EXIT_SIGINT = 130
EXIT_SIGTERM = 143

stage_hook: Callable[[str], None] | None = None
"""Called with the name of each stage of start-up as it is reached ("start", "imported", "parsing",
"command"); None in a real run. The tests of Ctrl-C during start-up set it, in a process of their
own, to stop at one stage and wait there for the signal instead of guessing a delay."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it unwinds as Ctrl-C does: every transaction
    rolled back, every temporary file removed, one line."""


def _on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise Terminated


def catch_sigterm() -> None:
    """From here until :func:`command_begins`, SIGTERM unwinds like Ctrl-C (unless a parent chose to
    ignore it)."""
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _on_sigterm)


def command_begins() -> None:
    """From here the command handles signals its own way (a tournament stops after its game and says
    so): SIGTERM goes back to what it was before start-up caught it."""
    if signal.getsignal(signal.SIGTERM) is _on_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def reached(stage: str) -> None:
    """Start-up has got to ``stage``."""
    if stage_hook is not None:
        stage_hook(stage)


def interruption(error: BaseException | None) -> KeyboardInterrupt | None:
    """The Ctrl-C (or SIGTERM) behind ``error``: itself, or what it was raised from or during. Python
    hands a signal that lands in some places on wrapped in another error: one arriving while a class
    is made (``__set_name__``, as an import runs a module's class statements) becomes a RuntimeError
    caused by the KeyboardInterrupt."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, KeyboardInterrupt):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def interrupted() -> NoReturn:
    """Ctrl-C outside a prompt: one line and status 130 (SIGTERM: 143), called where it was caught."""
    caught = interruption(sys.exc_info()[1])
    if isinstance(caught, Terminated) or isinstance(getattr(caught, "__context__", None), Terminated):
        print("\nTerminated.", file=sys.stderr)
        sys.exit(EXIT_SIGTERM)
    print("\nInterrupted.", file=sys.stderr)
    sys.exit(EXIT_SIGINT)
