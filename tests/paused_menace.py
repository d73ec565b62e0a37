"""``menace`` that stops at one stage of its start-up: ``python paused_menace.py STAGE ARGS...``.

At STAGE it says ``paused at STAGE`` on stderr and waits (at most a minute) for a signal: the tests
of Ctrl-C during start-up send it on that line instead of guessing a delay.
"""

import os
import sys
import time

import menace.interrupts
from menace.__main__ import main


def _pause(stage: str) -> None:
    os.write(2, f"paused at {stage}\n".encode())
    time.sleep(60)


class _PausingDescriptor:
    """Pauses while a class is being made: a signal there reaches Python as a RuntimeError ("Error
    calling __set_name__") caused by it, as Ctrl-C landing in a module's class statement does."""

    def __init__(self, stage: str) -> None:
        self.stage = stage

    def __set_name__(self, owner: type, name: str) -> None:
        _pause(self.stage)


def pause_at(wanted: str) -> None:
    """STAGE is a stage of ``menace.interrupts.reached``; ``STAGE/class`` pauses at it inside the
    making of a class."""
    stage, _, inside = wanted.partition("/")

    def hook(reached: str) -> None:
        if reached == stage and inside == "class":
            type("Imported", (), {"attribute": _PausingDescriptor(wanted)})
        elif reached == stage:
            _pause(wanted)

    menace.interrupts.stage_hook = hook


if __name__ == "__main__":
    pause_at(sys.argv[1])
    sys.argv = ["menace", *sys.argv[2:]]
    main()
