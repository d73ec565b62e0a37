"""``menace serve`` stopped by SIGTERM or Ctrl-C with a class's event streams open and a tournament
running: it ends every stream, stops the tournament after its game, keeps every game it finished and
exits with the status every command gives for that signal (how fast: ``benchmarks/serve_stop.py``)."""

from __future__ import annotations

import http.client
import json
import selectors
import signal
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import owner, query, stored_games, wait_until
from forked_menace import Forked, MenaceForks

from menace.app.machines import machine_summary
from menace.cli import cli

STREAMS = 200
HANG_GUARD = 120.0
"""Seconds before a test gives up on the server (a hang guard on a busy machine, not a measure)."""


def start_server(url: str, forks: MenaceForks) -> tuple[Forked, int]:
    """``menace serve`` on a free loopback port, returned once ``/api/health`` answers. A process of
    its own (to be signalled), forked from one that imported menace once: its start-up is not what
    is tested (test_reliability_interrupt tests signals during a real start-up)."""
    proc = forks.popen("--db", url, "serve", "--port", "0", url=url, env={"PYTHONUNBUFFERED": "1"})
    # printed once the socket listens
    wait_until(lambda: proc.poll() is not None or "\n" in output_so_far(proc), "menace serve's first line",
               HANG_GUARD)
    line = output_so_far(proc).split("\n")[0]
    if "127.0.0.1:" not in line:
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(HANG_GUARD)
        pytest.fail(f"menace serve did not start: {line!r} {err}")
    port = int(line.split("127.0.0.1:")[1].split("/")[0])
    wait_until(lambda: health(port), "the server's /api/health", HANG_GUARD)
    return proc, port


def output_so_far(proc: Forked) -> str:
    """What ``proc`` has written to its standard output until now (as a reader of a pipe sees it)."""
    try:
        return proc.out.read_text()
    except FileNotFoundError:  # the child has not opened it yet
        return ""


def health(port: int) -> bool:
    try:
        return call(port, "GET", "/api/health")[0] == 200
    except OSError:
        return False


def call(port: int, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG_GUARD)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read() or b"null")
    finally:
        conn.close()


class Streams:
    """``n`` pages holding ``/api/events`` open on raw sockets, read together with one selector."""

    def __init__(self, port: int, n: int) -> None:
        self.selector = selectors.DefaultSelector()
        self.received: dict[socket.socket, bytearray] = {}
        self.ended: set[socket.socket] = set()
        for _ in range(n):
            sock = socket.create_connection(("127.0.0.1", port), timeout=HANG_GUARD)
            sock.sendall(f"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            sock.setblocking(False)
            self.selector.register(sock, selectors.EVENT_READ)
            self.received[sock] = bytearray()

    def read(self, timeout: float = 0.05) -> None:
        for key, _ in self.selector.select(timeout):
            sock: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                continue
            except ConnectionError:
                data = b""
            if data:
                self.received[sock] += data
            else:
                self.selector.unregister(sock)
                self.ended.add(sock)

    def all_answered(self) -> bool:
        self.read()
        return all(b"\r\n\r\n" in got for got in self.received.values())

    def all_ended(self) -> bool:
        self.read()
        return len(self.ended) == len(self.received)

    def close(self) -> None:
        for sock in self.received:
            sock.close()
        self.selector.close()


@pytest.fixture
def streams() -> Iterator[list[Streams]]:
    made: list[Streams] = []
    yield made
    for s in made:
        s.close()


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_a_stopped_server_ends_the_streams_and_keeps_every_finished_game(
        db_url: str, sig: signal.Signals, streams: list[Streams], forks: MenaceForks) -> None:
    assert CliRunner().invoke(cli, ["--db", db_url, "init"]).exit_code == 0
    proc, port = start_server(db_url, forks)
    try:
        pages = Streams(port, STREAMS)
        streams.append(pages)
        wait_until(pages.all_answered, f"{STREAMS} event streams answered", HANG_GUARD)
        assert all(got.startswith(b"HTTP/1.1 200") for got in pages.received.values())
        status, started = call(port, "POST", "/api/train", {"opponent": "random", "seconds": 3600})
        assert status == 202, started
        progress: list[int] = []

        def stored_some() -> bool:
            games = call(port, "GET", "/api/train")[1]["games"]  # stored games only
            progress.append(games)
            return games > 0

        wait_until(stored_some, "the tournament's first stored games", HANG_GUARD)
        proc.send_signal(sig)
        wait_until(lambda: proc.poll() is not None, "the server to exit", HANG_GUARD)
        out, err = proc.communicate(HANG_GUARD)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.communicate(HANG_GUARD)
    # The status every command gives for this signal, one line, no traceback.
    assert proc.returncode == (143 if sig == signal.SIGTERM else 130), (out, err)
    assert err.strip() == ("Terminated." if sig == signal.SIGTERM else "Interrupted."), err
    # Every stream was ended by the server, each with the end of its chunked body (not cut off).
    wait_until(pages.all_ended, "every event stream to end", HANG_GUARD)
    assert all(got.endswith(b"0\r\n\r\n") for got in pages.received.values())
    # The tournament stopped at a game's end and saved: the run is closed, the lease let go, the
    # games counted where the machine counts them are the games stored, and replaying every
    # stored game gives the beads stored.
    kept = stored_games(db_url)
    assert kept >= max(progress) > 0
    assert machine_summary(owner(db_url), "menace").games == kept
    assert query(db_url, "SELECT count(*) FROM runs WHERE ended_at IS NULL") == [(0,)]
    assert query(db_url, "SELECT count(*) FROM machine_locks") == [(0,)]
    check = CliRunner().invoke(cli, ["--db", db_url, "check"])
    assert check.exit_code == 0, check.output
    assert f"{kept:,} games replayed, beads match" in check.output
