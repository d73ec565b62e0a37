"""The arena's results as a heatmap: each player's share of points against each opponent."""

from __future__ import annotations

import math
from pathlib import Path

from menace.app.arena import ArenaError, ArenaResult, Tally
from menace.render.figures import FORMATS, save_figure

HEATMAP_FORMATS = tuple(FORMATS)


def heatmap(result: ArenaResult, path: str | Path) -> None:
    """Draw each player's share of points against each opponent (both sides together) and save
    it as PNG, SVG or PDF, by the file's extension."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in HEATMAP_FORMATS:
        raise ArenaError(f"a heatmap is saved as {', '.join(HEATMAP_FORMATS)}, not {path.name!r}")
    labels = result.labels
    n = len(labels)
    grid = [[result.versus(r, c).share if r != c else math.nan for c in labels] for r in labels]
    side = max(4.0, 1.0 + 0.9 * n)
    fig = Figure(figsize=(side + 1.6, side), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    # A player does not meet itself: the diagonal is left grey.
    # cividis: ordered light to dark and safe for every kind of colour blindness (no red against green)
    cmap = matplotlib.colormaps["cividis"].with_extremes(bad="0.85")
    image = ax.imshow(grid, cmap=cmap, vmin=0.0, vmax=1.0)
    ax.set_xticks(range(n), labels, rotation=45, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(n), [f"{label} ({_percent(result.total(label))})" for label in labels])
    ax.set_xlabel("opponent")
    ax.set_ylabel("player (share of points over all its games)")
    ax.set_title(
        f"Arena: the row player's share of points against each opponent\n"
        f"win 1, draw ½; W D L: the row player's wins, draws, losses\n"
        f"{result.games_per_pair} games per pairing as X and as O",
        fontsize="medium",
    )
    for i, r in enumerate(labels):
        for j, c in enumerate(labels):
            tally = result.versus(r, c)
            if r == c or not tally.games:
                continue
            share = tally.share
            colour = "white" if share < 0.45 else "black"
            ax.text(j, i, f"{100 * share:.0f}%\nW{tally.wins} D{tally.draws} L{tally.losses}", ha="center",
                    va="center",
                    fontsize="small", color=colour)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label("share of points (row vs column)")
    save_figure(fig, path, FORMATS[suffix], dpi=150)


def _percent(tally: Tally) -> str:
    return "-" if not tally.games else f"{100 * tally.share:.0f}%"
