"""Ctrl-C while the command line starts: one line and status 130, at every stage of start-up.

Standard library only, and imported by both :mod:`menace.__main__` (before the command line is
imported) and :mod:`menace.cli`, so that neither imports the other.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

EXIT_SIGINT = 130

stage_hook: Callable[[str], None] | None = None
"""Called with the name of each stage of start-up as it is reached ("start", "imported", "parsing",
"command"); None in a real run. The tests of Ctrl-C during start-up set it, in a process of their
own, to stop at one stage and wait there for the signal instead of guessing a delay."""


def reached(stage: str) -> None:
    """Start-up has got to ``stage``."""
    if stage_hook is not None:
        stage_hook(stage)


def interrupted() -> NoReturn:
    """Ctrl-C outside a prompt: one line and status 130."""
    print("\nInterrupted.", file=sys.stderr)
    sys.exit(EXIT_SIGINT)
