"""Files a front end hands out as downloads: the build kit's PDF and the plots, as bytes.

The commands write these to a path the user names; a web page needs the bytes instead.
The drawing code (matplotlib for the plots) is imported only when one is asked for.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from menace.app.database import Database
from menace.app.machines import load_for_kit
from menace.core.colours import default_colours, parse_colours
from menace.core.errors import NotFoundError

PLOTS = ("beads", "learning", "boxes")
PLOT_FORMATS = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}


class DownloadError(NotFoundError):
    """A download asked for that does not exist (an unknown plot or format)."""


def labels_pdf(db: Database, name: str, paper: str = "a4") -> bytes:
    """``menace labels``: the whole build kit (cover, shopping list, labels, fill list, shelf map)
    as PDF, in the machine's own colours."""
    from menace.games import find_game
    from menace.render.beads import places_pieces
    from menace.render.labels import KitSpec, find_paper, write_pdf

    stored = load_for_kit(db, name)
    game = find_game(stored.game)
    colours = parse_colours(stored.colours) if stored.colours else default_colours(places_pieces(game))
    out = io.BytesIO()
    write_pdf(out, stored.boxes, KitSpec(stored.name, stored.settings, game, colours, paper=find_paper(paper)))
    return out.getvalue()


def plot_file(db: Database, name: str, kind: str, fmt: str, box: int = 1) -> bytes:
    """``menace plot KIND``: the plot as PNG, SVG or PDF bytes."""
    if kind not in PLOTS:
        raise DownloadError(f"no plot {kind!r}: choose {', '.join(PLOTS)}")
    if fmt not in PLOT_FORMATS:
        raise DownloadError(f"no format {fmt!r}: choose {', '.join(PLOT_FORMATS)}")
    from menace.app import history
    from menace.render import plots

    with tempfile.TemporaryDirectory(prefix="menace-plot-") as folder:
        out = Path(folder) / f"{kind}.{fmt}"
        if kind == "beads":
            plots.render_beads(history.beads_series(db, name, box), out)
        elif kind == "learning":
            plots.render_learning(history.learning_series(db, name), out)
        else:
            plots.render_boxes(history.wall(db, name), out)
        return out.read_bytes()
