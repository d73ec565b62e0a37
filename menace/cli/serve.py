"""``menace serve``: the machine in a browser (the pages and API of :mod:`menace.web`)."""

from __future__ import annotations

import errno
import socket
import sys
from typing import Any

import click


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; anything but this computer (127.0.0.1) needs the access token to write.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--open", "open_browser", is_flag=True, help="Open the wall in the default browser.")
@click.option("--token", metavar="TOKEN",
              help="Access token visitors need to play, train, create or import [default: generated when "
                   "--host is not 127.0.0.1].")
@click.option("--qr/--no-qr", default=None,
              help="Draw the play address as a QR code for phones [default: when --host is not 127.0.0.1].")
@click.pass_obj
def serve(app: Any, host: str, port: int, open_browser: bool, token: str | None, qr: bool | None) -> None:
    """Show the machine in a browser: the matchbox wall, play, train, learning, the festival console.

    Without a token anyone who can reach the address can watch but not play, train, create
    or import; on 127.0.0.1 no token is needed unless you give one.

    \b
    Examples:
      menace serve --open
      menace serve --host 0.0.0.0 --port 8080       prints the class's addresses, a QR code and a token
    """
    import webbrowser

    import uvicorn

    from menace.app.machines import machine_summary
    from menace.web import lan
    from menace.web.app import create_app, needs_token, new_token
    from menace.web.server import MenaceServer

    machine_summary(app.url, app.machine)  # an unknown machine or database fails here, as one line
    if token is not None and not token.strip():
        raise click.BadParameter("the token cannot be empty", param_hint="'--token'")
    generated = token is None and needs_token(host)
    if generated:
        token = new_token()
    web = create_app(app.url, app.machine, token)
    sock = listen(host, port)
    port = sock.getsockname()[1]
    config = uvicorn.Config(web, log_level="warning", timeout_graceful_shutdown=2)
    server = MenaceServer(config, web)
    here = host in ("127.0.0.1", "localhost", "::1")
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{'127.0.0.1' if host in lan.EVERY_NETWORK else shown}:{port}/"
    addresses = [a.url(port) for a in lan.lan_addresses(host)] if not here else []
    web.state.join_urls = addresses or [url]
    click.echo(f"Serving machine {app.machine!r} at {url}  (Ctrl-C to stop)")
    if host in lan.EVERY_NETWORK:
        if addresses:
            click.echo("The class opens it at " + ", ".join(addresses) + "  (this computer's networks)")
        else:
            click.echo("This computer has no network other devices can reach it on: only this computer can open it")
    if token is not None:
        click.echo(f"Access token{' (generated)' if generated else ''}: {token}  -- needed to play, train, "
                   f"create or import")
    if addresses and (qr if qr is not None else True):
        play = addresses[0] + "play"
        click.echo(f"Scan to play: {play}  (the Join page shows this code too)")
        lan.print_qr(play, sys.stdout)
    elif qr:
        lan.print_qr(url + "play", sys.stdout)
    if open_browser:
        webbrowser.open(url)
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
