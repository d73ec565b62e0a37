"""How menace writes a number for people, in one place: every count with thousands separators
(``3,534,417``), in a sentence, a change, a ledger or on a label.

>>> count(3534417), plural(1, "game"), plural(2_133, "bead"), change(3534417, 3534420), times(2133, "W")
('3,534,417', '1 game', '2,133 beads', '3,534,417 -> 3,534,420', '2,133×W')
"""

from __future__ import annotations


def count(n: int) -> str:
    """A whole number with thousands separators."""
    return f"{n:,}"


def plural(n: int, word: str, words: str | None = None) -> str:
    """``1 game``, ``2 games``, ``1,000 games``."""
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def change(before: int | None, after: int) -> str:
    """A count before and after: ``3,534,417 -> 3,534,420`` (``?`` for a count not known)."""
    return f"{'?' if before is None else f'{before:,}'} -> {after:,}"


def times(n: int, what: str) -> str:
    """``2,133×W``: so many of a bead."""
    return f"{n:,}×{what}"
