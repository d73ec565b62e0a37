"""``menace worksheets``: the printable worksheets of the teacher's lesson (see :mod:`menace.render.worksheets`)."""

from __future__ import annotations

from pathlib import Path

import click

from menace.cli.common import FilePath


@click.command()
@click.option("--out", "out", default="worksheets.pdf", show_default=True, type=FilePath(path_type=Path),
              metavar="PATH", help="The PDF to write ('-' for standard output).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True, help="Paper size.")
@click.option("--games", type=click.IntRange(10, 200), default=30, show_default=True,
              help="Games the tally and the graph have room for.")
@click.option("--name", "name", default="MENACE", show_default=True, metavar="NAME",
              help="What the sheets call the machine (HER for Hexapawn, say).")
def worksheets(out: Path, paper: str, games: int, name: str) -> None:
    """Print the lesson's worksheets: a results tally and "how many games until it stops losing?".

    The first sheet has a row per game: who played, MENACE's result (won, draw, lost) and the
    losses so far. The second asks for a prediction before the first game, has a square per
    game for its result, a graph of the losses so far and the lesson's questions. No machine
    or database is needed.

    \b
    Examples:
      menace worksheets                                  worksheets.pdf, A4, room for 30 games
      menace worksheets --out class.pdf --paper letter --games 60
    """
    from menace.render.labels_layout import find_paper
    from menace.render.worksheets import WorksheetSpec, write_worksheets

    spec = WorksheetSpec(find_paper(paper), games, " ".join(name.split())[:40] or "MENACE")
    summary = write_worksheets(out, spec)
    click.echo(f"Wrote {out}: {summary.pages} {spec.paper.name} pages, a results tally for {games} games "
               f"({summary.tally_pages} page{'s' if summary.tally_pages > 1 else ''}) and 'How many games until "
               f"it stops losing?'.", err=str(out) == "-")
