"""The machine file: ``export`` and ``import`` (the format is in docs/machine-file.md)."""

from __future__ import annotations

from pathlib import Path

import click

from menace.cli.common import AppContext, FilePath, check_machine_name, pass_app, plural, printable, where_options


@click.command("export")
@click.argument("file", type=FilePath(dir_okay=False, path_type=Path, allow_dash=True))
@where_options
@pass_app
def export_cmd(app: AppContext, file: Path) -> None:
    """Write the whole machine (settings, boxes, beads, history) to a JSON file.

    The file is versioned JSON: the settings, every box with its beads now, and the history (runs,
    corrections, the games packed in base64 blocks with their tallies and checkpoints), sealed by a
    SHA-256 checksum. menace import checks all of it. The format is described field by field in
    the machine-file document of menace's source (docs/machine-file.md there).

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
def import_cmd(app: AppContext, file: Path, rename: str | None, replace: bool) -> None:
    """Read a machine file written by menace export into the database.

    The file is checked (format, version, checksum, and every game replayed against the
    beads) before anything is written; a damaged, truncated or foreign file changes nothing.

    \b
    Examples:
      menace import menace.json
      menace --db club.db import menace.json --as visitor
    """
    from menace.app.transfer import import_file

    if rename is not None:
        check_machine_name(rename)
    name, boxes, games = import_file(app.database, file, rename=rename, replace=replace)
    click.echo(f"Imported {printable(name)!r}: {plural(boxes, 'box', 'boxes')}, {plural(games, 'game')}, beads checked "
               f"against the history.")
