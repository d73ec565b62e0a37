"""The layers of the tree, imports only downward; the core uses the standard library alone; only the
game modules, their registry and their players name a particular game."""

from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

from menace.games import game_names

PACKAGE = Path(__file__).resolve().parents[1] / "menace"

LAYERS = ["core", "puzzles", "games", "players", "storage", "app", "render", "web", "cli"]
"""Lowest first. A module may import its own layer and the layers before it, never one after. The
command line is the top: ``menace serve`` starts the web front end, which never imports the CLI."""
RANK = {name: i for i, name in enumerate(LAYERS)}
# Side by side, not above one another: the puzzles are pure like the core.
PEERS = {("core", "puzzles"), ("puzzles", "core")}
NOT_ABOVE = {("puzzles", "games"), ("puzzles", "players"), ("puzzles", "storage")}
CLI_TO_WEB = {"menace.cli.serve"}
"""The only command that imports the web front end: the one that serves it."""


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "menace" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in RANK else None


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(rel.parts)


def imports(path: Path) -> list[str]:
    """Every module ``path`` imports, anywhere in it (inside functions too), relative imports resolved:
    for ``from X import Y`` both ``X`` and ``X.Y`` (Y may be a module or a name in X)."""
    return imports_in(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")


@functools.cache
def parsed(source: str) -> ast.Module:
    """``source`` parsed once per process: several checks read the same modules (none changes a tree)."""
    return ast.parse(source)


def imports_in(source: str, module: str, is_package: bool) -> list[str]:
    """:func:`imports` of the text ``source`` of ``module`` (``menace.cli.__init__`` for a package's face)."""
    tree = parsed(source)
    # the package a relative import starts from: a module's own, or the package a face stands for
    package = module.removesuffix(".__init__").split(".")
    if not is_package:
        package = package[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[: len(package) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found.append(base)
            found += [f"{base}.{alias.name}" for alias in node.names]
    return found


def modules() -> list[tuple[str, Path]]:
    return [(module_name(path), path) for path in sorted(PACKAGE.rglob("*.py"))]


def test_relative_imports_are_resolved() -> None:
    """The checks below see ``from ..web import app`` as the import it is, in a module and in a
    package's face (``__init__.py``), without writing a probe into the package."""
    assert "menace.web.app" in imports(PACKAGE / "cli" / "serve.py")  # a real file is read
    in_module = set(imports_in("from ..web import app\nfrom . import common\n", "menace.cli.serve", False))
    assert {"menace.web", "menace.web.app", "menace.cli", "menace.cli.common"} <= in_module
    in_face = set(imports_in("from .base import RulePlayer\nfrom . import registry\nfrom ..core import player\n",
                             "menace.players.__init__", True))
    assert {"menace.players.base", "menace.players.base.RulePlayer", "menace.players.registry",
            "menace.core.player"} <= in_face


def test_every_module_sits_in_a_layer() -> None:
    loose = [name for name, _ in modules()
             if layer_of(name) is None and name not in ("menace.__init__", "menace.__main__", "menace.interrupts")]
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
        if (here, there) == ("cli", "web") and name in CLI_TO_WEB:
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


def game_mentions(text: str) -> list[str]:
    """The ways ``text`` names a registered game: its constant (``TICTACTOE``), its name as a string
    (``"hexapawn"``, in code or in a doctest), or its module."""
    from menace.games import game_names

    found = []
    for game in game_names():
        for form in (game.upper(), f'"{game}"', f"'{game}'", f"menace.games.{game}"):
            if re.search(rf"(?<![A-Za-z0-9_]){re.escape(form)}(?![A-Za-z0-9_])", text):
                found.append(form)
    return found


def test_the_game_check_sees_literals_constants_and_doctests() -> None:
    assert game_mentions('>>> find_game("tictactoe")') == ['"tictactoe"']
    assert game_mentions("x = HEXAPAWN") == ["HEXAPAWN"]
    assert game_mentions("from menace.games.hexapawn import GLYPHS") == ["menace.games.hexapawn"]
    assert game_mentions("a game of noughts and crosses; tictactoe_like = 1") == []


def test_only_the_games_and_their_players_name_a_game() -> None:
    named = {}
    for name, path in modules():
        if layer_of(name) in ("games", "players"):
            continue
        found = game_mentions(path.read_text(encoding="utf-8"))
        if found:
            named[name] = found
    assert named == {}


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (a package stands for its ``__init__``)."""
    names = {name.removesuffix(".__init__"): name for name, _ in modules()}
    graph: dict[str, set[str]] = {}
    for name, path in modules():
        here = name.removesuffix(".__init__")
        graph[here] = {t for t in imports(path) if t in names and t != here}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_goes_in_a_circle() -> None:
    """Imports inside functions count: a circle dodged that way is still a circle."""
    assert cycles(import_graph()) == []


def test_the_grep_sees_each_game() -> None:
    """The check above would catch each registered game (it is no check if it cannot fail)."""
    for game in game_names():
        assert game_mentions(f'find_game("{game}")') == [f'"{game}"'], game
        assert game_mentions(f"from menace.games.{game} import x") == [f"menace.games.{game}"], game


def test_use_cases_and_layout_draw_nothing() -> None:
    """No click and no matplotlib in the use cases; the label layout is apart from its drawing."""
    for name, path in modules():
        if layer_of(name) == "app" or name.endswith("_layout"):
            roots = {t.split(".")[0] for t in imports(path)}
            assert not roots & {"click", "matplotlib"}, name


def test_the_migrations_run_code_of_their_own_and_menace_never_imports_them() -> None:
    """The migrations are history: what they run sits beside them (``menace.migrations.archive``),
    not in live code a later change could alter under them; and menace itself never imports them
    (Alembic loads them by path), so nothing live can come to depend on them either."""
    migrations = PACKAGE.parent / "migrations"
    for path in sorted(migrations.rglob("*.py")):
        menace_imports = {m for m in imports(path) if m.startswith("menace.")}
        live = {m for m in menace_imports
                if not m.startswith("menace.migrations") and m not in ALLOWED_FROM_MIGRATIONS}
        assert not live, (path.name, sorted(live))
    for name, path in modules():
        assert not [m for m in imports(path) if m.startswith("menace.migrations")], name


ALLOWED_FROM_MIGRATIONS = {
    # env.py connects Alembic to the live schema and engine: that is what a migration run is for.
    "menace.storage.database", "menace.storage.database.make_engine",
    "menace.storage.models", "menace.storage.models.metadata",
}


def test_the_migrations_and_the_live_code_name_the_archive_table_alike() -> None:
    """The table where a downgrade keeps rows is named twice, frozen beside the migrations and in
    the live code that looks for it (``check``, the schema's state): the same name."""
    from menace.migrations.archive import ARCHIVE

    from menace.storage.database import ARCHIVE_TABLE

    assert ARCHIVE == ARCHIVE_TABLE == "menace_archive"


def test_no_assert_guards_a_production_path() -> None:
    """``python -O`` drops asserts: what the code relies on is raised as an error
    (:func:`menace.core.errors.known` where a value is known to be there). The migrations too."""
    migrations = sorted((PACKAGE.parent / "migrations").rglob("*.py"))
    found = [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
             for path in [*(path for _, path in modules()), *migrations]
             for node in ast.walk(parsed(path.read_text(encoding="utf-8"))) if isinstance(node, ast.Assert)]
    assert found == []


def unused_names(package: dict[str, str], elsewhere: list[str]) -> list[str]:
    """The top-level functions, classes and names of the ``package`` modules (name -> source) that
    no source, the package's or ``elsewhere``, uses: not called, read, imported or named in a string
    (a command found by its ``"module:name"``, ``__all__``). A definition made by a decorator
    (a command, a route) is used by it; a docstring that mentions a name does not use it."""
    used: set[str] = set()
    trees = {name: parsed(source) for name, source in package.items()}
    for tree in trees.values():
        used |= names_used(tree)
    found = []
    for module, tree in trees.items():
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [] if node.decorator_list else [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                names = [node.target.id]
            else:
                names = []
            found += [f"{module}.{name}" for name in names if not name.startswith("__") and name not in used]
    if not found or not elsewhere:
        return found
    # Only a source that spells one of the names left can use it (as a name, an attribute, an import
    # or a word in a string): only those are parsed, a third of the tests' text.
    left = {f.rpartition(".")[2] for f in found}
    spelled = re.compile(r"(?<![A-Za-z0-9_])(?:" + "|".join(map(re.escape, sorted(left))) + r")(?![A-Za-z0-9_])")
    for source in elsewhere:
        if spelled.search(source):
            used |= names_used(ast.parse(source))  # read once: not kept
    return [f for f in found if f.rpartition(".")[2] not in used]


def names_used(tree: ast.Module) -> set[str]:
    """The names a module uses: read (not only assigned), as an attribute, imported, or a word in a
    string that is not a docstring."""
    used: set[str] = set()
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.alias):
            used.add(node.name.rpartition(".")[2])
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            used.update(re.findall(r"[A-Za-z_]\w*", node.value))
    return used


def test_the_unused_check_finds_what_nothing_uses() -> None:
    module = ('def used(): pass\n@register\ndef hooked(): pass\ndef dead():\n    """dead is never called"""\n'
              'X = used()\nLAZY = "m:loaded"\ndef loaded(): pass\n')
    assert unused_names({"m": module}, ["from m import X\nprint(LAZY)\n"]) == ["m.dead"]
    assert unused_names({"m": module}, []) == ["m.dead", "m.X", "m.LAZY"]
    # a source is parsed, not grepped: a name in a comment or a docstring there does not use it
    assert unused_names({"m": module}, ['"""X"""\n# dead\nprint(LAZY)\n']) == ["m.dead", "m.X"]


def test_nothing_the_package_defines_is_left_unused() -> None:
    """Dead code goes (what a test or a benchmark uses is used): what no code calls is still read,
    kept in step and trusted by whoever comes next."""
    root = PACKAGE.parent
    elsewhere = [path.read_text(encoding="utf-8") for folder in ("tests", "benchmarks", "migrations")
                 for path in sorted((root / folder).rglob("*.py"))]
    elsewhere.append((root / "cli.py").read_text(encoding="utf-8"))
    package = {name: path.read_text(encoding="utf-8") for name, path in modules()}
    assert unused_names(package, elsewhere) == []


ENGINE_MAKERS = {"create_engine", "make_engine", "open_database", "upgrade_database"}
"""What builds a SQLAlchemy Engine (and so a pool of connections) on a database from its URL
(``upgrade_database(url)`` did, for ``menace upgrade``, until the owner took it over)."""


def test_only_the_database_owner_builds_an_engine() -> None:
    """Above storage, an engine is made only by the one object that owns the database
    (:class:`menace.app.database.Database`): every command and the server reach theirs through it."""
    found = []
    for name, path in modules():
        if layer_of(name) == "storage" or name == "menace.app.database":
            continue
        for node in ast.walk(parsed(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                called = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                if called in ENGINE_MAKERS:
                    found.append(f"{name}:{node.lineno} {called}")
    assert found == []
