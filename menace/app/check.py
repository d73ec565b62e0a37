"""``menace check``: is a database exactly what its history says it should be?"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import exc as sa_exc
from sqlalchemy import inspect, text
from sqlalchemy.orm import Session

from menace.core.game import IllegalMoveError, Result, canonical
from menace.core.learner import SIDE_CHOICES, EmptyPolicy, Scope, SettingsError, build_boxes, parse_numbers
from menace.core.records import CorruptHistoryError, iter_block
from menace.core.replay import Replayer, ReplayError, compare
from menace.games import find_game, game_names
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.database import (
    DatabaseDamagedError,
    SchemaState,
    StorageError,
    check_location,
    describe,
    head_revision,
    make_engine,
    schema_state,
    session_scope,
)
from menace.storage.models import Base


@dataclass
class CheckReport:
    database: str
    machines: list[str] = field(default_factory=list)
    games: int = 0
    faults: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults


def check_database(url: str, machine: str | None = None) -> CheckReport:
    """Check the schema, every box and bead, and replay every game against the stored beads."""
    check_location(url, create=False)
    db = make_engine(url)
    report = CheckReport(describe(db))
    try:
        state, rev = schema_state(db)
        if state is not SchemaState.CURRENT:
            report.faults.append(f"schema is {state.value} (revision {rev}, this menace expects {head_revision()})")
            return report
        with db.connect() as conn:
            missing = sorted(set(Base.metadata.tables) - set(inspect(conn).get_table_names()))
            if db.dialect.name == "sqlite":
                for (line,) in conn.exec_driver_sql("PRAGMA quick_check(20)"):
                    if line != "ok":
                        report.faults.append(f"the file is damaged: {line}")
        for table in missing:
            report.faults.append(f"table {table} is missing")
        if missing:
            return report
        with session_scope(db) as s:
            names = [machine] if machine else [str(n) for n in s.execute(text("SELECT name FROM machines"))
                                                .scalars()]
            report.faults.extend(_lock_faults(s))
            for name in names:
                report.machines.append(name)
                before = len(report.faults)
                report.faults.extend(raw_faults(s, name))
                if len(report.faults) == before:  # readable: now replay it
                    _check_machine(s, name, report)
    except (sa_exc.DBAPIError, DatabaseDamagedError) as exc:
        # Damage deep enough that reading stops: name it, as a fault, not a crash.
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        report.faults.append(f"the file is damaged: {reason}")
    except StorageError:
        raise
    finally:
        db.dispose()
    return report


def _check_machine(s: object, name: str, report: CheckReport) -> None:
    from sqlalchemy.orm import Session

    assert isinstance(s, Session)
    faults = report.faults
    try:
        stored = repo.load_machine(s, name)
    except (IllegalMoveError, ValueError) as exc:
        faults.append(f"{name}: a box cannot be read: {exc}")
        return
    game = find_game(stored.game)
    settings = stored.settings
    expected = build_boxes(game, settings)
    if len(expected) != len(stored.boxes):
        faults.append(f"{name}: {len(stored.boxes)} boxes, but its settings give {len(expected)}")
    seen: set[tuple[int, ...]] = set()
    for i, box in enumerate(stored.boxes):
        where = f"{name}: box {box.number}"
        if box.number != i + 1:
            faults.append(f"{where}: numbered out of order (expected {i + 1})")
        if box.position in seen:
            faults.append(f"{where}: position {game.encode(box.position)} appears twice")
        seen.add(box.position)
        if game.outcome(box.position) is not None or game.to_move(box.position) is not box.side:
            faults.append(f"{where}: {game.encode(box.position)} is not a position where {box.side.name} moves")
        if settings.symmetry and canonical(game, box.position)[0] != box.position:
            faults.append(f"{where}: position {game.encode(box.position)} is not in canonical form")
        for move, count in box.beads.items():
            if move not in game.legal_moves(box.position):
                what = game.move_name(move) if 0 <= move < game.move_count else str(move)
                faults.append(f"{where}: beads for {what}, which is not a legal move there")
            if count < 0:
                faults.append(f"{where}: {count} beads for {game.move_name(move)} (negative)")
        if i < len(expected):
            exp = expected[i]
            if exp.position != box.position or exp.initial != box.initial:
                faults.append(f"{where}: position or initial beads differ from what the settings build")
            if exp.move_number != box.move_number:
                faults.append(f"{where}: stored as MENACE's move {box.move_number}, but it is move "
                              f"{exp.move_number}")
            if exp.side is not box.side:
                faults.append(f"{where}: stored for side {box.side.name}, but it is {exp.side.name}'s box")
    # Replay: initial beads + every stored game + every correction, in order, must give the beads.
    replayer = Replayer(game, settings, expected, repo.corrections(s, stored.id))
    try:
        for g in hrepo.stream_games(s, stored.id):
            if g.number != replayer.games + 1:
                faults.append(f"{name}: games {replayer.games + 1} to {g.number - 1} are missing from the history")
                return
            try:
                replayer.apply(g.record)
            except ReplayError as exc:
                faults.append(f"{name}: a stored game cannot be replayed: {exc}")
                return
    except CorruptHistoryError as exc:
        faults.append(f"{name}: stored games are damaged: {exc}")
        return
    report.games += replayer.games
    for diff in compare(stored.boxes[: len(expected)], replayer.counts):
        faults.append(f"{name}: box {diff.box_number} beads differ from its history "
                      f"({game.move_name(diff.bead)}: stored {diff.stored}, history gives {diff.replayed})")


MAX_COUNT = 10**15
"""No history a person could run gives a box this many beads of a colour (the 64-bit limit is far)."""


def _time_ok(value: object) -> bool:
    if value is None:
        return True
    try:
        datetime.fromisoformat(str(value))
    except ValueError:
        return False
    return True


def _lock_faults(s: Session) -> list[str]:
    out = []
    for machine_id, acquired, beat, pid in s.execute(
            text("SELECT machine_id, acquired_at, heartbeat_at, pid FROM machine_locks")):
        if not (_time_ok(acquired) and _time_ok(beat)) or not isinstance(pid, int):
            out.append(f"the lease on machine #{machine_id} is unreadable (remove it with: menace unlock)")
    return out


def raw_faults(s: Session, name: str) -> list[str]:
    """Faults found by reading the machine's rows as they are stored, before anything trusts
    them: values menace never writes, rows pointing at nothing, figures that do not add up."""
    row = s.execute(text("SELECT id, game, side, schedule, empty_policy, scope, reward_win, reward_draw, "
                         "reward_loss, created_at FROM machines WHERE name = :n"), {"n": name}).first()
    if row is None:
        return [f"no machine named {name!r}"]
    mid, game_name, side, schedule, policy, scope, *rewards, created = row
    out: list[str] = []
    where = f"{name}:"
    moves = 256
    if game_name not in game_names():
        out.append(f"{where} game {game_name!r} is not one menace knows")
    else:
        moves = find_game(str(game_name)).move_count
    if side not in SIDE_CHOICES:
        out.append(f"{where} side {side!r} is not X, O or both")
    try:
        if any(v < 1 for v in parse_numbers(str(schedule))):
            raise SettingsError("a schedule below 1")
    except SettingsError:
        out.append(f"{where} initial beads {schedule!r} are not a list of whole numbers of at least 1")
    if policy not in {p.value for p in EmptyPolicy}:
        out.append(f"{where} empty-box policy {policy!r} is not one menace knows")
    if scope not in {x.value for x in Scope}:
        out.append(f"{where} reinforcement scope {scope!r} is not one menace knows")
    if any(not isinstance(r, int) for r in rewards):
        out.append(f"{where} reinforcement {rewards!r} is not whole numbers")
    if not _time_ok(created):
        out.append(f"{where} its date of creation {created!r} is not a date")
    for number, bside, move_number, position in s.execute(text(
            "SELECT number, side, move_number, position FROM boxes WHERE machine_id = :m ORDER BY number"),
            {"m": mid}):
        if bside not in ("X", "O") or not isinstance(move_number, int) or not isinstance(number, int) \
                or not isinstance(position, str):
            out.append(f"{where} box {number!r} has side {bside!r}, move {move_number!r}: not values menace writes")
    for number, move, count, initial in s.execute(text(
            "SELECT b.number, d.move, d.count, d.initial FROM beads d JOIN boxes b ON b.id = d.box_id "
            "WHERE b.machine_id = :m"), {"m": mid}):
        if not isinstance(count, int) or not isinstance(initial, int) or not isinstance(move, int):
            out.append(f"{where} box {number} has a bead count {count!r} (initial {initial!r}): not a whole number")
        elif not 0 <= move < moves:
            out.append(f"{where} box {number} has beads for move {move}, which {game_name} has not")
        elif count > MAX_COUNT:  # (a negative count is named by the replay, which it does not stop)
            out.append(f"{where} box {number} has {count:,} beads of one colour (more than {MAX_COUNT:,})")
    runs = {r for (r,) in s.execute(text("SELECT id FROM runs WHERE machine_id = :m"), {"m": mid})}
    for run_id, started, ended in s.execute(text("SELECT id, started_at, ended_at FROM runs WHERE machine_id = :m"),
                                            {"m": mid}):
        if not (_time_ok(started) and _time_ok(ended)):
            out.append(f"{where} run {run_id} has a date that is not one ({started!r}, {ended!r})")
    expected_first = 1
    for first, n, wins, draws, losses, run_id, data in s.execute(text(
            "SELECT first_game, n_games, wins, draws, losses, run_id, data FROM game_blocks "
            "WHERE machine_id = :m ORDER BY first_game"), {"m": mid}):
        at = f"{where} the block from game {first!r}"
        if run_id not in runs:
            out.append(f"{at} belongs to run {run_id!r}, which does not exist")
        if not all(isinstance(v, int) for v in (first, n, wins, draws, losses)) or not isinstance(data, bytes):
            out.append(f"{at} holds values menace never writes")
            continue
        if first != expected_first:
            out.append(f"{at} does not follow the game before it (expected game {expected_first:,})")
        expected_first = first + n
        tally = {r: 0 for r in Result}
        try:
            for record in iter_block(data, n):
                tally[record.result] += 1
        except CorruptHistoryError as exc:
            out.append(f"{at} says it holds {n:,} games, but: {exc}")
            continue
        if (wins, draws, losses) != (tally[Result.WIN], tally[Result.DRAW], tally[Result.LOSS]):
            out.append(f"{at} says {wins}/{draws}/{losses} won/drawn/lost, but its games give "
                       f"{tally[Result.WIN]}/{tally[Result.DRAW]}/{tally[Result.LOSS]} (forged or damaged tallies)")
    for count, after in s.execute(text(
            "SELECT count, after_game FROM corrections WHERE machine_id = :m"), {"m": mid}):
        if not isinstance(count, int) or count < 0 or not isinstance(after, int):
            out.append(f"{where} a correction sets {count!r} beads after game {after!r}: not a count")
    return out
