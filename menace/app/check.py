"""``menace check``: is a database exactly what its history says it should be?

The history is replayed from the machine's initial beads straight from the stored bytes, and every
checkpoint met on the way must equal the replayed beads. What a check has verified is remembered:
the running checksum of the history up to the last checkpoint (:func:`menace.core.records.chain_digest`)
is stored with that block, and the next check only re-reads the bytes before it (a checksum, no
replay), trusts that checkpoint if the checksum still comes out the same, and replays the games after
it. ``full`` replays everything. A summarized block (games kept only as a tally) is crossed by its
checkpoint: the beads after it are what the history says they are.


Before anything is replayed, the machine's rows are read as they are stored (:func:`raw_faults`):
missing tables, a damaged file, values menace never writes, tallies that do not match their games
(a summarized block's tally is trusted: its games are gone), leases that cannot be read.
"""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Connection, func, inspect, select, text
from sqlalchemy import exc as sa_exc

from menace.app.database import Database
from menace.app.machines import CHECKPOINT_GAMES
from menace.core import names
from menace.core.colours import ColourError, parse_colours
from menace.core.game import IllegalMoveError, canonical
from menace.core.learner import DRAWN, build_boxes
from menace.core.records import (
    CorruptHistoryError,
    chain_digest,
    pack_beads,
    results_in,
    unpack_beads,
    unpack_block,
    unpack_block_bounded,
)
from menace.core.replay import Replayer, ReplayError, compare, gc_paused
from menace.core.settings import SIDE_CHOICES, EmptyPolicy, Scope, SettingsError, parse_numbers
from menace.games import find_game, is_game_name
from menace.storage import history_repo as hrepo
from menace.storage import repository as repo
from menace.storage.database import (
    ARCHIVE_TABLE,
    DatabaseDamagedError,
    SchemaState,
    StorageError,
    describe,
    head_revision,
    schema_state,
    session_scope,
)
from menace.storage.models import block_table, metadata

CHANGED = "has changed since it was verified"


@dataclass
class CheckReport:
    database: str
    machines: list[str] = field(default_factory=list)
    games: int = 0
    """Games in the histories checked."""
    replayed: int = 0
    """Games replayed by this check (the rest trusted from a verified checkpoint or summarized)."""
    faults: list[str] = field(default_factory=list)
    rules: set[str] = field(default_factory=set)
    """The learning rules of the machines replayed (``michie``: beads, ``pegasus``: odds)."""

    @property
    def ok(self) -> bool:
        return not self.faults


@dataclass
class _Outcome:
    """What checking one machine found worth writing back: checkpoints and the verified checksum."""

    extras: list[tuple[int, int, bytes | None, str | None]] = field(default_factory=list)
    """``(block id, its n_games, checkpoint or None, digest or None)``."""
    changed: bool = False
    """The history verified by an earlier check no longer gives its checksum."""


def check_database(db: Database, machine: str | None = None, full: bool = False) -> CheckReport:
    """Check the schema, every box and bead, and the history against the stored beads: first the
    rows as they are stored (:func:`raw_faults`), then, for a machine whose rows are readable, the
    replay (from the last verified checkpoint, unless ``full``: every game, trusting nothing
    verified before)."""
    engine = db.unchecked()
    report = CheckReport(describe(engine))
    try:
        state, rev = schema_state(engine)
        if state is not SchemaState.CURRENT:
            report.faults.append(f"schema is {state.value} (revision {rev}, this menace expects {head_revision()})")
            return report
        with engine.connect() as conn:
            missing = sorted(set(metadata.tables) - set(inspect(conn).get_table_names()))
            if engine.dialect.name == "sqlite":
                for (line,) in conn.exec_driver_sql("PRAGMA quick_check(20)"):
                    if line != "ok":
                        report.faults.append(f"the file is damaged: {line}")
        for table in missing:
            report.faults.append(f"table {table} is missing")
        if missing:
            return report
        with session_scope(engine) as s:
            report.faults.extend(schema_faults(s))
        found: list[_Outcome] = []
        with session_scope(engine) as s:
            names = [machine] if machine else [str(n) for n in s.execute(text("SELECT name FROM machines"))
                                                .scalars()]
            report.faults.extend(_lock_faults(s))
            for name in names:
                report.machines.append(name)
                before = len(report.faults)
                # What an earlier check verified is trusted by its checksum (checked by the replay).
                report.faults.extend(raw_faults(s, name, trust_verified=not full))
                if len(report.faults) == before:  # readable: now replay it
                    outcome = _check_machine(s, name, report, full)
                    found.append(outcome)
                    if outcome.changed:  # the checksum no longer holds: every block's rows read again
                        more = [f for f in raw_faults(s, name) if f not in report.faults]
                        report.faults.extend(more)
                        if more:
                            outcome.extras = [(i, n, b, None) for i, n, b, _ in outcome.extras]
        extras = [e for f in found for e in f.extras]
        if extras:
            try:
                with session_scope(engine, write=True) as s:
                    hrepo.set_block_extras(s, extras)
            except StorageError:
                pass  # a read-only or busy database: checked all the same, remembered next time
    except (sa_exc.DBAPIError, DatabaseDamagedError) as exc:
        # Damage deep enough that reading stops: name it, as a fault, not a crash.
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        report.faults.append(f"the file is damaged: {reason}")
    except StorageError:
        raise
    return report


def _check_machine(s: Connection, name: str, report: CheckReport, full: bool) -> _Outcome:
    out = _Outcome()
    faults = report.faults
    try:
        stored = repo.load_machine(s, name, strict=False)
    except (IllegalMoveError, ValueError) as exc:
        faults.append(f"{name}: a box cannot be read: {exc}")
        return out
    game = find_game(stored.game)
    settings = stored.settings
    report.rules.add(settings.rule_name)
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
            faults.append(f"{where}: {game.encode(box.position)} is not a position where "
                          f"{game.side_names[box.side]} moves")
        if settings.symmetry and canonical(game, box.position)[0] != box.position:
            faults.append(f"{where}: position {game.encode(box.position)} is not in canonical form")
        for move, count in box.beads.items():
            if move not in game.legal_moves(box.position):
                move_name = game.move_name(move) if 0 <= move < game.move_count else str(move)
                faults.append(f"{where}: beads for {move_name}, which is not a legal move there")
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
                faults.append(f"{where}: stored for {game.side_names[box.side]}, but it is "
                              f"{game.side_names[exp.side]}'s box")
    fixes = repo.corrections(s, stored.id)
    trusted_at = None if full else s.scalar(
        select(func.max(block_table.c.first_game)).where(block_table.c.machine_id == stored.id,
                                                         block_table.c.digest.is_not(None)))
    with gc_paused():
        replayer = _replay(s, name, stored.id, Replayer(game, settings, expected, fixes), fixes, trusted_at, report,
                           out)
    if replayer is None and trusted_at is not None and faults[-1].endswith(CHANGED):
        # The history changed since a check verified it: replay it all to name what differs.
        out.extras.clear()
        out.changed = True
        replayer = _replay(s, name, stored.id, Replayer(game, settings, expected, fixes), fixes, None, report, out)
    if replayer is None:
        return out
    report.games += replayer.games
    for diff in compare(stored.boxes[: len(expected)], replayer.counts):
        what = "odds" if settings.pegasus is not None else "beads"
        faults.append(f"{name}: box {diff.box_number} {what} differ from its history "
                      f"({game.move_name(diff.bead)}: stored {diff.stored}, history gives {diff.replayed})")
    if settings.keeps_mean and replayer.learner.pegasus is not None and \
            replayer.learner.pegasus.mean.state != stored.mean:
        faults.append(f"{name}: the refined rule's mean outcome differs from its history (stored "
                      f"{stored.mean[0]!r}, history gives {replayer.learner.pegasus.mean.mu!r})")
    if any(f.startswith(f"{name}:") for f in faults):
        out.extras = [(i, n, b, None) for i, n, b, _ in out.extras]  # nothing verified when anything is wrong
    return out


def _corrections_text(fixes: list[repo.Correction], lo: int, hi: int) -> str:
    """The corrections taking effect from after game ``lo`` to before game ``hi + 1``, as text."""
    return "".join(f";{c.after_game},{c.box_number},{c.move},{c.count}" for c in fixes if lo <= c.after_game < hi)


def _replay(s: Connection, name: str, machine_id: int, r: Replayer, fixes: list[repo.Correction],
            trusted_at: int | None, report: CheckReport, out: _Outcome) -> Replayer | None:
    """Replay the machine's history on ``r`` (trusting the checkpoint verified at the block starting at
    game ``trusted_at``, if its checksum still holds); None when the history cannot be replayed."""
    faults = report.faults
    layout = r.layout()
    width = r.learner.game.move_count
    digest = ""
    last_checkpoint = 0
    verified: list[tuple[int, int, bytes | None, str | None]] = []  # checkpointed blocks' new checksums
    try:
        with closing(hrepo.stream_blocks(s, machine_id)) as blocks:
            for b in blocks:
                trusting = trusted_at is not None and b.first_game <= trusted_at
                if b.first_game != r.games + 1:
                    faults.append(f"{name}: games {r.games + 1:,} to {b.first_game - 1:,} are missing from the "
                                  f"history")
                    return None
                beads = b.beads
                if trusting:
                    r.games = b.last_game  # only the checksum is followed up to the verified checkpoint
                elif not b.kept:
                    if beads is None:
                        faults.append(f"{name}: games {b.first_game:,} to {b.last_game:,} are summarized "
                                      f"without the beads after them")
                        return None
                    counts = unpack_beads(beads, layout, width)
                    if any(c < 0 for row in counts for c in row):
                        faults.append(f"{name}: the checkpoint after game {b.last_game:,} holds negative beads")
                    r.resume(b.last_game, counts)
                else:
                    raw = unpack_block(b.data)
                    end = r.apply_packed(raw, 0, b.n_games, settle_end=False, learn=not b.frozen)
                    if r.games != b.last_game or end != len(raw):
                        faults.append(f"{name}: the block of games {b.first_game:,} to {b.last_game:,} holds "
                                      f"{'fewer' if r.games != b.last_game else 'more'} games than it says")
                        return None
                    report.replayed += b.n_games
                    if beads is not None:
                        if unpack_beads(beads, layout, width) != r.counts:
                            faults.append(f"{name}: the checkpoint after game {b.last_game:,} differs from the "
                                          f"beads its history gives")
                    elif b.last_game - last_checkpoint >= CHECKPOINT_GAMES and not r.settings.keeps_mean:
                        beads = pack_beads(r.counts, layout)  # an older database: checkpoints from now on
                        out.extras.append((b.id, b.n_games, beads, None))
                    r.settle()
                # A run played frozen is part of what is verified (marked only then: older checksums hold).
                digest = chain_digest(digest + _corrections_text(fixes, b.first_game - 1, b.last_game)
                                      + (";frozen" if b.frozen else ""),
                                      b.first_game, b.n_games, b.tally, b.data, beads)
                if beads is not None:
                    last_checkpoint = b.last_game
                    if b.digest != digest:
                        verified.append((b.id, b.n_games, None, digest))
                if trusted_at is not None and b.first_game == trusted_at:
                    if b.digest != digest or beads is None:
                        faults.append(f"{name}: the history up to game {b.last_game:,} {CHANGED}")
                        return None
                    r.resume(b.last_game, unpack_beads(beads, layout, width))
                    trusted_at = None
    except CorruptHistoryError as exc:
        faults.append(f"{name}: stored games are damaged: {exc}")
        return None
    except ReplayError as exc:
        faults.append(f"{name}: a stored game cannot be replayed: {exc}")
        return None
    out.extras.extend(verified)
    return r


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


PARENT_NOUNS = {"machines": "machine", "boxes": "box", "runs": "run"}


def schema_faults(s: Connection) -> list[str]:
    """Faults in the rows that belong to no one machine: the schema's version table, rows whose
    parent row is gone (written with foreign keys off, by hand or by another program), and a table
    of rows kept aside by a downgrade that no upgrade took back."""
    out = []
    versions = s.scalar(text("SELECT count(*) FROM alembic_version"))
    if versions != 1:
        out.append(f"table alembic_version holds {versions} rows; menace writes exactly one (the schema's revision)")
    for table in metadata.sorted_tables:
        for fk in table.foreign_key_constraints:
            (element,) = fk.elements
            parent = element.column.table.name
            child = element.parent.name
            orphans = s.scalar(text(
                f"SELECT count(*) FROM {table.name} WHERE {child} IS NOT NULL AND {child} NOT IN "
                f"(SELECT {element.column.name} FROM {parent})"))
            if orphans:
                noun = PARENT_NOUNS.get(parent, parent)
                out.append(f"table {table.name} has {orphans:,} row(s) for a {noun} that does not exist "
                           f"({child} points at nothing)")
    if inspect(s).has_table(ARCHIVE_TABLE):
        out.append(f"table {ARCHIVE_TABLE} is left over: rows kept aside by a downgrade that no upgrade took back "
                   f"(an upgrade to this schema drops it)")
    return out


def _lock_faults(s: Connection) -> list[str]:
    out = []
    for machine_id, acquired, beat, pid in s.execute(
            text("SELECT machine_id, acquired_at, heartbeat_at, pid FROM machine_locks")):
        if not (_time_ok(acquired) and _time_ok(beat)) or not isinstance(pid, int):
            out.append(f"the lease on machine #{machine_id} is unreadable (remove it with: menace unlock)")
    return out


def raw_faults(s: Connection, name: str, trust_verified: bool = False) -> list[str]:
    """Faults found by reading the machine's rows as they are stored, before anything trusts
    them: values menace never writes, rows pointing at nothing, figures that do not add up.

    With ``trust_verified``, the games of the blocks an earlier check verified (up to its last
    verified checkpoint) are neither read nor counted again: the replay then checks that their
    checksum still holds, and reads them all again if it does not."""
    row = s.execute(text("SELECT id, game, side, schedule, empty_policy, scope, reward_win, reward_draw, "
                         "reward_loss, created_at, colours FROM machines WHERE name = :n"), {"n": name}).first()
    if row is None:
        return [f"no machine named {name!r}"]
    mid, game_name, side, schedule, policy, scope, *rewards, created, colours = row
    out: list[str] = []
    where = f"{name}:"
    if not names.is_machine_name(name):
        out.append(f"{where} {names.safe_text(repr(name))} is not a machine name (1 to 64 letters, digits, '-', '_' "
                   f"or '.', starting with a letter or digit)")
    if colours is not None:
        try:
            parse_colours(str(colours))
        except ColourError as exc:
            out.append(f"{where} its bead colours {names.safe_text(repr(colours))[:80]} are not ones menace writes "
                       f"({exc})")
    moves = 256
    if not is_game_name(str(game_name)):
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
    trusted = -1
    if trust_verified:
        found = s.execute(text("SELECT max(first_game) FROM game_blocks WHERE machine_id = :m AND digest IS NOT NULL"),
                          {"m": mid}).scalar()
        trusted = found if isinstance(found, int) else -1
    for first, n, wins, draws, losses, run_id, data, no_data, size, beads, kept in s.execute(text(
            "SELECT first_game, n_games, wins, draws, losses, run_id, "
            "CASE WHEN first_game > :t THEN data ELSE NULL END, data IS NULL, coalesce(length(data), 0), beads, kept "
            "FROM game_blocks WHERE machine_id = :m ORDER BY first_game"), {"m": mid, "t": trusted}):
        at = f"{where} the block from game {first!r}"
        if run_id not in runs:
            out.append(f"{at} belongs to run {run_id!r}, which does not exist")
        verified = isinstance(first, int) and first <= trusted and not no_data
        if not all(isinstance(v, int) for v in (first, n, wins, draws, losses)) \
                or not (verified or isinstance(data, bytes)) \
                or not (beads is None or isinstance(beads, bytes)) or kept not in (True, False):
            out.append(f"{at} holds values menace never writes")
            continue
        if first != expected_first:
            out.append(f"{at} does not follow the game before it (expected game {expected_first:,})")
        expected_first = first + n
        if verified:
            # Its games are trusted by the checksum, which does not cover the flag: a summary holds no
            # games, a block that keeps them holds some.
            if not kept and size:
                out.append(f"{at} is a summary with games (its games would be exported as a summary)")
            elif kept and n and not size:
                out.append(f"{at} says it keeps {n:,} games, but holds none")
            continue
        if not kept:
            # A summary: its games are gone, so its tally is all there is (trusted, as long as it adds
            # up); the beads after it carry the history on.
            if data or beads is None:
                out.append(f"{at} is a summary {'with games' if data else 'without the beads after it'}")
            elif (wins + draws + losses) != n or min(wins, draws, losses) < 0:
                out.append(f"{at} is a summary of {n:,} games, but says {wins}/{draws}/{losses} won/drawn/lost "
                           f"(forged or damaged tallies)")
            continue
        tally = [0, 0, 0]
        try:
            for i, (side, winner) in enumerate(results_in(unpack_block_bounded(data, n))):
                if side not in (1, 2) or not winner:
                    raise CorruptHistoryError(f"bad game record (game {first + i:,})")
                tally[0 if winner == side else 1 if winner == DRAWN else 2] += 1
        except CorruptHistoryError as exc:
            out.append(f"{at} says it holds {n:,} games, but: {exc}")
            continue
        if [wins, draws, losses] != tally:
            out.append(f"{at} says {wins}/{draws}/{losses} won/drawn/lost, but its games give "
                       f"{tally[0]}/{tally[1]}/{tally[2]} (forged or damaged tallies)")
    for count, after, box_machine in s.execute(text(
            "SELECT c.count, c.after_game, b.machine_id FROM corrections c LEFT JOIN boxes b ON b.id = c.box_id "
            "WHERE c.machine_id = :m"), {"m": mid}):
        if not isinstance(count, int) or count < 0 or not isinstance(after, int):
            out.append(f"{where} a correction sets {count!r} beads after game {after!r}: not a count")
        elif box_machine is not None and box_machine != mid:
            out.append(f"{where} the correction after game {after:,} is for another machine's box")
    return out
