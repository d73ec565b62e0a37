"""The game history in the browser, as ``menace history``, ``menace replay`` and ``menace undo``
have it: routes that call :mod:`menace.app.history` and present the result."""

from __future__ import annotations

from functools import partial
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from menace.app import history as app_history
from menace.core.colours import parse_colours
from menace.core.errors import ConflictError
from menace.render.text import rule_text
from menace.web import present
from menace.web.boundary import (
    BadRequestError,
    authorize,
    busy_machines,
    field_of,
    json_body,
    machine_name,
    query_int,
    state_of,
)

JSON = dict[str, Any]


def _name(request: Request) -> str:

    return machine_name(request.path_params["name"])


async def games(request: Request) -> Response:
    """``GET /api/machines/{name}/games?last=20``: the last games (``menace history``): number,
    opponent, result for MENACE, the moves by name, and ``frozen`` (played without learning)."""

    last = query_int(request, "last", 20, 1, 500)
    found = await run_in_threadpool(partial(app_history.list_games, state_of(request).db, _name(request), last=last))
    g = found.game
    return JSONResponse({"machine": found.machine, "played": found.played, "games": [
        {"number": x.number, "opponent": x.opponent, "kind": x.kind, "frozen": x.frozen,
         "result": x.record.result.value,
         "menace_side": g.side_names[x.record.menace_side], "moves": [g.move_name(m) for m in x.record.moves]}
        for x in reversed(found.games)]})


async def replay(request: Request) -> Response:
    """``GET /api/machines/{name}/games/{number}``: one game move by move (``menace replay``): the board
    after each move; for MENACE's, the box, its beads then and the bead drawn; the reinforcement."""
    r = await run_in_threadpool(app_history.replay_game, state_of(request).db, _name(request),
                                int(request.path_params["number"]))
    game, d = r.game, r.detail
    colours = present.colours_for(game, parse_colours(r.colours) if r.colours else None)
    plies: list[JSON] = []
    for p in d.plies:
        ply: JSON = {"number": p.number, "side": game.side_names[p.side], "by_menace": p.by_menace,
                     "move": game.move_name(p.square), "cells": present.cells_of(game, p.board),
                     "to": game.move_cells(p.square)[1], "box_number": p.box_number}
        if p.box_number is not None and p.box_position is not None:
            moves = sorted(p.beads)
            ply.update(symmetry=p.symmetry, box_cells=present.cells_of(game, p.box_position), bead=p.bead,
                       beads=[present.bead_json(game, moves, m, p.beads[m], colours=colours, position=p.box_position)
                              for m in moves])
            if r.settings.pegasus is not None:
                ply["beads"] = present.as_chances(ply["beads"])
        plies.append(ply)
    ledger: list[JSON] = [{"box": x.box_number, "bead": x.bead, "before": x.before, "after": x.after}
                          for x in d.reinforcement]
    if r.settings.pegasus is not None:  # weights mean nothing to a reader: each move's chance before and after
        ledger = [{**line, "before": round(before, 1), "after": round(after, 1), "percent": True}
                  for line, (before, after) in zip(ledger, d.chances)]
    return JSONResponse({"machine": r.machine, "number": d.number, "opponent": r.stored.opponent,
                         "frozen": d.frozen,
                         "result": d.result.value, "rule": rule_text(r.settings), "shape": present.shape_json(game),
                         "plies": plies, "reinforcement": ledger, "resigned_box": d.resigned_box})


async def undo(request: Request) -> Response:
    """``POST /api/machines/{name}/undo``: ``{"games": 1}``: take back the last games and their
    reinforcement exactly (``menace undo``). Refused (409) while the machine is in a game or a
    tournament here."""

    await authorize(request)
    body = await json_body(request)
    st = state_of(request)
    name = _name(request)
    n = field_of(body, "games", int, 1)
    if not 1 <= n <= 1_000_000:
        raise BadRequestError("'games' must be from 1 to 1,000,000")
    if name in busy_machines(request):
        raise ConflictError(f"machine {name!r} is in a game or tournament here; undo afterwards")
    done = await run_in_threadpool(app_history.undo_games, st.db, name, n)
    st.hub.publish("wall", {"machine": name, "reason": "undo"}, remember=False)
    st.hub.publish("machines", {"undone": name}, remember=False)
    return JSONResponse({"machine": name, "removed": [g.number for g in done.removed], "played": done.played,
                         "changes": [{"box": c.box_number, "bead": c.bead, "before": c.before, "after": c.after}
                                     for c in done.changes]})


def history_routes() -> list[BaseRoute]:
    return [
        Route("/machines/{name}/games", games, methods=["GET"]),
        Route("/machines/{name}/games/{number:int}", replay, methods=["GET"]),
        Route("/machines/{name}/undo", undo, methods=["POST"]),
    ]
