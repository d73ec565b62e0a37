"""``menace labels``: the printable build kit for a stored machine (see :mod:`menace.render.labels`)."""

from __future__ import annotations

import contextlib
import re
import sys
from pathlib import Path

import click

from menace.cli.common import (
    AppContext,
    FilePath,
    board_marks,
    colours_option,
    machine_colours,
    pass_app,
    where_options,
)
from menace.core.colours import BeadColour
from menace.games import find_game
from menace.render.beads import places_pieces
from menace.render.labels_layout import (
    BEAD_CHOICES,
    DEFAULT_LABEL,
    PAPERS,
    SHEETS,
    KitSpec,
    LabelLayoutError,
    LabelSize,
    check_label,
    check_readable,
    find_paper,
    find_sheet,
    parse_label_size,
)

_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%?\s*$")


def _label_size(ctx: click.Context, param: click.Parameter, value: str | None) -> LabelSize | None:
    if value is None:
        return None
    try:
        return parse_label_size(value)
    except LabelLayoutError as exc:
        raise click.BadParameter(str(exc)) from None


def _spare(ctx: click.Context, param: click.Parameter, value: str) -> float:
    match = _PERCENT.match(value)
    if not match:
        raise click.BadParameter(f"{value!r} is not a percentage like 50% or 0")
    return float(match.group(1))


@click.command()
@click.option("--out", "out", required=True, type=FilePath(path_type=Path), metavar="PATH",
              help="The PDF to write; with --format svg, the folder for one SVG per box.")
@click.option("--format", "fmt", type=click.Choice(["pdf", "svg"]), default="pdf", show_default=True,
              help="pdf: the whole kit to print. svg: one file per label, for cutters and label printers.")
@click.option("--paper", type=click.Choice(sorted(PAPERS)), default="a4", show_default=True, help="Paper size.")
@click.option("--label-size", "label_size", callback=_label_size, metavar="WxH",
              help="Label size in mm, width x height [default: 53x36, the top of a household matchbox].")
@click.option("--sheet", type=click.Choice(sorted(SHEETS)),
              help="Print on a sticker sheet: a4-21 is the A4 sheet of 21 labels of 63.5 x 38.1 mm.")
@click.option("--colours", callback=colours_option, metavar="LIST",
              help="Nine bead colours for squares a1..c3, as name=#rrggbb or name:L=#rrggbb, comma-separated.")
@click.option("--spare", callback=_spare, default="50%", show_default=True, metavar="PERCENT",
              help="Extra beads to buy per colour, as a share of the initial fill.")
@click.option("--beads", "beads", type=click.Choice(BEAD_CHOICES), default="start", show_default=True,
              help="start: the beads a new machine starts with. now: the beads its boxes hold now, to copy a "
                   "trained machine into real matchboxes.")
@click.option("--at-most", "most", type=click.IntRange(min=1), metavar="N",
              help="At most N beads in a box: each box's beads scaled down keeping their proportions, a move "
                   "that has beads keeping one at least (for --beads now: a long-trained machine one can buy "
                   "and fill).")
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr (shown only on a terminal anyway).")
@where_options
@pass_app
def labels(obj: AppContext, out: Path, fmt: str, paper: str, label_size: LabelSize | None, sheet: str | None,
           colours: tuple[BeadColour, ...] | None, spare: float, beads: str, most: int | None, quiet: bool) -> None:
    """Print the build kit for a real MENACE: labels, shopping list, fill list, shelf map.

    One label per matchbox: its number, move, the position drawn with a coloured,
    lettered dot on every square that holds beads, an UP mark, and the beads that go in
    at the start (--beads now: the beads the box holds now, so that a trained machine
    can be copied into matchboxes; the fill and shopping lists follow). Print the PDF at
    100% (no "fit to page"); its first page has a 100 mm ruler to check. Progress goes
    to stderr when it is a terminal.

    \b
    Examples:
      menace labels --out labels.pdf                        A4, 53 x 36 mm labels to cut out
      menace labels --out labels.pdf --paper letter
      menace labels --out labels.pdf --sheet a4-21          A4 sticker sheets of 21 labels
      menace labels --out labels.pdf --label-size 60x40 --spare 25%
      menace -m second labels --out second.pdf              the machine named "second"
      menace labels --format svg --out labels/              one SVG per box
      menace labels --out trained.pdf --beads now           the beads as trained
      menace labels --out trained.pdf --beads now --at-most 100   ...scaled to 100 beads a box at most
    """

    if sheet is not None:
        sticker = find_sheet(sheet)
        if label_size is not None and label_size != sticker.label:
            raise click.UsageError(f"--sheet {sheet} has its own label size ({sticker.label}); leave out "
                                   f"--label-size")
        if find_paper(paper) != sticker.paper:
            raise click.UsageError(f"--sheet {sheet} is {sticker.paper.name} paper; leave out --paper {paper}")
    chosen_paper = find_paper(paper)
    label = label_size or DEFAULT_LABEL
    try:
        if sheet is None and fmt == "pdf":
            check_label(chosen_paper, label)
        check_readable(label)
    except LabelLayoutError as exc:
        raise click.BadParameter(str(exc), param_hint="'--label-size'") from None
    from menace.app.machines import load_for_kit

    stored = load_for_kit(obj.database, obj.machine)
    boxes = stored.boxes
    game = find_game(stored.game)
    palette = machine_colours(stored.colours, colours, places_pieces(game), game.colours, board_marks(game))
    spec = KitSpec(stored.name, stored.settings, game, palette, chosen_paper, label,
                   find_sheet(sheet) if sheet else None, spare, beads, most)
    from menace.render.labels import write_pdf, write_svgs  # the drawing: loaded only to draw

    what = "labels" if fmt == "svg" else "pages"
    try:
        with contextlib.ExitStack() as stack:
            progress = None
            if not quiet and sys.stderr.isatty():
                bar = stack.enter_context(click.progressbar(length=1, label=f"drawing {what}", file=sys.stderr))

                def progress(done: int, total: int) -> None:
                    bar.length = total
                    bar.update(done - bar.pos)
            if fmt == "svg":
                result = write_svgs(out, boxes, spec, progress)
            else:
                result = write_pdf(out, boxes, spec, progress)
    except LabelLayoutError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {out}: {exc.strerror or exc}") from None
    when = "" if beads == "start" else " as they are now"
    fill = (f"{result.shopping.fill:,} beads to fill{when}, {result.shopping.buy:,} to buy with "
             f"{spare:g}% spare")
    if fmt == "svg":
        click.echo(f"Wrote {result.labels:,} SVG labels ({spec.label}) of {spec.machine!r} to {out}/: {fill}.")
    else:
        first, last = result.label_pages
        click.echo(f"Wrote {out}: {result.pages} {spec.paper.name} pages, {result.labels:,} labels of {spec.label} "
                   f"on pages {first}-{last}, {fill}.")
