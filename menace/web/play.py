"""Play and operate in the browser: routes over :class:`~menace.web.tables.GameTables`.

Each route makes one or two calls on the game's :class:`~menace.app.session.PlaySession` (the
library's turn-by-turn use case, the same the terminal uses) and presents the table. A finished
game is stored by the session in one transaction; an abandoned one stores nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from menace.app.session import BoxToOpen, GameEnd, MenaceMove, PlaySession
from menace.core.colours import BeadColour
from menace.core.game import Game, IllegalMoveError, Side, State
from menace.core.turns import LedgerLine
from menace.web import present
from menace.web.app import BadRequestError, authorize, state_of
from menace.web.tables import GameTables, Table

JSON = dict[str, Any]


def _beads(game: Game, counts: Mapping[int, float], colours: Sequence[BeadColour], position: State | None,
           ) -> list[JSON]:
    moves = sorted(counts)
    return [present.bead_json(game, moves, m, counts[m], colours=colours, position=position) for m in moves]


def turn_json(game: Game, m: MenaceMove, colours: Sequence[BeadColour]) -> JSON:
    """One MENACE move: the box, how to turn the board, its beads before the draw, the bead, the move."""
    t = m.turn
    # A Pegasus machine has odds, not beads: each move's "count" is its chance in percent.
    counts: Mapping[int, float] = t.beads if m.chances is None else {k: round(100 * c, 1) for k, c in m.chances.items()}
    return {
        "box_number": t.box_number, "cells": None if t.box_position is None else present.cells_of(game, t.box_position),
        "symmetry": t.symmetry, "beads": _beads(game, counts, colours, t.box_position), "bead": t.bead,
        "move": t.square,
        "move_name": m.move_name, "restocked": t.restocked, "resigned": t.resigned,
        "unit": "" if m.chances is None else "%",
    }


def open_json(game: Game, b: BoxToOpen | None, colours: Sequence[BeadColour]) -> JSON | None:
    """The box an operator opens now: number, shelf place, how to turn the board, beads in the twin."""
    if b is None:
        return None
    return {"box_number": b.box_number, "shelf": b.shelf, "symmetry": b.symmetry,
            "cells": present.cells_of(game, b.position), "beads": _beads(game, b.beads, colours, b.position),
            "empty": b.empty}


def ledger_line_json(game: Game, line: LedgerLine, box_moves: Sequence[int], colours: Sequence[BeadColour],
                     position: State) -> JSON:
    """A line of the ledger: the box, the colour drawn, its count before and after, what to do."""
    colour = colours[present.colour_index(game, box_moves, line.bead, colours, position)]
    back = line.after - (line.before - 1)
    if back > 0:
        what = f"put {back} {colour.name} in" + (" (the drawn one and more)" if back > 1 else "")
    elif back == 0:
        what = f"keep the drawn {colour.name} bead out"
    else:
        what = f"keep the drawn {colour.name} bead out and take {-back} more out"
    return {"box": line.box_number, "bead": line.bead, "before": line.before, "after": line.after,
            "change": line.after - line.before, "letter": colour.letter, "hex": colour.hex,
            "colour_name": colour.name, "instruction": f"{what}; it then holds {line.after}"}


def end_json(t: Table, end: GameEnd) -> JSON:
    """The stored game: result for MENACE, the ledger, its number in the history."""
    learner = t.session.machine.learner
    boxes = learner.boxes
    lines = [ledger_line_json(t.session.game, x, sorted(boxes[x.box_number - 1].initial), t.colours,
                              boxes[x.box_number - 1].position) for x in end.ledger]
    out = {"machine": t.machine, "result": end.result.value, "ledger": lines, "game_number": end.game_number,
           "games_played": end.game_number}
    if t.session.machine.pegasus is not None:
        out["note"] = (f"Stored as game {end.game_number:,}. MENACE learns by the Pegasus rule: the odds of each "
                       f"move it made were multiplied (see the wall for each move's chance now).")
    return out


def table_json(t: Table) -> JSON:
    """The game as it stands, for the page: board, whose turn, MENACE's turns so far, the end."""
    s: PlaySession = t.session
    game = s.game
    moves = list(s.moves)
    over = s.over
    names = game.side_names
    out: JSON = {
        "id": t.id, "machine": t.machine, "operated": t.operated, "shape": present.shape_json(game),
        "menace_side": names[s.menace_side], "person_side": names[s.menace_side.other],
        "cells": present.cells_of(game, s.state), "moves": moves,
        "last_move": game.move_cells(moves[-1])[1] if moves else None, "over": over,
        "menace_to_move": s.menace_to_move and not over, "legal": list(s.legal_moves()),
        "legal_cells": [list(game.move_cells(m)) for m in s.legal_moves()],
        "turns": t.turns, "end": t.end, "box_to_open": None, "resigns_on_empty": s.resigns_on_empty,
    }
    if t.operated and out["menace_to_move"]:
        out["box_to_open"] = open_json(game, s.box_to_open(), t.colours)
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
                turn = s.operator_move(None)
            else:
                turn = s.menace_move()
            t.turns.append(turn_json(s.game, turn, t.colours))
            self.tables.publish("turn", {"machine": t.machine, "table": t.id, **t.turns[-1]}, remember=False)

    def _settle(self, t: Table) -> JSON:
        """Finish a game that is over (stored in one transaction), then tell every page."""
        s = t.session
        if s.over and t.end is None:
            end = s.finish()
            t.end = end_json(t, end)
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

    def other_move(self, table_id: str, given: int | str) -> JSON:
        t = self.tables.get(table_id)
        with t.lock:
            s: PlaySession = t.session
            if s.over:
                raise IllegalMoveError("the game is over")
            if isinstance(given, str):
                move = s.parse_move(given)
            elif not 0 <= given < s.game.move_count:
                raise IllegalMoveError(f"{given} is not a move of {s.game.title}")
            else:
                move = given
            s.other_move(move)
            self._menace_turns(t)
            return self._settle(t)

    def bead(self, table_id: str, bead: int | None, confirm_empty: bool, resign: bool) -> JSON:
        t = self.tables.get(table_id)
        with t.lock:
            s: PlaySession = t.session
            if not t.operated:
                raise IllegalMoveError("only an operated game takes the bead that came out")
            if s.over or not s.menace_to_move:
                raise IllegalMoveError("it is not MENACE's turn")
            if resign:
                opened = s.box_to_open()
                if opened is None or not opened.empty or not s.resigns_on_empty:
                    raise IllegalMoveError("MENACE resigns only on a box that is empty, under 'resign'")
                move = s.resign()
            else:
                move = s.operator_move(bead, confirm_empty=confirm_empty)
            t.turns.append(turn_json(s.game, move, t.colours))
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


def _move_of(body: dict[str, Any]) -> int | str:
    value = body.get("move")
    if isinstance(value, bool) or value is None or not isinstance(value, (int, str)):
        raise BadRequestError("give 'move': a move's number or its name (a1..c3, or b1-b2 in Hexapawn)")
    return value


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
        from menace.core.errors import ConflictError as MachineBusyError

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
    """``POST /api/operate/{id}/bead``: ``{"bead": 4}``: the bead the operator shook out of the box
    (409 if the twin says none of that colour is left: send ``"confirm_empty": true`` to record the
    real machine's bead as a correction); ``{"resign": true}`` when the real box is empty too."""
    from menace.web.api import json_body

    await authorize(request)
    body = await json_body(request)
    value = body.get("bead")
    resign = body.get("resign") is True
    if resign:
        bead = None
    elif isinstance(value, int) and not isinstance(value, bool):
        bead = value
    else:
        raise BadRequestError("give 'bead': the bead's number (or 'resign': true for an empty box)")
    confirm = body.get("confirm_empty") is True
    view = await run_in_threadpool(_play(request).bead, request.path_params["id"], bead, confirm, resign)
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
