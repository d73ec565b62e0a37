"""The layers of the tree, imports only downward; the core uses the standard library alone; only the
game modules, their registry and their players name a particular game."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest

from menace.games import game_names

PACKAGE = Path(__file__).resolve().parents[1] / "menace"

LAYERS = ["core", "puzzles", "games", "players", "storage", "app", "render", "cli", "web"]
"""Lowest first. A module may import its own layer and the layers before it, never one after."""
RANK = {name: i for i, name in enumerate(LAYERS)}
# Side by side, not above one another: the puzzles are pure like the core, the two front ends
# never import each other.
PEERS = {("core", "puzzles"), ("puzzles", "core"), ("cli", "web"), ("web", "cli")}
NOT_ABOVE = {("puzzles", "games"), ("puzzles", "players"), ("puzzles", "storage")}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "menace" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in RANK else None


def imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        out.append((".".join(rel.parts), path))
    return out


def test_every_module_sits_in_a_layer() -> None:
    loose = [name for name, _ in modules()
             if layer_of(name) is None and name not in ("menace.__init__", "menace.__main__")]
    assert loose == []


@pytest.mark.parametrize("name,path", modules(), ids=[m for m, _ in modules()])
def test_imports_only_go_down(name: str, path: Path) -> None:
    here = layer_of(name)
    if here is None:
        return
    upward = []
    for target in imports(path):
        there = layer_of(target)
        if there is None or there == here or (here, there) in PEERS:
            continue
        if RANK[there] > RANK[here] or (here, there) in NOT_ABOVE or (here, there) in PEERS:
            upward.append(target)
    assert upward == [], f"{name} ({here}) imports from a layer above it"


def test_the_core_uses_the_standard_library_only() -> None:
    allowed = set(sys.stdlib_module_names) | {"menace"}
    for name, path in modules():
        if layer_of(name) not in ("core", "puzzles"):
            continue
        outside = [t for t in imports(path) if t.split(".")[0] not in allowed]
        menace_above = [t for t in imports(path) if layer_of(t) not in (None, "core", "puzzles")]
        assert outside == [] and menace_above == [], name


GAME_CONSTANTS = re.compile(r"\b(TICTACTOE|HEXAPAWN|NIM|TicTacToe|Hexapawn|Nim)\b")
"""The games' objects and classes, as code names them (a docstring's "Hexapawn" is prose: allowed)."""


def test_only_the_games_and_their_players_name_a_game() -> None:
    """Below the games (the core) and above the players, no module names a particular game's object
    or class, nor imports a game's module: each game is reached through the registry only."""
    named = []
    for name, path in modules():
        if layer_of(name) in ("games", "players"):
            continue
        source = path.read_text(encoding="utf-8")
        code = _code_only(source)
        game_modules = [t for t in imports(path) if t.startswith("menace.games.")
                        and t.split(".")[2] in game_names()]
        if GAME_CONSTANTS.search(code) or game_modules:
            named.append(name)
    assert named == []


def test_the_grep_sees_each_game() -> None:
    """The check above would catch each registered game (it is no check if it cannot fail)."""
    for game in game_names():
        module = PACKAGE / "games" / f"{game}.py"
        assert GAME_CONSTANTS.search(_code_only(module.read_text(encoding="utf-8"))), game
    assert _code_only('"""Hexapawn"""\nx = 1  # NIM\n') .strip() == "x = 1"


def _code_only(source: str) -> str:
    """The source without its docstrings, strings and comments."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return " ".join(tok.string for tok in tokens
                    if tok.type not in (tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
                                        tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
                    and not (sys.version_info >= (3, 12) and tok.type in _FSTRING_PARTS))


_FSTRING_PARTS = {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                  if hasattr(tokenize, n)}


def test_use_cases_and_layout_draw_nothing() -> None:
    """No click and no matplotlib in the use cases; the label layout is apart from its drawing."""
    for name, path in modules():
        if layer_of(name) == "app" or name.endswith("_layout"):
            roots = {t.split(".")[0] for t in imports(path)}
            assert not roots & {"click", "matplotlib"}, name
