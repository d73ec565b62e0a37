"""``menace serve``: the machine in a browser (the pages and API of :mod:`menace.web`)."""

from __future__ import annotations

import errno
import socket
import sys
from typing import Any

import click


def _token(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from menace.web.guard import check_token

    try:
        return check_token(value, "a token")
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def _hosts(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    from menace.web.guard import check_host_name

    try:
        return tuple(check_host_name(v) for v in value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every address, for a class on the network); anything but "
                   "this computer gets a play token and an admin token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--open", "open_browser", is_flag=True, help="Open the wall in the default browser.")
@click.option("--play-token", metavar="TOKEN", callback=_token,
              help="Token students need to play (letters, digits, - and _) [default: generated when --host is "
                   "not 127.0.0.1].")
@click.option("--admin-token", "--token", "admin_token", metavar="TOKEN", callback=_token,
              help="Token the teacher needs to train, build, replace, import, recount, switch the machine shown "
                   "or stop a game [default: generated when --host is not 127.0.0.1].")
@click.option("--tokens", "force_tokens", is_flag=True,
              help="Generate both tokens even on 127.0.0.1 (a computer other people use too).")
@click.option("--allow-host", "allowed", metavar="NAME", multiple=True, callback=_hosts,
              help="Also answer to this host name (repeatable); the server answers only to the loopback "
                   "names and the address it listens on otherwise, so that no other site can borrow it.")
@click.option("--qr/--no-qr", default=None,
              help="Draw the play address as a QR code for phones [default: when --host is not 127.0.0.1].")
@click.pass_obj
def serve(app: Any, host: str, port: int, open_browser: bool, play_token: str | None, admin_token: str | None,
          force_tokens: bool, allowed: tuple[str, ...], qr: bool | None) -> None:
    """Show the machine in a browser: the matchbox wall, play, train, learning, the festival console.

    Served beyond this computer (--host 0.0.0.0), students need the play token (play and watch) and
    the teacher the admin token (train, build, replace, import, recount, switch the machine shown,
    stop a game); both are printed with a link that carries them. At this computer itself
    (http://127.0.0.1:PORT/) no token is needed. On 127.0.0.1 no token is needed unless you give
    one or --tokens. Only the
    server's own pages may change it, asked by a name it was started for (--allow-host).

    \b
    Examples:
      menace serve --open
      menace serve --host 0.0.0.0 --port 8080       prints the class's addresses, a QR code and both tokens
      menace serve --host 0.0.0.0 --allow-host menace.local
    """
    import logging
    import webbrowser

    from menace.app.machines import machine_summary
    from menace.interrupts import catch_sigterm
    from menace.web import lan
    from menace.web.app import create_app, needs_token
    from menace.web.guard import ADMIN_POWERS, new_token
    from menace.web.server import MenaceServer, server_config

    machine_summary(app.database, app.machine)  # an unknown machine or database fails here, as one line
    if play_token is not None and play_token == admin_token:
        raise click.BadParameter("the play token and the admin token must differ", param_hint="'--play-token'")
    beyond = needs_token(host)
    generate = beyond or force_tokens
    generated = []
    if play_token is None and generate:
        play_token = new_token()
        generated.append("play")
    if admin_token is None and (generate or play_token is not None):
        admin_token = new_token()
        generated.append("admin")
    # The server's own log on stderr: warnings, and the traceback of anything that failed in a worker.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    web = create_app(app.database, app.machine, admin_token, play_token=play_token, bound=host, hosts=allowed,
                     trust_loopback=beyond)
    sock = listen(host, port)
    port = sock.getsockname()[1]
    server = MenaceServer(server_config(web, log_level="warning", timeout_graceful_shutdown=2), web)
    local = host in ("127.0.0.1", "localhost", "::1")
    shown = f"[{host}]" if ":" in host else host
    here = f"http://{'127.0.0.1' if host in lan.EVERY_NETWORK else shown}:{port}/"
    addresses = [a.url(port) for a in lan.lan_addresses(host)] if not local else []
    web.state.join_urls = addresses or [here]
    there = addresses[0] if addresses else here
    click.echo(f"Serving machine {app.machine!r} at {here}  (Ctrl-C to stop)")
    if host in lan.EVERY_NETWORK:
        if addresses:
            click.echo("The class opens it at " + ", ".join(addresses) + "  (this computer's networks)")
        else:
            click.echo("This computer has no network other devices can reach it on: only this computer can open it")
    if play_token is not None:
        made = " (generated)" if "play" in generated else ""
        click.echo(f"Play token:  {play_token}{made}  students: {there}play#token={play_token}  (play and watch)")
    if admin_token is not None:
        made = " (generated)" if "admin" in generated else ""
        click.echo(f"Admin token: {admin_token}{made}  teacher: {there}machines#token={admin_token}  "
                   f"({', '.join(ADMIN_POWERS)})")
    if beyond:
        click.echo(f"At this computer, {here} needs no token.")
    play = there + "play" + (f"#token={play_token}" if play_token else "")
    if addresses and (qr if qr is not None else True):
        click.echo(f"Scan to play: {play}  (the Join page shows this code too)")
        lan.print_qr(play, sys.stdout)
    elif qr:
        lan.print_qr(play, sys.stdout)
    if open_browser:
        webbrowser.open(here)
    # uvicorn takes SIGINT and SIGTERM while it serves, shuts down (the event streams ended, a
    # tournament stopped after its game and saved) and then raises the signal again: SIGTERM then
    # unwinds like Ctrl-C does (one line, status 143; Ctrl-C: 130) instead of killing the process
    # before the database is closed.
    catch_sigterm()
    server.run(sockets=[sock])


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, made before anything is printed: a port in use fails here, in one line."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if family == socket.AF_INET6 and host == "::":
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise click.ClickException(f"port {port} on {host} is in use (another server?); "
                                       f"choose another with --port") from None
        raise click.ClickException(f"cannot listen on {host} port {port}: {exc.strerror or exc}") from None
    except (socket.gaierror, UnicodeError) as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on {host!r}: {exc}") from None
    sock.set_inheritable(True)
    return sock
