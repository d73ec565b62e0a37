"""Michie's published runs drawn in the paper's own form: wins, draws and losses per block of one
hundred plays, the "random average" block first, for a slide (16:9, large type)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

from menace.app.experiments import ExperimentResult
from menace.core.game import Result
from menace.core.michie1963 import SHORT_CITATION
from menace.core.pegasus import Refinement
from menace.render.plots import RESULT_COLOURS, RESULT_WORDS, _style, output_format, save

SLIDE = (13.333, 7.5)
"""A 16:9 slide, in inches."""


def _pct(x: Fraction) -> str:
    return f"{float(x):.1f}"


def rule_words(result: ExperimentResult) -> str:
    rule = result.rule
    d = rule.describe()
    text = f"Pegasus rule, A = {d['A']}, B = {d['B']}"
    if rule.refinement is not Refinement.NONE:
        text += f", Table 3 ({rule.refinement.value}, D = {rule.decay})"
    return text


def render_experiment(result: ExperimentResult, path: str | Path) -> Path:
    """Draw ``result`` into ``path`` (PNG, SVG or PDF by its extension)."""
    output_format(path)
    with _style():
        fig = Figure(figsize=SLIDE, dpi=150, layout="constrained")
        ax = fig.subplots()
        blocks = result.blocks()
        base = result.baseline_block
        xs = list(range(1, len(blocks) + 1))
        results = (Result.WIN, Result.DRAW, Result.LOSS)
        for r, kind in enumerate(results):
            colour = RESULT_COLOURS[kind]
            ax.fill_between(xs, [b.low[r] for b in blocks], [b.high[r] for b in blocks], color=colour, alpha=0.18,
                            lw=0)
            ax.plot(xs, [b.median[r] for b in blocks], color=colour, lw=3.2, marker="o", ms=7,
                    label=f"{RESULT_WORDS[kind]} (median)")
            ax.plot([0], [float(base[r])], color=colour, marker="D", ms=13, mfc="white", mew=3, ls="none")
        ax.axvline(0.5, color="#888888", lw=1.2)
        labels = ["random\naverage"] + [f"{b.first:,}-\n{b.last:,}" for b in blocks]
        step = max(1, len(blocks) // 10)
        ticks = [0] + [x for x in xs if (x - 1) % step == 0]
        ax.set_xticks(ticks, [labels[t] for t in ticks])
        ax.set_xlim(-0.6, len(blocks) + 0.6)
        ax.set_ylim(-2, 102)
        who = "the opening player's" if result.side.name == "X" else "the second player's"
        if len(result.experiment.learners) == 2:
            who = "the opening player's (both learn)"
        ax.set_ylabel(f"{who}\nresults per 100 plays")
        ax.set_xlabel("plays (blocks of 100)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
        fig.suptitle(result.experiment.title, fontweight="bold")
        note = (f"{rule_words(result)}; median and quartiles of {result.seeds:,} seeds. Diamonds: the exact "
                f"random average ({_pct(base[0])} / {_pct(base[1])} / {_pct(base[2])}).")
        if result.emerged is not None:
            e = result.emerged
            note += (f"\nLine that emerged in {e.seeds} of {result.seeds} seeds (from block {e.from_block:g}, "
                     f"median): {' '.join(e.moves)}.")
        note += f"\nAfter {SHORT_CITATION}."
        ax.set_title(note, fontsize=12, loc="left", color="#333333")
        return save(fig, path)


__all__ = ["SLIDE", "matplotlib", "render_experiment"]
