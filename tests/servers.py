"""A throwaway PostgreSQL server for the tests, started and stopped by the tests themselves.

:class:`PostgresServer` finds Debian's binaries (``pg_config --bindir``, else
``/usr/lib/postgresql/*/bin``), runs ``initdb`` into a temporary folder (as the ``postgres`` user
when we are root, since initdb refuses root), starts the server on a free port of 127.0.0.1 with
its socket in that folder, waits until ``pg_isready`` says it accepts connections, and hands out
a fresh database per test, copied from a template migrated once (or an earlier test's database,
emptied, when its schema is still the template's). Nothing outside the folder is
touched; :meth:`stop` removes it.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from itertools import count
from pathlib import Path
from typing import Any

NOT_INSTALLED = "PostgreSQL is not installed (no initdb/postgres/pg_isready found via pg_config --bindir " \
                "or /usr/lib/postgresql/*/bin); on Debian: apt-get install postgresql"

TEMPLATE = "menace_template"
_SCHEMA_DIGEST = """
SELECT md5(string_agg(x, '|' ORDER BY x)) FROM (
    SELECT 'relation ' || relname || ' ' || relkind::text FROM pg_class
     WHERE relnamespace = 'public'::regnamespace
    UNION ALL
    SELECT 'column ' || c.relname || '.' || a.attnum || ' ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || ' ' || a.attnotnull::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
    UNION ALL
    SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
      FROM pg_constraint WHERE connamespace = 'public'::regnamespace
    UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
    UNION ALL SELECT 'function ' || oid::regprocedure::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace
    UNION ALL SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'schema ' || nspname FROM pg_namespace
    UNION ALL SELECT 'type ' || typname FROM pg_type WHERE typnamespace = 'public'::regnamespace
) AS parts(x)
"""
_REMOVERS: list[subprocess.Popen[bytes]] = []
"""The processes removing stopped servers' folders (kept so that none is reaped as a stray)."""
USER = "postgres"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries on this machine (or no driver to talk to them)."""


def find_bindir() -> Path | None:
    """The folder holding initdb, postgres, pg_ctl and pg_isready, or None."""
    candidates: list[Path] = []
    if shutil.which("pg_config"):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(Path(out.stdout.strip()))
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for d in candidates:
        if all((d / exe).is_file() for exe in ("initdb", "pg_ctl", "pg_isready", "postgres")):
            return d
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 the OS says is free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    def __init__(self, bindir: Path, autovacuum: bool = True) -> None:
        self.bindir = bindir
        self.autovacuum = autovacuum
        """Whether the server's own background vacuum and analyze run (see :func:`start_postgres`)."""
        self.root = Path(tempfile.mkdtemp(prefix="menace-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        self._names = count(1)
        self._emptied: list[str] = []
        self._reusable = False
        self._fresh: tuple[str, list[str], list[str]] = ("", [], [])
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:  # initdb refuses root: the folder belongs to the postgres user
            shutil.chown(self.root, USER, USER)

    def _run(self, exe: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bindir / exe), *args]
        if self._as_postgres:
            cmd = ["runuser", "-u", USER, "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, check=check, cwd=self.root)

    def start(self, timeout: float = 60.0) -> None:
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "--no-sync", "-E", "UTF8",
                  "--locale=C")
        options = " ".join([
            "-c listen_addresses=127.0.0.1", f"-c unix_socket_directories={self.root}",
            "-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
            "-c max_connections=100", "-c shared_buffers=32MB",
            f"-c autovacuum={'on' if self.autovacuum else 'off'}",
        ])
        for _attempt in range(5):  # a port found free may be taken before the server binds it
            self.port = free_port()
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-W", "-o",
                      f"{options} -p {self.port}", "start")
            if self._wait_ready(timeout):
                return
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop", check=False)
        raise RuntimeError(f"PostgreSQL did not start; its log:\n{self.log_text()}")

    def _wait_ready(self, timeout: float) -> bool:
        """Poll ``pg_isready`` (0: accepting; 1: starting up; 2: no answer) until it is ready."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            rc = self._run("pg_isready", "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, "-d", "postgres",
                           "-t", "5", check=False).returncode
            if rc == 0:
                return True
            if rc == 2 and self._server_gone():
                return False
            time.sleep(0.05)  # a poll interval, not a wait for the server
        return False

    def _server_gone(self) -> bool:
        return self._run("pg_ctl", "-D", str(self.data), "status", check=False).returncode == 3

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/{database}"

    def sql(self, statement: str) -> None:
        """Run one statement on the maintenance database (autocommit: CREATE DATABASE needs it)."""
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user=USER, dbname="postgres",
                             autocommit=True) as conn:
            conn.execute(statement)  # type: ignore[arg-type]

    def make_template(self) -> None:
        """The template every test database is copied from: the schema migrated to head, once."""
        from menace.storage.database import make_engine, upgrade

        self.sql(f"CREATE DATABASE {TEMPLATE}")
        engine = make_engine(self.url(TEMPLATE))
        try:
            upgrade(engine)
        finally:
            engine.dispose()  # CREATE DATABASE ... TEMPLATE needs no one connected to it
        with self._connect(TEMPLATE) as conn:
            self._fresh = self._state(conn)
            # emptying a used database makes it the template again only if the template's tables are
            # empty and its sequences unused (RESTART IDENTITY starts them over)
            self._reusable = self._untouched(conn, self._fresh[1])

    def _connect(self, database: str) -> Any:
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user=USER, dbname=database, autocommit=True)

    @staticmethod
    def _state(conn: Any) -> tuple[str, list[str], list[str]]:
        """What a database holds that emptying its tables does not reset: its schema (a digest of
        every relation, column, default, constraint, index, function, trigger and schema), the
        tables that hold rows, and the revision Alembic stamped."""
        digest = conn.execute(_SCHEMA_DIGEST).fetchone()[0]
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
        stamped = [r[0] for r in conn.execute("SELECT version_num FROM alembic_version ORDER BY 1")] \
            if "alembic_version" in tables else []
        return digest, [t for t in tables if t != "alembic_version"], stamped

    def new_database(self, migrated: bool = True) -> str:
        """A fresh database: the migrated template's copy, or (``migrated=False``) an empty one.

        A migrated one is an earlier test's database emptied by :meth:`give_back` when there is one
        (a fifth of the time of a copy, which checkpoints the whole server twice), else a copy."""
        if migrated and self._emptied:
            return self.url(self._emptied.pop())
        name = f"test_{next(self._names)}"
        # FILE_COPY copies the template's files (half the time of the default WAL_LOG strategy,
        # which writes every page to the log; this server keeps nothing across a crash anyway).
        self.sql(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE if migrated else 'template0'} STRATEGY FILE_COPY")
        return self.url(name)

    def give_back(self, url: str) -> None:
        """A test is done with the database at ``url``: if nobody is connected to it and its schema
        and revision are still the template's, empty its tables (``TRUNCATE ... RESTART IDENTITY``:
        the same rows and the same next ids as a new copy) and rename it, for :meth:`new_database`
        to hand out under its new name. The rename fails while anyone is connected, and a process
        of the old test that connects later finds no database of its name: nothing of one test
        reaches the next. Anything else (a migration test's downgrade, a damaged table, a
        connection left open) and it is left alone: never handed out again."""
        name = url.rsplit("/", 1)[1]
        if not self._reusable:
            return
        try:
            with self._connect(name) as conn:
                others = conn.execute("SELECT count(*) FROM pg_stat_activity "
                                      "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchone()[0]
                digest, tables, stamped = self._state(conn)
                if others or (digest, stamped) != (self._fresh[0], self._fresh[2]) or tables != self._fresh[1]:
                    return
                conn.execute("SET lock_timeout = '2s'")
                conn.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY")
                if conn.execute("SELECT count(*) FROM pg_sequences WHERE last_value IS NOT NULL").fetchone()[0]:
                    return  # a sequence the TRUNCATE did not start over
            renamed = f"test_{next(self._names)}"
            self.sql(f"ALTER DATABASE {name} RENAME TO {renamed}")
        except Exception:  # noqa: BLE001 - whatever went wrong, this database is not handed out again
            return
        self._emptied.append(renamed)

    def make_copy(self, url: str, source_url: str) -> None:
        """Make the database at ``url`` (a fresh one from :meth:`new_database`) a copy of the one at
        ``source_url`` (nobody may be connected to either: a command disposes of its engine when it ends).

        Both databases have the template's schema: the source's rows are copied into the fresh one's
        empty tables (``COPY``, triggers and foreign-key checks off as for a restore) and its sequences
        set where the source's are; the same rows in the same order and the same next ids as a
        database copied whole. (``CREATE DATABASE ... TEMPLATE`` of the source, as this did, cost the
        server some 0.2 s of CPU a test, and then the source's copy was emptied again when given back.)
        Anything else (a schema that is not the template's on either side) and it is copied whole."""
        name, source = url.rsplit("/", 1)[1], source_url.rsplit("/", 1)[1]
        with self._connect(source) as src, self._connect(name) as dst:
            theirs, mine = self._state(src), self._state(dst)
            if self._reusable and theirs == mine == self._fresh and self._untouched(dst, mine[1]):
                dst.execute("SET session_replication_role = replica")  # rows as they are: no trigger, no check
                for table in theirs[1]:
                    with src.cursor().copy(f"COPY {table} TO STDOUT (FORMAT binary)") as rows, \
                            dst.cursor().copy(f"COPY {table} FROM STDIN (FORMAT binary)") as into:
                        for block in rows:
                            into.write(block)
                for sequence, last in src.execute("SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename), "
                                                  "last_value FROM pg_sequences WHERE last_value IS NOT NULL"):
                    dst.execute("SELECT setval(%s::regclass, %s, true)", (sequence, last))
                return
        self.sql(f"DROP DATABASE {name}")
        self.sql(f"CREATE DATABASE {name} TEMPLATE {source} STRATEGY FILE_COPY")

    @staticmethod
    def _untouched(conn: Any, tables: list[str]) -> bool:
        """Whether a database's tables are empty and its sequences unused (as the template's are)."""
        rows = sum(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables)
        used = conn.execute("SELECT count(*) FROM pg_sequences WHERE last_value IS NOT NULL").fetchone()[0]
        return bool(rows == 0 and used == 0)

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop", check=False)
        # A session's databases are thousands of files: removing them takes seconds the tests need
        # not wait for, so a process of its own removes them after the server is down.
        _REMOVERS.append(subprocess.Popen(["rm", "-rf", "--", str(self.root)], start_new_session=True,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))


def start_postgres(autovacuum: bool = True) -> PostgresServer:
    """A running server with its template, or :class:`PostgresUnavailable`.

    ``autovacuum`` off: nothing runs on the server but what the tests ask. Its background ANALYZE
    commits a transaction whenever a table has changed enough, which moves the server's snapshot,
    the change signal a kept answer is checked against: a test asking twice while nothing changed
    then saw a reload it did not cause (a benchmark of a long training keeps it on, as a server does)."""
    bindir = find_bindir()
    if bindir is None:
        raise PostgresUnavailable(NOT_INSTALLED)
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise PostgresUnavailable(f"the psycopg driver is not installed ({exc}); pip install -e '.[test]'") from None
    server = PostgresServer(bindir, autovacuum)
    try:
        server.start()
        server.make_template()
    except BaseException:
        server.stop()
        raise
    return server
