"""Writing files safely: the one way every command writes one (export, labels, plots, sweeps).

A file is written to a temporary file created exclusively (a random name, ``O_EXCL``) in the
target's own folder, then moved over the target with :func:`os.replace`: the target is either
the old file or the whole new one, never half of one. Nothing planted there is followed: the
temporary name is new, and a target that is a symbolic link, a folder or any other thing that
is not a regular file is refused. A character device (``/dev/null``, a terminal) is written
straight into, never replaced; ``-`` means standard output. On any failure (a full disk, a
read-only folder, Ctrl-C) the temporary file is removed and :class:`FileWriteError` names the file.
A process killed while it writes (SIGKILL, a power cut) cannot remove its own: the temporary name
says which host and process made it, and the next write of the same file here removes those whose
process is gone.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> write_text(folder / "a.txt", "hello\\n").read_text()
'hello\\n'
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from menace.core.errors import UnavailableError

STDOUT = "-"


class FileWriteError(UnavailableError):
    """A file that cannot be written as asked; the message names it."""


def _why(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return "no space left on the device (or the file size limit was reached)"
    return exc.strerror or str(exc)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def open_for_writing(path: str | Path) -> Iterator[IO[bytes]]:
    """A binary file to write ``path`` through; the file appears whole when the block ends.

    ``-`` is standard output and a character device is written directly; anything else that
    exists must be a regular file (not a link, a folder, a pipe or a block device).
    """
    if str(path) == "":
        raise FileWriteError("no file name given")
    if "\0" in str(path):
        raise FileWriteError(f"{str(path)!r} is not a file name: it holds a NUL character")
    if str(path) == STDOUT:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise FileWriteError(f"cannot write {target}: {_why(exc)}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise FileWriteError(f"{target} is a symbolic link; refusing to write through it (give the real file)")
    if info is not None and stat.S_ISCHR(info.st_mode):
        with _errors(target), open(target, "wb") as device:
            yield device
        return
    if info is not None and not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise FileWriteError(f"{target} is {kind}; refusing to replace it")
    folder = target.parent
    if not folder.is_dir():
        raise FileWriteError(f"cannot write {target}: folder {folder} does not exist")
    with _errors(target):
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{_prefix(target.name)}{os.getpid()}-", suffix=".tmp")
    try:
        with _errors(target), os.fdopen(fd, "wb") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
            mode = (info.st_mode & 0o7777) if info is not None else (0o666 & ~_umask())
            os.chmod(tmp, mode)
        with _errors(target):
            os.replace(tmp, target)
        _remove_litter(folder, target.name)
    except BaseException:
        with _errors(target):
            if os.path.lexists(tmp):
                os.unlink(tmp)
        raise


def _prefix(name: str) -> str:
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-_")[:24]
    return f".{name[:40]}.{host}-"


def _remove_litter(folder: Path, name: str) -> None:
    """Remove the temporary files of writes of ``name`` by processes of this host that are gone
    (killed while they wrote)."""
    prefix = _prefix(name)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
            continue
        pid = entry.name[len(prefix):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            with suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


@contextmanager
def _errors(target: Path) -> Iterator[None]:
    try:
        yield
    except FileWriteError:
        raise
    except OSError as exc:
        raise FileWriteError(f"cannot write {target}: {_why(exc)}") from None


def check_target(path: str | Path) -> None:
    """Refuse now, with the :class:`FileWriteError` :func:`open_for_writing` would raise later, a
    target it could never write (no folder, a folder, a link): for commands that work a long time
    before they write."""
    if str(path) in ("", STDOUT) or "\0" in str(path):
        return  # said by open_for_writing itself, at once
    target = Path(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise FileWriteError(f"cannot write {target}: {_why(exc)}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise FileWriteError(f"{target} is a symbolic link; refusing to write through it (give the real file)")
    if info is not None and not (stat.S_ISREG(info.st_mode) or stat.S_ISCHR(info.st_mode)):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise FileWriteError(f"{target} is {kind}; refusing to replace it")
    if not target.parent.is_dir():
        raise FileWriteError(f"cannot write {target}: folder {target.parent} does not exist")
    if not os.access(target.parent, os.W_OK | os.X_OK):
        raise FileWriteError(f"cannot write {target}: folder {target.parent} is not writable")


def write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` safely (see :func:`open_for_writing`)."""
    with open_for_writing(path) as f:
        f.write(data)
    return Path(path)


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` safely."""
    return write_bytes(path, text.encode("utf-8"))


def write_with(path: str | Path, writer: Callable[[IO[bytes]], None]) -> Path:
    """Let ``writer`` write into ``path`` safely (for matplotlib, PdfPages, csv)."""
    with open_for_writing(path) as f:
        writer(f)
    return Path(path)
