"""Numbers from a request that the server cannot use are a 4xx with one line, never a 500: an
integer too long for Python to read, a bead that is no move, a bead counted out of range."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import owner
from starlette.testclient import TestClient

from menace.app.machines import init_machine
from menace.core.settings import MICHIE
from menace.web.app import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    init_machine(owner(url), "menace", MICHIE, "michie")
    with TestClient(create_app(url, "menace"), base_url="http://127.0.0.1:8000", raise_server_exceptions=False) as c:
        yield c


RECONCILE = "/api/machines/menace/boxes/1/reconcile"


def test_an_integer_of_thousands_of_digits_is_a_bad_request(client: TestClient) -> None:
    body = '{"counts": [{"bead": 4, "count": ' + "9" * 5000 + "}]}"
    r = client.post(RECONCILE, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert "JSON" in r.json()["error"] or "number" in r.json()["error"]


@pytest.mark.parametrize("bead", [-1, 9, 99, 10**30])
def test_a_bead_that_is_no_move_of_the_box_is_named_as_given(client: TestClient, bead: int) -> None:
    r = client.post(RECONCILE, json={"counts": [{"bead": bead, "count": 3}]})
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert str(bead) in error and "c3" not in error, error


@pytest.mark.parametrize("count", [-1, 10**30])
def test_a_count_out_of_range_is_a_bad_request(client: TestClient, count: int) -> None:
    r = client.post(RECONCILE, json={"counts": [{"bead": 4, "count": count}]})
    assert r.status_code == 400, r.text
