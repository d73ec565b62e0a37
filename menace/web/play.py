"""Play and operate in the browser: routes over :class:`~menace.web.tables.GameTables`.

Each route makes one or two calls on the game's :class:`~menace.app.session.PlaySession` (the
library's turn-by-turn use case, the same the terminal uses) and presents the table. A finished
game is stored by the session in one transaction; an abandoned one stores nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
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
from menace.web.boundary import (
    BadRequestError,
    authorize,
    field_of,
    json_body,
    machine_name,
    state_of,
)
from menace.web.guard import Role
from menace.web.tables import GameTables, Table

JSON = dict[str, Any]


def _beads(game: Game, counts: dict[int, int], colours: Sequence[BeadColour], position: State | None,
           odds: bool = False) -> list[JSON]:
    moves = sorted(counts)
    beads = [present.bead_json(game, moves, m, counts[m], colours=colours, position=position) for m in moves]
    return present.as_chances(beads) if odds else beads


def turn_json(game: Game, m: MenaceMove, colours: Sequence[BeadColour], odds: bool = False) -> JSON:
    """One MENACE move: the box, how to turn the board, its beads before the draw, the bead, the move."""
    t = m.turn
    return {
        "box_number": t.box_number, "cells": None if t.box_position is None else present.cells_of(game, t.box_position),
        "caption": "" if t.box_position is None else game.caption(t.box_position),
        "symmetry": t.symmetry, "beads": _beads(game, t.beads, colours, t.box_position, odds), "bead": t.bead,
        "move": t.square,
        "move_name": m.move_name, "restocked": t.restocked, "resigned": t.resigned,
    }


def open_json(game: Game, b: BoxToOpen | None, colours: Sequence[BeadColour]) -> JSON | None:
    """The box an operator opens now: number, shelf place, how to turn the board, beads in the twin."""
    if b is None:
        return None
    return {"box_number": b.box_number, "shelf": b.shelf, "symmetry": b.symmetry,
            "cells": present.cells_of(game, b.position), "caption": game.caption(b.position),
            "beads": _beads(game, b.beads, colours, b.position), "empty": b.empty}


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
    out: JSON = {"box": line.box_number, "bead": line.bead, "before": line.before, "after": line.after,
           "change": line.after - line.before, "letter": colour.letter, "hex": colour.hex, "ink": colour.ink,
           "colour_name": colour.name, "instruction": f"{what}; it then holds {line.after}", "percent": False}
    if line.chance_before is not None and line.chance_after is not None:  # the Pegasus rule: each move's chance
        before, after = round(line.chance_before, 1), round(line.chance_after, 1)
        out.update(before=before, after=after, change=round(after - before, 1), percent=True,
                   instruction=f"its chance goes from {before}% to {after}%")
    return out


def end_json(t: Table, end: GameEnd) -> JSON:
    """The stored game: result for MENACE, the ledger, its number in the history."""
    learner = t.session.machine.learner
    boxes = learner.boxes
    lines = [ledger_line_json(t.session.game, x, sorted(boxes[x.box_number - 1].initial), t.colours,
                              boxes[x.box_number - 1].position) for x in end.ledger]
    return {"machine": t.machine, "result": end.result.value, "ledger": lines, "game_number": end.game_number,
            "games_played": end.game_number}


def win_cells(game: Game, state: State, moves: Sequence[int], winner: Side | None) -> list[int]:
    """The cells that won the game, to highlight: the line of three in noughts and crosses; in a
    game whose pieces move, the square the winning move reached."""
    if winner is None:
        return []
    return list(game.winning_cells(state, moves))


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
        "cells": present.cells_of(game, s.state), "caption": game.caption(s.state), "moves": moves,
        "last_move": game.move_cells(moves[-1])[1] if moves and game.moves_on_board else None, "over": over,
        "menace_to_move": s.menace_to_move and not over, "legal": list(s.legal_moves()),
        "legal_cells": [list(game.move_cells(m)) for m in s.legal_moves()],
        "legal_names": [game.move_text(m) for m in s.legal_moves()],
        "turns": t.turns, "end": t.end, "box_to_open": None, "resigns_on_empty": s.resigns_on_empty,
        "heartbeat_seconds": t.heartbeat_seconds,
        "win_cells": win_cells(game, s.state, moves, s.finished.winner) if over and s.finished else [],
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
            t.turns.append(turn_json(s.game, turn, t.colours, s.keeps_odds))
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

    def start(self, machine: str, first: str | None, seed: int | None, operated: bool,
              ticket: str | None = None) -> JSON:
        side = None if first is None else (Side.X if first == "menace" else Side.O)
        holder = f"{'an operated game' if operated else 'a game'} in the browser (menace serve)"
        t = self.tables.open(machine, holder=holder, menace_side=side, seed=seed, operated=operated, ticket=ticket)
        with t.lock:
            try:
                self._menace_turns(t)
                return {**self._settle(t), "seat": t.seat}  # to this page only: the events carry no seat
            except BaseException:
                self.tables.drop(t, abandon=True)
                raise

    def other_move(self, seat: str, given: int | str) -> JSON:
        t = self.tables.seated(seat)
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

    def bead(self, seat: str, bead: int | None, confirm_empty: bool, resign: bool) -> JSON:
        t = self.tables.seated(seat)
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
            t.turns.append(turn_json(s.game, move, t.colours, s.keeps_odds))
            self.tables.publish("turn", {"machine": t.machine, "table": t.id, **t.turns[-1]}, remember=False)
            self._menace_turns(t)
            return self._settle(t)

    def abandon(self, seat: str) -> JSON:
        t = self.tables.seated(seat)
        with t.lock:
            self.tables.drop(t, abandon=True)
        self.tables.publish("table", {"id": t.id, "machine": t.machine, "abandoned": True})
        return {"abandoned": True}

    def alive(self, seat: str) -> JSON:
        t = self.tables.alive(seat)
        return {"id": t.id, "alive": True, "waiting": self.tables.waiting().get(t.machine, 0)}

    def view(self, table_id: str) -> JSON:
        t = self.tables.get(table_id)
        with t.lock:
            return table_json(t)


def _play(request: Request) -> Play:
    tables = state_of(request).tables
    return Play(tables)


def _move_of(body: dict[str, Any]) -> int | str:
    value = body.get("move")
    if isinstance(value, bool) or value is None or not isinstance(value, (int, str)):
        raise BadRequestError("give 'move': a move's number or its name (a1..c3, b1-b2 in Hexapawn, 2 in Nim)")
    return value


async def _start(request: Request, operated: bool) -> Response:

    await authorize(request, Role.PLAY)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(field_of(body, "machine", str, st.machine))
    first = field_of(body, "first", str)
    if first not in (None, "menace", "me"):
        raise BadRequestError("'first' is menace or me")
    seed = field_of(body, "seed", int)
    ticket = field_of(body, "ticket", str)
    if name in st.trainer.busy_machines():
        from menace.core.errors import ConflictError as MachineBusyError

        raise MachineBusyError(f"machine {name!r} is training here; stop the tournament first")
    view = await run_in_threadpool(_play(request).start, name, first, seed, operated, ticket)
    return JSONResponse(view, status_code=201)


async def play_start(request: Request) -> Response:
    """``POST /api/play``: ``{"machine", "first": "menace"|"me", "seed"}``: a new game; MENACE's
    first move is in ``turns`` if it starts. The table: cells, legal moves, turns, end, its public
    ``id`` (the audience view and the teacher's list know the game by it) and, in this answer only,
    its secret ``seat``, which the moves, the heartbeat and the abandon are sent to: another page
    that knows the id cannot play in the game."""
    return await _start(request, operated=False)


async def operate_start(request: Request) -> Response:
    """``POST /api/operate``: a game on the real machine; ``box_to_open`` says which box to open,
    where it stands on the shelves and how to turn the board."""
    return await _start(request, operated=True)


async def play_move(request: Request) -> Response:
    """``POST /api/play/{seat}/move`` (or ``/api/operate/{seat}/other``): ``{"move": 4}`` or
    ``{"move": "b2"}``: the person's (other side's) move, then MENACE's reply; at the end the
    ledger (stored)."""

    await authorize(request, Role.PLAY)
    move = _move_of(await json_body(request))
    view = await run_in_threadpool(_play(request).other_move, request.path_params["seat"], move)
    return JSONResponse(view)


async def operate_bead(request: Request) -> Response:
    """``POST /api/operate/{seat}/bead``: ``{"bead": 4}``: the bead the operator shook out of the box
    (409 if the twin says none of that colour is left: send ``"confirm_empty": true`` to record the
    real machine's bead as a correction); ``{"resign": true}`` when the real box is empty too."""

    await authorize(request, Role.PLAY)
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
    view = await run_in_threadpool(_play(request).bead, request.path_params["seat"], bead, confirm, resign)
    return JSONResponse(view)


async def abandon(request: Request) -> Response:
    """``POST /api/play/{seat}/abandon`` (or ``/api/operate/{seat}/abandon``): end the game storing
    nothing (a page closing sends it with ``fetch(..., {keepalive: true})``). Play token."""
    await authorize(request, Role.PLAY)
    return JSONResponse(await run_in_threadpool(_play(request).abandon, request.path_params["seat"]))


async def table(request: Request) -> Response:
    """``GET /api/play/{id}`` (or ``/api/operate/{id}``): the game as it stands."""
    return JSONResponse(await run_in_threadpool(_play(request).view, request.path_params["id"]))


async def alive(request: Request) -> Response:
    """``POST /api/play/{seat}/alive`` (or ``/api/operate/{seat}/alive``): the game's page is still
    there. A page sends it every ``heartbeat_seconds``; a game whose page has not been heard from
    for :data:`~menace.web.tables.ORPHAN_SECONDS` is abandoned and the machine goes to the next in
    its queue."""
    await authorize(request, Role.PLAY)
    return JSONResponse(await run_in_threadpool(_play(request).alive, request.path_params["seat"]))


async def games_in_progress(request: Request) -> Response:
    """``GET /api/tables``: the games in progress (machine, moves so far, seconds since their page
    was heard from) and how many wait for each machine."""
    import time

    tables = state_of(request).tables
    now, mono = time.time(), time.monotonic()
    games = [{"id": t.id, "machine": t.machine, "operated": t.operated, "moves": len(t.session.moves),
              "seconds": round(now - t.started), "quiet_seconds": round(mono - t.seen)} for t in tables.tables()]
    return JSONResponse({"games": games, "waiting": tables.waiting()})


async def stop_game(request: Request) -> Response:
    """``POST /api/tables/{id}/stop``: the teacher ends a game in progress, storing nothing; its
    page is told, and the machine goes to the next in its queue."""
    await authorize(request)
    tables = state_of(request).tables
    t = await run_in_threadpool(tables.stop, request.path_params["id"], "the teacher stopped it")
    return JSONResponse({"id": t.id, "machine": t.machine, "stopped": True})


async def queue_join(request: Request) -> Response:
    """``POST /api/queue``: ``{"machine"}``: a place at the end of the machine's queue; answers as
    ``GET /api/queue/{ticket}``."""

    await authorize(request, Role.PLAY)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(field_of(body, "machine", str, st.machine))
    ticket = st.tables.join(name)
    return JSONResponse(st.tables.place(ticket.id), status_code=201)


async def queue_place(request: Request) -> Response:
    """``GET /api/queue/{ticket}``: where the place stands: ``position`` (1: next), ``waiting``,
    ``busy`` (a game is in progress), ``turn`` (start now, giving ``ticket`` to ``POST /api/play``),
    ``message``. Asking keeps the place: one not asked about for
    :data:`~menace.web.tables.ORPHAN_SECONDS` is given up."""
    tables = state_of(request).tables
    return JSONResponse(tables.place(request.path_params["ticket"]))


async def queue_leave(request: Request) -> Response:
    """``POST /api/queue/{ticket}/leave``: give the place up (the page closed)."""
    tables = state_of(request).tables
    tables.leave(request.path_params["ticket"])
    return JSONResponse({"left": True})


def play_routes() -> list[BaseRoute]:
    """The routes of games in progress (play and the festival console)."""
    return [
        Route("/play", play_start, methods=["POST"]),
        Route("/play/{id}", table, methods=["GET"]),
        Route("/play/{seat}/move", play_move, methods=["POST"]),
        Route("/play/{seat}/abandon", abandon, methods=["POST"]),
        Route("/play/{seat}/alive", alive, methods=["POST"]),
        Route("/operate/{seat}/alive", alive, methods=["POST"]),
        Route("/tables", games_in_progress, methods=["GET"]),
        Route("/tables/{id}/stop", stop_game, methods=["POST"]),
        Route("/queue", queue_join, methods=["POST"]),
        Route("/queue/{ticket}", queue_place, methods=["GET"]),
        Route("/queue/{ticket}/leave", queue_leave, methods=["POST"]),
        Route("/operate", operate_start, methods=["POST"]),
        Route("/operate/{id}", table, methods=["GET"]),
        Route("/operate/{seat}/bead", operate_bead, methods=["POST"]),
        Route("/operate/{seat}/other", play_move, methods=["POST"]),
        Route("/operate/{seat}/abandon", abandon, methods=["POST"]),
    ]
