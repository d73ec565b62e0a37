"""Michie's published experiments, run again, as people see them: the table a terminal prints and
the figure a teacher puts on a slide (blocks of a hundred plays, the random average first, as the
1963 paper draws them), and a tournament's cumulative score drawn as the paper's Fig. 4.

The data come from :mod:`menace.app.experiments`; nothing here runs a game.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from menace.app.experiments import (
    PAPER,
    PAPER_VALUES_MISSING,
    STEREOTYPE_SHARE,
    BlockSummary,
    ExperimentResult,
    Line,
    ScoreCurve,
    Spread,
)
from menace.core.game import Game, Side
from menace.core.numbers import plural

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

WORDS = ("wins", "draws", "losses")
COLOURS = ("#009e73", "#0072b2", "#d55e00")
"""Wins, draws and losses in the colours of every other plot (and told apart without colour by
their markers)."""
MARKERS = ("o", "s", "^")
SLIDE = (13.333, 7.5)
"""A 16:9 slide, in inches."""


def describe_line(game: Game, line: Line) -> str:
    """A line of play for people: ``X a1, O b2, X c3``.

    >>> from menace.games import DEFAULT_GAME, find_game
    >>> describe_line(find_game(DEFAULT_GAME), (0, 4, 8))
    'X a1, O b2, X c3'
    """
    sides = (Side.X, Side.O)
    return ", ".join(f"{game.side_names[sides[i % 2]]} {game.move_name(m)}" for i, m in enumerate(line))


def _fraction(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _cell(s: Spread) -> str:
    return f"{s.mean:5.1f} {s.median:5.1f} {s.q1:5.1f}-{s.q3:<5.1f}"


def stereotype_text(game: Game, result: ExperimentResult) -> str | None:
    """What the runs settled into, in a sentence; None when the experiment does not look for it."""
    found = result.stereotypes()
    if found is None:
        return None
    share = f"{found.stereotyped} of {plural(found.runs, 'run')}"
    if found.line is None or found.median_block is None:
        return f"{share} settled into one line of play ({_settled(result)})."
    first = int((found.median_block - 1) * result.block + 1)
    return (f"{share} settled into one line of play ({_settled(result)}), from block {found.median_block:g} "
            f"(plays {first:,}-{first + result.block - 1:,}, the median). The commonest, in "
            f"{plural(found.with_line, 'run')}: {describe_line(game, found.line)}.")


def _settled(result: ExperimentResult) -> str:
    least = math.ceil(STEREOTYPE_SHARE * result.block)
    return (f"the same line, up to rotation and reflection, in at least {least} of the {result.block} plays "
            f"of every block to the end")


def experiment_table(result: ExperimentResult, game: Game) -> list[str]:
    """The table the command prints: per block, the counted side's wins, draws and losses as the
    mean, the median and the middle half of the runs (their quartiles), the random average first."""
    e = result.experiment
    lines = [f"{e.title} ({e.figure} of Michie, 1963): {plural(result.seeds, 'run')} of "
             f"{plural(result.plays, 'play')}, counted for {e.who}.",
             f"Per block of {result.block} plays: mean, median and quartiles over the runs.", ""]
    head = f"{'plays':<11}" + "".join(f"{w:<25}" for w in WORDS)
    sub = f"{'':<11}" + f"{'mean median quartiles':<25}" * 3
    lines += [head.rstrip(), sub.rstrip()]
    exact = [float(f) * result.block for f in result.random_average]
    lines.append((f"{'random':<11}" + "".join(f"{v:5.1f}{'':<20}" for v in exact)).rstrip()
                 + "  (exact: " + ", ".join(_fraction(f) for f in result.random_average) + ")")
    for b in result.blocks:
        lines.append((f"{f'{b.first:,}-{b.last:,}':<11}"
                      + "".join(f"{_cell(s):<25}" for s in (b.wins, b.draws, b.losses))).rstrip())
    said = stereotype_text(game, result)
    if said is not None:
        lines += ["", said]
    lines += ["", f"random: both sides play at random (the paper's random average), exact for {e.who}.",
              f"{_sentence(PAPER_VALUES_MISSING)}."]
    return lines


# -- the figure -----------------------------------------------------------------------------------
def render_experiment(result: ExperimentResult, game: Game, path: str | Path) -> Path:
    """The blocks drawn as the paper draws them: wins, draws and losses per block of a hundred
    plays, the random average at the left; the median of the runs with the middle half of them
    shaded. PNG, SVG or PDF by the file's extension."""
    from matplotlib.figure import Figure

    from menace.render.plots import _style, output_format, save

    output_format(path)
    blocks = result.blocks
    e = result.experiment
    with _style():
        fig = Figure(figsize=SLIDE, dpi=150, layout="constrained")
        ax = fig.subplots()
        xs = list(range(1, len(blocks) + 1))
        for k, (word, colour, marker) in enumerate(zip(WORDS, COLOURS, MARKERS)):
            spreads = [_pick(b, k) for b in blocks]
            ax.fill_between(xs, [s.q1 for s in spreads], [s.q3 for s in spreads], color=colour, alpha=0.18, lw=0)
            ax.plot(xs, [s.median for s in spreads], color=colour, marker=marker, ms=9, lw=3, label=word)
            exact = float(result.random_average[k]) * result.block
            ax.plot([0], [exact], color=colour, marker=marker, ms=13, ls="", markerfacecolor="white", mew=2.5)
        ax.axvline(0.5, color="#888888", lw=1.2, ls="--")
        ax.set_xlim(-0.5, len(blocks) + 0.4)
        ax.set_ylim(0, result.block)
        ax.set_xticks([0, *xs], ["random\naverage", *(f"{b.first:,}-\n{b.last:,}" for b in blocks)])
        ax.tick_params(axis="x", labelsize=12)
        ax.set_xlabel(f"plays, by blocks of {result.block}")
        ax.set_ylabel(f"out of {result.block} plays")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, title=_who_short(e.view, e.learners))
        fig.suptitle(f"{e.title} ({e.figure} of Michie, 1963)", fontweight="bold")
        notes = [f"Lines: the median of {plural(result.seeds, 'run')} with fresh machines; shaded: the middle half "
                 f"of the runs. Left: both sides at random, exact.",
                 f"{_sentence(PAPER_VALUES_MISSING)}."]
        said = stereotype_text(game, result)
        if said is not None:
            notes.insert(1, said)
        notes.append(f"Source: {PAPER}.")
        _notes(fig, notes)
        return save(fig, path)


NOTE_SIZE = 11.0
"""Points: the notes under a figure (read from the front rows, not the back)."""


def _notes(fig: Figure, notes: Sequence[str]) -> None:
    """``notes`` at the foot of ``fig``, wrapped, with the room they take kept free of the plot (the
    constrained layout places the axes above it)."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    lines = [line for note in notes for line in textwrap.wrap(note, 165)]
    fig.text(0.01, 0.005, "\n".join(lines), ha="left", va="bottom", fontsize=NOTE_SIZE, color="#333333")
    bottom = (len(lines) * NOTE_SIZE * 1.25 + 8) / (fig.get_figheight() * 72)
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        engine.set(rect=(0, bottom, 1, 1 - bottom))


def _pick(b: BlockSummary, k: int) -> Spread:
    return (b.wins, b.draws, b.losses)[k]


def _who_short(view: Side, learners: Sequence[Side]) -> str:
    role = "learner" if view in learners and len(learners) == 1 else "first player" if view is Side.X \
        else "second player"
    return f"the {role}'s ({view.name})"


def render_score(curve: ScoreCurve, path: str | Path) -> Path:
    """A tournament's cumulative score (3 for a win, 1 for a draw, -1 for a defeat) against the games
    played, a dot per game as the paper's Fig. 4 draws MENACE's first tournament."""
    from matplotlib.figure import Figure

    from menace.render.plots import GAMES, _style, output_format, save

    output_format(path)
    with _style():
        fig = Figure(figsize=SLIDE, dpi=150, layout="constrained")
        ax: Axes = fig.subplots()
        few = len(curve.games) <= 2_000
        ax.plot(curve.games, curve.score, color="#222222", lw=0 if few else 2.5, marker="o" if few else "",
                ms=4 if len(curve.games) > 300 else 6)
        ax.axhline(0, color="#888888", lw=1.2)
        ax.set_xlabel("games played")
        ax.set_ylabel("3 × wins + draws − losses,\nso far")
        ax.xaxis.set_major_formatter(GAMES())
        ax.yaxis.set_major_formatter(GAMES())
        ax.grid(True, alpha=0.3)
        w, d, l_ = curve.totals
        fig.suptitle(f"The games of {curve.machine!r} as Michie's Fig. 4: {plural(curve.played, 'game')}, "
                     f"{w:,} won, {d:,} drawn, {l_:,} lost", fontweight="bold")
        _notes(fig, ["The score rises 3 for a win and 1 for a draw and falls 1 for a defeat, the reinforcement of "
                     f"Michie's matchboxes. Source: {PAPER}."])
        return save(fig, path)
