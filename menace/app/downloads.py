"""Files a front end hands out as downloads: the build kit's PDF and the plots, as bytes.

The commands write these to a path the user names; a web page needs the bytes instead.
matplotlib is imported only when one is asked for.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from menace.app.machines import machine_summary
from menace.storage import repository as repo
from menace.storage.database import open_database, session_scope

PLOTS = ("beads", "learning", "boxes")
PLOT_FORMATS = {"png": "image/png", "svg": "image/svg+xml", "pdf": "application/pdf"}


class DownloadError(ValueError):
    """A download asked for that does not exist (an unknown plot or format)."""


def labels_pdf(url: str, name: str, paper: str = "a4") -> bytes:
    """``menace labels``: the whole build kit (cover, shopping list, labels, fill list, shelf map) as PDF."""
    from menace.games.tictactoe import TICTACTOE
    from menace.render.labels import KitSpec, find_paper, write_pdf

    db = open_database(url)
    try:
        with session_scope(db) as s:
            stored = repo.load_machine(s, name, TICTACTOE)
    finally:
        db.dispose()
    out = io.BytesIO()
    write_pdf(out, stored.boxes, KitSpec(stored.name, stored.settings, paper=find_paper(paper)))
    return out.getvalue()


def plot_file(url: str, name: str, kind: str, fmt: str, box: int = 1) -> bytes:
    """``menace plot KIND``: the plot as PNG, SVG or PDF bytes."""
    from menace.app import history

    if kind not in PLOTS:
        raise DownloadError(f"no plot {kind!r}: choose {', '.join(PLOTS)}")
    if fmt not in PLOT_FORMATS:
        raise DownloadError(f"no format {fmt!r}: choose {', '.join(PLOT_FORMATS)}")
    machine_summary(url, name)  # an unknown machine fails before matplotlib loads
    with tempfile.TemporaryDirectory(prefix="menace-plot-") as folder:
        out = Path(folder) / f"{kind}.{fmt}"
        if kind == "beads":
            history.plot_beads(url, name, out, box)
        elif kind == "learning":
            history.plot_learning(url, name, out)
        else:
            history.plot_boxes(url, name, out)
        return out.read_bytes()
