"""Option callbacks and messages that several command modules share."""

from __future__ import annotations

from typing import Any

import click

from menace.core.colours import DEFAULT_COLOURS, BeadColour, ColourError, parse_colours


def colours_option(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[BeadColour, ...]:
    """``--colours``: the builder's nine bead colours (default: the standard set)."""
    if value is None:
        return DEFAULT_COLOURS
    try:
        return parse_colours(value)
    except ColourError as exc:
        raise click.BadParameter(str(exc)) from None


def opening_empty_help(app: Any, engine: Any, side: Any) -> str:
    """What to say when a box for MENACE's first move is empty under ``resign``, and how to go on."""
    empty = [engine.boxes[i].number for i in engine.first_boxes(side) if not any(engine.counts[i])]
    if len(empty) == len(engine.first_boxes(side)) == 1:
        what, reach = f"the opening box (box {empty[0]}) of {app.machine!r} is empty", "every game"
    else:
        boxes = ", ".join(map(str, empty))
        what = f"first-move box{'es' if len(empty) > 1 else ''} {boxes} of {app.machine!r} " \
               f"{'are' if len(empty) > 1 else 'is'} empty"
        reach = "every game that reaches " + ("them" if len(empty) > 1 else "it")
    return (f"{what}: under 'resign' MENACE resigns {reach}. To go on, refill it "
            f"(menace -m {app.machine} reconcile {empty[0] if empty else 1}), rebuild the machine "
            f"(menace -m {app.machine} init --replace), or build one with --empty-box restock")
