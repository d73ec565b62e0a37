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
import sys

TYPE_CHECKING = False  # typing itself is not imported while a Ctrl-C could land unhandled

if TYPE_CHECKING:
    from typing import NoReturn


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
    try:  # the signal handling itself is imported here, so that a Ctrl-C during it is caught too
        from menace.interrupts import catch_sigterm, interrupted, interruption, reached
    except BaseException as error:
        _interrupted_early(error)
    try:
        catch_sigterm()
        reached("start")
        import menace.cli
        from menace.cli import main as run

        menace.cli.freeze_command_imports = True
        reached("imported")
    except KeyboardInterrupt:
        interrupted()
    except Exception as error:  # Ctrl-C wrapped by Python on its way out of an import
        if interruption(error) is None:
            raise
        interrupted()
    finally:
        gc.freeze()
        gc.enable()
    try:
        run()
    finally:
        gc.freeze()


def _interrupted_early(error: BaseException) -> NoReturn:
    """A Ctrl-C (or an error it caused) while :mod:`menace.interrupts` is imported: one line, 130."""
    cause: BaseException | None = error
    while cause is not None and not isinstance(cause, KeyboardInterrupt):
        cause = cause.__cause__ or cause.__context__
    if cause is None:
        raise error
    print("\nInterrupted.", file=sys.stderr)
    sys.exit(130)


if __name__ == "__main__":
    main()
