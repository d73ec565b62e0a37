"""A sweep's spread per setting, drawn: the games to the first stretch without a loss, and the
frozen machine's losses against random."""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from menace.app.sweep import EVAL_OPPONENT, STRETCH, RunResult, SweepError, SweepResult, summarize
from menace.render.figures import FORMATS, save_figure

PLOT_FORMATS = tuple(FORMATS)
LABEL_WIDTH = 24
"""Characters per line of a setting's label beside the panels."""


def plot_distributions(result: SweepResult, path: str | Path) -> None:
    """Per setting, the spread over its runs of the games to the first stretch without a loss
    and of the frozen machine's losses against random; saved as PNG, SVG or PDF by extension."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in PLOT_FORMATS:
        raise SweepError(f"a plot is saved as {', '.join(PLOT_FORMATS)}, not {path.name!r}")
    rows = summarize(result)
    n = len(rows)
    fig = Figure(figsize=(11.0, 1.8 + 0.7 * n), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, sharey=True)
    jitter = random.Random(0)
    # Long labels (the Pegasus rule's parameters) wrap at spaces, so that both panels keep their width.
    labels = [
        f"{textwrap.fill(r.label, LABEL_WIDTH)}\nopening emptied: {r.emptied}/{r.runs}\n"
        f"no {STRETCH} unlost: {r.stretch_never}/{r.runs}"
        for r in rows
    ]
    panels: list[tuple[Any, Callable[[RunResult], float | None], str]] = [
        (left, lambda run: run.first_stretch, f"game ending the first {STRETCH} games in a row without a loss"),
        (right, _losses_per_thousand, f"losses per 1,000 games of the frozen machine vs {EVAL_OPPONENT}"),
    ]
    for ax, value_of, xlabel in panels:
        for y, setting in enumerate(result.settings):
            runs = [run for run in result.runs_for(setting.label) if value_of(run) is not None]
            values = [v for run in runs if (v := value_of(run)) is not None]
            if not values:
                ax.annotate("no run got there", xy=(0.5, y), xycoords=("axes fraction", "data"),
                            ha="center", va="center", fontsize="small", color="grey")
                continue
            ax.boxplot([values], positions=[y], orientation="horizontal", widths=0.5,
                       showfliers=False, manage_ticks=False, medianprops={"color": "black"})
            # One dot per run, red when its opening box emptied: the two kinds of run differ most.
            colours = ["tab:red" if run.opening_emptied is not None else "tab:blue" for run in runs]
            ax.scatter(values, [y + jitter.uniform(-0.2, 0.2) for _ in values], s=7, alpha=0.45,
                       c=colours, linewidths=0)
        ax.set_xlabel(textwrap.fill(xlabel, LABEL_WIDTH + 8))
        ax.grid(axis="x", alpha=0.3)
    right.legend(
        handles=[
            Line2D([], [], ls="", marker="o", color="tab:blue", label="a run"),
            Line2D([], [], ls="", marker="o", color="tab:red", label="a run whose opening box emptied"),
        ],
        loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2, fontsize="small", frameon=False,
    )
    left.set_yticks(range(n), labels)
    left.set_ylim(n - 0.5, -0.5)
    fig.suptitle(
        f"MENACE sweep: {result.seeds} machines per setting, {result.games:,} games each vs {result.opponent}",
        fontsize="medium",
    )
    save_figure(fig, path, FORMATS[suffix], dpi=150)


def _losses_per_thousand(run: RunResult) -> float | None:
    return 1000 * run.eval_losses / run.eval_games if run.eval_games else None
