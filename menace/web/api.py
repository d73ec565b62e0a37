"""The JSON API under ``/api/``: every route parses, calls :mod:`menace.app`, presents.

Reads are open to every visitor; a write (``POST``, JSON from the server's own pages, see
:mod:`menace.web.guard`) needs the play token (playing) or the admin token (everything else) when
the server has them (see :func:`menace.web.boundary.authorize`). Blocking library calls run in
Starlette's thread pool.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute

from menace import __version__
from menace.app import groups as app_groups
from menace.app import history as app_history
from menace.app import machines as app_machines
from menace.app import opponents as app_opponents
from menace.app import transfer
from menace.app import wall as app_wall
from menace.app.database import Database
from menace.app.tournament import check_frozen_opponent
from menace.core.colours import check_marks, format_colours, parse_colours
from menace.core.errors import ConflictError as MachineBusyError
from menace.core.errors import NotFoundError
from menace.core.game import Side
from menace.core.names import is_machine_name
from menace.core.settings import PRESETS
from menace.games import DEFAULT_GAME, DEFAULT_PRESETS, PRESET_GAMES, find_game, game_names
from menace.players import all_players
from menace.render.beads import places_pieces
from menace.web import downloads, lan, present
from menace.web.boundary import (
    UPLOAD_LIMIT,
    BadRequestError,
    ConfirmationNeededError,
    access,
    authorize,
    field_of,
    json_body,
    machine_name,
    query_int,
    read_body,
    route,
    state_of,
)
from menace.web.boundary import (
    busy_machines as _busy,
)
from menace.web.guard import ADMIN_POWERS, Role
from menace.web.history import history_routes
from menace.web.play import play_routes


async def health(request: Request) -> Response:
    """``GET /api/health``: ``{"ok": true}`` once the server answers (tests wait for it)."""
    return JSONResponse({"ok": True, "version": __version__})


async def info(request: Request) -> Response:
    """``GET /api/info``: the machine shown now, whether writes need the token, the board's shape,
    the bead colours, the state of the tournament and how many pages watch the events."""
    st = state_of(request)
    return JSONResponse({
        "machine": st.machine, "token_required": st.tokens.any, "version": __version__,
        "shape": present.shape_json(find_game(DEFAULT_GAME)), "colours": present.colours_json(),
        "games": game_names(), "game_titles": {g: find_game(g).title for g in game_names()},
        "game_sides": {g: present.shape_json(find_game(g))["sides"] for g in game_names()},
        "presets": [{"name": p, "game": PRESET_GAMES.get(p)} for p in PRESETS],
        "default_presets": DEFAULT_PRESETS, "training": st.trainer.latest(),
        "upload_limit": UPLOAD_LIMIT, "watchers": st.hub.clients,
    })


async def access_info(request: Request) -> Response:
    """``GET /api/access``: what the token in ``X-Menace-Token`` (or none) lets this visitor do:
    ``{"role": "watch"|"play"|"admin", "token": "none"|"ok"|"open"|"loopback", "play_needs_token",
    "admin_needs_token"}``; a wrong token is 403 (and counts as a wrong guess)."""
    st = state_of(request)
    have = access(request)
    return JSONResponse({"role": have.role.name.lower(), "token": have.token, "powers": list(ADMIN_POWERS),
                         "play_needs_token": st.tokens.open_role() < Role.PLAY,
                         "admin_needs_token": st.tokens.open_role() < Role.ADMIN})


async def join(request: Request) -> Response:
    """``GET /api/join``: where the class opens the server (the addresses ``menace serve`` found on
    this computer's networks, else the one this page was opened at), and the play address as a QR
    code (SVG)."""
    urls = list(getattr(request.app.state, "join_urls", None) or [str(request.base_url)])
    # Shown to those who may play (the teacher's projector), the code carries the play token, so a
    # student scanning it lands signed in to play; a watcher gets the bare address. Never the admin token.
    tokens = state_of(request).tokens
    signed_in = tokens.play is not None and access(request).role >= Role.PLAY
    play = urls[0].rstrip("/") + "/play" + (f"#token={tokens.play}" if signed_in else "")
    return JSONResponse({"urls": urls, "play": play, "signed_in": signed_in, "qr_svg": lan.qr_svg(play)},
                        headers={"Cache-Control": "no-store"})


async def list_machines(request: Request) -> Response:
    """``GET /api/machines``: every machine in the database with its settings and games."""
    st = state_of(request)
    found = await run_in_threadpool(app_machines.list_machines, st.db)
    return JSONResponse({"current": st.machine, "machines": [present.summary_json(s) for s in found]})


async def machine(request: Request) -> Response:
    """``GET /api/machines/{name}``: one machine's summary (``menace stats``)."""
    name = machine_name(request.path_params["name"])
    st = state_of(request)
    s = await run_in_threadpool(app_machines.machine_summary, st.db, name)
    return st.encoded.response(s, present.summary_json)


async def boxes(request: Request) -> Response:
    """``GET /api/machines/{name}/boxes``: the wall: every box with its number, move, side, drawing
    cells and beads (bead index, target cell or from->to, count, colour index, hex, letter, name)."""
    name = machine_name(request.path_params["name"])
    st = state_of(request)
    wall = await run_in_threadpool(app_wall.machine_wall, st.db, name)
    return st.encoded.response(wall, present.wall_json)


async def box_series(request: Request) -> Response:
    """``GET /api/machines/{name}/boxes/{number}/series?points=400``: one box's beads per colour
    over the games, replayed from the history and sampled to ``points`` game numbers."""
    name = machine_name(request.path_params["name"])
    number = int(request.path_params["number"])
    points = query_int(request, "points", 400, 2, app_wall.MAX_POINTS)
    series = await run_in_threadpool(app_wall.box_series, state_of(request).db, name, number, points)
    colours = present.colours_for(series.game, series.colours)
    return JSONResponse(present.box_series_json(series.game, series, colours))


async def learning(request: Request) -> Response:
    """``GET /api/machines/{name}/learning?points=600&first=&last=&window=``: the learning curve
    (cumulative reinforcement from the first game of the history, rolling win/draw/loss shares)
    sampled to ``points`` games between ``first`` and ``last``; ask again with a narrower range to
    zoom in (the cumulative goes on from its value there, never starting again at 0). Read from the stored blocks
    each time (their tallies, and the headers of the games where a point falls), in memory bounded
    by ``points``: nothing per game is kept between requests."""
    st = state_of(request)
    name = machine_name(request.path_params["name"])
    points = query_int(request, "points", 600, 2, app_wall.MAX_POINTS)
    data = await run_in_threadpool(partial(
        app_history.learning_series, st.db, name, query_int(request, "window", None, 1), points,
        query_int(request, "first", None, 1), query_int(request, "last", None, 1), allow_empty=True,
        from_start=True))
    return st.encoded.response(data, present.learning_json)


async def opponents(request: Request) -> Response:
    """``GET /api/opponents?machine=NAME``: the opponents that can play that machine's game (the
    machine shown by default), the other machines of its game (``menace:NAME``) and ``default``, the
    one to offer first. ``?game=NAME`` instead: every opponent of ``menace opponents`` that plays that
    game, each with the games it plays (null: every game)."""
    st = state_of(request)
    if "game" in request.query_params:
        game = find_game(request.query_params["game"])
        every = [{"name": p.name, "aliases": list(p.aliases), "description": p.description,
                  "games": None if p.games is None else list(p.games)} for p in all_players(game)]
        return JSONResponse({"players": every})
    name = machine_name(request.query_params.get("machine") or st.machine)
    found = await run_in_threadpool(app_opponents.opponents_for, st.db, name)
    players = [{"name": p.name, "description": p.description, "machine": p.machine} for p in found.players]
    return JSONResponse({"machine": found.machine, "game": found.game, "default": found.default, "players": players})


async def export(request: Request) -> Response:
    """``GET /api/machines/{name}/export``: the machine file (``menace export``) as a download,
    streamed a few blocks at a time: the memory a download holds does not grow with the history."""
    name = machine_name(request.path_params["name"])
    stream = transfer.ExportStream(state_of(request).db, name)
    chunks = iter(stream)
    try:
        first = await run_in_threadpool(next, chunks)  # an unknown machine is a 404 here, not a cut file
    except BaseException:
        await run_in_threadpool(stream.close)
        raise

    async def rest() -> AsyncIterator[bytes]:
        try:
            yield first
            while (chunk := await run_in_threadpool(next, chunks, None)) is not None:
                yield chunk
        finally:
            with anyio.CancelScope(shield=True):  # a client gone mid-download: still let the database go
                await run_in_threadpool(stream.close)

    return StreamingResponse(rest(), media_type="application/json",
                             headers={"Content-Disposition": f'attachment; filename="{name}.json"'})


async def labels(request: Request) -> Response:
    """``GET /api/machines/{name}/labels.pdf?paper=a4``: the build kit (``menace labels``)."""
    name = machine_name(request.path_params["name"])
    paper = request.query_params.get("paper", "a4")
    if paper not in ("a4", "letter"):
        raise BadRequestError("paper is a4 or letter")
    pdf = await run_in_threadpool(downloads.labels_pdf, state_of(request).db, name, paper)
    return Response(pdf, media_type="application/pdf",
                    headers={"Content-Disposition": f'attachment; filename="{name}-labels.pdf"'})


async def plot(request: Request) -> Response:
    """``GET /api/machines/{name}/plots/{kind}.{fmt}?box=1``: ``menace plot`` (beads, learning,
    boxes) as PNG, SVG or PDF."""
    name = machine_name(request.path_params["name"])
    kind, fmt = request.path_params["kind"], request.path_params["fmt"]
    box = query_int(request, "box", 1, 1)
    data = await run_in_threadpool(downloads.plot_file, state_of(request).db, name, kind, fmt, box)
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
    """``POST /api/machines``: ``menace init`` with every option: ``{"name", "game": one of the games,
    "preset": "michie"|"rubyquiz"|"gardner", "side": "X"|"O"|"both", "beads": "4,3,2,1", "reinforce": "3,1,-1",
    "scope": "all"|"last", "all_squares": bool, "symmetry": bool, "empty_box": "resign"|"restock"|"keep-last"|
    "revive", "rule": "michie"|"pegasus", "pegasus_a": number, "pegasus_b": number, "refined": "hundred"|"per-play",
    "decay": number, "colours": "name=#rrggbb,...", "replace": bool, "confirm": bool}``. Replacing a machine
    that has games or beads needs ``"confirm": true``; without it the answer (409) says what would
    be lost (``loses``). Admin token."""
    await authorize(request, Role.ADMIN)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(field_of(body, "name", str, required=True))
    game, settings, label = app_machines.settings_for(
        field_of(body, "game", str, DEFAULT_GAME), field_of(body, "preset", str), side=field_of(body, "side", str),
        schedule=field_of(body, "beads", str), reinforcement=field_of(body, "reinforce", str),
        scope=field_of(body, "scope", str), all_squares=field_of(body, "all_squares", bool),
        symmetry=field_of(body, "symmetry", bool), empty_box=field_of(body, "empty_box", str),
        rule=field_of(body, "rule", str), a=field_of(body, "pegasus_a", float), b=field_of(body, "pegasus_b", float),
        refinement=field_of(body, "refined", str), decay=field_of(body, "decay", float))
    colours = field_of(body, "colours", str)
    if colours is not None:
        parsed = parse_colours(colours)
        if places_pieces(game):
            check_marks(parsed, game.glyphs[1:])  # a bead lettered X or O could not be told from a piece
        colours = format_colours(parsed)
    replace = bool(field_of(body, "replace", bool, False))
    confirmed = bool(field_of(body, "confirm", bool, False))
    busy = _busy(request)
    if replace and name in busy:
        raise MachineBusyError(f"machine {name!r} is in use by a game or tournament here")
    if replace and not confirmed:
        await _confirm_replacing(st.db, name, "\"confirm\": true")
    s = await run_in_threadpool(partial(app_machines.init_machine, st.db, name, settings, label, replace,
                                        game=game, colours=colours))
    st.hub.publish("machines", {"created": name}, remember=False)
    return JSONResponse(present.summary_json(s), status_code=201)


async def _confirm_replacing(db: Database, name: str, how: str) -> None:
    """Refuse replacing ``name`` unconfirmed when that loses what it learnt (it has played games)."""
    try:
        s = await run_in_threadpool(app_machines.machine_summary, db, name)
    except NotFoundError:
        return  # nothing there: nothing to lose
    if s.games == 0:
        return
    raise ConfirmationNeededError(
        f"replacing machine {name!r} loses its {s.games:,} games and the beads of its {s.boxes:,} boxes "
        f"(export it first to keep them); send {how} to replace it",
        {"machine": name, "games": s.games, "boxes": s.boxes})


async def create_groups(request: Request) -> Response:
    """``POST /api/groups``: ``{"count": 6, "game": NAME, "preset": NAME, "prefix": "group",
    "replace": false}``: one machine per group, ``group-1`` ... ``group-N``, built in one step."""
    await authorize(request, Role.ADMIN)
    body = await json_body(request)
    st = state_of(request)
    count = field_of(body, "count", int, required=True)
    prefix = field_of(body, "prefix", str, "group")
    replace = bool(field_of(body, "replace", bool, False))
    if replace and any(n in _busy(request) for n in app_groups.group_names(count, prefix)):
        raise MachineBusyError("a group's machine is in a game or tournament here; stop it first")
    game = field_of(body, "game", str, DEFAULT_GAME)
    built = await run_in_threadpool(partial(app_groups.build_groups, st.db, count, game,
                                            field_of(body, "preset", str), prefix, replace))
    st.hub.publish("machines", {"created": [s.name for s in built]}, remember=False)
    return JSONResponse({"machines": [present.summary_json(s) for s in built]}, status_code=201)


async def scoreboard(request: Request) -> Response:
    """``GET /api/scoreboard?prefix=group``: every group's machine (``group-1`` ...) with its
    learning curve, for the class scoreboard."""
    prefix = request.query_params.get("prefix") or "group"
    app_groups.group_names(1, prefix)  # a prefix that cannot name a machine: 400
    found = await run_in_threadpool(app_groups.scoreboard, state_of(request).db, prefix)
    return JSONResponse({"prefix": prefix, "groups": [
        {"machine": present.summary_json(g.summary), "learning": present.learning_json(g.learning)} for g in found]})


async def switch_machine(request: Request) -> Response:
    """``POST /api/machines/current``: ``{"name"}``: the machine every page (and the audience
    screen) shows from now on. Admin token."""
    await authorize(request, Role.ADMIN)
    body = await json_body(request)
    st = state_of(request)
    name = machine_name(field_of(body, "name", str, required=True))
    s = await run_in_threadpool(app_machines.machine_summary, st.db, name)
    st.machine = name
    st.hub.publish("machine", {"machine": name})
    return JSONResponse(present.summary_json(s))


async def import_machine(request: Request) -> Response:
    """``POST /api/import?as=NAME&replace=1``: the body is a machine file (``menace import``), at
    most :data:`~menace.web.boundary.UPLOAD_LIMIT` bytes; a damaged file is refused and changes nothing.
    Replacing a machine that has games needs ``&confirm=1`` too. Admin token."""
    await authorize(request, Role.ADMIN)
    st = state_of(request)
    rename = request.query_params.get("as") or None
    if rename is not None:
        machine_name(rename)
    replace = request.query_params.get("replace") in ("1", "true", "yes")
    confirmed = request.query_params.get("confirm") in ("1", "true", "yes")
    if replace and rename is not None and not confirmed:
        await _confirm_replacing(st.db, rename, "confirm=1")
    data = await read_body(request, UPLOAD_LIMIT)
    label = request.query_params.get("filename") or "the file"
    label = "".join(ch for ch in label if ch.isprintable())[:80]
    body = await run_in_threadpool(transfer.parse_machine_file, data, label)
    name_in_file = str(body.get("machine", {}).get("name", "")) if isinstance(body.get("machine"), dict) else ""
    if replace and (rename or name_in_file) in _busy(request):
        raise MachineBusyError("that machine is in use by a game or tournament here")
    if replace and rename is None and not confirmed and is_machine_name(name_in_file):
        await _confirm_replacing(st.db, name_in_file, "confirm=1")
    name, nboxes, games = await run_in_threadpool(transfer.import_machine, st.db, body, rename, replace)
    _, settings = await run_in_threadpool(app_machines.machine_header, st.db, name)
    st.hub.publish("machines", {"imported": name}, remember=False)
    # odds: a machine of the Pegasus rule, whose odds (not beads) were checked against its history
    return JSONResponse({"name": name, "boxes": nboxes, "games": games, "odds": settings.pegasus is not None},
                        status_code=201)


async def reconcile(request: Request) -> Response:
    """``POST /api/machines/{name}/boxes/{number}/reconcile``: ``{"counts": [{"bead": 4, "count": 3}, ...]}``:
    the operator counted the real box's beads (``menace reconcile``); the beads named are set to
    those counts (the others are kept), recorded as a correction in the history. Refused (409)
    while the machine is in a game or tournament. Answers the box as the wall shows it, and the
    changes as ``[{"bead", "before", "after"}]``; every open page gets a ``beads`` event. Admin token."""
    await authorize(request, Role.ADMIN)
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
    changed = await run_in_threadpool(partial(app_machines.reconcile_box, st.db, name, number, counts,
                                              holder="a recount (menace serve)"))
    wall = await run_in_threadpool(app_wall.machine_wall, st.db, name)
    box = present.box_row(wall.game, wall.boxes[number - 1], present.colours_for(wall.game, wall.colours))
    changes = [{"bead": m, "before": before, "after": after} for m, before, after in changed]
    st.hub.publish("beads", {"machine": name, "box": number, "beads": box[4], "changes": changes}, remember=False)
    return JSONResponse({"machine": name, "box": number, "beads": box[4], "bead_fields": present.BEAD_FIELDS,
                         "changes": changes})


async def train_status(request: Request) -> Response:
    """``GET /api/train``: the tournament's state: running, games, W/D/L, games per second."""
    st = state_of(request)
    return JSONResponse(st.trainer.latest())


async def train_start(request: Request) -> Response:
    """``POST /api/train``: ``{"machine", "opponent": "smart", "games": 2000 | "seconds": 60,
    "seed", "side", "frozen": false}``: start a tournament (``menace tournament``) in a process of its own
    beside the server; ``frozen`` true plays without learning. Admin token."""
    await authorize(request, Role.ADMIN)
    body = await json_body(request)
    st = state_of(request)
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
    seed = field_of(body, "seed", int)
    if seed is not None and not 0 <= seed < 2**63:
        raise BadRequestError("'seed' must be from 0 to 2**63 - 1")
    frozen = field_of(body, "frozen", bool, False)
    if name in st.tables.busy_machines():
        raise MachineBusyError(f"machine {name!r} is in a game here; finish it first")
    summary = await run_in_threadpool(app_machines.machine_summary, st.db, name)  # an unknown machine: 404 now
    await run_in_threadpool(app_opponents.check_opponent, st.db, summary, opponent)  # a misfit: 400 now
    check_frozen_opponent(opponent, summary.game, frozen)  # one that learns, without learning: 400 now
    status = st.trainer.start(st.db, name, opponent, games, seconds, seed, Side[side_text] if side_text else None,
                              frozen)
    return JSONResponse(status, status_code=202)


async def train_stop(request: Request) -> Response:
    """``POST /api/train/stop``: stop after the current game; every finished game is saved. Admin token."""
    await authorize(request, Role.ADMIN)
    st = state_of(request)
    status = await run_in_threadpool(st.trainer.stop)
    return JSONResponse(status)


def routes() -> list[BaseRoute]:
    """Every API route (mounted under ``/api``)."""
    return [
        route("/health", health),
        route("/info", info),
        route("/access", access_info),
        route("/join", join),
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
        route("/groups", create_groups, ["POST"]),
        route("/scoreboard", scoreboard),
        route("/train", train_status),
        route("/train", train_start, ["POST"]),
        route("/train/stop", train_stop, ["POST"]),
        *play_routes(),
        *history_routes(),
    ]
