"""The one object that owns a database of machines for its life.

Made once from a URL, per command at the terminal and per process in ``menace serve``, a
:class:`Database` holds the SQLAlchemy Engine (and so its pool of connections and its cache of
compiled statements), checks the schema once, and is what every use case of :mod:`menace.app`
is given, the way ``sqlite_utils.Database`` or ``httpx.Client`` are::

    with Database("sqlite:///menace.db") as db:
        print(machine_summary(db, "menace").games)

Nothing is opened until a use case first needs it, so making one costs nothing.

A long-lived owner (``menace serve``'s) may also keep what use cases read, while the database has
not changed (:meth:`Database.kept`): a page asking again for a machine's summary, wall or learning
curve is answered from memory until something, in this process or any other, commits a change.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import TypeVar, cast

from sqlalchemy import Engine
from sqlalchemy.engine import Connection

from menace.storage.database import (
    ChangeWatch,
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

T = TypeVar("T")

KEPT_ANSWERS = 256
"""The most answers :meth:`Database.kept` holds (the least recently used go first): the summaries,
walls and learning curves of a class's machines, with the zooms of their charts."""


class Database:
    """The machines' database at ``url`` (a path or a URL; ``None``: ``$MENACE_DB``, else
    ``menace.db``), owned until :meth:`close` or the end of a ``with`` block.

    The engine is opened, and the schema checked, on first use: a database that does not exist
    yet is created at the newest schema only by a use case that builds something in it
    (:meth:`creating`); every other use refuses it with a one-line :class:`StorageError`.
    """

    def __init__(self, url: str | None = None, *, keep: bool = False) -> None:
        self.url = resolve_url(url)
        self._engine: Engine | None = None
        self._checked = False
        self._lock = threading.Lock()
        self._closed = False
        self.keep = keep
        """Whether :meth:`kept` keeps answers (a server's owner) or reads every time (a command's)."""
        self._kept: OrderedDict[Hashable, tuple[object, int, object]] = OrderedDict()
        """Each key's answer with the version it was read at and when its load began (see :meth:`kept`)."""
        self._asks = itertools.count()
        self._loading: dict[Hashable, threading.Lock] = {}
        self._kept_lock = threading.Lock()
        self._watch: ChangeWatch | None = None
        self._watch_lock = threading.Lock()
        self._held: dict[Hashable, object] = {}

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

    # -- answers kept while the database has not changed ----------------------------------------
    def version(self) -> object:
        """A token equal to the last one exactly when nothing was committed to the database since,
        by this process or any other: the database's own change signal (SQLite's data version, the
        server's snapshot on PostgreSQL; see :class:`~menace.storage.database.ChangeWatch`)."""
        engine = self.engine
        with self._watch_lock:
            if self._watch is None:
                self._watch = ChangeWatch(engine)
            return self._watch.token()

    def kept(self, key: Hashable, load: Callable[[], T]) -> T:
        """``load()``'s answer, kept under ``key`` and given again until the database changes.

        With :attr:`keep` off, ``load()`` every time. On, the database's change signal is read first
        (a few microseconds on SQLite) and the answer loaded while it stood is given back; after a
        change it is loaded again, by one caller while the others asking for the same key wait for
        it. A caller that waited takes the answer of any load that began after it asked (that load
        read the database after every commit this caller must see), even if the database changed
        again meanwhile: while a tournament writes every second, the asks queued behind one load
        share the next instead of loading one after another. An error is never kept. The answer
        is shared: callers must not change it.
        """
        if not self.keep:
            return load()
        asked = next(self._asks)
        version = self.version()
        with self._kept_lock:
            found = self._kept.get(key)
            if found is not None and found[0] == version:
                self._kept.move_to_end(key)
                return cast(T, found[2])
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:
            with self._kept_lock:  # another caller may have loaded it while this one waited
                found = self._kept.get(key)
                if found is not None and (found[0] == version or found[1] > asked):
                    return cast(T, found[2])
            begun = next(self._asks)
            version = self.version()
            value = load()  # read after the version: anything committed meanwhile changes the next one
            with self._kept_lock:
                self._kept[key] = (version, begun, value)
                self._kept.move_to_end(key)
                while len(self._kept) > KEPT_ANSWERS:
                    old, _ = self._kept.popitem(last=False)
                    self._loading.pop(old, None)
        return value

    def held(self, key: Hashable, make: Callable[[], T]) -> T | None:
        """An object a use case keeps between its reads for the owner's life (made by ``make()`` when
        first asked for), which knows itself when what it holds is out of date (the results a
        learning curve read before: :class:`~menace.storage.history_repo.KeptResults`); None with
        :attr:`keep` off: a command's owner reads everything once."""
        if not self.keep:
            return None
        with self._kept_lock:
            found = self._held.get(key)
            if found is None:
                found = self._held[key] = make()
            return cast(T, found)

    def forget(self) -> None:
        """Drop every kept answer."""
        with self._kept_lock:
            self._kept.clear()
            self._loading.clear()
            self._held.clear()

    def close(self) -> None:
        """Close every connection of the pool; the object cannot be used again."""
        with self._lock:
            self._closed = True
            engine, self._engine = self._engine, None
        with self._watch_lock:
            watch, self._watch = self._watch, None
        if watch is not None:
            watch.close()
        self.forget()
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
