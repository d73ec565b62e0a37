"""Files we write: one safe writer (temporary file beside the target, then a rename), used by
every command that writes one; and the one rule for machine names wherever a name enters."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from menace.app.files import FileWriteError, write_text, write_with
from menace.core.names import MachineNameError, check_machine_name
from tests.conftest import Invoke


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_the_writer_replaces_a_regular_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    os.chmod(target, 0o640)
    write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640  # the file keeps its permissions
    assert _leftovers(tmp_path) == []


def test_the_writer_never_follows_a_planted_part_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "out.json.part").symlink_to(victim)
    write_text(tmp_path / "out.json", "data")
    assert victim.read_text() == "precious"
    assert (tmp_path / "out.json").read_text() == "data"


def test_the_writer_refuses_a_symlink_target_and_a_folder(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    link = tmp_path / "link.json"
    link.symlink_to(victim)
    with pytest.raises(FileWriteError, match="symbolic link"):
        write_text(link, "data")
    assert victim.read_text() == "precious" and link.is_symlink()
    with pytest.raises(FileWriteError, match="is a folder"):
        write_text(tmp_path, "data")
    with pytest.raises(FileWriteError, match="no file name"):
        write_text("", "data")
    with pytest.raises(FileWriteError, match="does not exist"):
        write_text(tmp_path / "missing" / "x.json", "data")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(FileWriteError, match="not a regular file"):
        write_text(tmp_path / "fifo", "data")
    assert _leftovers(tmp_path) == []


def test_a_character_device_is_written_into_never_replaced() -> None:
    before = os.stat("/dev/null")
    write_text("/dev/null", "x" * 100_000)
    after = os.stat("/dev/null")
    assert after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_a_full_device_is_one_error_naming_the_file() -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with pytest.raises(FileWriteError, match=r"cannot write /dev/full: no space left"):
        write_text("/dev/full", "x" * 100_000)


def test_the_temporary_file_goes_on_any_failure(tmp_path: Path) -> None:
    target = tmp_path / "big.json"

    def fails(f: object) -> None:
        assert _leftovers(tmp_path) != []  # it exists while writing...
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_with(target, fails)  # type: ignore[arg-type]
    assert not target.exists() and _leftovers(tmp_path) == []  # ...and not after


def test_the_temporary_file_goes_when_the_disk_is_full(tmp_path: Path) -> None:
    import resource
    import subprocess
    import sys

    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "from menace.app.files import write_text, FileWriteError\n"
        "try:\n    write_text(sys.argv[1], 'x' * 100_000)\n"
        "except FileWriteError as e:\n    print(e); sys.exit(1)\n"
    )
    del resource
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path / "big.json")], capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert "no space left" in run.stdout and "Traceback" not in run.stderr
    assert sorted(os.listdir(tmp_path)) == []


def test_export_goes_through_the_writer(menace: Invoke, tmp_path: Path) -> None:
    menace("init")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "out.json.part").symlink_to(victim)
    menace("export", str(tmp_path / "out.json"))
    assert victim.read_text() == "precious"
    for bad, words in ((str(tmp_path), "is a directory"), ("", "folder"),
                       (str(tmp_path / "out.json.part"), "symbolic link")):
        r = menace("export", bad, ok=False)
        assert r.exit_code in (1, 2) and words in r.output and "Traceback" not in r.output, r.output


def test_labels_and_plots_go_through_the_writer(menace: Invoke, tmp_path: Path) -> None:
    menace("init")
    menace("tournament", "-n", "20", "--seed", "1")
    folder_png = tmp_path / "DIR.png"
    folder_png.mkdir()
    r = menace("plot", "beads", "-o", str(folder_png), ok=False)
    assert r.exit_code == 1 and "is a folder" in r.output, r.output
    if os.path.exists("/dev/full"):
        r = menace("labels", "--out", "/dev/full", ok=False)
        assert r.exit_code == 1 and "no space left" in r.output, r.output
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["", "'; DROP TABLE boxes; --", "x" * 10_000, "a\x00b", "../../../etc/passwd",
                                  "\x1b[2J\x1b[31mPWNED", "bad name/../x", "-lead", "trail\n", "٣"])
def test_one_rule_for_machine_names(name: str) -> None:
    with pytest.raises(MachineNameError) as err:
        check_machine_name(name)
    assert "\x1b" not in str(err.value) and "\x00" not in str(err.value) and len(str(err.value)) < 300


@pytest.mark.parametrize("prefix", ["", "bad name/../x", "\x1b[31m"])
def test_sweep_store_prefix_follows_the_rule(menace: Invoke, prefix: str) -> None:
    r = menace("sweep", "--seeds", "1", "--games", "5", "--eval-games", "0", "--workers", "1", "--store", prefix,
               ok=False)
    assert r.exit_code == 2 and "a machine's name is" in r.output, r.output
