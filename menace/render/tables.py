"""The tables the terminal prints for a sweep and an arena: aligned plain text, a line a row."""

from __future__ import annotations

from collections.abc import Sequence

from menace.app.arena import ArenaResult, Tally
from menace.app.sweep import EVAL_OPPONENT, STRETCH, SummaryRow


def sweep_table(rows: Sequence[SummaryRow]) -> list[str]:
    """The summary as aligned plain-text lines, a header first and a key after."""
    if not rows:
        return []
    header = ["setting", "runs", "opening emptied", "at game", f"{STRETCH} unlost by", "never", "last loss",
              f"last {rows[0].last_games} W/D/L", "frozen vs random W/D/L"]
    table = [header]
    for r in rows:
        table.append([
            r.label,
            str(r.runs),
            f"{r.emptied} ({100 * r.emptied_share:.0f}%)",
            _number(r.emptied_median),
            _number(r.stretch_median),
            str(r.stretch_never),
            f"{_number(r.last_loss_median)} (max {r.last_loss_max:,})",
            _wdl(r.last),
            "-" if r.frozen is None else _wdl(r.frozen),
        ])
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = []
    for row in table:
        cells = [row[0].ljust(widths[0]), *(cell.rjust(w) for cell, w in zip(row[1:], widths[1:]))]
        lines.append("  ".join(cells).rstrip())
    frozen_games = rows[0].eval_games
    lines += [
        "",
        "at game: the median game at which the opening box emptied, over the runs where it did.",
        f"{STRETCH} unlost by: the median game ending the first {STRETCH} games in a row without a loss, "
        "over the runs that had them (never: the runs that did not).",
        "last loss: the median over the runs of the game each run lost last (0: never lost), and the latest.",
        f"W/D/L: per 1,000 games, the mean over the runs, of each run's last {rows[0].last_games:,} games"
        + (f" and of {frozen_games:,} games of the trained machine, frozen, against {EVAL_OPPONENT}."
           if frozen_games else "."),
    ]
    return lines


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


def _wdl(values: tuple[float, float, float]) -> str:
    return "/".join(f"{v:.0f}" for v in values)


def arena_table(result: ArenaResult) -> list[str]:
    """A plain-text table: a row per player, a column per opponent, cells ``W/D/L`` for the row
    player over both sides, then the row player's total and share of points."""
    labels = result.labels
    header = ["", *labels, "total", "points"]
    rows = [header]
    for row in labels:
        cells = [row]
        for col in labels:
            cells.append("-" if row == col else _cell(result.versus(row, col)))
        total = result.total(row)
        cells += [str(total), "-" if not total.games else f"{100 * total.share:.1f}%"]
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for r in rows:
        first = r[0].ljust(widths[0])
        rest = [cell.rjust(w) for cell, w in zip(r[1:], widths[1:])]
        lines.append("  ".join([first, *rest]).rstrip())
    return lines


def _cell(tally: Tally) -> str:
    return str(tally) if tally.games else "-"
