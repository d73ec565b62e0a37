"""``menace serve``: the machine in a browser (the pages and API of :mod:`menace.web`)."""

from __future__ import annotations

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
@click.pass_obj
def serve(app: Any, host: str, port: int, open_browser: bool, token: str | None) -> None:
    """Show the machine in a browser: the matchbox wall, play, train, learning, the festival console.

    Without a token anyone who can reach the address can watch but not play, train, create
    or import; on 127.0.0.1 no token is needed unless you give one.

    \b
    Examples:
      menace serve --open
      menace serve --host 0.0.0.0 --port 8080       prints a generated token
    """
    import logging
    import webbrowser

    import uvicorn

    from menace.app.machines import machine_summary
    from menace.web.app import create_app, needs_token, new_token
    from menace.web.server import MenaceServer

    machine_summary(app.database, app.machine)  # an unknown machine or database fails here, as one line
    if token is not None and not token.strip():
        raise click.BadParameter("the token cannot be empty", param_hint="'--token'")
    generated = token is None and needs_token(host)
    if generated:
        token = new_token()
    # The server's own log on stderr: warnings, and the traceback of anything that failed in a worker.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    web = create_app(app.database, app.machine, token)
    config = uvicorn.Config(web, host=host, port=port, log_level="warning", timeout_graceful_shutdown=2)
    server = MenaceServer(config, web)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else shown}:{port}/"
    click.echo(f"Serving machine {app.machine!r} at {url}  (Ctrl-C to stop)")
    if token is not None:
        click.echo(f"Access token{' (generated)' if generated else ''}: {token}  -- needed to play, train, "
                   f"create or import")
    if open_browser:
        webbrowser.open(url)
    server.run()
