"""Serving the web app: uvicorn with timeouts for slow clients, and a background server for the
browser tests and the benchmark."""

from __future__ import annotations

import asyncio
import http.client
import socket
import threading
import time
from types import FrameType, TracebackType
from typing import Any

import h11
import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from menace.web.app import create_app

HEADER_TIMEOUT = 5.0
"""Seconds a connection may take to send a request's headers (a half-sent request is dropped)."""
SEND_TIMEOUT = 60.0
"""Seconds a client may leave an answer unread (its socket full) before it is dropped."""
BODY_TIMEOUT = 30.0
"""Seconds a request's body may pause between two pieces before the request is refused (408)."""


class GuardedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 connection, dropped when it holds the server without using it: a
    request's headers not complete within :attr:`header_timeout` of the connection's start (or of
    the previous answer's end), or an answer left unread (the socket's buffer full) for
    :attr:`send_timeout`. Without these, a few hundred half-sent requests use up the server's file
    descriptors and it answers no one."""

    header_timeout = HEADER_TIMEOUT
    send_timeout = SEND_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._send_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self._header_timer is not None and self.conn.their_state is not h11.IDLE:
            self._header_timer.cancel()  # the headers are in: the request is the app's now
            self._header_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_header_timer()  # the next request on this connection gets its own time

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._send_timer is None:
            self._send_timer = self.loop.call_later(self.send_timeout, self._drop)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    def _arm_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE:  # still no complete request line and headers
            self._drop()

    def _drop(self) -> None:
        self._cancel_timers()
        if not self.transport.is_closing():
            self.transport.abort()

    def _cancel_timers(self) -> None:
        for timer in (self._header_timer, self._send_timer):
            if timer is not None:
                timer.cancel()
        self._header_timer = self._send_timer = None


def guarded_protocol(header_timeout: float = HEADER_TIMEOUT, send_timeout: float = SEND_TIMEOUT) -> type[H11Protocol]:
    """:class:`GuardedH11Protocol` with these timeouts (uvicorn makes one per connection)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,),
                {"header_timeout": header_timeout, "send_timeout": send_timeout})


def server_config(app: Starlette, host: str = "127.0.0.1", port: int = 8000, *, header_timeout: float = HEADER_TIMEOUT,
                  send_timeout: float = SEND_TIMEOUT, **options: Any) -> uvicorn.Config:
    """uvicorn's settings for ``menace serve``: HTTP/1.1 with the timeouts of :class:`GuardedH11Protocol`,
    idle keep-alive connections closed after 5 s, and at most 1,000 connections at once (more are
    answered 503 rather than starving the ones there)."""
    return uvicorn.Config(app, host=host, port=port, http=guarded_protocol(header_timeout, send_timeout),
                          timeout_keep_alive=5, limit_concurrency=1000, **options)


class MenaceServer(uvicorn.Server):
    """uvicorn's server that, when told to stop, first ends the pages' event streams: uvicorn
    waits for open connections to close before the app hears of the shutdown."""

    def __init__(self, config: uvicorn.Config, app: Starlette) -> None:
        super().__init__(config)
        self.menace_app = app

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        state = self.menace_app.state.menace
        # Both before uvicorn's own shutdown begins: the event streams end at once (uvicorn waits for
        # open connections), and a tournament stops at its next game and saves while uvicorn
        # drains the other connections, instead of only when the app hears of the shutdown.
        state.hub.close_soon()
        state.trainer.request_stop()
        super().handle_exit(sig, frame)


class BackgroundServer:
    """uvicorn serving :func:`~menace.web.app.create_app` on a free port of 127.0.0.1, in a thread.

    Use as a context manager; on entry it waits until ``/api/health`` answers.
    """

    def __init__(self, url: str, machine: str, token: str | None = None, *, header_timeout: float = HEADER_TIMEOUT,
                 send_timeout: float = SEND_TIMEOUT, body_timeout: float = BODY_TIMEOUT, **options: Any) -> None:
        self.app = create_app(url, machine, token, body_timeout=body_timeout, **options)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        config = server_config(self.app, header_timeout=header_timeout, send_timeout=send_timeout,
                               log_level="warning", timeout_graceful_shutdown=1, lifespan="on")
        self.server = MenaceServer(config, self.app)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while True:
            try:
                if self._health() == 200:
                    return self
            except OSError:
                if time.monotonic() > deadline or not self.thread.is_alive():
                    raise RuntimeError("the test server did not start") from None
                time.sleep(0.02)

    def _health(self) -> int:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
        try:
            conn.request("GET", "/api/health")
            return conn.getresponse().status
        finally:
            conn.close()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.app.state.menace.hub.close_soon()
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
