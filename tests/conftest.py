from __future__ import annotations

import gc
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from forked_menace import MenaceForks
from hypothesis import settings
from servers import PostgresServer, PostgresUnavailable, start_postgres
from sqlalchemy import create_engine, text

from menace.app.database import Database
from menace.cli import cli

# Some machines (this one among them) set PYTHONDONTWRITEBYTECODE: then pytest rewrites every test
# module again in each worker, and every `menace` process a test starts compiles the package from
# source again. The tests keep compiled files (in __pycache__, which git ignores) like any run would.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# A shell starts a background job (`pytest &`, `.ci/run &`) with Ctrl-C ignored, and every process the
# tests start would inherit that: Python leaves an ignored SIGINT ignored, so the tests of Ctrl-C would
# wait for a signal that never arrives. The tests run with the disposition a person at a terminal has.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The garbage collector's full collections walk every object the process holds, and a worker holds
# some 270,000 that live as long as it does (pytest, hypothesis, SQLAlchemy, menace and every test
# module, imported while collecting): walking them again and again cost a file of 86 tests a second
# of its ten of CPU. Frozen (gc.freeze), they are left out of every collection; what the tests make
# afterwards is collected as before. Frozen once here (what the conftest imported) and once all
# tests are collected (pytest_collection_finish below).
gc.freeze()

# No wall-clock deadline for any property test (hypothesis's default fails an example that takes 200 ms,
# which a loaded machine makes of any example: test_game_heads failed so): timing belongs in benchmarks/.
settings.register_profile("menace", deadline=None)
settings.load_profile("menace")

# Commands keep game trees in the user's cache folder (menace.app.tree_cache); the tests keep theirs
# in a folder of their own, shared by the workers and every process they start, removed at the end.
_OWN_CACHE: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _OWN_CACHE
    # The person's own database is never the tests' (a test that means a database names it).
    os.environ.pop("MENACE_DB", None)
    if "MENACE_CACHE_DIR" not in os.environ:  # the first process of the run (xdist workers inherit it)
        _OWN_CACHE = os.environ["MENACE_CACHE_DIR"] = tempfile.mkdtemp(prefix="menace-test-cache-")


@pytest.hookimpl(tryfirst=True)  # before xdist names the group in the test's id
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests run one after another in one worker (``--dist loadgroup``), while the other
    runs the rest: a browser test mostly waits on Chromium and on the pages' own timers, so two at
    once left both cores half idle, and beside a test that computes they cost it little. The long
    tests (marked ``slow``, and the browser tests' group) run first, the rest in their order: the
    last tests a worker is handed are then short ones, and the workers finish together."""
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("browser"))
    items.sort(key=lambda item: not (item.get_closest_marker("slow") or item.get_closest_marker("browser")))


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()  # the modules and objects of collection live as long as the worker (see gc.freeze above)


@pytest.fixture
def browser() -> Any:
    """Chromium (Playwright's), shared by the browser tests that follow each other in a worker (they
    run first: see above); each test opens a context of its own (``web_browser_helpers.page_at``)."""
    from web_browser_helpers import SHARED_BROWSER

    return SHARED_BROWSER.get()


@pytest.hookimpl(trylast=True)  # after the test's own fixtures are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """The shared Chromium closed once the worker's next test does not use it (or there is none)."""
    from web_browser_helpers import SHARED_BROWSER

    if nextitem is None or "browser" not in getattr(nextitem, "fixturenames", ()):
        SHARED_BROWSER.close()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _OWN_CACHE is not None:
        shutil.rmtree(_OWN_CACHE, ignore_errors=True)


DATABASES = ["sqlite", "postgres"]
"""The kinds of database a test taking ``db_url`` runs against, once each."""


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of our own for this session (one per xdist worker), stopped at the end.

    Not installed: the PostgreSQL cases are skipped, except under CI (``CI`` set), where they fail.
    """
    try:
        server = start_postgres(autovacuum=False)
    except PostgresUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and {exc}", pytrace=False)
        pytest.skip(str(exc))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def forks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MenaceForks]:
    """``menace`` commands as processes of their own, forked from one process that imported menace once
    (forked_menace.py), for the tests that need a real process but do not test its start-up: each
    ``python -m menace`` would spend 0.2-0.3 s of CPU importing. One server per worker for the whole
    session, shared by every file (a module's fixture would be made again each time the worker comes
    back to a file: the slow tests run first, the others later)."""
    server = MenaceForks(tmp_path_factory.mktemp("forks"), preload=SERVE_MODULES)
    yield server
    server.close()


SERVE_MODULES = ("menace.cli.serve", "menace.web.app", "menace.web.server", "menace.web.training_process")
"""What ``menace serve`` imports beyond the other commands (forked_menace.PRELOADED), loaded once by the
fork server too (0.17 s of CPU; each ``menace serve`` a test forks would import them again)."""


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """The SQLite file of SQLite-only tests (files, PRAGMAs, ``database_bytes``, backups)."""
    return tmp_path / "menace.db"


@pytest.fixture
def sqlite_url(db_path: Path) -> str:
    return f"sqlite:///{db_path}"


def postgres_database(request: pytest.FixtureRequest) -> str:
    """A fresh migrated database on the session's server, given back to it when the test is done."""
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.new_database()
    request.addfinalizer(lambda: server.give_back(url))
    return url


@pytest.fixture
def new_db_url(request: pytest.FixtureRequest, db_url: str, tmp_path: Path) -> Callable[[], str]:
    """Make another fresh database of the kind ``db_url`` is (for a test that needs two), as ``db_url``
    is made: its schema already at head, no machine in it (on SQLite a copy of the migrated file:
    migrating each new file cost 0.1 s of CPU; the first use of a file made from nothing is tested by
    the tests that take ``db_path`` or ``sqlite_url``)."""
    made = iter(range(1, 1000))

    def make() -> str:
        if not is_sqlite(db_url):
            return postgres_database(request)
        path = tmp_path / f"other-{next(made)}.db"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
        return f"sqlite:///{path}"

    return make


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty SQLite database with its schema at head, made once per worker by the migrations."""
    from menace.storage.database import open_database

    path = tmp_path_factory.mktemp("template") / "menace.db"
    open_database(f"sqlite:///{path}", create=True).dispose()
    return path


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database on each kind, its schema already at head and no machine in it: a copy of a
    migrated SQLite file, and a PostgreSQL database copied from the migrated template on the
    session's server, or an earlier test's emptied when its schema is still the template's (see
    ``PostgresServer.give_back``). (Migrating every test's database again cost the suite some 20 s of CPU; the
    migrations themselves are tested in ``test_storage`` and ``test_reliability_migrations``, and
    creating a file from nothing by the tests that take ``db_path`` or ``sqlite_url``.)"""
    if request.param == "postgres":
        return postgres_database(request)
    path = tmp_path / "menace.db"
    shutil.copyfile(request.getfixturevalue("sqlite_template"), path)
    return f"sqlite:///{path}"


_BUILT: dict[tuple[str, str], str] = {}
"""Databases built once per worker by :func:`built_database`: (kind, recipe) -> the built one's URL."""


def built_database(request: pytest.FixtureRequest, db_url: str, recipe: str, build: Callable[[str], None]) -> str:
    """Make ``db_url`` (a fresh database) what ``build(url)`` makes of a fresh database, building it
    once per worker and kind under the name ``recipe`` and copying it for each test after that.

    For the fixtures many tests start from (a machine trained by a seeded tournament): the copy is
    the same rows as building it again, in a few milliseconds instead of a few hundred.
    """
    kind = "sqlite" if is_sqlite(db_url) else "postgres"
    source = _BUILT.get((kind, recipe))
    if source is None:
        if kind == "sqlite":
            folder = request.getfixturevalue("tmp_path_factory").mktemp(f"built-{recipe}")
            source = f"sqlite:///{folder / 'menace.db'}"
            shutil.copyfile(request.getfixturevalue("sqlite_template"), folder / "menace.db")
        else:
            source = request.getfixturevalue("postgres_server").new_database()
        build(source)
        release(source)  # its connections closed: a SQLite file is whole, its log folded in, before it is copied
        _BUILT[(kind, recipe)] = source
    if kind == "sqlite":
        shutil.copyfile(source.removeprefix("sqlite:///"), db_url.removeprefix("sqlite:///"))
    else:
        request.getfixturevalue("postgres_server").make_copy(db_url, source)
    return db_url


def train_300(url: str) -> None:
    """The trained machine many tests start from: ``init``, then 300 games against smart (seed 1)."""
    menace = invoker(url)
    menace("init")
    menace("tournament", "--vs", "smart", "-n", "300", "--seed", "1")


_OWNERS: dict[str, Database] = {}


def owner(url: str) -> Database:
    """The test's one :class:`Database` for ``url``, as a front end holds one (closed when the test ends)."""
    db = _OWNERS.get(url)
    if db is None or db.closed:
        db = _OWNERS[url] = Database(url)
    return db


def release(url: str) -> None:
    """Close the test's :class:`Database` for ``url``, if it has one (before the file is copied or changed
    behind its back)."""
    db = _OWNERS.pop(url, None)
    if db is not None:
        db.close()


@pytest.fixture(autouse=True)
def _close_owners() -> Iterator[None]:
    yield
    while _OWNERS:
        _OWNERS.popitem()[1].close()


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def query(url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """Rows of one SQL statement on any database (tests look behind the library's back with it)."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(sql), params)
            return [tuple(r) for r in result] if result.returns_rows else []
    finally:
        engine.dispose()


def stored_games(url: str) -> int:
    return int(query(url, "SELECT coalesce(sum(n_games), 0) FROM game_blocks")[0][0])


def wait_until(ready: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll ``ready`` (a readiness signal: never a fixed sleep) until it holds, or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while not ready():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.02)


def catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has installed a handler for ``sig`` (Linux: SigCgt in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


Invoke = Callable[..., Result]


def invoker(url: str) -> Invoke:
    def run(*args: str, input: str | None = None, ok: bool = True) -> Result:
        result = CliRunner().invoke(cli, ["--db", url, *args], input=input, catch_exceptions=not ok)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return run


@pytest.fixture
def menace(db_url: str) -> Invoke:
    """Run ``menace --db <db_url> ARGS`` (on each kind of database); happy paths raise any exception
    straight away."""
    return invoker(db_url)


@pytest.fixture
def sqlite_menace(sqlite_url: str) -> Invoke:
    """``menace --db <SQLite file>``, for tests about the file itself."""
    return invoker(sqlite_url)
