"""Who may drive ``menace serve``: its own pages only (no other origin, no other host name), the
two tokens' roles, slowed-down guessing, confirmations, and connections that cannot hold it open."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Invoke, built_database, invoker, owner, release, train_300, wait_until
from run_once import built_once
from starlette.testclient import TestClient

from menace.app.machines import list_machines, machine_summary
from menace.app.transfer import export_to_file
from menace.web.app import create_app
from menace.web.guard import ADMIN_POWERS, Role, TokenLimiter, new_token
from menace.web.server import BackgroundServer

BASE = "http://127.0.0.1:8000"
PLAY, ADMIN = "play-token-123", "admin-token-456"


@pytest.fixture
def trained(request: pytest.FixtureRequest, db_url: str) -> str:
    return built_database(request, db_url, "smart-300", train_300)


@pytest.fixture
def client(trained: str) -> Iterator[TestClient]:
    with TestClient(create_app(trained, "menace"), base_url=BASE) as c:
        yield c


@pytest.fixture
def roles(trained: str) -> Iterator[TestClient]:
    with TestClient(create_app(trained, "menace", token=ADMIN, play_token=PLAY), base_url=BASE) as c:
        yield c


def games_of(url: str, name: str = "menace") -> int:
    return machine_summary(owner(url), name).games


# -- 1. CSRF: writes come from the server's own pages, as JSON ------------------------------------
@pytest.mark.parametrize("headers", [
    {"Origin": "http://127.0.0.1:9999"},             # another local port: the attack of the issue
    {"Origin": "http://localhost:8000"},             # another name is another origin
    {"Origin": "null"},                              # a sandboxed frame or a file:// page
    {"Referer": "http://127.0.0.1:9999/attack.html"},
    {"Sec-Fetch-Site": "same-site"},                 # a browser that named no origin
])
def test_a_write_from_another_origin_is_refused(client: TestClient, trained: str, headers: dict[str, str]) -> None:
    r = client.post("/api/machines", json={"name": "menace", "replace": True, "confirm": True}, headers=headers)
    assert r.status_code == 403, r.text
    assert "another web page" in r.json()["error"]
    r = client.post("/api/train", json={"games": 100_000}, headers=headers)
    assert r.status_code == 403
    assert games_of(trained) == 300 and client.get("/api/train").json()["running"] is False


def test_a_write_from_the_servers_own_page_is_accepted(client: TestClient) -> None:
    r = client.post("/api/machines", json={"name": "own"},
                    headers={"Origin": BASE, "Referer": BASE + "/machines", "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 201, r.text
    # a script or curl names no page at all: it is not a browser page, so not a forgery
    assert client.post("/api/machines", json={"name": "scripted"}).status_code == 201


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None])
def test_a_write_must_be_json(client: TestClient, content_type: str | None) -> None:
    headers = {} if content_type is None else {"Content-Type": content_type}
    body = b'{"name": "planted"}'
    r = client.post("/api/machines", content=body, headers=headers)
    assert r.status_code == 415, r.text
    assert "application/json" in r.json()["error"]
    assert client.post("/api/train/stop", headers=headers).status_code == 415
    assert [m.name for m in list_machines(client.app.state.menace.db)] == ["menace"]  # type: ignore[attr-defined]


# -- 2. DNS rebinding: only the host names the server was started for ---------------------------
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.", ""])
def test_another_host_name_is_refused(client: TestClient, trained: str, host: str) -> None:
    for path in ("/api/machines/menace/export", "/", "/api/info"):
        r = client.get(path, headers={"Host": host})
        assert r.status_code == 403 if host else 400, (path, r.text)
    r = client.post("/api/machines", json={"name": "menace", "replace": True, "confirm": True}, headers={"Host": host})
    assert r.status_code in (400, 403)
    assert games_of(trained) == 300


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST", "127.0.0.1"])
def test_loopback_names_are_served(client: TestClient, host: str) -> None:
    assert client.get("/api/info", headers={"Host": host}).status_code == 200


def test_names_given_and_the_bound_address_are_served(trained: str) -> None:
    app = create_app(trained, "menace", hosts=["class.example"], bound="192.0.2.7")
    with TestClient(app, base_url=BASE) as c:
        for host in ("class.example", "CLASS.example:8000", "192.0.2.7:8000", "localhost"):
            assert c.get("/api/info", headers={"Host": host}).status_code == 200, host
        for host in ("192.0.2.8", "evil.example"):
            assert c.get("/api/info", headers={"Host": host}).status_code == 403, host
    # listening on every address: any address of the computer is fine (a rebinding needs a name)
    with TestClient(create_app(trained, "menace", bound="0.0.0.0"), base_url=BASE) as c:
        assert c.get("/api/info", headers={"Host": "192.168.1.20:8000"}).status_code == 200
        assert c.get("/api/info", headers={"Host": "[fe80::1]:8000"}).status_code == 200
        assert c.get("/api/info", headers={"Host": "evil.example"}).status_code == 403


# -- 3. tokens: roles, wrong ones named, guessing slowed down ---------------------------------------
def test_the_play_token_plays_and_watches_only(roles: TestClient, trained: str) -> None:
    play = {"X-Menace-Token": PLAY}
    r = roles.post("/api/play", json={"first": "menace"}, headers=play)
    assert r.status_code == 201, r.text
    assert roles.post(f"/api/play/{r.json()['seat']}/abandon", json={}, headers=play).status_code == 200
    assert roles.get("/api/access", headers=play).json()["role"] == "play"
    for path, body in (("/api/machines", {"name": "x"}), ("/api/train", {"games": 5}), ("/api/train/stop", {}),
                       ("/api/machines/current", {"name": "menace"}),
                       ("/api/machines/menace/boxes/1/reconcile", {"counts": [{"bead": 0, "count": 1}]})):
        r = roles.post(path, json=body, headers=play)
        assert r.status_code == 403, path
        assert "admin token" in r.json()["error"], path
    json_type = {"Content-Type": "application/json"}
    r = roles.post("/api/import?replace=1&confirm=1", content=b"{}", headers={**play, **json_type})
    assert r.status_code == 403 and "admin token" in r.json()["error"]
    assert games_of(trained) == 300


def test_a_student_cannot_move_in_or_end_another_students_game(roles: TestClient, trained: str) -> None:
    """Every page hears of every game (the audience view and the teacher's list show them), but only
    the page that started a game holds its seat: with the same play token and the game's public id,
    from the list or the events, another student can neither move nor end it."""
    play = {"X-Menace-Token": PLAY}
    started = roles.post("/api/play", json={}, headers=play)
    assert started.status_code == 201, started.text
    mine = started.json()
    public = mine["id"]
    assert [g["id"] for g in roles.get("/api/tables", headers=play).json()["games"]] == [public]
    assert "seat" not in roles.get(f"/api/play/{public}", headers=play).json()
    for path, body in ((f"/api/play/{public}/move", {"move": 0}), (f"/api/play/{public}/abandon", {}),
                       (f"/api/play/{public}/alive", {}), (f"/api/operate/{public}/other", {"move": 0}),
                       (f"/api/operate/{public}/abandon", {})):
        r = roles.post(path, json=body, headers=play)
        assert r.status_code == 404, (path, r.text)
    moved = roles.post(f"/api/play/{mine['seat']}/move", json={"move": mine["legal"][0]}, headers=play)
    assert moved.status_code == 200, moved.text
    assert "seat" not in moved.json() and moved.json()["id"] == public
    assert roles.post(f"/api/play/{mine['seat']}/abandon", json={}, headers=play).status_code == 200
    assert games_of(trained) == 300


def test_the_admin_token_does_everything(roles: TestClient) -> None:
    admin = {"X-Menace-Token": ADMIN}
    assert roles.get("/api/access", headers=admin).json()["role"] == "admin"
    assert roles.post("/api/machines", json={"name": "x"}, headers=admin).status_code == 201
    assert roles.post("/api/play", json={"first": "menace", "machine": "x"}, headers=admin).status_code == 201
    assert roles.post("/api/machines/current", json={"name": "x"}, headers=admin).status_code == 200


def test_without_a_token_a_visitor_watches(roles: TestClient) -> None:
    access = roles.get("/api/access").json()
    assert access == {"role": "watch", "token": "none", "play_needs_token": True, "admin_needs_token": True,
                      "powers": list(ADMIN_POWERS)}
    assert roles.get("/api/machines/menace/boxes").status_code == 200
    r = roles.post("/api/play", json={})
    assert r.status_code == 403 and "play token" in r.json()["error"]


@pytest.mark.parametrize("given", ["wrong-token", "play-token-12", PLAY + " ", "ünïcode", "a" * 5000])
def test_a_wrong_token_is_named_wrong(roles: TestClient, given: str) -> None:
    headers = {"X-Menace-Token": given.encode("utf-8")}  # as raw bytes: a browser could never send these
    access = roles.get("/api/access", headers=headers)
    assert access.status_code == 403 and access.json()["error"].startswith("the token entered is wrong")
    r = roles.post("/api/play", json={}, headers=headers)
    assert r.status_code == 403 and r.json()["error"].startswith("the token entered is wrong")


# -- the join page's QR code: signed in to play for those who may play, never the admin token ------
@pytest.mark.parametrize("token, signed_in", [(None, False), (PLAY, True), (ADMIN, True)])
def test_the_join_qr_code_carries_the_play_token_to_those_who_may_play(roles: TestClient, token: str | None,
                                                                       signed_in: bool) -> None:
    from menace.web.lan import qr_svg

    roles.app.state.join_urls = ["http://192.0.2.7:8000/"]  # type: ignore[attr-defined]
    answer = roles.get("/api/join", headers={"X-Menace-Token": token} if token else {})
    assert answer.status_code == 200, answer.text
    assert "no-store" in answer.headers.get("cache-control", "")
    j = answer.json()
    play = "http://192.0.2.7:8000/play" + (f"#token={PLAY}" if signed_in else "")
    assert j["play"] == play and j["signed_in"] is signed_in
    assert j["qr_svg"] == qr_svg(play)  # the code holds exactly that address
    assert ADMIN not in answer.text


def test_the_join_qr_code_of_the_teacher_at_the_laptop_signs_students_in(trained: str) -> None:
    app = create_app(trained, "menace", token=ADMIN, play_token=PLAY, bound="0.0.0.0", trust_loopback=True)
    app.state.join_urls = ["http://192.0.2.7:8000/"]
    with TestClient(app, base_url=BASE, client=("127.0.0.1", 50000)) as c:
        j = c.get("/api/join").json()
    assert j["play"] == f"http://192.0.2.7:8000/play#token={PLAY}" and ADMIN not in json.dumps(j)


def test_a_server_open_to_all_players_needs_no_token_in_its_qr_code(client: TestClient) -> None:
    j = client.get("/api/join").json()
    assert j["play"] == "http://127.0.0.1:8000/play" and j["signed_in"] is False


def test_the_admin_token_is_described_with_every_power(roles: TestClient) -> None:
    assert "stop a game" in ADMIN_POWERS and "recount" in ADMIN_POWERS
    admin = roles.get("/api/access", headers={"X-Menace-Token": ADMIN}).json()
    assert admin["powers"] == list(ADMIN_POWERS)


def test_a_token_left_from_another_server_is_no_matter_where_none_is_needed(client: TestClient) -> None:
    headers = {"X-Menace-Token": "from-yesterdays-class"}
    assert client.get("/api/access", headers=headers).json()["role"] == "admin"
    assert client.post("/api/machines", json={"name": "x"}, headers=headers).status_code == 201


def test_repeated_wrong_tokens_are_slowed_down_and_then_even_the_right_one_waits(trained: str) -> None:
    app = create_app(trained, "menace", token=ADMIN, play_token=PLAY)
    with TestClient(app, base_url=BASE, client=("192.0.2.50", 4000)) as guesser, \
            TestClient(app, base_url=BASE, client=("192.0.2.51", 4000)) as other:
        statuses = [guesser.post("/api/play", json={}, headers={"X-Menace-Token": f"guess-{i}"}).status_code
                    for i in range(TokenLimiter.FREE_FAILURES + 3)]
        # the free failures are answered (a typo, a stale tab); the one after them starts the wait
        assert statuses[:TokenLimiter.FREE_FAILURES + 1] == [403] * (TokenLimiter.FREE_FAILURES + 1)
        assert set(statuses[TokenLimiter.FREE_FAILURES + 1:]) == {429}
        r = guesser.post("/api/play", json={}, headers={"X-Menace-Token": PLAY})
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        assert "too many wrong tokens" in r.json()["error"]
        # another device of the class is not held up by one guesser
        assert other.post("/api/play", json={"first": "menace"}, headers={"X-Menace-Token": PLAY}).status_code == 201


def test_the_limiter_doubles_the_wait_and_forgets_after_a_success() -> None:
    now = [1000.0]
    limiter = TokenLimiter(clock=lambda: now[0])
    for _ in range(TokenLimiter.FREE_FAILURES):
        assert limiter.wait("10.0.0.1") == 0
        limiter.failed("10.0.0.1")
    waits = []
    for _ in range(4):
        limiter.failed("10.0.0.1")
        waits.append(limiter.wait("10.0.0.1"))
        now[0] += waits[-1]
        assert limiter.wait("10.0.0.1") == 0
    assert waits == [2, 4, 8, 16]
    for _ in range(20):
        limiter.failed("10.0.0.1")
    assert limiter.wait("10.0.0.1") == TokenLimiter.LONGEST_WAIT
    assert limiter.wait("10.0.0.2") == 0
    # one IPv6 network is one client: a guesser cannot walk through its /64
    for i in range(TokenLimiter.FREE_FAILURES + 1):
        limiter.failed(f"2001:db8::{i + 1}")
    assert limiter.wait("2001:db8::ffff") > 0
    now[0] += TokenLimiter.LONGEST_WAIT
    limiter.succeeded("10.0.0.1")
    assert limiter.wait("10.0.0.1") == 0


def test_tokens_are_url_safe(trained: str) -> None:
    for _ in range(50):
        assert re.fullmatch(r"[A-Za-z0-9_-]{20,}", new_token())
    for bad in ("tea time", "ünïcode", "a/b", ""):
        with pytest.raises(ValueError, match="letters, digits"):
            create_app(trained, "menace", token=bad)
        with pytest.raises(ValueError, match="letters, digits"):
            create_app(trained, "menace", play_token=bad)
    with pytest.raises(ValueError, match="differ"):
        create_app(trained, "menace", token=PLAY, play_token=PLAY)


def test_role_order() -> None:
    assert Role.WATCH < Role.PLAY < Role.ADMIN


# -- roles: destructive actions need an explicit confirmation ------------------------------------
def test_replacing_a_machine_needs_a_confirmation_naming_what_is_lost(client: TestClient, trained: str) -> None:
    r = client.post("/api/machines", json={"name": "menace", "replace": True, "preset": "michie"})
    assert r.status_code == 409, r.text
    error = r.json()["error"]
    assert "300 games" in error and "confirm" in error
    assert r.json()["loses"] == {"machine": "menace", "games": 300, "boxes": 304}
    assert games_of(trained) == 300
    assert client.post("/api/machines", json={"name": "menace", "replace": True, "confirm": False}).status_code == 409
    r = client.post("/api/machines", json={"name": "menace", "replace": True, "confirm": True})
    assert r.status_code == 201 and games_of(trained) == 0
    # a new name loses nothing: no confirmation
    assert client.post("/api/machines", json={"name": "fresh", "replace": True}).status_code == 201


def test_importing_over_a_machine_needs_a_confirmation(client: TestClient, trained: str, tmp_path: Path) -> None:
    file = tmp_path / "m.json"
    export_to_file(owner(trained), "menace", file)
    client.post("/api/machines", json={"name": "other"})
    headers = {"Content-Type": "application/json"}
    r = client.post("/api/import?as=other&replace=1", content=file.read_bytes(), headers=headers)
    assert r.status_code == 201, r.text  # 'other' had no games: nothing lost
    client.post("/api/machines", json={"name": "empty"})
    r = client.post("/api/import?as=menace&replace=1", content=file.read_bytes(), headers=headers)
    assert r.status_code == 409 and "300 games" in r.json()["error"]
    r = client.post("/api/import?as=menace&replace=1&confirm=1", content=file.read_bytes(), headers=headers)
    assert r.status_code == 201, r.text


# -- the person at the laptop ----------------------------------------------------------------------
def test_loopback_stays_token_free_when_serving_the_class(trained: str) -> None:
    with BackgroundServer(trained, "menace", token=ADMIN, play_token=PLAY, trust_loopback=True,
                          hosts=["class.example"]) as srv:
        import httpx

        with httpx.Client(base_url=srv.base) as h:
            assert h.get("/api/access").json()["role"] == "admin"
            assert h.post("/api/machines", json={"name": "laptop"}).status_code == 201
            # the same computer asked by a name the class uses: a proxy or a student, the token is needed
            r = h.post("/api/machines", json={"name": "proxied"}, headers={"Host": "class.example"})
            assert r.status_code == 403


# -- 4. connections that cannot hold the server -----------------------------------------------------
def _closed_by_server(sock: socket.socket) -> bool:
    """Read until the server closes the connection (the readiness signal); False if it never does."""
    sock.settimeout(60)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


def test_half_sent_request_headers_are_dropped(trained: str) -> None:
    with BackgroundServer(trained, "menace", header_timeout=0.5) as srv:
        socks = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(40)]
        for i, s in enumerate(socks):
            s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n" if i % 2 else b"")
        assert all(_closed_by_server(s) for s in socks)
        for s in socks:
            s.close()
        wait_until(lambda: not srv.server.server_state.connections, "the server to drop every connection")
        import httpx

        assert httpx.get(srv.base + "/api/health").status_code == 200


def test_a_request_body_that_stops_coming_is_dropped(trained: str) -> None:
    with BackgroundServer(trained, "menace", header_timeout=0.5, body_timeout=0.5) as srv:
        with socket.create_connection(("127.0.0.1", srv.port)) as s:
            s.sendall(b"POST /api/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 100000\r\n\r\n{\"format\"")
            s.settimeout(60)
            answer = s.recv(65536)
            assert answer.startswith(b"HTTP/1.1 408"), answer
            assert _closed_by_server(s)


@pytest.fixture(scope="module")
def long_history(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> str:
    """A machine of a million games (a 5 MB machine file), built once per run (its two tests may run
    in two workers) and copied for this module."""

    def build(folder: Path) -> None:
        shutil.copyfile(sqlite_template, folder / "menace.db")
        url = f"sqlite:///{folder / 'menace.db'}"
        menace = invoker(url)
        menace("init")
        menace("tournament", "--vs", "random", "-n", "1000000", "--seed", "3")
        release(url)  # its connections closed: the file whole, its log folded in, before it is copied

    built = built_once(tmp_path_factory, "long-history", build)
    folder = tmp_path_factory.mktemp("long-history")
    shutil.copyfile(built / "menace.db", folder / "menace.db")
    return f"sqlite:///{folder / 'menace.db'}"


@pytest.mark.slow
def test_a_client_that_stops_reading_is_dropped(long_history: str, tmp_path: Path) -> None:
    export_to_file(owner(long_history), "menace", tmp_path / "whole.json")
    with BackgroundServer(long_history, "menace", send_timeout=0.5) as srv:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", srv.port))
            s.sendall(b"GET /api/machines/menace/export HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            # The answer has begun (so the server holds the connection: on a busy machine it may not
            # have taken it yet when the request is sent), then the client reads no more.
            s.settimeout(60)
            first = s.recv(64)
            assert first.startswith(b"HTTP/1.1 200"), first
            wait_until(lambda: not srv.server.server_state.connections, "the server to drop the stalled reader")
            received, tail = len(first), first[-16:]
            try:
                while chunk := s.recv(1 << 20):
                    received += len(chunk)
                    tail = (tail + chunk)[-16:]
            except ConnectionResetError:
                pass
    # Cut off: what the kernel's buffers held when the server let go may still arrive (on a busy
    # machine that can be most of the file), but never the whole file nor the chunked body's end.
    assert not tail.endswith(b"\r\n0\r\n\r\n")
    assert received < (tmp_path / "whole.json").stat().st_size


def test_the_export_is_streamed_byte_for_byte(client: TestClient, trained: str, tmp_path: Path) -> None:
    export_to_file(owner(trained), "menace", tmp_path / "cli.json")
    with client.stream("GET", "/api/machines/menace/export", headers={"Accept-Encoding": "identity"}) as r:
        assert r.status_code == 200 and "content-length" not in r.headers
        assert r.headers["content-disposition"] == 'attachment; filename="menace.json"'
        chunks = list(r.iter_raw())
    assert len(chunks) > 1
    assert b"".join(chunks) == (tmp_path / "cli.json").read_bytes()


@pytest.mark.slow
def test_an_export_holds_a_bounded_part_of_the_file_in_memory(long_history: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The download holds a few blocks at a time (here 2, so that a 5 MB file is many times that;
    the server reads 8 of at most ~100 kB) and the machine's boxes, never the whole file as the
    server used to (~29 MiB per request at 1.5M games)."""
    from menace.app import transfer

    url = long_history
    monkeypatch.setattr(transfer, "EXPORT_BLOCKS_AT_ONCE", 2)
    import httpx

    with BackgroundServer(url, "menace") as srv, httpx.Client(base_url=srv.base) as c:
        c.get("/api/machines/menace/export").raise_for_status()  # the first time compiles the queries
        tracemalloc.start()
        try:
            size = 0
            with c.stream("GET", "/api/machines/menace/export", headers={"Accept-Encoding": "identity"}) as r:
                for chunk in r.iter_raw():
                    size += len(chunk)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert size > 4_000_000
    assert peak < size / 2, (peak, size)


# -- menace serve -----------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_prints_both_tokens_and_their_addresses(menace: Invoke, db_url: str) -> None:
    menace("init")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "menace", "--db", db_url, "serve", "--port", str(port), "--tokens"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        while not any(line.startswith("Admin") for line in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        text = "".join(lines)
        play = re.search(r"Play token: +([A-Za-z0-9_-]+)", text)
        admin = re.search(r"Admin token: +([A-Za-z0-9_-]+)", text)
        assert play and admin and play[1] != admin[1], text
        assert f"http://127.0.0.1:{port}/play#token={play[1]}" in text
        assert f"http://127.0.0.1:{port}/machines#token={admin[1]}" in text
        import httpx

        base = f"http://127.0.0.1:{port}"
        wait_until(lambda: _answers(base), "menace serve to answer")
        with httpx.Client(base_url=base) as h:
            assert h.get("/api/access", headers={"X-Menace-Token": play[1]}).json()["role"] == "play"
            assert h.get("/api/access", headers={"X-Menace-Token": admin[1]}).json()["role"] == "admin"
            assert h.post("/api/train", json={"games": 1}).status_code == 403
    finally:
        proc.terminate()
        proc.wait(30)
        if proc.stdout is not None:
            proc.stdout.close()


def _answers(base: str) -> bool:
    import httpx

    try:
        return httpx.get(base + "/api/health").status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.parametrize("args, words", [
    (["--admin-token", "tea time"], "letters, digits"),
    (["--play-token", "ünï"], "letters, digits"),
    (["--play-token", "same-one", "--admin-token", "same-one"], "differ"),
    (["--allow-host", "bad host!"], "host name"),
])
def test_serve_refuses_bad_tokens_and_names(menace: Invoke, args: list[str], words: str) -> None:
    menace("init")
    result = menace("serve", *args, ok=False)
    assert result.exit_code == 2 and words in result.output, result.output


def _json(r: Any) -> Any:
    return json.loads(r.text)
