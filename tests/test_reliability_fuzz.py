"""Fuzzing (hypothesis): every command's options and the machine file. No traceback ever, a
non-zero exit on every refusal, and after every refusal the database file (and its write-ahead log)
byte-identical: a refusal comes before any write, the machine's lease included. 1,000 generated
cases per run (600 command lines, 400 machine files), about 12 s of CPU."""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import owner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from menace.app.machine_file import MachineFileError
from menace.app.transfer import export_machine, import_machine
from menace.cli import cli
from menace.core.errors import MenaceError

COMMANDS = {
    "stats": [], "show": ["BOX"], "machines": [], "history": ["--opponent", "--result", "--from", "--to", "--last"],
    "replay": ["GAME"], "check": ["--all"], "colours": ["LIST", "--standard"], "export": ["FILE"],
    "import": ["FILE", "--as", "--replace"], "undo": ["--games"], "unlock": ["--yes"],
    "reconcile": ["BOX", "--count", "--colours"], "init": ["--game", "--preset", "--side", "--beads", "--reinforce",
                                                            "--scope", "--empty-box", "--replace", "-m"],
    "opponents": [],
}
NASTY = st.sampled_from(["", "0", "-1", "1", "2", "٣", "1e400", "10**30", str(10**30), "9" * 5000, "\x1b[2J", "a\x00b",
                         "../x", "W=3", "X", "O", "both", "nan", "-", "4,3,2,1", "3,1,-1", "'; DROP TABLE boxes; --",
                         "perfect", "menace:menace", " ", "a" * 300, "x.db?mode=ro"])
VALUE = st.one_of(NASTY, st.text(max_size=12), st.integers(-10**20, 10**20).map(str))


@pytest.fixture(scope="module")
def base_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("fuzz") / "base.db"
    for args in (["init"], ["tournament", "--vs", "random", "-n", "30", "--seed", "1"]):
        assert CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False).exit_code == 0
    return db


def _digest(path: Path) -> str:
    """The database's bytes: the file and its write-ahead log (absent and empty alike: no frame).

    Not its rows: a refusal must come before any write, a lease row included."""
    wal = path.with_name(path.name + "-wal")
    h = hashlib.sha256(path.read_bytes() if path.exists() else b"")
    h.update(b"\0wal\0" + (wal.read_bytes() if wal.exists() else b""))
    return h.hexdigest()


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    name = draw(st.sampled_from(sorted(COMMANDS)))
    args = [name]
    for option in draw(st.lists(st.sampled_from(COMMANDS[name] or ["--db"]), max_size=4)):
        if not option.startswith("-"):
            args.append(draw(VALUE))
        elif option in ("--all", "--standard", "--replace", "--yes"):
            args.append(option)
        else:
            args += [option, draw(VALUE)]
    return args


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=command_lines())
def test_no_option_crashes_and_refusals_change_nothing(base_db: Path, tmp_path: Path, args: list[str]) -> None:
    db = tmp_path / "fuzz.db"  # (the examples share tmp_path: a new file each time, not the last one truncated,
    db.unlink(missing_ok=True)  # which makes ext4 write it out and the copy wait 2-4 ms for the disk)
    shutil.copyfile(base_db, db)
    args = [a.replace("x.db", str(tmp_path / "x.db")) if a.startswith("x.db") else a for a in args]
    if args[0] in ("export", "import") and len(args) > 1 and not args[1].startswith("-"):
        args[1] = str(tmp_path / f"f{abs(hash(args[1])) % 1000}.json")
    before = _digest(db)
    with contextlib.chdir(tmp_path):  # a file name anywhere in the line lands here, not in the checkout
        r = CliRunner().invoke(cli, ["--db", str(db), *args], input="")
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    assert "Traceback" not in r.output
    if r.exit_code != 0:
        assert _digest(db) == before, args


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _paths(v, (*prefix, i))
    return out


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**40, 10**40) | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
                    max_leaves=6)


@pytest.fixture(scope="module")
def machine_body(base_db: Path) -> Iterator[dict[str, Any]]:
    """The file every example changes a few values of; the examples share it, and it is checked
    unchanged when they are done (each copies the containers it changes: see below)."""
    body = export_machine(owner(f"sqlite:///{base_db}"), "menace")
    pristine = copy.deepcopy(body)
    yield body
    assert body == pristine, "an example changed the machine file the examples share"


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_machine_file_crashes_an_import(machine_body: dict[str, Any], tmp_path: Path, data: st.DataObject) -> None:
    # Only the containers on the way to a changed value are copied, the rest shared with the other
    # examples (a deep copy of the whole file took half this test's CPU): the same file to import.
    body = dict(machine_body)
    paths = _paths(body)[1:]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        here: Any = body
        try:
            for key in path[:-1]:
                child = here[key]
                if isinstance(child, (dict, list)):
                    child = here[key] = copy.copy(child)
                here = child
            here[path[-1]] = data.draw(JSON)
        except (KeyError, IndexError, TypeError):
            continue
    db = tmp_path / "target.db"
    url = f"sqlite:///{db}"
    before = _digest(db)
    try:
        json.dumps(body)
        import_machine(owner(url), body, rename="fuzzed")
    except MachineFileError:
        assert _digest(db) == before
    except MenaceError:
        assert _digest(db) == before


@pytest.mark.parametrize("args,input", [
    (["undo", "--games", "31"], None),  # more games than played
    (["reconcile", "400"], None),  # no such box
    (["reconcile", "1"], ""),  # end of input at the first question
    (["reconcile", "1", "--count", "W=3"], "2\n"),  # ... at a later one
    (["tournament", "--vs", "td:" + "9" * 30, "-n", "5"], None),  # td would train for ever
    (["tournament", "--vs", "perfect:fast", "-n", "5"], None),  # a parameter perfect does not take
    (["tournament", "--vs", "smart:3", "-n", "5"], None),  # one smart takes none of
    (["tournament", "--side", "O", "-n", "5"], None),  # a side this machine has no boxes for
])
def test_refusals_write_nothing_not_even_a_lease(base_db: Path, tmp_path: Path, args: list[str],
                                                 input: str | None) -> None:
    db = tmp_path / "m.db"
    shutil.copyfile(base_db, db)
    before = _digest(db)
    r = CliRunner().invoke(cli, ["--db", str(db), *args], input=input)
    assert r.exit_code == (2 if args[0] == "tournament" else 1) and "Traceback" not in r.output, r.output
    assert _digest(db) == before


def test_a_box_that_changed_while_it_was_counted_is_not_overwritten(base_db: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import click

    db = tmp_path / "m.db"
    shutil.copyfile(base_db, db)
    prompt = click.prompt

    def counting(*args: Any, **kwargs: Any) -> Any:  # meanwhile, a tournament plays on
        assert CliRunner().invoke(cli, ["--db", str(db), "tournament", "-n", "50", "--seed", "3"]).exit_code == 0
        monkeypatch.setattr(click, "prompt", prompt)
        return prompt(*args, **kwargs)

    monkeypatch.setattr(click, "prompt", counting)
    r = CliRunner().invoke(cli, ["--db", str(db), "reconcile", "1", "--count", "W=3"], input="2\n2\n")
    assert r.exit_code == 1 and "changed while it was being counted" in r.output, r.output
    assert CliRunner().invoke(cli, ["--db", str(db), "check"]).exit_code == 0


@pytest.mark.parametrize("args", [["import", "a\x00b"], ["import", "--as", "x", "\x00"], ["export", "a\x00b"],
                                  ["labels", "--out", "a\x00b.pdf"]])
def test_a_nul_in_a_file_name_is_a_usage_error(base_db: Path, tmp_path: Path, args: list[str]) -> None:
    # found by the fuzz: click's own path check raised ValueError('embedded null byte')
    from menace.app.files import FileWriteError, write_text
    from menace.app.transfer import read_machine_file

    r = CliRunner().invoke(cli, ["--db", str(base_db), *args])
    assert r.exit_code == 2 and "NUL character" in r.output, (r.output, repr(r.exception))
    with pytest.raises(FileWriteError, match="NUL"):
        write_text(str(tmp_path / "a\x00b"), "x")
    with pytest.raises(MachineFileError, match="NUL"):
        read_machine_file(tmp_path / "a\x00b")
