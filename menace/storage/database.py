"""Opening databases, SQLite settings, and the schema's migrations.

Every command and the server open their database through its one owner,
:class:`menace.app.database.Database`, which builds the engine here (:func:`make_engine`) and refuses
(with a one-line :class:`StorageError`, :func:`prepare_schema`) anything it should not touch: a file
that is not a database, a schema from a newer version of menace, or one that is behind and needs
``menace upgrade``. (:func:`open_database` does both at once for the tests.)
"""

from __future__ import annotations

import enum
import os
import sqlite3
import tempfile
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

SCHEMA_REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009")
"""Every migration in ``migrations/versions``, oldest first; the last is the head.

Kept here so that opening a database needs no Alembic import (a test checks it against the
scripts). Add a migration, add its revision here.
"""

BASE_REVISION = "base"
"""Alembic's name for the revision before the first: no table of menace's left."""
ARCHIVE_TABLE = "menace_archive"
"""Where a downgrade keeps rows to put back (``menace.migrations.archive``; named here so that opening
a database needs no Alembic import)."""

DEFAULT_DB = "menace.db"
ENV_VAR = "MENACE_DB"
BUSY_TIMEOUT_MS = 10_000
WAL_SIZE_LIMIT = 16 * 1024 * 1024
"""Bytes of SQLite's write-ahead log kept after a checkpoint has reset it (``journal_size_limit``)."""


class StorageError(UnavailableError):
    """A database that cannot be used as asked; the message is one line for the user."""


class DatabaseBusyError(StorageError):
    """Another process holds the database's write lock for longer than the busy timeout."""


class ServerGoneError(StorageError):
    """The database server closed the connection (restarted, stopped, or the network failed)."""


class DatabaseDamagedError(DamagedError):
    """The database's content is not what menace wrote (a damaged file, a dropped table, a bad value)."""


class SchemaState(enum.Enum):
    EMPTY = "empty"
    CURRENT = "current"
    BEHIND = "behind"
    AHEAD = "ahead"
    FOREIGN = "foreign"


def resolve_url(db: str | None) -> str:
    """A database URL from ``--db`` (a path or a URL), else ``$MENACE_DB``, else ``menace.db``.

    A path with SQLite URI parameters (``x.db?mode=ro``) or written as a SQLite URI (``file:x.db``)
    opens the same file as the plain path. An empty name and an in-memory database are refused:
    one would quietly mean ``menace.db``, the other keeps nothing once the command ends.
    """
    if db is not None and not db.strip():
        raise StorageError("the database's name is empty; give a file (or a database URL)")
    target = db or os.environ.get(ENV_VAR) or DEFAULT_DB
    url = target if "://" in target else f"sqlite:///{target}"
    if "://" not in target and ("?" in target or target.startswith("file:")):
        # A SQLite URI filename: honour its parameters as SQLite does, and name the file it names.
        path, _, query = target.partition("?")
        path = path.removeprefix("file:")
        url = f"sqlite:///file:{path}?{query + '&' if query else ''}uri=true"
    try:
        parsed = make_url(url)
    except (sa_exc.ArgumentError, ValueError) as exc:
        raise StorageError(f"{target!r} is not a database URL or path ({exc})") from None
    if parsed.get_backend_name() == "sqlite" and _in_memory(parsed.database, dict(parsed.query)):
        raise StorageError(f"{target!r} is an in-memory database, which keeps nothing once the command ends; "
                           f"give a file")
    return url


def _in_memory(database: str | None, query: dict[str, Any]) -> bool:
    name = (database or "").removeprefix("file:")
    return name in ("", ":memory:") or query.get("mode") == "memory"


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
    cur.execute("PRAGMA synchronous = NORMAL")
    # The write-ahead log grows while a reader holds an old snapshot; once the next checkpoint has
    # reset it, SQLite gives the space back down to this size instead of keeping its largest size.
    cur.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
    cur.close()


def _begin(conn: Connection) -> None:
    mode = conn.get_execution_options().get("sqlite_begin", "")
    conn.exec_driver_sql(f"BEGIN {mode}".strip())


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, foreign keys and a busy timeout."""
    try:
        # A server (PostgreSQL) may restart under a long command: each connection taken from the
        # pool is tried first, and one the server dropped is replaced instead of failing the work.
        engine = create_engine(url, pool_pre_ping=make_url(url).get_backend_name() != "sqlite")
    except (ValueError, TypeError) as exc:  # a parameter of the URL the driver cannot take (timeout=abc)
        shown = make_url(url).render_as_string(hide_password=True)
        raise StorageError(f"{shown!r} has a parameter the database driver cannot take ({exc})") from None
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
    if engine.dialect.name == "postgresql":
        event.listen(engine, "do_connect", _Encoding(url))
    return engine


class ChangeWatch:
    """Tells whether anything was committed to the database since it last looked, from the database's
    own signal (never a timer), for a cache of what was read from it (:meth:`token`).

    It holds one connection of its own, out of the engine's pool, which never writes: SQLite's
    ``PRAGMA data_version`` changes on a connection whenever *another* connection commits, which for
    this one is every writer there is, this process's pool included. On PostgreSQL the token is the
    server's current snapshot (``pg_current_snapshot()``, read in autocommit so that the connection
    holds no transaction open): a transaction that writes takes an id, which moves the snapshot's
    end, and its commit takes it out of the snapshot's list of those in progress, so every commit
    since the last look changes it (a commit in another database of the same server changes it
    too: only a needless reload). On any other database, or when the look fails, the token equals
    no other, and what was read is read again.
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._raw: Any = None

    def _connection(self) -> Any:
        if self._raw is None:
            raw = self._engine.raw_connection()
            raw.detach()  # its own for good: not one of the pool's, never handed to a writer
            driver: Any = raw.dbapi_connection
            if self._engine.dialect.name == "postgresql":
                driver.rollback()
                driver.autocommit = True
            self._raw = raw
        return self._raw.dbapi_connection

    def token(self) -> object:
        """A value equal to the last one exactly when nothing was committed since (call it from one
        thread at a time)."""
        dialect = self._engine.dialect.name
        if dialect not in ("sqlite", "postgresql"):
            return object()
        try:
            conn = self._connection()
            cur = conn.cursor()
            try:
                cur.execute("PRAGMA data_version" if dialect == "sqlite" else "SELECT pg_current_snapshot()::text")
                return ("version", cur.fetchone()[0])
            finally:
                cur.close()
        except Exception:  # noqa: BLE001 - a failed look (a busy file, a server restarting): read again, and reconnect
            self.close()
            return object()

    def close(self) -> None:
        raw, self._raw = self._raw, None
        if raw is not None:
            with suppress(Exception):
                raw.close()


def use_wal(engine: Engine) -> None:
    """Put a SQLite file menace writes in WAL mode (readers and a writer at once). Only a file
    found to be menace's, or made for it: the mode is kept in the file, and another program's
    file must not change because menace looked at it."""
    if engine.dialect.name != "sqlite":
        return
    # read-only (a file, a folder, ?mode=ro): it keeps its mode, and reading still works
    with engine.connect() as conn, suppress(sa_exc.OperationalError, sqlite3.OperationalError):
        conn.connection.driver_connection.execute("PRAGMA journal_mode = WAL")  # type: ignore[union-attr]


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


def _at_head(engine: Engine) -> bool:
    """Whether the schema's revision is this version's, read in one query: what every command meets
    but the first after an upgrade, answered without listing the tables (which :func:`schema_state`
    does for any other answer, with the same messages as ever)."""
    try:
        with engine.connect() as conn:
            return bool(conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == head_revision())
    except (sa_exc.DBAPIError, UnicodeDecodeError, sqlite3.DatabaseError, ValueError):
        return False  # no such table, or a file that is not a database: the full look says which


def schema_state(engine: Engine) -> tuple[SchemaState, str | None]:
    """How the database's schema compares with this version of menace, and its revision."""
    if _at_head(engine):
        return SchemaState.CURRENT, head_revision()
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


class _Encoding:
    """Refuses a PostgreSQL database that does not hold characters, as each connection is made (the
    driver hands back bytes there, which SQLAlchemy's first look at the server already trips on):
    SQL_ASCII stores bytes as they come, and what one client wrote another cannot read back."""

    def __init__(self, url: str) -> None:
        self.where = make_url(url).render_as_string(hide_password=True)

    def __call__(self, dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        """SQLAlchemy's ``do_connect``: the driver's connection, made here and looked at first."""
        dbapi_connection = dialect.loaded_dbapi.connect(*cargs, **cparams)
        try:
            self._check(dbapi_connection)
        except BaseException:
            dbapi_connection.close()
            raise
        return dbapi_connection

    def _check(self, dbapi_connection: Any) -> None:
        info = getattr(dbapi_connection, "info", None)
        status = getattr(info, "parameter_status", None)
        encoding = status("server_encoding") if status is not None else None
        if isinstance(encoding, bytes):
            encoding = encoding.decode("ascii", "replace")
        if encoding is not None and encoding.upper() == "SQL_ASCII":
            raise StorageError(f"{self.where} has the encoding SQL_ASCII (bytes, not characters), which menace "
                               f"cannot use; create the database with ENCODING 'UTF8'")


def describe(engine: Engine) -> str:
    """The database as a person names it: the file, or the URL without its password."""
    path = sqlite_path(str(engine.url))
    return str(path) if path else engine.url.render_as_string(hide_password=True)


def describe_url(url: str) -> str:
    """:func:`describe` for a URL not yet opened."""
    path = sqlite_path(url)
    return str(path) if path else make_url(url).render_as_string(hide_password=True)


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
        prepare_schema(engine, create)
    except BaseException:
        engine.dispose()
        raise
    return engine


def prepare_schema(engine: Engine, create: bool = False) -> None:
    """Refuse a database whose schema is not current (one line saying why and what to do); an
    empty one is created at head if ``create``."""
    state, rev = schema_state(engine)
    if state is SchemaState.EMPTY and create:
        upgrade(engine)
        return
    if state is not SchemaState.CURRENT:
        engine.dispose()
        refuse_state(describe(engine), state, rev)
    use_wal(engine)


def refuse_state(where: str, state: SchemaState, rev: str | None) -> None:
    """Raise the one-line :class:`StorageError` for a schema in ``state`` (nothing for CURRENT)."""
    if state is SchemaState.CURRENT:
        return
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

    use_wal(engine)
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
    """Copy a SQLite file beside itself with a timestamp, safely even while in WAL mode.

    The copy is written to a new temporary file and renamed when whole: a full disk or a kill
    leaves no file that looks like a backup and is not one (:class:`StorageError`, nothing changed).
    """
    path = sqlite_path(url)
    if path is None or not path.exists():
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{stamp}.bak")
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:40]}.", suffix=".bak.tmp")
        os.close(fd)
        src = sqlite3.connect(path)
        try:
            dst = sqlite3.connect(tmp)
            try:
                with dst:
                    src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(tmp, target)
        tmp = None
    except (OSError, sqlite3.Error) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise StorageError(f"cannot back {path} up before the upgrade ({why}; is the disk full?); "
                           f"nothing was changed") from None
    finally:
        if tmp is not None:
            with suppress(OSError):
                os.unlink(tmp)
    return target


def upgrade_with_backup(engine: Engine, url: str) -> tuple[str | None, str, Path | None]:
    """``menace upgrade`` on the database at ``url`` (``engine`` is its owner's, whatever the schema):
    back the file up, then migrate to head. (from, to, backup)."""
    state, rev = schema_state(engine)
    if state is SchemaState.CURRENT:
        return rev, rev or "", None
    if state is not SchemaState.BEHIND:
        refuse_state(describe(engine), state, rev)
    backup = backup_file(url)
    upgrade(engine)
    return rev, head_revision(), backup


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
    if getattr(exc, "connection_invalidated", False):
        return ServerGoneError(f"the database server of {where} went away ({text}); the transaction under way "
                               f"was rolled back, nothing of it was stored")
    if "disk is full" in low or "disk i/o error" in low or "no space" in low:
        return StorageError(f"cannot write {where}: the disk is full, the file size limit was reached or the "
                            f"disk failed; the last transaction was rolled back, nothing of it was stored")
    if isinstance(exc, (sa_exc.OperationalError, sa_exc.IntegrityError, sa_exc.DataError)) \
            or "malformed" in low or "not a database" in low:
        return DatabaseDamagedError(f"{where} is damaged ({text}); run 'menace check' to see what is wrong")
    raise exc
