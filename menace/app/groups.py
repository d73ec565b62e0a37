"""A class in groups: one machine per group, built in one step (``group-1`` ... ``group-N``, one game
and preset), and the scoreboard that shows every group's learning side by side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from menace.app import history
from menace.app.database import Database
from menace.app.machines import MachineSummary, list_machines, settings_for, summarize
from menace.app.series import LearningData
from menace.core.errors import ConflictError, InvalidInputError
from menace.games import DEFAULT_GAME
from menace.storage import repository as repo
from menace.storage.leases import acquire as acquire_lease

MAX_GROUPS = 40
"""The most groups built at once (a class, not a school)."""
PREFIX = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,40}$")


def group_names(count: int, prefix: str = "group") -> list[str]:
    """``["group-1", ..., "group-N"]``."""
    if not 1 <= count <= MAX_GROUPS:
        raise InvalidInputError(f"a class has 1 to {MAX_GROUPS} groups, not {count}")
    if not PREFIX.match(prefix):
        raise InvalidInputError(f"{prefix[:40]!r} cannot start a machine's name: "
                                "a letter, then letters, digits, '_' or '.'")
    return [f"{prefix}-{i}" for i in range(1, count + 1)]


def build_groups(db: Database, count: int, game: str = DEFAULT_GAME, preset: str | None = None,
                 prefix: str = "group",
                 replace: bool = False) -> list[MachineSummary]:
    """Build ``count`` machines, one per group, all of one game and preset, in one transaction: all
    of them or, if one cannot be built, none. Machines of those names are refused unless ``replace``."""
    names = group_names(count, prefix)
    chosen, settings, label = settings_for(game, preset)
    db.creating()
    with db.writing() as s:
        there = sorted(set(repo.machine_names(s)) & set(names), key=names.index)
        if there and not replace:
            raise ConflictError(f"{', '.join(there)} {'is' if len(there) == 1 else 'are'} there already",
                                hint="replace them, or choose another prefix")
        built = []
        for name in names:
            if name in there:
                acquire_lease(s, repo.machine_id(s, name), name, "a rebuild of the class's machines")
            stored = repo.create_machine(s, name, chosen, settings, label, replace, None)
            built.append(summarize(stored, stored.boxes))
    return built


@dataclass(frozen=True)
class GroupScore:
    """One group on the scoreboard: its machine and its learning curve."""

    summary: MachineSummary
    learning: LearningData


def _number(name: str) -> int:
    tail = name.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def scoreboard(db: Database, prefix: str = "group", points: int = 150) -> list[GroupScore]:
    """Every machine named ``PREFIX-N``, in the order of N, with its learning curve sampled to ``points``."""
    found = [m for m in list_machines(db) if m.name.startswith(prefix + "-") and m.name[len(prefix) + 1:].isdigit()]
    found.sort(key=lambda m: _number(m.name))
    return [GroupScore(m, history.learning_series(db, m.name, points=points, allow_empty=True)) for m in found]
