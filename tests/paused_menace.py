"""``menace`` that stops at one stage of its start-up: ``python paused_menace.py STAGE ARGS...``.

At STAGE it says ``paused at STAGE`` on stderr and waits (at most a minute) for a signal: the tests
of Ctrl-C during start-up send it on that line instead of guessing a delay.
"""

import os
import sys
import time

import menace.interrupts
from menace.__main__ import main


def pause_at(wanted: str) -> None:
    def hook(stage: str) -> None:
        if stage == wanted:
            os.write(2, f"paused at {stage}\n".encode())
            time.sleep(60)

    menace.interrupts.stage_hook = hook


if __name__ == "__main__":
    pause_at(sys.argv[1])
    sys.argv = ["menace", *sys.argv[2:]]
    main()
