"""``python -m menace`` and the ``menace`` command's entry point.

The entry is here, not in :mod:`menace.cli`, so that Ctrl-C while the command line is still being
imported (click, the commands) ends with status 130 and one line, like Ctrl-C at any later moment.
"""

from __future__ import annotations

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
    try:
        pause_point("start")
        from menace.cli import main as run

        pause_point("imported")
    except KeyboardInterrupt:
        interrupted()
    run()


if __name__ == "__main__":
    main()
