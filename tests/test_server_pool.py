"""``menace serve`` holds one engine, and so one pool of connections, for its life (issue 31): a
class's requests share the pool's connections instead of each opening a session of its own (on
PostgreSQL a new session costs a process on the server and a round of authentication)."""

from __future__ import annotations

import http.client
import threading
from typing import Any

from conftest import built_database, is_sqlite, query, train_300
from sqlalchemy import event

from menace.app.database import Database
from menace.web.server import BackgroundServer

PATHS = ["/api/machines/menace", "/api/machines/menace/boxes", "/api/machines/menace/learning?points=600",
         "/api/machines/menace/learning?points=800&first=10&last=200", "/api/train"]


def test_a_hundred_requests_open_no_more_sessions_than_the_pool_holds(request: Any, db_url: str) -> None:
    url = built_database(request, db_url, "smart-300", train_300)
    db = Database(url)
    engine = db.engine  # opened, and its schema checked with one connection (in the pool now)
    opened: list[object] = [engine]
    event.listen(engine, "connect", lambda conn, _record: opened.append(conn))
    with db, BackgroundServer(db, "menace") as srv:  # type: ignore[arg-type]  (the owner is ours, opened above)
        assert srv.app.state.menace.db is db
        holds = engine.pool.size() + engine.pool._max_overflow  # type: ignore[attr-defined]
        answers: list[int] = []

        def device(i: int) -> None:  # ten devices at once, ten requests each, as a class asks
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
            try:
                for k in range(10):
                    conn.request("GET", PATHS[(i + k) % len(PATHS)] + ("&" if "?" in PATHS[(i + k) % len(PATHS)]
                                                                      else "?") + f"n={k}")
                    answer = conn.getresponse()
                    answer.read()
                    answers.append(answer.status)
            finally:
                conn.close()

        devices = [threading.Thread(target=device, args=(i,)) for i in range(10)]
        for t in devices:
            t.start()
        for t in devices:
            t.join(120)
        assert answers == [200] * 100
        # one more for the change watch, which holds its own connection apart from the pool
        assert len(opened) <= holds + 1
        if not is_sqlite(url):
            [(sessions,)] = query(url, "SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = current_database()")
            assert sessions <= holds + 1
