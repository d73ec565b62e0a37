"""The one base class for everything a user can cause, and its few kinds.

Every front end turns a :class:`MenaceError` into its own form in exactly one place: the
command line prints one line (the message, then the hint) and exits non-zero; the web answers
with a 4xx status and the message. Anything else that escapes is a bug.

Messages are written for any front end: they never name a command-line option. A front end
adds its own hint (the command line knows its flags; the web its buttons).

>>> err = NotFoundError("no machine named 'x'", hint="machines here: menace")
>>> str(err), err.hint, err.kind
("no machine named 'x'", 'machines here: menace', 'not found')
"""

from __future__ import annotations

from typing import TypeVar


class MenaceError(Exception):
    """Something a user can cause (bad input, a missing machine, a busy one, a damaged file)."""

    kind = "error"

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint
        """What to do about it, in words any front end can show; None when obvious."""

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class InvalidInputError(MenaceError, ValueError):
    """Input that makes no sense: a bad option value, an illegal move, an unknown name."""

    kind = "invalid"


class NotFoundError(MenaceError, LookupError):
    """Something asked for by name or number that is not there."""

    kind = "not found"


class ConflictError(MenaceError):
    """The request is fine but the state is not: the name is taken, the machine is busy."""

    kind = "conflict"


class DamagedError(MenaceError, ValueError):
    """Stored or imported data that cannot be right: damaged, truncated, forged."""

    kind = "damaged"


class UnavailableError(MenaceError):
    """A database or file that cannot be used as asked (missing, read-only, newer, busy)."""

    kind = "unavailable"


class InternalError(RuntimeError):
    """A broken invariant: a bug in menace, never the user's input (so not a :class:`MenaceError`)."""


T = TypeVar("T")


def known(value: T | None, what: str) -> T:
    """``value``, which the code before has made sure is there; :class:`InternalError` naming ``what`` if
    it is not (where an ``assert`` would vanish under ``python -O``).

    >>> known(3, "a count")
    3
    """
    if value is None:
        raise InternalError(f"{what} is missing")
    return value
