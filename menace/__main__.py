"""``python -m menace`` and the ``menace`` command's entry point.

The entry is here, not in :mod:`menace.cli`, so that Ctrl-C while the command line is still being
imported (click, the commands) ends with status 130 and one line, like Ctrl-C at any later moment.
"""

from __future__ import annotations

import gc
import os
import sys
import time
from typing import NoReturn

EXIT_SIGINT = 130
PAUSE_VAR = "MENACE_PAUSE_AT"


def pause_point(stage: str) -> None:
    """With ``$MENACE_PAUSE_AT`` naming ``stage``: say ``paused at STAGE`` on stderr and wait there
    (at most a minute) for a signal. The tests of Ctrl-C during start-up reach each stage this
    way instead of guessing a delay; unset, it does nothing."""
    if os.environ.get(PAUSE_VAR) == stage:
        os.write(2, f"paused at {stage}\n".encode())
        time.sleep(60)


def interrupted() -> NoReturn:
    """Ctrl-C outside a prompt: one line and status 130."""
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
    main()
