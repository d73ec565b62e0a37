"""``menace serve`` as a teacher starts it: a port in use, the addresses the class can open, the QR code."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
from conftest import Invoke

from menace.web.server import MenaceServer


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        yield s.getsockname()[1]


def test_a_port_in_use_fails_in_one_line_with_exit_1(sqlite_menace: Invoke, taken_port: int) -> None:
    sqlite_menace("init")
    result = sqlite_menace("serve", "--port", str(taken_port), ok=False)
    assert result.exit_code == 1, result.output
    assert result.output.strip().count("\n") == 0, result.output
    assert f"port {taken_port} on 127.0.0.1 is in use" in result.output
    assert "Serving" not in result.output


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """``serve`` up to the point it would serve: the server is not run, and the socket it would
    listen on is made on loopback (tests bind loopback only) whatever ``--host`` says."""
    from menace.cli import serve as serve_module

    made: list[Any] = []
    real_listen = serve_module.listen

    def listen(host: str, port: int) -> socket.socket:
        sock = real_listen("127.0.0.1", port)
        made.append(sock)
        return sock

    def run(self: MenaceServer, sockets: Any = None) -> None:
        made.append(self.menace_app)
        for s in sockets or ():
            s.close()

    monkeypatch.setattr(serve_module, "listen", listen)
    monkeypatch.setattr(MenaceServer, "run", run)
    return made


def this_computers_addresses() -> set[str]:
    return {a.address for addrs in psutil.net_if_addrs().values() for a in addrs
            if a.family == socket.AF_INET and not a.address.startswith(("127.", "169.254."))}


def test_every_network_prints_the_addresses_the_class_can_use(sqlite_menace: Invoke, served: list[Any]) -> None:
    sqlite_menace("init")
    result = sqlite_menace("serve", "--host", "0.0.0.0", "--port", "8123")
    lines = result.output.splitlines()
    addresses = this_computers_addresses()
    if addresses:
        line = next(x for x in lines if x.startswith("The class opens it at"))
        assert "127.0.0.1" not in line
        for ip in addresses:
            assert f"http://{ip}:8123/" in line
        play = f"http://{sorted(addresses)[0]}:8123/play" if len(addresses) == 1 else None
        if play:
            assert f"Scan to play: {play}" in result.output
        assert "█" in result.output or "▀" in result.output  # the QR code, drawn in half blocks
        app = served[-1]
        assert app.state.join_urls == [f"http://{ip}:8123/" for ip in sorted(addresses)] or \
            set(app.state.join_urls) == {f"http://{ip}:8123/" for ip in addresses}
    else:
        assert any("no network other devices can reach" in x for x in lines)
    assert "Play token:" in result.output and "Admin token:" in result.output and "(generated)" in result.output


def test_loopback_prints_no_qr_unless_asked(sqlite_menace: Invoke, served: list[Any]) -> None:
    sqlite_menace("init")
    quiet = sqlite_menace("serve", "--port", "8124")
    assert "Serving machine 'menace' at http://127.0.0.1:8124/" in quiet.output
    assert "Scan" not in quiet.output and "▀" not in quiet.output
    asked = sqlite_menace("serve", "--port", "8125", "--qr")
    assert "▀" in asked.output or "█" in asked.output


def test_the_join_page_shows_the_code_the_terminal_prints(sqlite_menace: Invoke, served: list[Any]) -> None:
    """What serve says of the Join page stays true: for someone who may play, it shows the very code
    the terminal drew (the play address with the play token); the admin token is in neither."""
    import re

    from starlette.testclient import TestClient

    from menace.web.lan import qr_svg

    if not this_computers_addresses():
        pytest.skip("this computer has no network address other devices could use")
    sqlite_menace("init")
    result = sqlite_menace("serve", "--host", "0.0.0.0", "--port", "8126")
    scan = re.search(r"Scan to play: (\S+)  \(the Join page shows this code too\)", result.output)
    play = re.search(r"Play token: +([A-Za-z0-9_-]+)", result.output)
    admin = re.search(r"Admin token: +([A-Za-z0-9_-]+)", result.output)
    assert scan and play and admin, result.output
    assert scan[1].endswith(f"/play#token={play[1]}")
    app = served[-1]
    with TestClient(app, base_url="http://127.0.0.1:8126") as c:
        for token in (play[1], admin[1]):
            j = c.get("/api/join", headers={"X-Menace-Token": token}).json()
            assert j["play"] == scan[1] and j["qr_svg"] == qr_svg(scan[1])
            assert admin[1] not in json.dumps(j)
        watcher = c.get("/api/join").json()
        assert play[1] not in json.dumps(watcher) and admin[1] not in json.dumps(watcher)


def test_serve_names_every_power_of_the_admin_token(sqlite_menace: Invoke, served: list[Any]) -> None:
    from menace.web.guard import ADMIN_POWERS

    sqlite_menace("init")
    result = sqlite_menace("serve", "--port", "8127", "--tokens")
    line = next(x for x in result.output.splitlines() if x.startswith("Admin token:"))
    assert all(power in line for power in ADMIN_POWERS), line
    assert all(power in " ".join(sqlite_menace("serve", "--help").output.split()) for power in ADMIN_POWERS)
