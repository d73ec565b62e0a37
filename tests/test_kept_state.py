"""A server's database owner answers a machine's summary, wall and learning curve from memory until
the database changes, by whoever changes it: a ``menace tournament`` in another process, or this
process itself. The change is the database's own signal (SQLite's data version, PostgreSQL's
snapshot), so the next answer after a commit is always the new one, and it equals what an owner
that keeps nothing reads."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import built_database, train_300
from forked_menace import MenaceForks
from sqlalchemy import event, text
from starlette.testclient import TestClient

from menace.app.database import Database
from menace.app.history import learning_series
from menace.app.machines import machine_summary, reconcile_box
from menace.app.tournament import train
from menace.app.wall import machine_wall
from menace.cli import cli
from menace.storage.history_repo import KeptResults
from menace.web import present
from menace.web.app import create_app
from menace.web.server import BackgroundServer


@pytest.fixture
def keeping(request: pytest.FixtureRequest, db_url: str) -> Iterator[Database]:
    """An owner that keeps answers, as ``menace serve``'s does, on a machine with 300 games (a copy
    of the one conftest's ``train_300`` builds once per worker)."""
    built_database(request, db_url, "smart-300", train_300)
    db = Database(db_url, keep=True)
    yield db
    db.close()


@pytest.fixture
def tournament_in_another_process(forks: MenaceForks) -> Callable[[str, int, int], None]:
    """``tournament_in_another_process(url, games, seed)``: ``menace tournament --vs random`` run by a
    process of its own (forked from one that imported menace once: its start-up is not what is tested)."""

    def tournament(url: str, games: int, seed: int) -> None:
        done = forks.run("--db", url, "tournament", "--vs", "random", "-n", str(games), "--seed", str(seed),
                         url=url)
        assert done.returncode == 0, done.stderr

    return tournament


def run(url: str, *args: str) -> None:
    result = CliRunner().invoke(cli, ["--db", url, *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def answers(db: Database) -> dict[str, Any]:
    """What the pages show, as they are sent: the summary, the wall, the whole curve and a zoom."""
    return {
        "summary": present.summary_json(machine_summary(db, "menace")),
        "wall": present.wall_json(machine_wall(db, "menace")),
        "learning": present.learning_json(learning_series(db, "menace", None, 600, allow_empty=True,
                                                          from_start=True)),
        "zoom": present.learning_json(learning_series(db, "menace", None, 50, 101, 200, allow_empty=True,
                                                      from_start=True)),
    }


def uncached(url: str) -> dict[str, Any]:
    with Database(url) as fresh:
        return answers(fresh)


def test_an_answer_is_kept_while_nothing_changes(keeping: Database, db_url: str) -> None:
    first = machine_summary(keeping, "menace")
    assert machine_summary(keeping, "menace") is first  # from memory: not read again
    assert machine_wall(keeping, "menace") is machine_wall(keeping, "menace")
    assert learning_series(keeping, "menace") is learning_series(keeping, "menace")
    assert keeping.version() == keeping.version()
    assert answers(keeping) == uncached(db_url)


def test_an_owner_that_keeps_nothing_reads_every_time(db_url: str) -> None:
    run(db_url, "init")
    with Database(db_url) as db:
        assert machine_summary(db, "menace") is not machine_summary(db, "menace")


def test_the_kept_answer_follows_a_tournament_in_another_process(keeping: Database, db_url: str,
        tournament_in_another_process: Callable[[str, int, int], None]) -> None:
    before = answers(keeping)
    assert before["summary"]["games"] == 300
    tournament_in_another_process(db_url, 250, seed=2)
    after = answers(keeping)
    assert after["summary"]["games"] == 550
    assert after["learning"]["games_played"] == 550
    assert after != before
    assert after == uncached(db_url)
    tournament_in_another_process(db_url, 1, seed=3)  # the smallest change there is: one game
    assert answers(keeping)["summary"]["games"] == 551
    assert answers(keeping) == uncached(db_url)


def test_the_kept_answer_follows_this_process_writing(keeping: Database, db_url: str) -> None:
    answers(keeping)
    # the owner itself writes (a tournament in the server, through its own pool of connections)
    train(keeping, "menace", "random", holder="a test", games=120, seed=4)
    mine = answers(keeping)
    assert mine["summary"]["games"] == 420
    assert mine == uncached(db_url)
    # another owner in this process (another connection) writes: a recount of box 1
    with Database(db_url) as other:
        before = machine_wall(keeping, "menace").boxes[0].beads
        bead = next(iter(before))
        assert reconcile_box(other, "menace", 1, {bead: before[bead] + 7}, holder="a test")
    recounted = answers(keeping)
    assert recounted != mine
    assert recounted == uncached(db_url)
    # ... and undo, which takes games away
    run(db_url, "undo", "--games", "20")
    undone = answers(keeping)
    assert undone["summary"]["games"] == 400
    assert undone == uncached(db_url)


def test_the_server_answers_from_memory_and_follows_another_process(keeping: Database, db_url: str,
        tournament_in_another_process: Callable[[str, int, int], None]) -> None:
    with BackgroundServer(db_url, "menace") as srv:
        assert srv.app.state.menace.db.keep

        def get(path: str) -> Any:
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
            try:
                conn.request("GET", path)
                answer = conn.getresponse()
                assert answer.status == 200
                return json.loads(answer.read())
            finally:
                conn.close()

        paths = ["/api/machines/menace", "/api/machines/menace/boxes", "/api/machines/menace/learning"]
        before = [get(p) for p in paths]
        assert before == [get(p) for p in paths]
        assert before[0]["games"] == 300
        tournament_in_another_process(db_url, 77, seed=5)
        after = [get(p) for p in paths]
        assert after[0]["games"] == 377
        want = json.loads(json.dumps(uncached(db_url)))  # as sent: JSON's keys are text
        assert after[0] == want["summary"]
        assert after[1] == want["wall"]
        assert after[2] == want["learning"]


def test_asks_that_queue_behind_a_load_share_the_next_one(keeping: Database, db_url: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """While a tournament writes, the database changes between any two asks. Asks for one answer
    that wait while it loads must share the next load (it begins after each of them asked, so it
    shows everything they must see), not load it again one after another: behind a load of the
    learning curve of a long history, the class's asks queued for ever (issue 31's starved pages)."""
    loads: list[int] = []
    held, release = threading.Event(), threading.Event()
    asked = threading.Semaphore(0)
    real_version = keeping.version

    def version() -> object:
        token = real_version()
        asked.release()  # an ask has read the database's version: it has arrived
        return token

    def load() -> int:
        loads.append(len(loads))
        if len(loads) == 1:
            held.set()
            assert release.wait(60)
        return len(loads)

    def change() -> None:  # a commit by another connection, as a tournament's flush is
        with Database(db_url) as other, other.writing() as conn:
            conn.execute(text("UPDATE machines SET name = name"))

    monkeypatch.setattr(keeping, "version", version)
    got: dict[str, int] = {}

    def ask(who: str) -> None:
        got[who] = keeping.kept(("a test",), load)

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    assert held.wait(60)
    assert asked.acquire(timeout=60)
    waiting = []
    for who in ("second", "third", "fourth"):
        change()
        t = threading.Thread(target=ask, args=(who,))
        t.start()
        assert asked.acquire(timeout=60)  # it read the version: it waits behind the first load
        waiting.append(t)
    release.set()
    for t in (first, *waiting):
        t.join(60)
    assert got["first"] == 1
    assert got["second"] == got["third"] == got["fourth"] == 2
    assert len(loads) == 2


def test_the_server_encodes_a_kept_answer_once_while_nothing_changes(keeping: Database, db_url: str,
                                                                     monkeypatch: pytest.MonkeyPatch,
        tournament_in_another_process: Callable[[str, int, int], None]) -> None:
    """A class asks for the same summary, wall and curve again and again: the server sends the JSON
    it made of a kept answer until the database changes, instead of making it again for each ask
    (it was most of a request's CPU once the answers were kept)."""
    made: list[str] = []
    for name in ("summary_json", "wall_json", "learning_json"):
        real = getattr(present, name)
        monkeypatch.setattr(present, name, lambda answer, real=real, name=name: made.append(name) or real(answer))
    paths = ["/api/machines/menace", "/api/machines/menace/boxes", "/api/machines/menace/learning?points=600"]
    with TestClient(create_app(db_url, "menace"), base_url="http://127.0.0.1:8000") as client:
        first = [client.get(p).json() for p in paths]
        again = [client.get(p).json() for p in paths]
        assert again == first and sorted(made) == ["learning_json", "summary_json", "wall_json"]
        tournament_in_another_process(db_url, 5, seed=6)
        after = [client.get(p).json() for p in paths]
        assert after[0]["games"] == 305 and len(made) == 6
        want = json.loads(json.dumps(uncached(db_url)))
        assert after == [want["summary"], want["wall"], want["learning"]]


def kept_results(db: Database) -> KeptResults | None:
    """The blocks' results ``db`` keeps for the machine's learning curve (PostgreSQL), else None."""
    with db.reading() as conn:
        machine_id = conn.execute(text("SELECT id FROM machines WHERE name = 'menace'")).scalar_one()
        if not KeptResults.works_on(conn):
            return None
    return db.held(("results", machine_id), KeptResults)


def test_the_curve_reads_only_the_blocks_a_tournament_in_another_process_wrote(keeping: Database,
                                                                               db_url: str,
        tournament_in_another_process: Callable[[str, int, int], None]) -> None:
    """Every commit of a training changes the database, and the learning curve of a long history is
    read again: on PostgreSQL the server keeps the blocks' results it read and the database sends
    only those of blocks written since (all of them, at every commit, were most of the database
    server's CPU while it trained). The answer is the full recount's."""
    assert answers(keeping) == uncached(db_url)
    kept = kept_results(keeping)
    assert kept is None or kept.sent == len(kept) >= 1  # each block's results sent once (the curve, then a zoom)
    blocks, sent = (0, 0) if kept is None else (len(kept), kept.sent)
    tournament_in_another_process(db_url, 250, seed=2)
    after = answers(keeping)
    assert after["summary"]["games"] == 550
    assert after == uncached(db_url)
    if kept is not None:
        assert kept.sent - sent == len(kept) - blocks >= 1  # the new blocks' results, none of the old
        sent = kept.sent
    run(db_url, "undo", "--games", "20")  # cuts the last block in place (or drops it): written again
    undone = answers(keeping)
    assert undone == uncached(db_url) and undone["summary"]["games"] == 530
    if kept is not None:
        assert kept.sent - sent <= 1


def test_the_curves_of_the_whole_history_read_its_blocks_once_after_a_commit(keeping: Database,
                                                                            db_url: str,
        tournament_in_another_process: Callable[[str, int, int], None]) -> None:
    """The learning page asks for the whole curve at 800 points, the train page at 600: after each
    commit of a training both are read again. Where the owner keeps the blocks' results (PostgreSQL)
    the blocks are read from the database once for both; each curve equals the full recount's."""
    reads: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "block_results" in statement:
            reads.append(statement)

    for points in (800, 600):
        learning_series(keeping, "menace", points=points)
    tournament_in_another_process(db_url, 250, seed=2)
    event.listen(keeping.engine, "before_cursor_execute", count)
    try:
        curves = [present.learning_json(learning_series(keeping, "menace", points=p)) for p in (800, 600)]
    finally:
        event.remove(keeping.engine, "before_cursor_execute", count)
    with Database(db_url) as fresh:
        assert curves == [present.learning_json(learning_series(fresh, "menace", points=p)) for p in (800, 600)]
    assert curves[0]["games_played"] == 550
    assert len(reads) == (1 if kept_results(keeping) is not None else 2)


@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)  # the blocks' results are kept there only
def test_the_look_at_the_blocks_a_server_knows_is_never_a_prepared_statement(keeping: Database,
                                                                             db_url: str) -> None:
    """The look at a history's blocks sends the ids and versions of those the server knows. As a
    statement the driver prepares (after five runs), PostgreSQL planned it for any array, counting
    10 elements where there were hundreds, and compared every block with every known one: 12.5 ms
    of its CPU at each look at 500 blocks, growing with the square of the blocks. Never prepared, it
    is planned for the arrays sent; the curves stay the full recount's."""
    assert kept_results(keeping) is not None
    with Database(db_url) as other:
        for seed in range(7):  # more looks, each after a commit, than the driver runs before it prepares
            train(other, "menace", "random", holder="a test", games=3, seed=seed)
            assert answers(keeping) == uncached(db_url)
    with keeping.reading() as conn:
        prepared = conn.execute(text("SELECT statement FROM pg_prepared_statements")).scalars().all()
    assert any("game_blocks" in p for p in prepared)  # the driver does prepare what it runs again
    assert not [p for p in prepared if "told" in p]


def test_an_undo_committed_while_the_curve_is_read_gives_the_curve_before_or_after_it(keeping: Database,
                                                                                    db_url: str,
        tournament_in_another_process: Callable[[str, int, int], None]) -> None:
    """Another process's undo can commit between any two statements of the server's reading of a
    curve (each statement of a PostgreSQL transaction sees the commits made before it). Whichever
    statement it follows, the curve is the one before the undo or the one after it: never an
    error (the count of games read before the undo, the blocks after it, failed with a KeyError
    that reached the page as a 500)."""
    curve = lambda db: present.learning_json(learning_series(db, "menace", points=600))  # noqa: E731
    statements = 0
    for after in range(1, 8):  # the undo commits after the reading's 1st statement, then its 2nd, ...
        tournament_in_another_process(db_url, 300, seed=after)
        curve(keeping)  # the server has read the history once: the next reading looks for what changed
        tournament_in_another_process(db_url, 200, seed=100 + after)
        with Database(db_url) as fresh:
            before = curve(fresh)
        seen = [0]

        def undo_after(_conn: Any, _cursor: Any, _statement: str, *_args: Any, after: int = after,
                       seen: list[int] = seen) -> None:
            seen[0] += 1
            if seen[0] == after:
                run(db_url, "undo", "--games", "150")

        event.listen(keeping.engine, "after_cursor_execute", undo_after)
        try:
            answer = curve(keeping)
        finally:
            event.remove(keeping.engine, "after_cursor_execute", undo_after)
        statements = max(statements, seen[0])
        with Database(db_url) as fresh:
            assert answer in (before, curve(fresh)), after
    assert statements >= 3  # the undo came between statements of the reading, not only after its last


def swap_two_results(planes: bytes, games: int) -> bytes:
    """The same block's results with two games of different results swapped (its tally is the same)."""
    words = (games + 63) // 64
    wins, draws = (int.from_bytes(planes[i * 8 * words:(i + 1) * 8 * words], "little") for i in (0, 1))
    result = [(wins >> g & 1) * 2 + (draws >> g & 1) for g in range(games)]
    i = 0
    j = next(g for g in range(games) if result[g] != result[i])
    result[i], result[j] = result[j], result[i]
    wins = sum(1 << g for g in range(games) if result[g] == 2)
    draws = sum(1 << g for g in range(games) if result[g] == 1)
    return wins.to_bytes(8 * words, "little") + draws.to_bytes(8 * words, "little")


def test_the_kept_curve_follows_a_block_written_again_with_the_same_shape(keeping: Database,
                                                                          db_url: str) -> None:
    """A block written again under its id with the same games' count and tally but other results (on
    SQLite an undone block's id is given again to the next one) is read again: what is kept of a
    block is checked against the version of its rows, not against what it looks like."""
    before = answers(keeping)
    with Database(db_url) as other, other.writing() as conn:
        block_id, games, planes = conn.execute(text(
            "SELECT b.id, b.n_games, r.results FROM game_blocks b JOIN block_results r ON r.block_id = b.id "
            "ORDER BY b.first_game LIMIT 1")).one()
        conn.execute(text("UPDATE block_results SET results = :r WHERE block_id = :b"),
                     {"r": swap_two_results(bytes(planes), games), "b": block_id})
    after = answers(keeping)
    assert after == uncached(db_url)
    assert after["learning"] != before["learning"]
