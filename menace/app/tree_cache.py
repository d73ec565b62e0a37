"""Game trees kept on disk between runs, in the user's cache folder.

Building the tree of noughts and crosses (5,478 positions, every move played once) is a good part of
what ``menace tournament -n 1`` spends before its first game; reading it back packed
(:func:`menace.core.tree.pack_tree`, 270 kB) takes a millisecond or two. The command line hands a
:class:`DiskTreeCache` to :func:`menace.core.tree.use_tree_cache`.

A cache file is only ever a shortcut: one that cannot be read, was written by other code (another
version of menace or of the game, another Python) or is damaged is ignored and written anew; a folder
that cannot be written (a read-only home) leaves every tree to be built as before.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from contextlib import suppress
from pathlib import Path

from menace.app.files import FileWriteError, write_bytes
from menace.core import game as core_game
from menace.core import tree as core_tree
from menace.core.game import Game

ENV_VAR = "MENACE_CACHE_DIR"
"""A folder for the cache instead of the user's cache folder; set but empty: no cache at all."""
MAGIC = b"menace game tree 1\n"
MAX_BYTES = 64 << 20
"""A bigger file is not read: no tree of a game menace plays comes near it."""


def cache_folder() -> Path | None:
    """``$MENACE_CACHE_DIR``, else the user's cache folder for menace as platformdirs finds it
    (``$XDG_CACHE_HOME/menace`` or ``~/.cache/menace``, ``~/Library/Caches/menace``, ``%LOCALAPPDATA%\\menace\\Cache``);
    None: no caching."""
    chosen = os.environ.get(ENV_VAR)
    if chosen is not None:
        return Path(chosen) if chosen else None
    import platformdirs  # here: only a command that plays games needs it

    return Path(platformdirs.user_cache_dir("menace", appauthor=False))


class DiskTreeCache:
    """A :class:`~menace.core.tree.TreeCache` of one file per game in ``folder``.

    A file holds :data:`MAGIC`, the key of the code that wrote it (:meth:`key`), the SHA-256 of the
    packed tree, and the packed tree. It is written to a temporary file beside it, then moved into
    place, so that a reader sees the old file or the new one, never half of one.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._keys: dict[str, bytes | None] = {}

    def path(self, game: Game) -> Path:
        return self.folder / f"tree-{re.sub(r'[^a-z0-9_-]', '_', game.name.lower())}.bin"

    def key(self, game: Game) -> bytes | None:
        """What the tree depends on: the game's name, the code of its module and of the core that
        builds and packs trees, and the Python running them. None if that code cannot be read."""
        if game.name not in self._keys:
            import hashlib  # here: 4 ms to import, and every command sets a cache up, --help too

            digest = hashlib.sha256(f"{game.name}\n{sys.implementation.cache_tag}\n".encode())
            try:
                for module in (sys.modules[type(game).__module__], core_game, core_tree):
                    digest.update(Path(module.__file__ or "").read_bytes())
                self._keys[game.name] = digest.hexdigest().encode("ascii")
            except (KeyError, OSError):
                self._keys[game.name] = None
        return self._keys[game.name]

    def _head(self, game: Game) -> bytes | None:
        key = self.key(game)
        return None if key is None else MAGIC + key + b"\n"

    def load(self, game: Game) -> bytes | None:
        head = self._head(game)
        if head is None:
            return None
        try:
            fd = os.open(self.path(game), os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:  # none yet, a symbolic link, a folder we may not read
            return None
        try:
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    return None
                blob = f.read(MAX_BYTES + 1)
        except OSError:
            return None
        if len(blob) > MAX_BYTES or not blob.startswith(head):
            return None  # other code wrote it: it is built again and overwritten
        checksum, packed = blob[len(head):len(head) + 65], blob[len(head) + 65:]
        if checksum != _checksum(packed):
            return None  # damaged
        return packed

    def save(self, game: Game, packed: bytes) -> None:
        head = self._head(game)
        if head is None:
            return
        target = self.path(game)
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            with suppress(FileNotFoundError):
                if not stat.S_ISREG(os.lstat(target).st_mode):
                    return  # a symbolic link, a folder, ...: never replaced
            write_bytes(target, head + _checksum(packed) + packed)
        except (OSError, FileWriteError):
            pass  # a read-only home, a full disk: the tree is built again next time


def _checksum(packed: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(packed).hexdigest().encode("ascii") + b"\n"


def user_tree_cache() -> DiskTreeCache | None:
    """The cache in the user's cache folder (or ``$MENACE_CACHE_DIR``); None when caching is off."""
    folder = cache_folder()
    return DiskTreeCache(folder) if folder is not None else None
