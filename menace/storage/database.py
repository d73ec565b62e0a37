"""Opening databases, SQLite settings, and the schema's migrations.

Every command opens its database through :func:`open_database`, which refuses (with a one-line
:class:`StorageError`) anything it should not touch: a file that is not a database, a schema
from a newer version of menace, or one that is behind and needs ``menace upgrade``.
"""

from __future__ import annotations

import enum
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, make_url

from menace.core.errors import DamagedError, MenaceError, UnavailableError

if TYPE_CHECKING:
    from alembic.config import Config

SCHEMA_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006")
"""Every migration in ``migrations/versions``, oldest first; the last is the head.

Kept here so that opening a database needs no Alembic import (a test checks it against the
scripts). Add a migration, add its revision here.
"""

BASE_REVISION = "base"
"""Alembic's name for the revision before the first: no table of menace's left."""
ARCHIVE_TABLE = "menace_archive"
"""Where a downgrade keeps rows to put back (``menace.storage.archive``; named here so that opening
a database needs no Alembic import)."""

DEFAULT_DB = "menace.db"
ENV_VAR = "MENACE_DB"
BUSY_TIMEOUT_MS = 10_000


class StorageError(UnavailableError):
    """A database that cannot be used as asked; the message is one line for the user."""


class DatabaseBusyError(StorageError):
    """Another process holds the database's write lock for longer than the busy timeout."""


class DatabaseDamagedError(DamagedError):
    """The database's content is not what menace wrote (a damaged file, a dropped table, a bad value)."""


class SchemaState(enum.Enum):
    EMPTY = "empty"
    CURRENT = "current"
    BEHIND = "behind"
    AHEAD = "ahead"
    FOREIGN = "foreign"


def resolve_url(db: str | None) -> str:
    """A database URL from ``--db`` (a path or a URL), else ``$MENACE_DB``, else ``menace.db``."""
    target = db or os.environ.get(ENV_VAR) or DEFAULT_DB
    url = target if "://" in target else f"sqlite:///{target}"
    if "://" not in target and "?" in target:
        # A path with SQLite URI parameters (x.db?mode=ro): honour them as SQLite does.
        path, _, query = target.partition("?")
        url = f"sqlite:///file:{path}?{query}&uri=true"
    try:
        make_url(url)
    except (sa_exc.ArgumentError, ValueError) as exc:
        raise StorageError(f"{target!r} is not a database URL or path ({exc})") from None
    return url


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL (None for other databases and in-memory SQLite)."""
    u = make_url(url)
    if u.get_backend_name() != "sqlite" or not u.database or u.database == ":memory:":
        return None
    if u.database.startswith("file:"):  # a SQLite URI filename, e.g. file:menace.db?mode=ro&uri=true
        return Path(u.database[len("file:"):])
    return Path(u.database)


def _set_sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Let SQLAlchemy emit BEGIN itself (see the "begin" hook) so that DDL in a migration is
    # transactional on Python 3.11, and a failed migration leaves nothing half-done.
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cur.execute("PRAGMA foreign_keys = ON")
    with suppress(sqlite3.OperationalError):  # a read-only file keeps its mode; reading still works
        cur.execute("PRAGMA journal_mode = WAL")
    cur.execute("PRAGMA synchronous = NORMAL")
    cur.close()


def _begin(conn: Connection) -> None:
    mode = conn.get_execution_options().get("sqlite_begin", "")
    conn.exec_driver_sql(f"BEGIN {mode}".strip())


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, foreign keys and a busy timeout."""
    try:
        engine = create_engine(url)
    except sa_exc.NoSuchModuleError:  # a subclass of ArgumentError: first
        raise StorageError(f"no database of the kind {make_url(url).get_backend_name()!r} is known") from None
    except sa_exc.ArgumentError as exc:
        raise StorageError(f"{url!r} is not a database URL or path ({exc})") from None
    except ModuleNotFoundError as exc:
        backend = make_url(url).get_backend_name()
        hint = "pip install 'menace[postgres]'" if backend.startswith("postgres") else \
            f"install the Python driver for {backend} ({exc.name})"
        raise StorageError(f"the driver for {backend!r} is not installed ({exc.name}); {hint}") from None
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _set_sqlite_pragmas)
        event.listen(engine, "begin", _begin)
    return engine


def writer(engine: Engine) -> Engine:
    """The same engine, taking the write lock when a transaction begins (SQLite).

    Taking it at BEGIN, not at the first write, means two writers queue up instead of one
    failing half-way with "database is locked".
    """
    if engine.dialect.name == "sqlite":
        return engine.execution_options(sqlite_begin="IMMEDIATE")
    return engine


def migrations_dir() -> Path:
    """Where the Alembic scripts are: inside the installed package, or ``migrations/`` here."""
    try:
        found = Path(str(resources.files("menace.migrations")))
        if (found / "env.py").exists():
            return found
    except ModuleNotFoundError:
        pass
    return Path(__file__).resolve().parents[2] / "migrations"


def alembic_config(connection: Connection | None = None) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str:
    return SCHEMA_REVISIONS[-1]


def schema_state(engine: Engine) -> tuple[SchemaState, str | None]:
    """How the database's schema compares with this version of menace, and its revision."""
    try:
        with engine.connect() as conn:
            tables = set(inspect(conn).get_table_names())
            current = None
            if "alembic_version" in tables:
                current = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except sa_exc.DatabaseError as exc:
        reason = _reason(exc)
        if "not a database" in reason or "malformed" in reason:
            raise DatabaseDamagedError(f"{describe(engine)} is damaged or not a database at all ({reason})") from None
        raise StorageError(f"{describe(engine)} cannot be read ({reason})") from None
    except (UnicodeDecodeError, sqlite3.DatabaseError, ValueError) as exc:  # a header overwritten with garbage
        raise DatabaseDamagedError(f"{describe(engine)} is damaged or not a database at all ({exc})") from None
    if current is None:
        # Alembic's own table with no revision is a menace database downgraded to the base: empty,
        # or (when the downgrade kept rows aside to put back) behind, at the base.
        if tables <= {"alembic_version"}:
            return SchemaState.EMPTY, None
        if tables == {"alembic_version", ARCHIVE_TABLE}:
            return SchemaState.BEHIND, BASE_REVISION
        return SchemaState.FOREIGN, None
    if current == head_revision():
        return SchemaState.CURRENT, current
    if current in SCHEMA_REVISIONS:
        return SchemaState.BEHIND, current
    return SchemaState.AHEAD, current


def describe(engine: Engine) -> str:
    path = sqlite_path(str(engine.url))
    return str(path) if path else engine.url.render_as_string(hide_password=True)


def _reason(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None) or exc
    return str(orig).splitlines()[0]


def check_location(url: str, create: bool) -> None:
    """Refuse a SQLite path whose folder is missing, or (unless creating) a missing file."""
    path = sqlite_path(url)
    if path is None:
        return
    try:
        _check_path(path, create)
    except OSError as exc:  # a name too long, a folder we may not look into
        raise StorageError(f"cannot use {str(path)[:80]}: {exc.strerror or exc}") from None


def _check_path(path: Path, create: bool) -> None:
    if not path.parent.exists():
        raise StorageError(f"folder {path.parent} does not exist")
    if path.is_dir():
        raise StorageError(f"{path} is a folder, not a database file")
    if not create and not path.exists():
        raise StorageError(f"no database at {path}; create one with: menace init")


def open_database(url: str, create: bool = False) -> Engine:
    """An engine on a database whose schema is current (created at head if ``create``).

    Refused or failing, it closes what it opened before it raises: a SQLite connection left for the
    garbage collector keeps the file's ``-wal`` and ``-shm`` beside it until the collector runs, and
    at the end of a command it never does (``menace.__main__`` freezes the heap).
    """
    check_location(url, create)
    engine = make_engine(url)
    try:
        state, rev = schema_state(engine)
        if state is SchemaState.EMPTY and create:
            upgrade(engine)
            return engine
        _refuse(engine, state, rev)
    except BaseException:
        engine.dispose()
        raise
    return engine


def _refuse(engine: Engine, state: SchemaState, rev: str | None) -> None:
    where = describe(engine)
    if state is SchemaState.CURRENT:
        return
    engine.dispose()
    if state is SchemaState.EMPTY:
        raise StorageError(f"{where} holds no machine yet; create one with: menace init")
    if state is SchemaState.FOREIGN:
        raise StorageError(f"{where} is a database, but not a menace one; refusing to touch it")
    if state is SchemaState.AHEAD:
        raise StorageError(
            f"{where} was written by a newer menace (schema {rev}); upgrade menace to use it"
        )
    raise StorageError(
        f"{where} has an older schema ({rev}); run 'menace upgrade' (it backs the file up first)"
    )


@contextmanager
def _migrating(engine: Engine) -> Iterator[Connection]:
    """One transaction for a migration.

    On SQLite, foreign-key enforcement is off while it runs: batch mode changes a table by copying
    it, dropping the original and renaming the copy, and dropping a parent table with enforcement
    on would first delete its rows, cascading into every child (Alembic's documented advice). The
    keys are checked before the commit instead, and enforcement is back on afterwards.
    """
    with writer(engine).connect() as conn:
        sqlite = engine.dialect.name == "sqlite"
        if sqlite:  # outside any transaction: the PRAGMA is a no-op inside one
            conn.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")  # type: ignore[union-attr]
        try:
            with conn.begin():
                yield conn
                if sqlite:
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").first()
                    if broken is not None:
                        raise StorageError(f"the migration would break a foreign key ({tuple(broken)})")
        finally:
            if sqlite:
                conn.connection.driver_connection.execute("PRAGMA foreign_keys = ON")  # type: ignore[union-attr]


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the schema to ``revision`` in one transaction."""
    from alembic import command

    try:
        with _migrating(engine) as conn:
            command.upgrade(alembic_config(conn), revision)
    except sa_exc.DBAPIError as exc:  # a full disk, a read-only file: rolled back, one line
        raise database_error(engine, exc) from None


def downgrade(engine: Engine, revision: str) -> None:
    from alembic import command

    try:
        with _migrating(engine) as conn:
            command.downgrade(alembic_config(conn), revision)
    except sa_exc.DBAPIError as exc:
        raise database_error(engine, exc) from None


def backup_file(url: str) -> Path | None:
    """Copy a SQLite file beside itself with a timestamp, safely even while in WAL mode."""
    path = sqlite_path(url)
    if path is None or not path.exists():
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{stamp}.bak")
    src = sqlite3.connect(path)
    try:
        dst = sqlite3.connect(target)
        with dst:
            src.backup(dst)
        dst.close()
    finally:
        src.close()
    return target


def upgrade_database(url: str) -> tuple[str | None, str, Path | None]:
    """``menace upgrade``: back the file up, then migrate to head. (from, to, backup)."""
    check_location(url, create=False)
    engine = make_engine(url)
    try:
        state, rev = schema_state(engine)
        if state is SchemaState.CURRENT:
            return rev, rev or "", None
        if state is not SchemaState.BEHIND:
            _refuse(engine, state, rev)
        backup = backup_file(url)
        upgrade(engine)
        return rev, head_revision(), backup
    finally:
        engine.dispose()


def database_bytes(path: Path) -> int:
    """The bytes a SQLite file's data takes: pages in use times page size, after folding the
    write-ahead log into the file (what a benchmark of the history's size wants)."""
    con = sqlite3.connect(path)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        free = con.execute("PRAGMA freelist_count").fetchone()[0]
        size = con.execute("PRAGMA page_size").fetchone()[0]
        return (int(pages) - int(free)) * int(size)
    finally:
        con.close()


@contextmanager
def session_scope(engine: Engine, write: bool = False) -> Iterator[Connection]:
    """A connection in one transaction: committed at the end, rolled back on any error.

    ``write``: take SQLite's write lock when the transaction begins (see :func:`writer`).
    """
    bind = writer(engine) if write else engine
    try:
        with bind.begin() as conn:
            yield conn
    except MenaceError:
        raise
    except sa_exc.DBAPIError as exc:
        raise database_error(engine, exc) from None
    except (ValueError, KeyError, TypeError, OverflowError, UnicodeDecodeError) as exc:
        # A stored value that menace never writes (a count of 'many', a side 'Z', a date that
        # is not one, text that is not UTF-8): the database is damaged. 'menace check' names it.
        raise DatabaseDamagedError(
            f"{describe(engine)} holds a value menace cannot read ({type(exc).__name__}: {str(exc)[:120]}); "
            f"run 'menace check' to see what is damaged") from None


def database_error(engine: Engine, exc: sa_exc.DBAPIError) -> MenaceError:
    """The one-line error for what the database driver raised, or the exception itself (a bug)."""
    text = _reason(exc)
    where = describe(engine)
    low = text.lower()
    if "readonly" in low.replace("-", "") or "read-only" in low:
        return StorageError(f"{where} is read-only; nothing was changed")
    if "locked" in low or "busy" in low:
        return DatabaseBusyError(f"{where} is busy (locked by another process); try again")
    if "disk is full" in low or "disk i/o error" in low or "no space" in low:
        return StorageError(f"cannot write {where}: the disk is full, the file size limit was reached or the "
                            f"disk failed; the last transaction was rolled back, nothing of it was stored")
    if isinstance(exc, (sa_exc.OperationalError, sa_exc.IntegrityError, sa_exc.DataError)) \
            or "malformed" in low or "not a database" in low:
        return DatabaseDamagedError(f"{where} is damaged ({text}); run 'menace check' to see what is wrong")
    raise exc
