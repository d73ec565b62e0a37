"""Game trees kept on disk between runs: the tree read back is the tree built, and a cache file that
is damaged, foreign, a symbolic link or in a folder that cannot be written changes nothing but the
time it takes."""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from menace.app.tree_cache import MAGIC, DiskTreeCache, cache_folder
from menace.core.game import Game
from menace.core.tree import GameTree, build_game_tree, cached_game_tree, pack_tree, unpack_tree
from menace.games import find_game, game_names

GAMES = [find_game(name) for name in game_names()]


def same_tree(a: GameTree, b: GameTree) -> bool:
    return (a.states, a.index, a.root, a.result, a.kids, a.to_move, a.legal) == \
        (b.states, b.index, b.root, b.result, b.kids, b.to_move, b.legal)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_tree_read_back_is_the_tree_built(tmp_path: Path, game: Game) -> None:
    cache = DiskTreeCache(tmp_path / "cache")
    built = build_game_tree(game)
    assert same_tree(cached_game_tree(game, cache), built)  # built, then written
    packed = cache.load(game)
    assert packed is not None and packed == pack_tree(built)
    read = unpack_tree(game, packed)
    assert same_tree(read, built)
    assert {type(s) for s in read.to_move} == {type(s) for s in built.to_move}  # Side, not int
    assert same_tree(cached_game_tree(game, cache), built)


def test_the_golden_count_from_the_cache(tmp_path: Path) -> None:
    game = find_game("tictactoe")
    cache = DiskTreeCache(tmp_path)
    cached_game_tree(game, cache)
    assert cache.load(game) is not None
    assert len(cached_game_tree(game, cache).states) == 5478


def _payload(path: Path) -> tuple[bytes, bytearray]:
    data = path.read_bytes()
    head = len(MAGIC) + 65
    return data[:head], bytearray(data[head + 65:])


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF
    path.write_bytes(bytes(data))


def written_by_other_code(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(MAGIC + b"0" * 64 + data[len(MAGIC) + 64:])


def checksummed_nonsense(path: Path) -> None:
    """The header and the checksum right, the tree not one (what a bug in the writer would leave)."""
    data = path.read_bytes()
    head = data[:len(MAGIC) + 65]
    packed = bytearray(data[len(head) + 65:])
    packed[12 + 5478 * 9 + 5478 * 9 * 4 + 7] = 9  # a result code that is none
    path.write_bytes(head + hashlib.sha256(packed).hexdigest().encode() + b"\n" + packed)


DAMAGE: dict[str, Callable[[Path], object]] = {
    "a flipped byte": flip_a_byte,
    "cut short": lambda p: p.write_bytes(p.read_bytes()[:1000]),
    "empty": lambda p: p.write_bytes(b""),
    "garbage": lambda p: p.write_bytes(os.urandom(5000)),
    "written by other code": written_by_other_code,
    "a checksum over something else": checksummed_nonsense,
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_bad_cache_file_is_ignored_and_written_anew(tmp_path: Path, damage: str) -> None:
    game = find_game("tictactoe")
    cache = DiskTreeCache(tmp_path)
    built = build_game_tree(game)
    cached_game_tree(game, cache)
    good = cache.path(game).read_bytes()
    DAMAGE[damage](cache.path(game))
    assert cache.path(game).read_bytes() != good
    if damage != "a checksum over something else":  # that one passes the file's checks, not the tree's
        assert cache.load(game) is None
    assert same_tree(cached_game_tree(game, cache), built)
    packed = cache.load(game)  # built again and written anew
    assert packed is not None and same_tree(unpack_tree(game, packed), built)
    assert [p.name for p in tmp_path.iterdir()] == [cache.path(game).name]  # no temporary file left


def test_a_folder_that_cannot_be_written_is_tolerated(tmp_path: Path) -> None:
    game = find_game("hexapawn")
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    cache = DiskTreeCache(blocker / "cache")  # as in a read-only home: making the folder fails
    assert same_tree(cached_game_tree(game, cache), build_game_tree(game))
    assert cache.load(game) is None


def test_a_symbolic_link_is_neither_followed_nor_replaced(tmp_path: Path) -> None:
    game = find_game("hexapawn")
    other = DiskTreeCache(tmp_path / "other")
    cached_game_tree(game, other)
    precious = tmp_path / "precious"
    precious.write_bytes(other.path(game).read_bytes())  # a good tree file, behind a link
    cache = DiskTreeCache(tmp_path / "cache")
    cache.folder.mkdir()
    cache.path(game).symlink_to(precious)
    assert cache.load(game) is None
    before = precious.read_bytes()
    assert same_tree(cached_game_tree(game, cache), build_game_tree(game))
    assert cache.path(game).is_symlink() and precious.read_bytes() == before


def packed(n: int, states: bytes, kids: list[int], result: bytes, movers: bytes, counts: bytes, moves: bytes,
           move_count: int = 9, magic: bytes = b"MGT1") -> bytes:
    """Bytes laid out as :func:`pack_tree` lays them out."""
    head = struct.pack("<4sIHH", magic, n, len(states) // n, move_count)
    return head + states + struct.pack(f"<{len(kids)}i", *kids) + result + movers + counts + moves


START = bytes(9)
ONE = (START, [-1] * 9, b"\0", b"\1", b"\0", b"")
"""A tree of one position, the start, with no move: well formed (a test below reads it)."""
NOT_TREES = {
    "nothing": b"",
    "garbage": b"\x00" * 40,
    "another magic": packed(1, *ONE, magic=b"MGT9"),
    "another game's number of moves": packed(1, START, [-1] * 4, b"\0", b"\1", b"\0", b"", move_count=4),
    "not the initial position": packed(1, bytes([1] * 9), *ONE[1:]),
    "a result that is not one": packed(1, START, [-1] * 9, b"\7", b"\1", b"\0", b""),
    "a side that is not one": packed(1, START, [-1] * 9, b"\0", b"\3", b"\0", b""),
    "sizes that do not add up": packed(1, START, [-1] * 9, b"\0", b"\1", b"\2", b"\0"),
    "a position twice": packed(2, START * 2, [-1] * 18, b"\0\0", b"\1\1", b"\0\0", b""),
}


@pytest.mark.parametrize("name", list(NOT_TREES))
def test_what_is_not_a_tree_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="not a game tree of tictactoe"):
        unpack_tree(find_game("tictactoe"), NOT_TREES[name])


def test_the_refusals_are_for_their_one_fault() -> None:
    tree = unpack_tree(find_game("tictactoe"), packed(1, *ONE))
    assert tree.states == [(0,) * 9] and tree.kids == [[-1] * 9] and tree.legal == [()]


def test_the_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MENACE_CACHE_DIR", str(tmp_path))
    assert cache_folder() == tmp_path
    monkeypatch.setenv("MENACE_CACHE_DIR", "")
    assert cache_folder() is None
    monkeypatch.delenv("MENACE_CACHE_DIR")
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert cache_folder() == tmp_path / "xdg" / "menace"
        monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
        assert cache_folder() == Path.home() / ".cache" / "menace"


def run_menace(env_cache: str, cwd: Path, *args: str) -> None:
    home = cwd / "home"  # where the user's cache folder would be
    env = {**os.environ, "MENACE_CACHE_DIR": env_cache, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    done = subprocess.run([sys.executable, "-m", "menace", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_commands_keep_the_tree_in_the_cache_folder(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run_menace(str(cache), tmp_path, "init")
    run_menace(str(cache), tmp_path, "tournament", "-n", "3", "--seed", "1")
    assert [p.name for p in cache.iterdir()] == ["tree-tictactoe.bin"]
    first = (cache / "tree-tictactoe.bin").stat().st_mtime_ns
    run_menace(str(cache), tmp_path, "tournament", "-n", "3", "--seed", "2")
    assert (cache / "tree-tictactoe.bin").stat().st_mtime_ns == first  # read, not written again


def test_an_empty_cache_folder_setting_turns_the_cache_off(tmp_path: Path) -> None:
    run_menace("", tmp_path, "init")
    run_menace("", tmp_path, "tournament", "-n", "3", "--seed", "1")
    assert list(tmp_path.rglob("tree-*")) == []  # neither here nor in the user's cache folder
