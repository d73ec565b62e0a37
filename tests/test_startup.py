"""Start-up stays light: listing commands and reading help load no heavy library.

``menace --help`` and ``menace CMD --help`` run in a fresh interpreter (so nothing another test
imported counts) and report the modules they loaded; none of matplotlib, SQLAlchemy, Alembic,
Starlette, uvicorn, NumPy or Dask may be among them. Not timed: the times are in
``benchmarks/startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from menace.cli import COMMANDS

HEAVY = ("matplotlib", "sqlalchemy", "alembic", "starlette", "uvicorn", "numpy", "dask", "distributed")

PROBE = """
import contextlib, io, json, sys
from menace.cli import main
sys.argv = ["menace", *json.loads(sys.argv[1])]
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main()
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def loaded(*args: str) -> tuple[str, set[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(args))], capture_output=True, text=True,
                          check=True)
    report = json.loads(done.stdout)
    assert report["code"] in (0, None), done.stderr
    return report["out"], set(report["modules"])


def test_the_probe_sees_a_heavy_import() -> None:
    """The check can fail: a command that does load SQLAlchemy (stats on a missing database) shows it."""
    done = subprocess.run([sys.executable, "-c", PROBE.replace('"code": code', '"code": 0'),
                           json.dumps(["--db", "/nonexistent/x.db", "stats"])], capture_output=True, text=True)
    assert "sqlalchemy" in json.loads(done.stdout)["modules"]


def test_menace_help_loads_no_heavy_library() -> None:
    out, modules = loaded("--help")
    assert "Commands:" in out and "tournament" in out
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


@pytest.mark.parametrize("command", list(COMMANDS))
def test_command_help_loads_no_heavy_library(command: str) -> None:
    out, modules = loaded(command, "--help")
    assert "Usage:" in out
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))
