"""One line, nothing changed, no litter: commands refused or failing on bad input, damaged rows, a
full disk or a kill say so in one line, leave the database's bytes as they were and leave no file
behind."""

from __future__ import annotations

import os
import resource
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from menace.cli import cli


def _menace(*args: str, cwd: Path | None = None) -> tuple[int, str]:
    old = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        r = CliRunner().invoke(cli, list(args))
    finally:
        os.chdir(old)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output, r.output
    return r.exit_code, r.output


def _one_line_error(code: int, out: str, *words: str) -> None:
    assert code in (1, 2), out
    lines = [line for line in out.splitlines() if line.strip() and not line.startswith(("Usage:", "Try "))]
    assert len(lines) == 1 and lines[0].startswith("Error: "), out
    for word in words:
        assert word in lines[0], out


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("healthy") / "menace.db"
    for args in (["init"], ["tournament", "--vs", "random", "-n", "60", "--seed", "1"],
                 ["-m", "her", "init", "--game", "hexapawn"]):
        code, out = _menace("--db", str(db), *args)
        assert code == 0, out
    return db


@pytest.fixture
def db(healthy: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "menace.db"
    copy.write_bytes(healthy.read_bytes())
    return copy


# -- 14: damaged rows, bad URLs, a full disk --------------------------------------------------------
def _sql(db: Path, *statements: str) -> None:
    con = sqlite3.connect(db)
    try:
        for statement in statements:
            con.execute(statement)
        con.commit()
    finally:
        con.close()


BOX_DAMAGE = {
    "deleted": "DELETE FROM boxes WHERE number = 5 AND machine_id = 1",
    "non-canonical": "UPDATE boxes SET position = '.X.......' WHERE number = 2 AND machine_id = 1",
    "illegal": "UPDATE boxes SET position = 'XXXXOO...' WHERE number = 3 AND machine_id = 1",
    "garbage": "UPDATE boxes SET position = 'zz' WHERE number = 4 AND machine_id = 1",
}


@pytest.mark.parametrize("damage", list(BOX_DAMAGE))
@pytest.mark.parametrize("command", [("tournament", "-n", "20"), ("play", "--games", "1"), ("undo",)])
def test_commands_on_damaged_box_rows_say_so_in_one_line(db: Path, damage: str, command: tuple[str, ...]) -> None:
    _sql(db, BOX_DAMAGE[damage])
    before = db.read_bytes()
    code, out = _menace("--db", str(db), *command)
    _one_line_error(code, out, "damaged", " check' to see what is damaged")
    assert db.read_bytes() == before


@pytest.mark.parametrize("url", ["sqlite:///{db}?timeout=abc", "{db}?timeout=abc", "sqlite:///{db}?check_same_thread=x"])
def test_a_bad_parameter_in_a_database_url_is_one_line(db: Path, url: str) -> None:
    code, out = _menace("--db", url.format(db=db), "stats")
    _one_line_error(code, out)


def _limited(limit: int) -> Callable[[], None]:
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def test_upgrade_without_room_for_its_backup_changes_nothing_and_leaves_no_backup(db: Path) -> None:
    from menace.storage.database import SCHEMA_REVISIONS, downgrade, make_engine

    engine = make_engine(f"sqlite:///{db}")
    downgrade(engine, SCHEMA_REVISIONS[-2])
    engine.dispose()
    before = _files(db.parent)
    run = subprocess.run([sys.executable, "-m", "menace", "--db", str(db), "upgrade"], cwd=db.parent,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
                         preexec_fn=_limited(db.stat().st_size // 2),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "back" in lines[0] and "nothing was changed" in lines[0], run.stderr
    assert _files(db.parent) == before  # no .bak, not even an empty one; the schema as it was


# -- 15: a refused command changes no byte ------------------------------------------------------------
def test_a_tournament_against_a_player_of_another_game_is_refused_before_the_lease(db: Path) -> None:
    before = _files(db.parent)
    code, out = _menace("--db", str(db), "-m", "her", "tournament", "--vs", "smart")
    _one_line_error(code, out, "smart plays tictactoe only")
    assert _files(db.parent) == before


def test_commands_on_another_applications_sqlite_file_change_no_byte(tmp_path: Path) -> None:
    other = tmp_path / "photos.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO photos (name) VALUES ('cat.jpg')")
    con.commit()
    con.close()
    before = _files(tmp_path)
    for command in (["stats"], ["machines"], ["tournament", "-n", "5"], ["init"], ["upgrade"], ["check"]):
        code, out = _menace("--db", str(other), *command)
        assert code == 1, out
        assert "not a menace one" in out or "is not a menace database" in out or "FAULT" in out, out
        assert _files(tmp_path) == before, command


# -- 16: no litter, no surprise about where the database is ------------------------------------------
def test_an_empty_db_option_is_refused(tmp_path: Path) -> None:
    code, out = _menace("--db", "", "init", cwd=tmp_path)
    _one_line_error(code, out, "empty")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", [":memory:", "sqlite://", "sqlite:///:memory:", "file::memory:",
                                    "file:x.db?mode=memory"])
def test_an_in_memory_database_is_refused(tmp_path: Path, target: str) -> None:
    code, out = _menace("--db", target, "init", cwd=tmp_path)
    _one_line_error(code, out, "memory")
    assert "Built machine" not in out
    assert list(tmp_path.iterdir()) == []


def test_a_sqlite_uri_names_the_same_file_for_every_command(tmp_path: Path) -> None:
    code, out = _menace("--db", "file:x.db", "init", cwd=tmp_path)
    assert code == 0, out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.db"]
    code, out = _menace("--db", "file:x.db", "stats", cwd=tmp_path)
    assert code == 0, out
    code, out = _menace("--db", "x.db", "stats", cwd=tmp_path)
    assert code == 0, out


def test_the_next_write_removes_what_a_killed_write_left(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    code = ("import sys, time; from menace.app.files import open_for_writing\n"
            "with open_for_writing(sys.argv[1]) as f:\n"
            "    f.write(b'x' * 100_000); f.flush(); print('writing', flush=True); time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
    finally:
        proc.kill()
        proc.communicate()
    assert len([p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]) == 1  # killed: it could not clean up
    code, out = _menace("--db", str(tmp_path / "none.db"), "init")
    assert code == 0, out
    code, out = _menace("--db", str(tmp_path / "none.db"), "export", str(target))
    assert code == 0, out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["none.db", "out.json"]


def test_svg_labels_on_a_full_disk_leave_no_folder(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import menace.app.files as files

    real = files.write_text
    written: list[Path] = []

    def full_after_two(path: str | Path, text: str) -> Path:
        if len(written) == 2:  # the disk fills up at the third label
            raise files.FileWriteError(f"cannot write {path}: no space left on the device")
        written.append(real(path, text))
        return Path(path)

    monkeypatch.setattr(files, "write_text", full_after_two)
    out = tmp_path / "labels" / "kit"
    code, text = _menace("--db", str(db), "-m", "her", "labels", "--format", "svg", "--out", str(out))
    _one_line_error(code, text, "no space left")
    assert len(written) == 2
    assert not (tmp_path / "labels").exists()  # neither the labels written before nor the folders made


@pytest.mark.parametrize("command", [
    ("sweep", "--seeds", "2", "--games", "50", "--csv", "{missing}/x.csv"),
    ("sweep", "--seeds", "2", "--games", "50", "--json", "{folder}"),
    ("sweep", "--seeds", "2", "--games", "50", "--plot", "{missing}/x.png"),
    ("arena", "-n", "10", "--heatmap", "{missing}/x.png"),
])
def test_sweep_and_arena_check_their_outputs_before_training(db: Path, tmp_path: Path,
                                                             command: tuple[str, ...]) -> None:
    args = [a.format(missing=tmp_path / "missing", folder=tmp_path) for a in command]
    code, out = _menace("--db", str(db), *args)
    assert code == 2, out
    assert "trained" not in out and "menace:menace" not in out, out  # refused before any training
