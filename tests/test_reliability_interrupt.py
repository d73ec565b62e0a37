"""Ctrl-C at any moment of start-up: status 130 and one line, never a traceback or click's 'Aborted!'.

Each stage is reached deterministically: started through ``paused_menace.py`` (beside this file), the
process says ``paused at STAGE`` on stderr when it gets there and waits; the test sends SIGINT on that
line (a readiness signal, no guessed delay).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import menace

PAUSED = Path(__file__).with_name("paused_menace.py")
STAGES = ["start", "start/class", "imported", "parsing", "command", "command/class"]
"""Before the command line is imported, inside the making of a class as the command line is imported
(Python hands the signal on wrapped in a RuntimeError there), after it, while the arguments are
parsed, and as the command begins, there too inside the making of a class (a late import; see
``menace.interrupts.reached``)."""


def _spawn(tmp_path: Path, stage: str | None, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "MENACE_DB": str(tmp_path / "m.db")}
    start = [sys.executable, "-m", "menace"] if stage is None else [sys.executable, str(PAUSED), stage]
    return subprocess.Popen([*start, *args], env=env, cwd=tmp_path,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _lines(err: bytes) -> list[str]:
    return [line for line in err.decode(errors="replace").splitlines() if line.strip()]


@pytest.mark.parametrize("args", [("stats",), ("tournament", "-n", "5")], ids=["stats", "tournament"])
@pytest.mark.parametrize("stage", STAGES)
def test_ctrl_c_at_every_stage_of_start_up_exits_130_with_one_line(tmp_path: Path, stage: str,
                                                                   args: tuple[str, ...]) -> None:
    with _spawn(tmp_path, stage, *args) as proc:  # its pipes closed and the process reaped, whatever happens
        try:
            assert proc.stderr is not None
            ready = proc.stderr.readline()  # the readiness signal
            assert ready == f"paused at {stage}\n".encode(), ready
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 130, (out, err)
    assert _lines(err) == ["Interrupted."], err


def _pythons_own_start_up_failed(returncode: int, err: bytes) -> bool:
    """Python stopped by the signal while it was itself still starting (its streams, the site
    module and the ``.pth`` hooks it runs, an editable install's finder among them), before a line
    of menace ran: it reports a "Fatal Python error" from its initialization, with no frame in
    menace's own code. Nothing a program can do about that (``menace.__main__`` says so)."""
    text = err.decode(errors="replace")
    frames = [line for line in text.splitlines() if line.lstrip().startswith("File ")]
    package = str(Path(menace.__file__).resolve().parent) + os.sep
    return (returncode == 1 and text.startswith("Fatal Python error: init_")
            and not any(package in frame for frame in frames))


def test_ctrl_c_straight_after_spawn_never_shows_a_traceback(tmp_path: Path) -> None:
    # Not deterministic (it lands wherever start-up has got to); before Python has installed its own
    # handler the default action ends the process by the signal itself (a shell shows 130 too).
    for _ in range(3):
        proc = _spawn(tmp_path, None, "stats")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        if _pythons_own_start_up_failed(proc.returncode, err):
            continue
        assert proc.returncode in (130, -signal.SIGINT), (proc.returncode, err)
        assert b"Traceback" not in err and b"Aborted" not in err, err
        assert len(_lines(err)) <= 1, err


def test_python_failing_in_its_own_start_up_is_told_apart_from_menace() -> None:
    own = (b"Fatal Python error: init_sys_streams: can't initialize sys standard streams\n"
           b"Python runtime state: core initialized\nTraceback (most recent call last):\n"
           b'  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load\n'
           b'  File "<frozen io>", line 53, in <module>\nKeyboardInterrupt\n')
    assert _pythons_own_start_up_failed(1, own)
    # the site module running the .pth hook of an editable install, which imports the standard library
    site = (b"Fatal Python error: init_import_site: Failed to import the site module\n"
            b"Python runtime state: initialized\nTraceback (most recent call last):\n"
            b'  File "<frozen site>", line 186, in addpackage\n  File "<string>", line 1, in <module>\n'
            b'  File "/v/lib/python3.11/site-packages/__editable___menace_0_1_0_finder.py", line 7, in <module>\n'
            b'  File "/usr/lib/python3.11/pathlib.py", line 14, in <module>\nKeyboardInterrupt\n')
    assert _pythons_own_start_up_failed(1, site)
    inside = Path(menace.__file__).resolve().parent / "cli" / "__init__.py"
    ours = own.replace(b'  File "<frozen io>"', f'  File "{inside}"'.encode())
    assert not _pythons_own_start_up_failed(1, ours)
    assert not _pythons_own_start_up_failed(1, b"Traceback (most recent call last):\nKeyboardInterrupt\n")


@pytest.mark.parametrize("stage", STAGES)
def test_sigterm_at_every_stage_of_start_up_exits_143_with_one_line(tmp_path: Path, stage: str) -> None:
    """SIGTERM (a service manager stopping it, ``kill``) as Ctrl-C: one line, nothing changed, its own
    status; it used to end the process silently until a command installed its own handler."""
    db = tmp_path / "m.db"
    with _spawn(tmp_path, stage, "init") as proc:
        try:
            assert proc.stderr is not None
            ready = proc.stderr.readline()
            assert ready == f"paused at {stage}\n".encode(), ready
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 143, (out, err)
    assert _lines(err) == ["Terminated."], err
    assert not db.exists()  # nothing made
