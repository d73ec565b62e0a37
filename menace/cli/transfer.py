"""The machine file: ``export`` and ``import`` (the format is in menace/docs/machine-file.md, installed
with the package so that the help can name a file that is there)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from menace.cli.common import AppContext, FilePath, check_machine_name, pass_app, plural, printable, where_options

MACHINE_FILE_DOC = Path(__file__).resolve().parents[1] / "docs" / "machine-file.md"
"""The format's description, as installed."""


def _naming_the_format(command: Callable[..., None]) -> Callable[..., None]:
    """Put the installed path of the format's description into the help text."""
    command.__doc__ = (command.__doc__ or "").replace("{format}", str(MACHINE_FILE_DOC))
    return command


@click.command("export")
@click.argument("file", type=FilePath(dir_okay=False, path_type=Path, allow_dash=True))
@where_options
@pass_app
@_naming_the_format
def export_cmd(app: AppContext, file: Path) -> None:
    """Write the whole machine (settings, boxes, beads, history) to a JSON file.

    The format (versioned JSON) is described in the file installed with menace:

    \b
      {format}

    Example: menace export menace.json
    """
    from menace.app.transfer import export_to_file

    # Streamed out block by block; whole or not at all, and a link, folder or device is never replaced.
    boxes, games = export_to_file(app.database, app.machine, file)
    click.echo(f"Exported {app.machine!r}: {plural(boxes, 'box', 'boxes')}, {plural(games, 'game')} -> {file}")


@click.command("import")
@click.argument("file", type=FilePath(dir_okay=False, path_type=Path))
@click.option("--as", "rename", metavar="NAME", help="Store it under this name instead of the file's.")
@click.option("--replace", is_flag=True, help="Replace a machine of the same name.")
@where_options
@pass_app
@_naming_the_format
def import_cmd(app: AppContext, file: Path, rename: str | None, replace: bool) -> None:
    """Read a machine file written by menace export into the database.

    The file is checked (format, version, checksum, and every game replayed against the
    beads) before anything is written; a damaged, truncated or foreign file changes nothing.
    The format is described in the file installed with menace:

    \b
      {format}

    \b
    Examples:
      menace import menace.json
      menace --db club.db import menace.json --as visitor
    """
    from menace.app.transfer import import_file

    if rename is not None:
        check_machine_name(rename)
    from menace.app.machines import machine_header

    name, boxes, games = import_file(app.database, file, rename=rename, replace=replace)
    counts = "odds" if machine_header(app.database, name)[1].pegasus is not None else "beads"  # the Pegasus rule
    click.echo(f"Imported {printable(name)!r}: {plural(boxes, 'box', 'boxes')}, {plural(games, 'game')}, {counts} "
               f"checked against the history.")
