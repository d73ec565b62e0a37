"""Server-Sent Events: every open page gets what happens (a move, a game finished, a tournament's
progress) as it happens.

:meth:`Hub.publish` may be called from any thread (a tournament is watched from a worker thread): the
message is serialised once and handed to the event loop, which puts it in each client's queue.
A client too slow to keep up loses messages rather than slowing the server.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any, Protocol

QUEUE_SIZE = 256
KEEPALIVE_SECONDS = 15.0
_CLOSE = ""


class Publish(Protocol):
    """:meth:`Hub.publish`'s shape, for the parts that only publish."""

    def __call__(self, event: str, data: dict[str, Any], *, remember: bool = True) -> None: ...


class Hub:
    """Fans events out to every connected page."""

    def __init__(self) -> None:
        self._clients: set[asyncio.Queue[str]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self.closed = False
        self.last: dict[str, str] = {}
        """The last message of each kind, sent to a page as soon as it connects."""

    @property
    def clients(self) -> int:
        return len(self._clients)

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Remember the server's event loop (called at start-up)."""
        self._loop = loop

    def publish(self, event: str, data: dict[str, Any], *, remember: bool = True) -> None:
        """Send ``data`` as event ``event`` to every page; safe from any thread."""
        message = f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"
        with self._lock:
            if remember:
                self.last[event] = message
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._fan_out(message)
        else:
            loop.call_soon_threadsafe(self._fan_out, message)

    def _fan_out(self, message: str) -> None:
        for queue in list(self._clients):
            try:
                queue.put_nowait(message)
            except asyncio.QueueFull:
                pass  # a stalled client misses this one; the next full update catches it up

    def close_soon(self) -> None:
        """:meth:`close` from any thread (a signal handler, say)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.close)
        else:
            self.closed = True

    def close(self) -> None:
        """End every stream (the server is stopping); call in the event loop's thread."""
        self.closed = True
        for queue in list(self._clients):
            try:
                queue.put_nowait(_CLOSE)
            except asyncio.QueueFull:
                queue.get_nowait()
                queue.put_nowait(_CLOSE)

    async def stream(self, limit: int | None = None) -> AsyncIterator[str]:
        """One page's stream: the remembered messages, then each new one, with keep-alive
        comments; ends after ``limit`` messages (for tests) or when the hub closes."""
        queue: asyncio.Queue[str] = asyncio.Queue(QUEUE_SIZE)
        self._clients.add(queue)
        sent = 0
        try:
            yield "retry: 2000\n\n"
            with self._lock:
                backlog = list(self.last.values())
            for message in backlog:
                yield message
                sent += 1
                if limit is not None and sent >= limit:
                    return
            while not self.closed:
                try:
                    message = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
                except TimeoutError:
                    yield ": keep-alive\n\n"
                    continue
                if message == _CLOSE:
                    return
                yield message
                sent += 1
                if limit is not None and sent >= limit:
                    return
        finally:
            self._clients.discard(queue)
