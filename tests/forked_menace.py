"""``menace`` commands as processes of their own, each forked from one process that has imported menace.

Each ``python -m menace`` spends 0.2 to 0.3 s of CPU importing (SQLAlchemy, the drivers, the app)
before it does anything. The tests that need a command to be a process (to kill it, signal it, hold
a machine against another process) start it from :class:`MenaceForks` instead: a server (this file
run as a script) imports menace once, then forks a child for each command. The child is a process
with its own pid, that runs what ``python -m menace ARGS`` runs after its imports
(``menace.__main__.main``, its signal handling included) with its own standard streams and
``MENACE_DB``, and exits as that would (its status, or killed by its signal). Only Python's own
start-up and the imports are shared; what is tested of those is tested with real starts
(``test_reliability_interrupt``).

The server reports on its standard output, one line each: ``PID started`` for a request, and
``PID exited STATUS`` once it has reaped a child (STATUS as :attr:`subprocess.Popen.returncode`:
``-9`` for SIGKILL): by then the pid is gone, as after ``Popen.wait``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

SERVER = Path(__file__)

PRELOADED = (
    "menace.__main__", "menace.cli", "menace.cli.tournament", "menace.cli.machines", "menace.cli.play",
    "menace.app.tournament", "menace.app.check", "menace.app.tree_cache", "menace.render.text",
    "sqlalchemy.dialects.sqlite", "psycopg", "sqlalchemy.dialects.postgresql.psycopg",
)
"""What the server imports for its children: what the tests' commands (tournament, check, play,
stats) import, on SQLite and PostgreSQL (a child imports anything else itself, as a process would)."""


class Forked:
    """One forked command, used like :class:`subprocess.Popen` (text streams, read once it has ended;
    or while it runs, from the files ``out`` and ``err`` its standard output and error go to)."""

    def __init__(self, forks: MenaceForks, pid: int, out: Path, err: Path) -> None:
        self._forks, self.pid, self.out, self.err = forks, pid, out, err
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._forks._status(self.pid, timeout=0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self._forks._status(self.pid, timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(f"menace (pid {self.pid})", timeout or 0)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:  # never signal a pid that has been reaped (and may be another's now)
            os.kill(self.pid, sig)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        self.wait(timeout)
        return self.out.read_text(), self.err.read_text()


class MenaceForks:
    """The test's side: starts the server, asks it for commands and hears when each ends.

    ``preload``: more for the server to import than :data:`PRELOADED` (what a file's commands import
    beyond those, ``menace.web.app`` for ``serve``, say), each ``module`` or ``module:function``: a
    function to call once its module is imported, before any child is forked (a test's stand-in that
    every child of this server is to have, as tests/loopback_menace.py's ``keep_to_loopback``)."""

    def __init__(self, folder: Path, preload: Sequence[str] = ()) -> None:
        self._folder = folder
        self._names = iter(range(1, 1_000_000))
        self._server = subprocess.Popen([sys.executable, str(SERVER), *preload], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, bufsize=1)
        self._changed = threading.Condition()
        self._started: list[int] = []
        self._exited: dict[int, int] = {}
        self._gone = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._server.stdout is not None
        for line in self._server.stdout:
            pid, what, *status = line.split()
            with self._changed:
                if what == "started":
                    self._started.append(int(pid))
                else:
                    self._exited[int(pid)] = int(status[0])
                self._changed.notify_all()
        with self._changed:  # the server is gone: nobody waits for it any longer
            self._gone = True
            self._changed.notify_all()

    def _status(self, pid: int, timeout: float | None) -> int | None:
        with self._changed:
            self._changed.wait_for(lambda: pid in self._exited or self._gone, timeout)
            if pid not in self._exited and self._gone:
                raise RuntimeError(f"the fork server ended before menace (pid {pid}) did")
            return self._exited.get(pid)

    def popen(self, *args: str, url: str | None, input: str | None = None, env: Mapping[str, str] | None = None,
              cwd: Path | None = None) -> Forked:
        """``MENACE_DB=url python -m menace ARGS`` as a forked process (``input``: its standard input;
        ``url`` None: no ``MENACE_DB``; ``env``: more variables; ``cwd``: the folder it runs in)."""
        name = next(self._names)
        out, err, inp = (self._folder / f"{name}.{kind}" for kind in ("out", "err", "in"))
        inp.write_text(input or "")
        request = {"args": list(args), "env": {"MENACE_DB": url, **(env or {})}, "cwd": str(cwd) if cwd else None,
                   "in": str(inp), "out": str(out), "err": str(err)}
        assert self._server.stdin is not None
        with self._changed:
            self._server.stdin.write(json.dumps(request) + "\n")
            self._server.stdin.flush()
            if not self._changed.wait_for(lambda: bool(self._started) or self._gone, 60) or not self._started:
                raise RuntimeError("the fork server did not start the command (it ended, or did not answer)")
            pid = self._started.pop(0)
        return Forked(self, pid, out, err)

    def run(self, *args: str, url: str, input: str | None = None,
            timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Like ``subprocess.run(..., capture_output=True, text=True)``."""
        proc = self.popen(*args, url=url, input=input)
        try:
            out, err = proc.communicate(timeout)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)  # as subprocess.run does
            raise
        return subprocess.CompletedProcess(args, proc.wait(), out, err)

    def close(self) -> None:
        assert self._server.stdin is not None
        self._server.stdin.close()  # the server kills what still runs (a failed test's) and ends
        self._server.wait(timeout=30)
        self._reader.join(timeout=30)
        assert self._server.stdout is not None
        self._server.stdout.close()


def _serve() -> None:
    """The server: import menace once, then fork a command for each request line on standard input."""
    import importlib

    for module in PRELOADED:
        try:
            importlib.import_module(module)
        except ImportError:  # psycopg, when it is not installed: the PostgreSQL cases are skipped then
            pass
    for name in sys.argv[1:]:  # the test's own: these must load
        module, _, function = name.partition(":")
        loaded = importlib.import_module(module)
        if function:
            getattr(loaded, function)()

    def report(line: str) -> None:
        os.write(1, line.encode())  # one write of a short line: never torn by the other writer

    def reap(signum: int, frame: Any) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.discard(pid)
            report(f"{pid} exited {os.waitstatus_to_exitcode(status)}\n")

    children: set[int] = set()  # started and not yet reaped
    signal.signal(signal.SIGCHLD, reap)
    for line in sys.stdin:
        request = json.loads(line)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # not reaped before it is known
        pid = os.fork()
        if pid == 0:
            _child(request)
        children.add(pid)
        report(f"{pid} started\n")
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    # The input has ended: a child still running was left by a test that failed half-way. Reaped
    # only here from now on, a child's pid cannot be another process's when it is killed.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    reap(signal.SIGCHLD, None)
    for pid in children:  # not reaped: still this process's child (or a zombie of it)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        report(f"{pid} exited {os.waitstatus_to_exitcode(status)}\n")


def _child(request: dict[str, Any]) -> None:
    """In the forked child: become ``python -m menace ARGS`` from its first line of menace on."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    for fd, name, mode in ((0, "in", os.O_RDONLY), (1, "out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                           (2, "err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
        opened = os.open(request[name], mode, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    # the server's own standard input may have read ahead into the next requests: a stream of its own
    sys.stdin = open(0, encoding=sys.stdin.encoding, errors=sys.stdin.errors, closefd=False)  # noqa: SIM115
    for key, value in request["env"].items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    if request.get("cwd"):
        os.chdir(request["cwd"])
    if os.environ.get("PYTHONUNBUFFERED"):  # as the interpreter does at its start
        sys.stdout.reconfigure(write_through=True)
        sys.stderr.reconfigure(write_through=True)
    sys.argv = ["menace", *request["args"]]
    code = 1
    try:
        import atexit

        from menace.__main__ import main

        try:
            main()
            code = 0
        except SystemExit as done:  # as the interpreter turns it into a status
            if done.code is None or isinstance(done.code, int):
                code = done.code or 0
            else:
                print(done.code, file=sys.stderr)
        except KeyboardInterrupt:  # as the interpreter would: the traceback, then killed by SIGINT
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        except BaseException:  # noqa: BLE001 - as the interpreter would: the traceback, status 1
            import traceback

            traceback.print_exc()
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


if __name__ == "__main__":
    _serve()

