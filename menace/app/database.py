"""The one object that owns a database of machines for its life.

Made once from a URL, per command at the terminal and per process in ``menace serve``, a
:class:`Database` holds the SQLAlchemy Engine (and so its pool of connections and its cache of
compiled statements), checks the schema once, and is what every use case of :mod:`menace.app`
is given, the way ``sqlite_utils.Database`` or ``httpx.Client`` are::

    with Database("sqlite:///menace.db") as db:
        print(machine_summary(db, "menace").games)

Nothing is opened until a use case first needs it, so making one costs nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType

from sqlalchemy import Engine
from sqlalchemy.engine import Connection

from menace.storage.database import (
    SchemaState,
    StorageError,
    check_location,
    describe_url,
    make_engine,
    prepare_schema,
    refuse_state,
    resolve_url,
    schema_state,
    session_scope,
    sqlite_path,
    upgrade_with_backup,
)


class Database:
    """The machines' database at ``url`` (a path or a URL; ``None``: ``$MENACE_DB``, else
    ``menace.db``), owned until :meth:`close` or the end of a ``with`` block.

    The engine is opened, and the schema checked, on first use: a database that does not exist
    yet is created at the newest schema only by a use case that builds something in it
    (:meth:`creating`); every other use refuses it with a one-line :class:`StorageError`.
    """

    def __init__(self, url: str | None = None) -> None:
        self.url = resolve_url(url)
        self._engine: Engine | None = None
        self._checked = False
        self._lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"Database({self.url!r})"

    @property
    def where(self) -> str:
        """The database as a person names it: the file, or the URL without its password."""
        return describe_url(self.url)

    @property
    def engine(self) -> Engine:
        """The engine on a database whose schema is current (opened and checked once)."""
        return self._open(create=False)

    def creating(self) -> Engine:
        """The engine, creating the database at the newest schema if it holds nothing yet."""
        return self._open(create=True)

    def unchecked(self) -> Engine:
        """The engine whatever the schema's state (for the commands that look at any state:
        ``check``, ``upgrade``)."""
        with self._lock:
            return self._raw(create=False)

    def _raw(self, create: bool) -> Engine:
        if self._closed:
            raise StorageError(f"{self.where} was closed")
        if self._engine is None:
            check_location(self.url, create)
            self._engine = make_engine(self.url)
        return self._engine

    def _open(self, create: bool) -> Engine:
        engine = self._engine
        if engine is not None and self._checked:
            return engine
        with self._lock:
            engine = self._raw(create)
            if not self._checked:
                prepare_schema(engine, create)
                self._checked = True
            return engine

    def upgrade(self) -> tuple[str | None, str, Path | None]:
        """``menace upgrade``: back the file up, then migrate the schema to this version's. (The
        schema it was at, the one it is at now, the backup's path: None if none was needed.)"""
        with self._lock:
            engine = self._raw(create=False)
            self._checked = False  # checked again at the next use, at its new version
            return upgrade_with_backup(engine, self.url)

    def state(self) -> tuple[SchemaState, str | None]:
        """How the schema compares with this version of menace, refusing nothing."""
        return schema_state(self.unchecked())

    def exists(self) -> bool:
        """Whether the database holds menace's tables already, creating nothing (a missing file or
        an empty database: False; a foreign, newer or older one is refused in one line)."""
        path = sqlite_path(self.url)
        if path is not None and not path.is_file():
            return False
        state, rev = self.state()
        if state is SchemaState.EMPTY:
            return False
        refuse_state(self.where, state, rev)
        return True

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection in one read transaction."""
        with session_scope(self.engine) as conn:
            yield conn

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A connection in one write transaction (SQLite's write lock taken at its start)."""
        with session_scope(self.engine, write=True) as conn:
            yield conn

    def close(self) -> None:
        """Close every connection of the pool; the object cannot be used again."""
        with self._lock:
            self._closed = True
            engine, self._engine = self._engine, None
        if engine is not None:
            engine.dispose()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Database:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
