"""Running the web app in a background thread: for the browser tests and the benchmark."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request
from types import FrameType, TracebackType

import uvicorn
from starlette.applications import Starlette

from menace.web.app import create_app


class MenaceServer(uvicorn.Server):
    """uvicorn's server that, when told to stop, first ends the pages' event streams: uvicorn
    waits for open connections to close before the app hears of the shutdown."""

    def __init__(self, config: uvicorn.Config, app: Starlette) -> None:
        super().__init__(config)
        self.menace_app = app

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self.menace_app.state.menace.hub.close_soon()
        super().handle_exit(sig, frame)


class BackgroundServer:
    """uvicorn serving :func:`~menace.web.app.create_app` on a free port of 127.0.0.1, in a thread.

    Use as a context manager; on entry it waits until ``/api/health`` answers.
    """

    def __init__(self, url: str, machine: str, token: str | None = None) -> None:
        self.app = create_app(url, machine, token)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.app, log_level="warning", timeout_graceful_shutdown=1, lifespan="on")
        self.server = MenaceServer(config, self.app)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(self.base + "/api/health", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                if time.monotonic() > deadline or not self.thread.is_alive():
                    raise RuntimeError("the test server did not start") from None
                time.sleep(0.02)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.app.state.menace.hub.close_soon()
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
