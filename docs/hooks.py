"""MkDocs hooks: the reference tables written from the code itself, so that they cannot drift.

A page asks for a table with a marker on a line of its own:

- ``<!-- menace:http-api -->``: every route of ``menace serve`` (method, path, what it does), from
  the application's routes and their endpoints' docstrings;
- ``<!-- menace:presets -->``: every preset of ``menace init --preset`` with its settings, from
  :data:`menace.core.settings.PRESETS`;
- ``<!-- menace:cli -->``: every command's ``--help``, from the click commands themselves.

An unknown marker stops the build. The worksheets the teacher's lesson links to
(``guides/worksheets.pdf``) are drawn by ``menace worksheets``' own code as the site is built.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

MARKER = re.compile(r"^<!-- menace:([a-z-]+) -->$", re.M)


def _rst_to_markdown(text: str) -> str:
    """Docstring markup to Markdown: ``code`` to `code`, :role:`~a.b.C` to `C`."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda m: f"`{m.group(1).rsplit('.', 1)[-1]}`", text)
    text = text.replace("``", "`")
    return " ".join(text.split()).replace("|", "\\|")


def http_api_table() -> str:
    from starlette.routing import Mount, Route

    from menace.web.app import create_app

    app = create_app("sqlite:///unused.db", "menace")

    def walk(routes: list[Any], prefix: str = "") -> list[tuple[str, str, str]]:
        rows = []
        for r in routes:
            if isinstance(r, Mount):
                if r.name != "static":
                    rows += walk(list(r.routes), prefix + r.path)
            elif isinstance(r, Route):
                methods = ", ".join(sorted((r.methods or set()) - {"HEAD"}))
                doc = (r.endpoint.__doc__ or "").strip()
                # A docstring opens with the route's own name (``GET /api/x``:); the table has it.
                doc = re.sub(r"^``[A-Z]+ [^`]+``(?: \(or ``[^`]+``\))?: ?", "", doc)
                path = re.sub(r"\{(\w+):\w+\}", r"{\1}", prefix + r.path)
                rows.append((methods, path, _rst_to_markdown(doc) or "—"))
        return rows

    lines = ["| method | path | what it does |", "|---|---|---|"]
    lines += [f"| {m} | `{p}` | {d} |" for m, p, d in walk(list(app.routes))]
    return "\n".join(lines)


def presets_table() -> str:
    """One column per preset, one row per setting (the presets are few, the settings many)."""
    from menace.core.settings import PRESETS

    rows = {
        "side": lambda s: s.side,
        "initial beads": lambda s: ",".join(map(str, s.schedule)),
        "win / draw / loss": lambda s: f"{s.win:+d} / {s.draw:+d} / {s.loss:+d}",
        "beads on": lambda s: "every empty square" if s.all_squares else "moves distinct under symmetry",
        "boxes": lambda s: "one per position up to symmetry" if s.symmetry else "one per raw position",
        "empty box": lambda s: f"`{s.empty_policy.value}`",
        "reinforced": lambda s: "every bead drawn" if s.scope.value == "every" else "the last bead only",
        "forced moves": lambda s: "a box too" if s.forced_boxes else "no box",
    }
    lines = ["| | " + " | ".join(f"`{name}`" for name in PRESETS) + " |",
             "|---|" + "---|" * len(PRESETS)]
    for label, value in rows.items():
        lines.append(f"| {label} | " + " | ".join(value(s) for s in PRESETS.values()) + " |")
    return "\n".join(lines)


def cli_reference() -> str:
    """Every command's ``--help``, exactly as the terminal shows it (80 columns), parents first."""
    import click

    from menace.cli import cli

    def walk(command: click.Command, path: list[str], parent: click.Context | None) -> list[str]:
        ctx = click.Context(command, info_name=path[-1], parent=parent, terminal_width=80, max_content_width=80)
        title = " ".join(path)
        out = [f"## `{title}`" if parent else f"## `{title}` (every command)", "", "```text",
               command.get_help(ctx), "```", ""]
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    out += walk(sub, [*path, name], ctx)
        return out

    return "\n".join(walk(cli, ["menace"], None))


def on_files(files: Any, config: Any) -> Any:
    import io

    from mkdocs.structure.files import File

    from menace.render.worksheets import WorksheetSpec, write_worksheets

    pdf = io.BytesIO()
    write_worksheets(pdf, WorksheetSpec())
    files.append(File.generated(config, "guides/worksheets.pdf", content=pdf.getvalue()))
    return files


TABLES = {"http-api": http_api_table, "presets": presets_table, "cli": cli_reference}


ROOT = Path(__file__).resolve().parents[1]
TOP_FILE = re.compile(r'^--8<-- "(CONTRIBUTING\.md|CHANGELOG\.md)"$', re.M)
ROOT_LINK = re.compile(r"\]\((?:docs/)?([^)#:]+\.md)(#[^)]*)?\)")
"""A link in a file of the repository's top folder (CONTRIBUTING.md, CHANGELOG.md) that the site includes."""


def _site_link(match: re.Match[str]) -> str:
    target = {"CONTRIBUTING.md": "contributing.md", "CHANGELOG.md": "changelog.md"}.get(match.group(1), match.group(1))
    return f"]({target}{match.group(2) or ''})"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    # The top folder's files are included here rather than by the snippets extension, so that
    # their links (written for GitHub's view of the repository) can point into the site.
    markdown = TOP_FILE.sub(lambda m: ROOT_LINK.sub(_site_link, (ROOT / m.group(1)).read_text()), markdown)

    def table(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in TABLES:
            raise ValueError(f"{page.file.src_path}: unknown table marker {name!r}")
        return TABLES[name]()

    return MARKER.sub(table, markdown)
