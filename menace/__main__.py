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

from menace.interrupts import catch_sigterm, interrupted, reached


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
        catch_sigterm()
        reached("start")
        from menace.cli import main as run

        reached("imported")
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
