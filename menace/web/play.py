"""Play and operate in the browser: routes over :class:`~menace.web.tables.GameTables`.

Each route makes one or two calls on the game's :class:`~menace.app.session.PlaySession` (the
library's turn-by-turn use case, the same the terminal uses) and presents the table. A finished
game is stored by the session in one transaction; an abandoned one stores nothing.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from menace.core.colours import DEFAULT_COLOURS, find_colour
from menace.core.game import IllegalMoveError, Side
from menace.games.tictactoe import TICTACTOE
from menace.web import present
from menace.web.app import BadRequestError, authorize, state_of
from menace.web.tables import GameTables, Table

GAME = TICTACTOE
JSON = dict[str, Any]


def _get(obj: Any, *names: str, default: Any = None) -> Any:
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    return default


def _beads(counts: dict[int, int]) -> list[JSON]:
    moves = sorted(counts)
    return [present.bead_json(GAME, moves, m, counts[m]) for m in moves]


def turn_json(t: Any) -> JSON:
    """One MENACE move: the box, how to turn the board, its beads before the draw, the bead, the square."""
    number = _get(t, "box_number")
    position = _get(t, "box_position")
    move = _get(t, "move", "square")
    return {
        "box_number": number, "cells": present.cells_of(GAME, position) if position is not None else None,
        "symmetry": str(_get(t, "symmetry", default="as it is")), "beads": _beads(dict(_get(t, "beads", default={}))),
        "bead": _get(t, "bead"), "move": move,
        "move_name": _get(t, "move_name", default=None) or (GAME.move_name(move) if move is not None else None),
        "restocked": bool(_get(t, "restocked", default=False)), "resigned": bool(_get(t, "resigned", default=False)),
    }


def open_json(b: Any) -> JSON | None:
    """The box an operator opens now: number, shelf place, how to turn the board, beads in the twin."""
    if b is None:
        return None
    position = _get(b, "box_position", "position")
    return {
        "box_number": _get(b, "box_number", "number"), "shelf": str(_get(b, "shelf_place", "shelf", default="")),
        "symmetry": str(_get(b, "symmetry", default="as it is")),
        "cells": present.cells_of(GAME, position) if position is not None else None,
        "beads": _beads(dict(_get(b, "beads", default={}))),
    }


def ledger_line_json(line: Any) -> JSON:
    box = int(_get(line, "box_number", "box"))
    bead = int(_get(line, "bead"))
    before, after = int(_get(line, "before")), int(_get(line, "after"))
    colour = DEFAULT_COLOURS[bead] if GAME.move_count <= len(DEFAULT_COLOURS) else DEFAULT_COLOURS[0]
    back = after - (before - 1)
    if back > 0:
        what = f"put {back} {colour.name} in" + (" (the drawn one and more)" if back > 1 else "")
    elif back == 0:
        what = f"keep the drawn {colour.name} bead out"
    else:
        what = f"keep the drawn {colour.name} bead out and take {-back} more out"
    return {"box": box, "bead": bead, "before": before, "after": after, "change": after - before,
            "letter": colour.letter, "hex": colour.hex, "colour_name": colour.name,
            "instruction": f"{what}; it then holds {after}"}


def end_json(end: Any, machine: str) -> JSON:
    result = _get(end, "result")
    return {
        "machine": machine, "result": getattr(result, "value", str(result)),
        "ledger": [ledger_line_json(x) for x in _get(end, "ledger", "lines", default=[])],
        "game_number": _get(end, "game_number", "number"), "games_played": _get(end, "game_number", "number"),
    }


def table_json(t: Table) -> JSON:
    s = t.session
    moves = list(s.moves)
    over = bool(s.over)
    menace_side: Side = s.menace_side
    out: JSON = {
        "id": t.id, "machine": t.machine, "operated": t.operated, "menace_side": menace_side.name,
        "person_side": menace_side.other.name, "cells": present.cells_of(GAME, s.state), "moves": moves,
        "last_move": moves[-1] if moves else None, "over": over,
        "menace_to_move": bool(s.menace_to_move) and not over,
        "legal": [] if over else list(s.legal_moves()), "turns": t.turns, "end": t.end, "box_to_open": None,
    }
    if t.operated and out["menace_to_move"]:
        out["box_to_open"] = open_json(s.box_to_open())
    return out


class Play:
    """The steps of a game in the browser, each run in a worker thread under the table's lock."""

    def __init__(self, tables: GameTables) -> None:
        self.tables = tables

    def _menace_turns(self, t: Table) -> None:
        """MENACE moves while it is its turn (in a game at the screen; an operated game waits for
        the operator, unless the move is forced)."""
        s = t.session
        while not s.over and s.menace_to_move:
            if t.operated:
                if s.box_to_open() is not None:
                    return
                turn = s.operator_move(0)
            else:
                turn = s.menace_move()
            t.turns.append(turn_json(turn))
            self.tables.publish("turn", {"machine": t.machine, "table": t.id, **t.turns[-1]}, remember=False)

    def _settle(self, t: Table) -> JSON:
        """Finish a game that is over (stored in one transaction), then tell every page."""
        s = t.session
        if s.over and t.end is None:
            end = s.finish()
            t.end = end_json(end, t.machine)
            view = table_json(t)
            self.tables.drop(t, abandon=False)
            self.tables.publish("end", t.end, remember=False)
            self.tables.publish("table", view)
            return view
        view = table_json(t)
        self.tables.publish("table", view)
        return view

    def start(self, machine: str, first: str | None, seed: int | None, operated: bool) -> JSON:
        side = None if first is None else (Side.X if first == "menace" else Side.O)
        holder = f"{'an operated game' if operated else 'a game'} in the browser (menace serve)"
        t = self.tables.open(machine, holder=holder, menace_side=side, seed=seed, operated=operated)
        with t.lock:
            try:
                self._menace_turns(t)
                return self._settle(t)
            except BaseException:
                self.tables.drop(t, abandon=True)
                raise

    def other_move(self, table_id: str, move: int) -> JSON:
        t = self.tables.get(table_id)
        with t.lock:
            if t.session.over:
                raise IllegalMoveError("the game is over")
            t.session.other_move(move)
            self._menace_turns(t)
            return self._settle(t)

    def bead(self, table_id: str, bead: int) -> JSON:
        t = self.tables.get(table_id)
        with t.lock:
            if not t.operated:
                raise IllegalMoveError("only an operated game takes the bead that came out")
            if t.session.over or not t.session.menace_to_move:
                raise IllegalMoveError("it is not MENACE's turn")
            t.turns.append(turn_json(t.session.operator_move(bead)))
            self.tables.publish("turn", {"machine": t.machine, "table": t.id, **t.turns[-1]}, remember=False)
            self._menace_turns(t)
            return self._settle(t)

    def abandon(self, table_id: str) -> JSON:
        t = self.tables.get(table_id)
        with t.lock:
            self.tables.drop(t, abandon=True)
        self.tables.publish("table", {"id": t.id, "machine": t.machine, "abandoned": True})
        return {"abandoned": True}

    def view(self, table_id: str) -> JSON:
        t = self.tables.get(table_id)
        with t.lock:
            return table_json(t)


def _play(request: Request) -> Play:
    tables = state_of(request).tables
    assert tables is not None
    return Play(tables)


def _move_of(body: dict[str, Any]) -> int:
    value = body.get("move")
    if isinstance(value, bool) or value is None:
        raise BadRequestError("give 'move': a square 0-8 or its name (a1..c3)")
    if isinstance(value, int):
        if not 0 <= value < GAME.move_count:
            raise IllegalMoveError(f"{value} is not a square: give 0 to {GAME.move_count - 1}")
        return value
    if isinstance(value, str):
        return GAME.parse_move(value)
    raise BadRequestError("'move' must be a square number or name")


async def _start(request: Request, operated: bool) -> Response:
    from menace.web.api import field_of, json_body, machine_name

    await authorize(request)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(field_of(body, "machine", str, st.machine))
    first = field_of(body, "first", str)
    if first not in (None, "menace", "me"):
        raise BadRequestError("'first' is menace or me")
    seed = field_of(body, "seed", int)
    assert st.trainer is not None
    if name in st.trainer.busy_machines():
        from menace.storage.repository import MachineBusyError

        raise MachineBusyError(f"machine {name!r} is training here; stop the tournament first")
    view = await run_in_threadpool(_play(request).start, name, first, seed, operated)
    return JSONResponse(view, status_code=201)


async def play_start(request: Request) -> Response:
    """``POST /api/play``: ``{"machine", "first": "menace"|"me", "seed"}``: a new game; MENACE's
    first move is in ``turns`` if it starts. The table: cells, legal moves, turns, end."""
    return await _start(request, operated=False)


async def operate_start(request: Request) -> Response:
    """``POST /api/operate``: a game on the real machine; ``box_to_open`` says which box to open,
    where it stands on the shelves and how to turn the board."""
    return await _start(request, operated=True)


async def play_move(request: Request) -> Response:
    """``POST /api/play/{id}/move`` (or ``/api/operate/{id}/other``): ``{"move": 4}`` or
    ``{"move": "b2"}``: the person's (other side's) move, then MENACE's reply; at the end the
    ledger (stored)."""
    from menace.web.api import json_body

    await authorize(request)
    move = _move_of(await json_body(request))
    view = await run_in_threadpool(_play(request).other_move, request.path_params["id"], move)
    return JSONResponse(view)


async def operate_bead(request: Request) -> Response:
    """``POST /api/operate/{id}/bead``: ``{"bead": 4}`` or ``{"bead": "G"}`` (a colour's letter or
    name): the bead the operator shook out of the box."""
    from menace.web.api import json_body

    await authorize(request)
    body = await json_body(request)
    value = body.get("bead")
    if isinstance(value, str):
        bead = find_colour(value)
    elif isinstance(value, int) and not isinstance(value, bool):
        bead = value
    else:
        raise BadRequestError("give 'bead': a colour's index, letter or name")
    view = await run_in_threadpool(_play(request).bead, request.path_params["id"], bead)
    return JSONResponse(view)


async def abandon(request: Request) -> Response:
    """``POST /api/play/{id}/abandon`` (or ``/api/operate/{id}/abandon``): end the game storing
    nothing. Takes the token as a form field too, for a page sending it as it closes."""
    form_token = None
    if request.headers.get("content-type", "").startswith(("multipart/form-data", "application/x-www-form-urlencoded")):
        async with request.form(max_files=0, max_fields=4) as form:
            value = form.get("token")
            form_token = value if isinstance(value, str) else None
    await authorize(request, form_token)
    return JSONResponse(await run_in_threadpool(_play(request).abandon, request.path_params["id"]))


async def table(request: Request) -> Response:
    """``GET /api/play/{id}`` (or ``/api/operate/{id}``): the game as it stands."""
    return JSONResponse(await run_in_threadpool(_play(request).view, request.path_params["id"]))


def play_routes() -> list[BaseRoute]:
    """The routes of games in progress (play and the festival console)."""
    return [
        Route("/play", play_start, methods=["POST"]),
        Route("/play/{id}", table, methods=["GET"]),
        Route("/play/{id}/move", play_move, methods=["POST"]),
        Route("/play/{id}/abandon", abandon, methods=["POST"]),
        Route("/operate", operate_start, methods=["POST"]),
        Route("/operate/{id}", table, methods=["GET"]),
        Route("/operate/{id}/bead", operate_bead, methods=["POST"]),
        Route("/operate/{id}/other", play_move, methods=["POST"]),
        Route("/operate/{id}/abandon", abandon, methods=["POST"]),
    ]
