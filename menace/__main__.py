"""``python -m menace`` and the ``menace`` command's entry point.

The entry is here, not in :mod:`menace.cli`, so that Ctrl-C while the command line is still being
imported (click, the commands) ends with status 130 and one line, like Ctrl-C at any later moment;
SIGTERM the same with status 143, from the first line of menace that runs until the command begins
(from there each command handles it: a tournament stops after its game). (Before it, while Python
itself starts, a signal does what it does to any program: Ctrl-C in the first tens of milliseconds
can make Python report a "Fatal Python error" as it starts, and SIGTERM ends it by the signal.)
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import time
from types import FrameType
from typing import NoReturn

EXIT_SIGINT = 130
EXIT_SIGTERM = 143
PAUSE_VAR = "MENACE_PAUSE_AT"


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it unwinds as Ctrl-C does: every transaction
    rolled back, every temporary file removed, one line."""


def _on_sigterm(_signum: int, _frame: FrameType | None) -> None:
    raise Terminated


def command_begins() -> None:
    """From here the command handles signals its own way (a tournament stops after its game and says
    so): SIGTERM goes back to what it was before start-up caught it."""
    if signal.getsignal(signal.SIGTERM) is _on_sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def pause_point(stage: str) -> None:
    """With ``$MENACE_PAUSE_AT`` naming ``stage``: say ``paused at STAGE`` on stderr and wait there
    (at most a minute) for a signal. The tests of Ctrl-C during start-up reach each stage this
    way instead of guessing a delay; unset, it does nothing."""
    if os.environ.get(PAUSE_VAR) == stage:
        os.write(2, f"paused at {stage}\n".encode())
        time.sleep(60)


def interrupted() -> NoReturn:
    """Ctrl-C outside a prompt: one line and status 130 (SIGTERM: 143), called where it was caught."""
    caught = sys.exc_info()[1]
    if isinstance(caught, Terminated) or isinstance(getattr(caught, "__context__", None), Terminated):
        print("\nTerminated.", file=sys.stderr)
        sys.exit(EXIT_SIGTERM)
    print("\nInterrupted.", file=sys.stderr)
    sys.exit(EXIT_SIGINT)


def main() -> None:
    # Start-up makes tens of thousands of objects that live as long as the process (modules, classes,
    # functions) and little garbage, and the collector would walk them again and again while they are
    # made: it is off while the command line is imported, and what that made is then frozen (never
    # walked again). What a command imports after that is walked as before. At the end the process
    # freezes all it holds: the interpreter's own collections at exit would walk every object for
    # nothing (35 to 60 ms of `menace tournament -n 1`). Nothing may wait for them: menace closes what
    # it opens itself (engines disposed, files in with-blocks), as a SQLite file whose connection is
    # left to the collector keeps its -wal and -shm beside it.
    gc.disable()
    try:
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # not one a parent chose to ignore
            signal.signal(signal.SIGTERM, _on_sigterm)
        pause_point("start")
        from menace.cli import main as run

        pause_point("imported")
    except KeyboardInterrupt:
        interrupted()
    finally:
        gc.freeze()
        gc.enable()
    try:
        run()
    finally:
        gc.freeze()


if __name__ == "__main__":
    # Run as ``python -m menace``, this file is the module ``__main__``, and the command line imports it
    # again as ``menace.__main__``: run that one, so that there is one Terminated that both know.
    from menace.__main__ import main as entry

    entry()
