r"""The rule for a machine's name, wherever a name enters: ``-m``, an imported file, ``--as``,
a sweep's stored machines, a database row.

>>> check_machine_name("menace-2")
'menace-2'
>>> is_machine_name("../etc/passwd"), is_machine_name("a" * 65), is_machine_name("ok\n")
(False, False, False)
"""

from __future__ import annotations

import re

from menace.core.errors import InvalidInputError

DEFAULT_MACHINE = "menace"
"""The machine a command or page works on unless told another."""

MACHINE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
"""A machine's name: ASCII letters and digits, ``-``, ``_`` and ``.``, 1 to 64 of them. Written so
that a browser takes the same pattern as it stands (an HTML form's ``pattern``, a script's
``RegExp``): the web pages are handed it, never a copy."""


class MachineNameError(InvalidInputError):
    """A name that breaks the rule for machine names."""


def is_machine_name(value: object) -> bool:
    return isinstance(value, str) and MACHINE_NAME.fullmatch(value) is not None


def check_machine_name(value: object) -> str:
    """``value`` if it is a valid machine name, else :class:`MachineNameError`."""
    if not is_machine_name(value):
        assert_text = value if isinstance(value, str) else repr(value)
        shown = safe_text(assert_text[:80] + ("..." if len(assert_text) > 80 else ""))
        raise MachineNameError(f"{shown!r}: a machine's name is 1 to 64 letters, digits, '-', '_' or '.', "
                               f"starting with a letter or digit")
    return str(value)


def safe_text(text: str) -> str:
    """``text`` with control characters (ANSI escapes, NUL, ...) shown as escapes, never obeyed."""
    return "".join(ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)
