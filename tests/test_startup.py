"""Start-up stays light: listing commands and reading help load no heavy library, and no command
loads SQLAlchemy's ORM.

``menace --help`` and ``menace CMD --help`` run in a fresh interpreter (so nothing another test
imported counts) and report the modules they loaded; none of matplotlib, SQLAlchemy, Alembic,
Starlette, uvicorn, NumPy or Dask may be among them. ``menace stats`` and ``menace tournament -n 1``
on a machine, likewise in a fresh interpreter, must not load ``sqlalchemy.orm``. Not timed: the times
are in ``benchmarks/startup.py``.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import invoker

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
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def probe(*args: str, before: str = "") -> tuple[str, list[str]]:
    """What ``menace ARGS`` printed and every module it loaded, in a fresh interpreter that first runs
    ``before``."""
    done = subprocess.run([sys.executable, "-c", before + PROBE, json.dumps(list(args))], capture_output=True,
                          text=True, check=True)
    report = json.loads(done.stdout)
    assert report["code"] in (0, None), done.stderr + report["out"]
    return report["out"], report["modules"]


def loaded(*args: str) -> tuple[str, set[str]]:
    """What ``menace ARGS`` printed and the top-level packages it loaded."""
    out, modules = probe(*args)
    return out, {m.split(".")[0] for m in modules}


def test_the_probe_sees_a_heavy_import() -> None:
    """The check can fail: a command that does load SQLAlchemy (stats on a missing database) shows it."""
    done = subprocess.run([sys.executable, "-c", PROBE.replace('"code": code', '"code": 0'),
                           json.dumps(["--db", "/nonexistent/x.db", "stats"])], capture_output=True, text=True)
    assert "sqlalchemy" in {m.split(".")[0] for m in json.loads(done.stdout)["modules"]}


def test_menace_help_loads_no_heavy_library() -> None:
    out, modules = loaded("--help")
    assert "Commands:" in out and "tournament" in out
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


HELPS = """
import contextlib, io, json, sys
from menace.cli import main


def run(command):
    main()


first = sorted(sys.modules)
report = {}
for command in json.loads(sys.argv[1]):
    before = set(sys.modules)
    sys.argv = ["menace", command, "--help"]
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            run(command)
        except SystemExit as exc:
            code = exc.code
    report[command] = {"code": code, "out": out.getvalue(), "modules": first + sorted(set(sys.modules) - before)}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def helps() -> dict[str, tuple[str, set[str]]]:
    """``menace CMD --help`` for every command, one after another in one fresh interpreter: what each
    printed and the top-level packages it loaded (what ``menace.cli`` loads, and what it loaded that
    no command before it had). A heavy library is found on the first command that loads it, as a
    fresh interpreter per command would find it there: one process instead of 26."""
    done = subprocess.run([sys.executable, "-c", HELPS, json.dumps(list(COMMANDS))], capture_output=True,
                          text=True, check=True)
    report = json.loads(done.stdout)
    assert all(r["code"] in (0, None) for r in report.values()), done.stderr + done.stdout
    return {c: (r["out"], {m.split(".")[0] for m in r["modules"]}) for c, r in report.items()}


def test_the_help_probe_finds_a_heavy_import_on_the_command_that_loads_it() -> None:
    """The check can fail, on the command at fault: when one command's --help loads numpy, the probe
    finds it there and not on the commands before or after it."""
    code = HELPS.replace("def run(command):\n", "def run(command):\n    if command == 'plot':\n        import numpy\n")
    assert code != HELPS
    done = subprocess.run([sys.executable, "-c", code, json.dumps(["stats", "plot", "show"])],
                          capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    assert [c for c, r in report.items() if "numpy" in {m.split(".")[0] for m in r["modules"]}] == ["plot"]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_command_help_loads_no_heavy_library(command: str, helps: dict[str, tuple[str, set[str]]]) -> None:
    out, modules = helps[command]
    assert "Usage:" in out
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


WORKING_COMMANDS = [("stats",), ("tournament", "-n", "1", "--seed", "1")]
"""Commands that read and write a machine, for the check that no command imports the ORM."""


def orm_modules(db: str, *args: str, before: str = "") -> tuple[str, list[str]]:
    """What ``menace --db DB ARGS`` printed and the modules of ``sqlalchemy.orm`` it loaded."""
    out, modules = probe("--db", db, *args, before=before)
    return out, [m for m in modules if m == "sqlalchemy.orm" or m.startswith("sqlalchemy.orm.")]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The machines the probes run on, built once for the module in this process (what is probed is
    the command in a fresh interpreter, not how its database was made): a new one, and one that has
    played 50 games."""
    folder = tmp_path_factory.mktemp("startup")
    made = {"new": folder / "new.db", "played": folder / "played.db"}
    for db in made.values():
        invoker(str(db))("init")
    invoker(str(made["played"]))("tournament", "-n", "50", "--seed", "1")
    assert not list(folder.glob("*-wal")), "a database left open: its copy would miss what its log holds"
    return made


def copy_of(built: Path, tmp_path: Path) -> str:
    db = tmp_path / "menace.db"
    shutil.copyfile(built, db)
    return str(db)


@pytest.fixture
def one_machine(built: dict[str, Path], tmp_path: Path) -> str:
    return copy_of(built["new"], tmp_path)


def test_the_orm_probe_sees_the_orm(one_machine: str) -> None:
    """The check can fail: a process that has imported ``sqlalchemy.orm`` shows it."""
    _, orm = orm_modules(one_machine, "stats", before="import sqlalchemy.orm\n")
    assert "sqlalchemy.orm" in orm


@pytest.mark.parametrize("args", WORKING_COMMANDS, ids=" ".join)
def test_commands_on_a_machine_never_import_the_orm(one_machine: str, args: tuple[str, ...]) -> None:
    """Storage is SQLAlchemy Core: the ORM's import alone would cost a command about 60 ms."""
    out, orm = orm_modules(one_machine, *args)
    assert "menace" in out
    assert orm == []


READ_COMMANDS = [("stats",), ("show", "1"), ("history",)]
"""The commands that only read a machine: they start in a quarter of a second of CPU (benchmarks/startup.py)."""
NOT_FOR_READING = ("numpy", "matplotlib", "starlette", "alembic", "platformdirs", "menace.players")
"""What a read command has no use for: the plots' numpy, the server, the migrations, the tree cache's
folder (no game tree is built) and every opponent."""


@pytest.fixture
def played_machine(built: dict[str, Path], tmp_path: Path) -> str:
    return copy_of(built["played"], tmp_path)


def unused_modules(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == u or m.startswith(u + ".") for u in NOT_FOR_READING)]


def test_the_read_probe_sees_an_unused_import(played_machine: str) -> None:
    """The check can fail: a process that has imported numpy shows it."""
    _, modules = probe("--db", played_machine, "stats", before="import numpy\n")
    assert "numpy" in unused_modules(modules)


@pytest.mark.parametrize("args", READ_COMMANDS, ids=" ".join)
def test_read_commands_import_only_what_they_use(played_machine: str, args: tuple[str, ...]) -> None:
    out, modules = probe("--db", played_machine, *args)
    assert out.strip()
    assert unused_modules(modules) == []
