"""The browser table end to end: headless Chromium (Playwright driving the system's Chromium,
`apt-get install chromium`) clicks through the page of a server these tests start themselves.

A 4-player game played by clicking through its setup and a whole Spring (every player decides
in it), a city and a card clicked to filter the moves, an illegal move typed and refused with
its reason and rule, an undo, a save downloaded and loaded back, a look back through the log,
then one turn of a 2-player Wars of Italy game. Skipped when Playwright or Chromium is missing,
except where RULESPEC_REQUIRE_BROWSER=1 (set by .ci/run): there a missing browser fails.
The screenshot of the board is written to RULESPEC_WEB_SCREENSHOT when it is set
(docs/web-table.png was made so).
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time

import pytest

CHROMIUM = os.environ.get("RULESPEC_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("RULESPEC_REQUIRE_BROWSER") == "1"


def _missing() -> str | None:
    for mod in ("starlette", "uvicorn", "playwright.sync_api"):
        try:
            __import__(mod)
        except ImportError:
            return f"{mod} is not installed (pip install -e '.[web]')"
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


_WHY = _missing()
if _WHY and REQUIRED:
    pytest.fail(f"RULESPEC_REQUIRE_BROWSER=1 but {_WHY}", pytrace=False)
pytestmark = pytest.mark.skipif(_WHY is not None, reason=_WHY or "")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    import uvicorn
    from rulespec.web.app import create_app
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app("base_3to5"), host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=srv.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    th.join(10)


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        ctx = browser.new_context(viewport={"width": 1500, "height": 1100}, accept_downloads=True)
        pg = ctx.new_page()
        pg.set_default_timeout(20_000)
        pg.goto(server)
        pg.wait_for_selector("body[data-ready='1']")
        yield pg
        browser.close()


# ------------------------------------------------------------------ helpers
def where(pg) -> tuple:
    """(moves played, moves in the game) as the page shows them ("move k of n")."""
    text = pg.inner_text("#step-where")
    k, n = text.replace("move ", "").split(" of ")
    return int(k), int(n)


def game_field(pg, key) -> str:
    """A field of the game drawn in the header (its raw value: the page shows its title)."""
    assert pg.locator(f"#game-fields [data-key='{key}']").count() == 1
    return pg.evaluate(f"view.game[{json.dumps(key)}]")


def deciding(pg) -> str:
    return pg.get_attribute("#decision", "data-player")


def click_move(pg, n: int = 1):
    """Click move n of the list and wait for the position after it."""
    before = where(pg)[1]
    pg.click(f"#moves button.move[data-n='{n}']")
    pg.wait_for_function(f"document.querySelector('#step-where').textContent === 'move {before + 1} of {before + 1}'")


def moves_shown(pg) -> list:
    return pg.eval_on_selector_all("#moves button.move", "bs => bs.map(b => b.dataset.move)")


def new_game(pg, pack: str, players: int):
    pg.select_option("#pack", pack)
    pg.select_option("#players", str(players))
    pg.select_option("#humans", "all")
    old = pg.evaluate("location.hash")
    pg.click("#start")
    pg.wait_for_function(f"location.hash !== {json.dumps(old)} && "
                         "document.querySelectorAll('#moves button.move').length > 0")


# ------------------------------------------------------------------ the tests
def test_four_players_spring_refusal_undo_save_load(page, tmp_path):
    pg = page
    new_game(pg, "base_3to5", 4)
    players = pg.evaluate("view.players")
    assert len(players) == 4

    # a card clicked beside its owner's Palace: only the move naming it is left
    first = moves_shown(pg)
    card = first[1].split()[1]
    pg.click(f".side[data-player='{deciding(pg)}'] [data-id='{card}']")
    assert moves_shown(pg) == [first[1]]
    pg.click("#filter-clear")
    assert moves_shown(pg) == first

    # the setup, then a whole Spring, by clicking the first move each time
    spring_deciders, city_checked = set(), False
    for _ in range(200):
        phase = game_field(pg, "phase")
        if phase == "spring":
            spring_deciders.add(deciding(pg))
            if not city_checked:
                city_checked = _filter_by_a_city(pg)
        elif spring_deciders:
            break
        click_move(pg)
    assert game_field(pg, "phase") != "spring" and spring_deciders == set(players), spring_deciders
    for _ in range(80):             # on into the next phase until a decision names a city
        if city_checked or _filter_by_a_city(pg):
            city_checked = True
            break
        click_move(pg)
    assert city_checked, "no decision named a city of the map"

    # an illegal move, typed: refused with its reason and its rule; the position is the same
    k, n = where(pg)
    legal = moves_shown(pg)
    pg.fill("#move-text", "choose kingdom#2")
    pg.click("#play-typed")
    pg.wait_for_selector("#message.refusal")
    msg = pg.inner_text("#message")
    assert "'choose kingdom#2' is refused" in msg and "rule: " in msg and ".rules:" in msg, msg
    assert pg.get_attribute("#message", "data-reason")
    assert where(pg) == (k, n) and moves_shown(pg) == legal

    # undo: one move back, the moves of the decision before it
    pg.click("#undo")
    pg.wait_for_function(f"document.querySelector('#step-where').textContent === 'move {n - 1} of {n - 1}'")
    assert "took back 1 move" in pg.inner_text("#message")
    decider, legal = deciding(pg), moves_shown(pg)

    # save (a download: the game log) and load it back: the same position, going on
    with pg.expect_download() as dl:
        pg.click("#save")
    saved = tmp_path / "game.jsonl"
    dl.value.save_as(saved)
    lines = saved.read_text().splitlines()
    assert json.loads(lines[0])["players"] == players and len(lines) == 1 + n - 1
    old = pg.evaluate("location.hash")
    pg.set_input_files("#load-file", str(saved))
    pg.wait_for_function(f"location.hash !== {json.dumps(old)}")
    pg.wait_for_function(f"document.querySelector('#step-where').textContent === 'move {n - 1} of {n - 1}'")
    assert deciding(pg) == decider and moves_shown(pg) == legal

    # step through the log: the start, then back to the game
    pg.click("#step-first")
    pg.wait_for_function(f"document.querySelector('#step-where').textContent === 'move 0 of {n - 1}'")
    assert moves_shown(pg) == [] and "looking back" in pg.inner_text("#decision")
    pg.click("#step-last")
    pg.wait_for_function(f"document.querySelector('#step-where').textContent === 'move {n - 1} of {n - 1}'")
    assert moves_shown(pg) == legal

    # the board as it is drawn: every node of the pack's graph, the sides, the tracks
    nodes = pg.evaluate("view.static.board.nodes.length")
    assert pg.locator("#map .node").count() == nodes > 0
    assert pg.locator(".side").count() == 4
    assert pg.locator(".track").count() == len(pg.evaluate("Object.keys(view.static.tracks)"))
    shot = tmp_path / "board.png"
    pg.evaluate("window.scrollTo(0, 0)")
    pg.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("RULESPEC_WEB_SCREENSHOT"):
        shutil.copy(shot, os.environ["RULESPEC_WEB_SCREENSHOT"])


def _filter_by_a_city(pg) -> bool:
    """When a move names a place of the map: click it there, and see only the moves naming it."""
    ids = pg.evaluate("view.moves.map(m => m.ids).flat().filter(i => view.places.records[i])")
    if not ids or len(moves_shown(pg)) < 2:
        return False
    city = ids[0]
    everything = moves_shown(pg)
    pg.click(f"#map .node[data-id='{city}']")
    shown = moves_shown(pg)
    assert shown and all(city in m.split() for m in shown), shown
    assert len(shown) == sum(1 for m in everything if city in m.split())
    assert pg.locator(f"#map .node[data-id='{city}'].selected").count() == 1
    pg.click("#filter-clear")
    assert moves_shown(pg) == everything
    return True


def test_wars_of_italy_turn(page):
    pg = page
    new_game(pg, "wars_of_italy", 2)
    players = pg.evaluate("view.players")
    assert len(players) == 2
    # its own tracks (the Influence tracks of the overlay) are drawn
    titles = pg.eval_on_selector_all(".track > b", "bs => bs.map(b => b.textContent)")
    assert titles and all("Influence" in t for t in titles), titles
    # a shared marker is filled with its owner's colour (the pack's `owner:`), never the grey of an unknown id
    fills = pg.eval_on_selector_all(".track-marker", "ms => ms.map(m => [m.dataset.key, m.getAttribute('fill')])")
    owners = pg.evaluate("view.static.marker_owners")
    assert fills and owners and all(f == owners.get(k, k) for k, f in fills), (fills, owners)
    turn_of = None
    for _ in range(120):
        if game_field(pg, "phase") == "spring":
            if turn_of is None:
                turn_of = deciding(pg)
            elif deciding(pg) != turn_of:
                break
        click_move(pg)
    assert turn_of in players and deciding(pg) not in (None, turn_of)
