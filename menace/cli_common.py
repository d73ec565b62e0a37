"""Option callbacks and messages that several command modules share."""

from __future__ import annotations

from typing import Any

import click

from menace.colours import DEFAULT_COLOURS, BeadColour, ColourError, parse_colours


def colours_option(ctx: click.Context, param: click.Parameter, value: str | None) -> tuple[BeadColour, ...]:
    """``--colours``: the builder's nine bead colours (default: the standard set)."""
    if value is None:
        return DEFAULT_COLOURS
    try:
        return parse_colours(value)
    except ColourError as exc:
        raise click.BadParameter(str(exc)) from None


def opening_empty_help(app: Any) -> str:
    """What to say when MENACE's opening box is empty under ``resign``, and how to go on."""
    return (f"the opening box of {app.machine!r} is empty: under 'resign' MENACE resigns every game. "
            f"To go on, refill it (menace -m {app.machine} reconcile 1), rebuild the machine "
            f"(menace -m {app.machine} init --replace), or build one with --empty-box restock")
