"""The JSON API under ``/api/``: every route parses, calls :mod:`menace.app`, presents.

Reads are open to every visitor; writes (``POST``) need the access token when the server has
one (see :func:`menace.web.app.authorize`). Blocking library calls run in Starlette's thread pool.
"""

from __future__ import annotations

import json
import re
from functools import partial
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute

from menace import __version__
from menace.app import history as app_history
from menace.app import machines as app_machines
from menace.app import transfer
from menace.app import wall as app_wall
from menace.core.colours import format_colours, parse_colours
from menace.core.errors import ConflictError as MachineBusyError
from menace.core.game import Side
from menace.games import find_game, game_names
from menace.players import all_players
from menace.web import downloads, present
from menace.web.app import (
    BODY_LIMIT,
    MACHINE_NAME,
    UPLOAD_LIMIT,
    BadRequestError,
    TooLargeError,
    authorize,
    route,
    state_of,
)
from menace.web.play import play_routes


# -- reading requests ----------------------------------------------------------------------------
async def read_body(request: Request, limit: int) -> bytes:
    """The request's body, refused with :class:`TooLargeError` once it passes ``limit`` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLargeError(f"the upload is over the limit of {limit // (1024 * 1024) or 1} MB")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLargeError(f"the upload is over the limit of {limit // (1024 * 1024) or 1} MB")
        chunks.append(chunk)
    return b"".join(chunks)


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object (an empty body is ``{}``)."""
    raw = await read_body(request, BODY_LIMIT)
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise BadRequestError("the request body is not valid JSON") from None
    if not isinstance(body, dict):
        raise BadRequestError("the request body must be a JSON object")
    return body


def field_of(body: dict[str, Any], name: str, kind: type, default: Any = None, *, required: bool = False) -> Any:
    """``body[name]`` checked to be of ``kind`` (an int is not a bool here)."""
    value = body.get(name, default)
    if value is None:
        if required:
            raise BadRequestError(f"give {name!r}")
        return None
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadRequestError(f"{name!r} must be a whole number")
    if kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        raise BadRequestError(f"{name!r} must be a number")
    if kind in (str, bool) and not isinstance(value, kind):
        raise BadRequestError(f"{name!r} must be {'text' if kind is str else 'true or false'}")
    return value


def machine_name(text: str) -> str:
    """A machine name from a request, checked as the CLI checks ``-m``."""
    if not MACHINE_NAME.match(text):
        raise BadRequestError(f"{text[:70]!r} is not a machine name: 1 to 64 letters, digits, '-', '_' or '.'")
    return text


def query_int(request: Request, name: str, default: int | None, low: int = 0, high: int = 2**62) -> int | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    if not re.fullmatch(r"\d{1,19}", text) or not low <= int(text) <= high:
        raise BadRequestError(f"{name!r} must be a whole number from {low:,} to {high:,}")
    return int(text)


# -- reading ------------------------------------------------------------------------------------
async def health(request: Request) -> Response:
    """``GET /api/health``: ``{"ok": true}`` once the server answers (tests wait for it)."""
    return JSONResponse({"ok": True, "version": __version__})


async def info(request: Request) -> Response:
    """``GET /api/info``: the machine shown now, whether writes need the token, the board's shape,
    the bead colours, the state of the tournament and how many pages watch the events."""
    st = state_of(request)
    assert st.trainer is not None
    return JSONResponse({
        "machine": st.machine, "token_required": st.token is not None, "version": __version__,
        "shape": present.shape_json(find_game("tictactoe")), "colours": present.colours_json(),
        "games": game_names(), "training": st.trainer.latest(),
        "upload_limit": UPLOAD_LIMIT, "watchers": st.hub.clients,
    })


async def list_machines(request: Request) -> Response:
    """``GET /api/machines``: every machine in the database with its settings and games."""
    st = state_of(request)
    found = await run_in_threadpool(app_machines.list_machines, st.url)
    return JSONResponse({"current": st.machine, "machines": [present.summary_json(s) for s in found]})


async def machine(request: Request) -> Response:
    """``GET /api/machines/{name}``: one machine's summary (``menace stats``)."""
    name = machine_name(request.path_params["name"])
    s = await run_in_threadpool(app_machines.machine_summary, state_of(request).url, name)
    return JSONResponse(present.summary_json(s))


async def boxes(request: Request) -> Response:
    """``GET /api/machines/{name}/boxes``: the wall: every box with its number, move, side, drawing
    cells and beads (bead index, target cell or from->to, count, colour index, hex, letter, name)."""
    name = machine_name(request.path_params["name"])
    wall = await run_in_threadpool(app_wall.machine_wall, state_of(request).url, name)
    return JSONResponse(present.wall_json(wall))


async def box_series(request: Request) -> Response:
    """``GET /api/machines/{name}/boxes/{number}/series?points=400``: one box's beads per colour
    over the games, replayed from the history and sampled to ``points`` game numbers."""
    name = machine_name(request.path_params["name"])
    number = int(request.path_params["number"])
    points = query_int(request, "points", 400, 2, app_wall.MAX_POINTS)
    assert points is not None
    series = await run_in_threadpool(app_wall.box_series, state_of(request).url, name, number, points)
    colours = present.colours_for(series.game, series.colours)
    return JSONResponse(present.box_series_json(series.game, series, colours))


async def learning(request: Request) -> Response:
    """``GET /api/machines/{name}/learning?points=600&first=&last=&window=``: the learning curve
    (cumulative reinforcement, rolling win/draw/loss shares) sampled to ``points`` games between
    ``first`` and ``last``; ask again with a narrower range to zoom in. Read from the stored blocks
    each time (their tallies, and the headers of the games where a point falls), in memory bounded
    by ``points``: nothing per game is kept between requests."""
    st = state_of(request)
    name = machine_name(request.path_params["name"])
    points = query_int(request, "points", 600, 2, app_wall.MAX_POINTS)
    assert points is not None
    data = await run_in_threadpool(partial(
        app_history.learning_series, st.url, name, query_int(request, "window", None, 1), points,
        query_int(request, "first", None, 1), query_int(request, "last", None, 1), allow_empty=True))
    return JSONResponse(present.learning_json(data))


async def opponents(request: Request) -> Response:
    """``GET /api/opponents``: every opponent of ``menace opponents``, and the other machines
    (``menace:NAME``)."""
    players = [{"name": p.name, "aliases": list(p.aliases), "description": p.description} for p in all_players()]
    return JSONResponse({"players": players})


async def export(request: Request) -> Response:
    """``GET /api/machines/{name}/export``: the machine file (``menace export``) as a download."""
    name = machine_name(request.path_params["name"])
    body = await run_in_threadpool(transfer.export_machine, state_of(request).url, name)
    text = json.dumps(body, indent=1, ensure_ascii=False) + "\n"
    return Response(text.encode("utf-8"), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}.json"'})


async def labels(request: Request) -> Response:
    """``GET /api/machines/{name}/labels.pdf?paper=a4``: the build kit (``menace labels``)."""
    name = machine_name(request.path_params["name"])
    paper = request.query_params.get("paper", "a4")
    if paper not in ("a4", "letter"):
        raise BadRequestError("paper is a4 or letter")
    pdf = await run_in_threadpool(downloads.labels_pdf, state_of(request).url, name, paper)
    return Response(pdf, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{name}-labels.pdf"'})


async def plot(request: Request) -> Response:
    """``GET /api/machines/{name}/plots/{kind}.{fmt}?box=1``: ``menace plot`` (beads, learning,
    boxes) as PNG, SVG or PDF."""
    name = machine_name(request.path_params["name"])
    kind, fmt = request.path_params["kind"], request.path_params["fmt"]
    box = query_int(request, "box", 1, 1)
    assert box is not None
    data = await run_in_threadpool(downloads.plot_file, state_of(request).url, name, kind, fmt, box)
    return Response(data, media_type=downloads.PLOT_FORMATS[fmt],
                    headers={"Content-Disposition": f'attachment; filename="{name}-{kind}.{fmt}"'})


async def events(request: Request) -> Response:
    """``GET /api/events``: Server-Sent Events: ``train`` (a tournament's progress), ``wall`` (beads
    changed), ``turn``/``end`` (a game's moves and its ledger), ``machine`` (the machine shown)."""
    hub = state_of(request).hub
    limit = query_int(request, "limit", None, 1, 10_000)
    return StreamingResponse(hub.stream(limit), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


# -- writing ------------------------------------------------------------------------------------
async def create_machine(request: Request) -> Response:
    """``POST /api/machines``: ``menace init`` with every option: ``{"name", "game": "tictactoe"|"hexapawn",
    "preset": "michie"|"rubyquiz"|"gardner", "side": "X"|"O"|"both", "beads": "4,3,2,1", "reinforce": "3,1,-1",
    "scope": "all"|"last", "all_squares": bool, "symmetry": bool, "empty_box": "resign"|"restock"|"keep-last"|
    "revive", "colours": "name=#rrggbb,...", "replace": bool}``."""
    await authorize(request)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(field_of(body, "name", str, required=True))
    game, settings, label = app_machines.settings_for(
        field_of(body, "game", str, "tictactoe"), field_of(body, "preset", str), side=field_of(body, "side", str),
        schedule=field_of(body, "beads", str), reinforcement=field_of(body, "reinforce", str),
        scope=field_of(body, "scope", str), all_squares=field_of(body, "all_squares", bool),
        symmetry=field_of(body, "symmetry", bool), empty_box=field_of(body, "empty_box", str))
    colours = field_of(body, "colours", str)
    if colours is not None:
        colours = format_colours(parse_colours(colours))
    replace = bool(field_of(body, "replace", bool, False))
    busy = _busy(request)
    if replace and name in busy:
        raise MachineBusyError(f"machine {name!r} is in use by a game or tournament here")
    s = await run_in_threadpool(partial(app_machines.init_machine, st.url, name, settings, label, replace,
                                        game=game, colours=colours))
    st.hub.publish("machines", {"created": name}, remember=False)
    return JSONResponse(present.summary_json(s), status_code=201)


def _busy(request: Request) -> set[str]:
    st = state_of(request)
    assert st.trainer is not None and st.tables is not None
    return st.trainer.busy_machines() | st.tables.busy_machines()


async def switch_machine(request: Request) -> Response:
    """``POST /api/machines/current``: ``{"name"}``: the machine every page (and the audience
    screen) shows from now on."""
    await authorize(request)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(field_of(body, "name", str, required=True))
    s = await run_in_threadpool(app_machines.machine_summary, st.url, name)
    st.machine = name
    st.hub.publish("machine", {"machine": name})
    return JSONResponse(present.summary_json(s))


async def import_machine(request: Request) -> Response:
    """``POST /api/import?as=NAME&replace=1``: the body is a machine file (``menace import``), at
    most :data:`~menace.web.app.UPLOAD_LIMIT` bytes; a damaged file is refused and changes nothing."""
    await authorize(request)
    st = state_of(request)
    data = await read_body(request, UPLOAD_LIMIT)
    rename = request.query_params.get("as") or None
    if rename is not None:
        machine_name(rename)
    replace = request.query_params.get("replace") in ("1", "true", "yes")
    label = request.query_params.get("filename") or "the file"
    label = "".join(ch for ch in label if ch.isprintable())[:80]
    body = await run_in_threadpool(transfer.parse_machine_file, data, label)
    name_in_file = str(body.get("machine", {}).get("name", "")) if isinstance(body.get("machine"), dict) else ""
    if replace and (rename or name_in_file) in _busy(request):
        raise MachineBusyError("that machine is in use by a game or tournament here")
    name, nboxes, games = await run_in_threadpool(transfer.import_machine, st.url, body, rename, replace)
    st.hub.publish("machines", {"imported": name}, remember=False)
    return JSONResponse({"name": name, "boxes": nboxes, "games": games}, status_code=201)


async def reconcile(request: Request) -> Response:
    """``POST /api/machines/{name}/boxes/{number}/reconcile``: ``{"counts": [{"bead": 4, "count": 3}, ...]}``:
    the operator counted the real box's beads (``menace reconcile``); the beads named are set to
    those counts (the others are kept), recorded as a correction in the history. Refused (409)
    while the machine is in a game or tournament. Answers the box as the wall shows it, and the
    changes as ``[{"bead", "before", "after"}]``; every open page gets a ``beads`` event."""
    await authorize(request)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(request.path_params["name"])
    number = int(request.path_params["number"])
    given = body.get("counts")
    if not isinstance(given, list) or not given or len(given) > 64:
        raise BadRequestError("give 'counts': a list of {\"bead\", \"count\"} (at most 64)")
    counts: dict[int, int] = {}
    for item in given:
        if not isinstance(item, dict):
            raise BadRequestError("each of 'counts' is an object {\"bead\", \"count\"}")
        bead = field_of(item, "bead", int, required=True)
        if bead in counts:
            raise BadRequestError(f"bead {bead} is counted twice")
        counts[bead] = field_of(item, "count", int, required=True)
    if name in _busy(request):
        raise MachineBusyError(f"machine {name!r} is in a game or tournament here; recount it afterwards")
    changed = await run_in_threadpool(partial(app_machines.reconcile_box, st.url, name, number, counts,
                                              holder="a recount (menace serve)"))
    wall = await run_in_threadpool(app_wall.machine_wall, st.url, name)
    box = present.box_row(wall.game, wall.boxes[number - 1], present.colours_for(wall.game, wall.colours))
    changes = [{"bead": m, "before": before, "after": after} for m, before, after in changed]
    st.hub.publish("beads", {"machine": name, "box": number, "beads": box[4], "changes": changes}, remember=False)
    return JSONResponse({"machine": name, "box": number, "beads": box[4], "bead_fields": present.BEAD_FIELDS,
                         "changes": changes})


async def train_status(request: Request) -> Response:
    """``GET /api/train``: the tournament's state: running, games, W/D/L, games per second."""
    st = state_of(request)
    assert st.trainer is not None
    return JSONResponse(st.trainer.latest())


async def train_start(request: Request) -> Response:
    """``POST /api/train``: ``{"machine", "opponent": "smart", "games": 2000 | "seconds": 60,
    "seed", "side", "frozen": false}``: start a tournament (``menace tournament``) in the server's worker
    thread; ``frozen``: the machine plays without learning."""
    await authorize(request)
    body = await json_body(request)
    st = state_of(request)
    assert st.trainer is not None and st.tables is not None
    name = machine_name(field_of(body, "machine", str, st.machine))
    opponent = field_of(body, "opponent", str, "smart").strip()
    games = field_of(body, "games", int)
    seconds = field_of(body, "seconds", float)
    if games is None and seconds is None:
        games = 1000
    if games is not None and not 1 <= games <= 10**9:
        raise BadRequestError("'games' must be from 1 to 1,000,000,000")
    if seconds is not None and not 0 < seconds <= 7 * 86400:
        raise BadRequestError("'seconds' must be more than 0 and at most a week")
    side_text = field_of(body, "side", str)
    if side_text not in (None, "", "X", "O"):
        raise BadRequestError("'side' is X or O")
    frozen = field_of(body, "frozen", bool, False)
    seed = field_of(body, "seed", int)
    if seed is not None and not 0 <= seed < 2**63:
        raise BadRequestError("'seed' must be from 0 to 2**63 - 1")
    if name in st.tables.busy_machines():
        raise MachineBusyError(f"machine {name!r} is in a game here; finish it first")
    await run_in_threadpool(app_machines.machine_summary, st.url, name)  # an unknown machine: 404 now
    status = st.trainer.start(st.url, name, opponent, games, seconds, seed, Side[side_text] if side_text else None,
                              frozen)
    return JSONResponse(status, status_code=202)


async def train_stop(request: Request) -> Response:
    """``POST /api/train/stop``: stop after the current game; every finished game is saved."""
    await authorize(request)
    st = state_of(request)
    assert st.trainer is not None
    status = await run_in_threadpool(st.trainer.stop)
    return JSONResponse(status)


def routes() -> list[BaseRoute]:
    """Every API route (mounted under ``/api``)."""
    return [
        route("/health", health),
        route("/info", info),
        route("/events", events),
        route("/opponents", opponents),
        route("/machines", list_machines),
        route("/machines", create_machine, ["POST"]),
        route("/machines/current", switch_machine, ["POST"]),
        route("/machines/{name}", machine),
        route("/machines/{name}/boxes", boxes),
        route("/machines/{name}/boxes/{number:int}/series", box_series),
        route("/machines/{name}/boxes/{number:int}/reconcile", reconcile, ["POST"]),
        route("/machines/{name}/learning", learning),
        route("/machines/{name}/export", export),
        route("/machines/{name}/labels.pdf", labels),
        route("/machines/{name}/plots/{kind}.{fmt}", plot),
        route("/import", import_machine, ["POST"]),
        route("/train", train_status),
        route("/train", train_start, ["POST"]),
        route("/train/stop", train_stop, ["POST"]),
        *play_routes(),
    ]
