"""In Chromium: a page of another local origin cannot drive ``menace serve``; the token field
names a wrong token; a replacement asks first and says what will be lost."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import built_database, owner, train_300
from web_browser_helpers import page_at

from menace.app.machines import list_machines, machine_summary
from menace.web.guard import ADMIN_POWERS
from menace.web.server import BackgroundServer

pytestmark = pytest.mark.browser

# A page on another port of this computer that tries what a hostile page would: a form posting
# text/plain that reads as JSON (no preflight), and a no-cors fetch (no preflight either).
ATTACK = """<!doctype html><html><body>
<form id="replace" method="POST" action="{target}/api/machines" enctype="text/plain">
  <input name='{{"name":"menace","replace":true,"confirm":true,"beads":"1,1,1,1","pad":"' value='"}}'>
</form>
<script>
async function fetchAttack() {{
  const opts = {{ method: "POST", mode: "no-cors", headers: {{ "Content-Type": "text/plain" }} }};
  await fetch("{target}/api/machines", {{ ...opts, body: JSON.stringify({{ name: "planted" }}) }});
  await fetch("{target}/api/train", {{ ...opts, body: JSON.stringify({{ games: 1000000 }}) }});
  return "sent";
}}
</script></body></html>"""


@contextmanager
def attacker(target: str) -> Iterator[str]:
    """A second local origin (127.0.0.1, another port) serving :data:`ATTACK`."""
    page = ATTACK.format(target=target).encode("utf-8")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/attack.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def trained(request: pytest.FixtureRequest, db_url: str) -> str:
    return built_database(request, db_url, "smart-300", train_300)


@contextmanager
def page_of(browser: Any) -> Iterator[Any]:
    """A laptop-sized page (see :func:`web_browser_helpers.page_at`)."""
    with page_at(browser) as [page]:
        yield page


def test_a_page_of_another_local_origin_cannot_replace_or_train(trained: str, browser: Any) -> None:
    with BackgroundServer(trained, "menace") as srv, attacker(srv.base) as evil, page_of(browser) as page:
        page.goto(evil)
        assert page.evaluate("fetchAttack()") == "sent"
        with page.expect_navigation() as nav:
            page.evaluate("document.getElementById('replace').submit()")
        response = nav.value
        assert response is not None and response.status == 403, response and response.text()
        assert "another web page" in page.inner_text("body")
        # the no-cors requests are answered too; the server's state shows what they did (nothing)
        status = page.request.get(srv.base + "/api/train").json()
    assert status["running"] is False and not status["games"]
    assert [m.name for m in list_machines(owner(trained))] == ["menace"]
    assert machine_summary(owner(trained), "menace").games == 300


def test_a_wrong_token_is_named_wrong_and_the_right_ones_their_role(trained: str, browser: Any) -> None:
    with BackgroundServer(trained, "menace", token="admin-secret", play_token="play-secret") as srv, \
            page_of(browser) as page:
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#token-state[data-role='watch']")
        page.fill("#token-input", "play-secrex")
        page.press("#token-input", "Enter")
        page.wait_for_selector("#token-state[data-role='wrong']")
        assert "wrong" in page.inner_text("#token-state")
        page.fill("#token-input", "bad token ü")
        page.press("#token-input", "Enter")
        page.wait_for_selector("#token-state[data-role='invalid']")
        assert "letters, digits" in page.inner_text("#token-state")
        page.fill("#token-input", "play-secret")
        page.press("#token-input", "Enter")
        page.wait_for_selector("#token-state[data-role='play']")
        page.fill("#create-form input[name=name]", "student")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#flash.error")
        assert "admin token" in page.inner_text("#flash")
        # a student's link carries the token in its fragment: never sent to a server, then wiped
        page.goto(srv.base + "/machines#token=admin-secret")
        page.wait_for_selector("#token-state[data-role='admin']")
        assert "token" not in page.url
        said = page.inner_text("#token-state")
        assert all(power in said for power in ADMIN_POWERS), said  # stop a game among them
        page.fill("#create-form input[name=name]", "teacher")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#machine-table tbody tr[data-name='teacher']")


def test_an_older_tokens_late_answer_does_not_overwrite_a_newer_one(trained: str, browser: Any) -> None:
    """Enter gives two checks of one token (the form's submit and the field's change); an answer
    that arrives after a newer token was entered must not replace what the field says of the newer
    one (CI saw "wrong token" where "not a token" belonged)."""
    with BackgroundServer(trained, "menace", token="admin-secret", play_token="play-secret") as srv, \
            page_of(browser) as page:
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#token-state[data-role='watch']")
        held: list[Any] = []
        released = False

        def hold(route: Any) -> None:  # the old token's checks wait until the newer one is shown
            if released:
                route.continue_()
            else:
                held.append(route)

        page.route("**/api/access", hold)
        page.fill("#token-input", "play-secrex")
        with page.expect_request("**/api/access"):
            page.press("#token-input", "Enter")
        page.fill("#token-input", "bad token \u00fc")
        page.press("#token-input", "Enter")
        page.wait_for_selector("#token-state[data-role='invalid']")
        released = True
        for route in held:
            route.continue_()
        # every check the page asked the server for has been answered, then the field is read
        page.wait_for_function("(s => s.dataset.answered === s.dataset.asked)"
                               "(document.getElementById('token-state'))")
        assert page.get_attribute("#token-state", "data-role") == "invalid"
        assert "letters, digits" in page.inner_text("#token-state")


def test_replacing_a_machine_asks_first_and_says_what_is_lost(trained: str, browser: Any) -> None:
    with BackgroundServer(trained, "menace") as srv, page_of(browser) as page:
        page.goto(srv.base + "/machines")
        page.wait_for_selector("#machine-table tbody tr")
        asked: list[str] = []

        def refuse(dialog: Any) -> None:
            asked.append(dialog.message)
            dialog.dismiss()

        page.once("dialog", refuse)
        page.fill("#create-form input[name=name]", "menace")
        page.check("#create-form input[name=replace]")
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#create-result[data-state='kept']")
        assert asked and "300 games" in asked[0] and "304 boxes" in asked[0], asked
        assert machine_summary(owner(trained), "menace").games == 300

        page.once("dialog", lambda d: d.accept())
        page.click("#create-form button[type=submit]")
        page.wait_for_selector("#create-result[data-state='built']")
    assert machine_summary(owner(trained), "menace").games == 0


def test_a_student_scanning_the_join_page_lands_signed_in_to_play(trained: str, browser: Any) -> None:
    with BackgroundServer(trained, "menace", token="admin-secret", play_token="play-secret") as srv, \
            page_at(browser, count=3) as [teacher, student, watcher]:
        # three devices: each page keeps its token in its own sessionStorage (a page of its own is a tab
        # of its own), so the student's link signs in the student's page only and the watcher has none
        srv.app.state.join_urls = [srv.base + "/"]  # what menace serve finds on the LAN (tests stay on loopback)
        teacher.goto(srv.base + "/join#token=admin-secret")
        teacher.wait_for_selector("#token-state[data-role='admin']")
        teacher.wait_for_selector("body[data-ready='1']")
        code = teacher.get_attribute("#join-qr", "data-address") or ""
        assert code == srv.base + "/play#token=play-secret"
        assert "admin-secret" not in teacher.inner_html("main")
        student.goto(code)  # what the phone's camera opens
        student.wait_for_selector("#token-state[data-role='play']")
        student.click("#new-game")
        student.wait_for_selector("#turn h3")
        # a visitor without a token sees the address only: the code signs nobody in
        watcher.goto(srv.base + "/join")
        watcher.wait_for_selector("body[data-ready='1']")
        assert watcher.get_attribute("#join-qr", "data-address") == srv.base + "/play"
        assert "play-secret" not in watcher.inner_html("main")
