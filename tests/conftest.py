from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from menace.cli import cli


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "menace.db"


@pytest.fixture
def db_url(db_path: Path) -> str:
    return f"sqlite:///{db_path}"


Invoke = Callable[..., Result]


@pytest.fixture
def menace(db_path: Path) -> Invoke:
    """Run ``menace --db <tmp db> ARGS``; happy paths raise any exception straight away."""

    def run(*args: str, input: str | None = None, ok: bool = True) -> Result:
        result = CliRunner().invoke(cli, ["--db", str(db_path), *args], input=input, catch_exceptions=not ok)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return run
