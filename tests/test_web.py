"""The browser table's server (rulespec/web/): its JSON API, without a browser.

Every endpoint answers garbage (bad JSON, wrong types, unknown games, bad move indexes, a log
that is not one) with a 4xx and a message, never a 500 or a trace; an illegal move is refused
with its reason and rule and leaves the game as it was; the position drawn is the pack's (its
graph, its stores, its tracks), for the base game and the Wars of Italy overlay.
"""
from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():        # starlette 1.x would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from rulespec.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app("base_3to5"), raise_server_exceptions=False)


@pytest.fixture()
def game(client):
    r = client.post("/api/games", json={"players": 4, "seed": 3})
    assert r.status_code == 201, r.text
    return r.json()


GARBAGE = [b"", b"{", b"[1, 2]", b"null", b"\xff\xfe", b'"text"', b'{"move": 3}', b'{"index": "x"}',
           b'{"index": 0}', b'{"index": 99999}', b'{"index": true}', b'{"move": ""}', b'{"n": "all"}',
           b'{"n": -1}', b'{"players": "four"}', b'{"players": 99}', b'{"seed": -5}', b'{"pack": "../etc"}',
           b'{"pack": 7}', b'{"humans": ["purple"]}', b'{"humans": 0}', b'{"bot": "nobody"}', b'{"bot": "mcts:depth=9"}', b'{"bot": "random:"}x',
           b'{"move": "choose nowhere"}', b'{"rulespec_log": 1}', b'{"rulespec_log": 1, "pack": "base_3to5", '
           b'"players": ["red"], "seed": 0}\n{"n": 1, "move": "fly away"}', b"x" * 5000,
           b'{"log": 5}', b'{"log": "{\\"players\\": 3}"}', b'{"log"']


def _endpoints(gid):
    return [("POST", "/api/games"), ("POST", "/api/games/load"), ("GET", f"/api/games/{gid}?at=x"),
            ("GET", f"/api/games/{gid}?at=100000"), ("POST", f"/api/games/{gid}/move"),
            ("POST", f"/api/games/{gid}/why"), ("POST", f"/api/games/{gid}/undo"), ("POST", f"/api/games/{gid}/hint"),
            ("GET", "/api/games/nosuchgame"), ("POST", "/api/games/nosuchgame/move"),
            ("POST", "/api/games/nosuchgame/undo"), ("GET", "/api/games/nosuchgame/save"),
            ("POST", "/api/games/nosuchgame/why"), ("POST", "/api/games/nosuchgame/hint"), ("GET", "/api/nothing"),
            ("DELETE", f"/api/games/{gid}")]


def test_garbage_gets_4xx_with_a_message(client, game):
    gid = game["id"]
    before = client.get(f"/api/games/{gid}").json()
    seen = set()
    for method, path in _endpoints(gid):
        for body in GARBAGE:
            r = client.request(method, path, content=body)
            if r.status_code < 400:     # a fine request after all: a default new game, a hint
                # (why answers a move that is not legal: that is its job)
                assert (path, body) == ("/api/games", b"") or path.endswith("/hint") or \
                    (path.endswith("/why") and r.json()["legal"] is False), (method, path, body, r.status_code)
                continue
            seen.add(r.status_code)
            assert 400 <= r.status_code < 500, (method, path, body, r.status_code, r.text[:300])
            msg = r.json()["error"]
            assert msg and "Traceback" not in msg and 'File "' not in msg, msg
    assert {400, 404, 405} <= seen
    after = client.get(f"/api/games/{gid}").json()
    assert after["length"] == before["length"] and after["moves"] == before["moves"]


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                    max_leaves=8)
KEYS = st.sampled_from(["move", "index", "n", "pack", "players", "seed", "humans", "bot", "log"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(endpoint=st.sampled_from(["", "/load", "/{gid}/move", "/{gid}/why", "/{gid}/undo"]),
       body=st.dictionaries(KEYS, JSON, max_size=3) | JSON)
def test_any_json_to_any_endpoint_is_answered_below_500(client, game, endpoint, body):
    r = client.post("/api/games" + endpoint.format(gid=game["id"]), content=json.dumps(body))
    assert r.status_code < 500, (endpoint, body, r.text[:300])
    if r.status_code >= 400:
        assert r.json()["error"]


def test_an_illegal_move_is_refused_with_its_reason_and_rule(client, game):
    gid = game["id"]
    r = client.post(f"/api/games/{gid}/move", json={"move": "choose kingdom#2"})
    assert r.status_code == 422
    ref = r.json()["refusal"]
    assert ref["reason"] and ref["rule"].split(":")[0].endswith(".rules") and ref["rule"].split(":")[1].isdigit()
    assert ref["lines"][0].startswith("'choose kingdom#2' is refused")
    assert client.get(f"/api/games/{gid}").json()["moves"] == game["moves"]
    why = client.post(f"/api/games/{gid}/why", json={"move": game["moves"][0]["move"]}).json()
    assert why["legal"] is True


def test_moves_undo_save_load_and_looking_back(client, game):
    gid = game["id"]
    for i in range(3):
        r = client.post(f"/api/games/{gid}/move", json={"index": 1})
        assert r.status_code == 200 and r.json()["length"] == i + 1
    third = r.json()
    r = client.post(f"/api/games/{gid}/undo", json={"n": 1})
    assert r.status_code == 200 and r.json()["length"] == 2
    assert client.post(f"/api/games/{gid}/undo", json={"n": 5}).status_code == 409
    again = client.post(f"/api/games/{gid}/move", json={"move": third["log"][-1]["move"]}).json()
    assert again["sides"] == third["sides"] and again["moves"] == third["moves"]
    log = client.get(f"/api/games/{gid}/save").text
    lines = [json.loads(x) for x in log.splitlines()]
    assert lines[0]["pack"] == "base_3to5" and [x["move"] for x in lines[1:]] == [m["move"] for m in third["log"]]
    loaded = client.post("/api/games/load", content=log).json()
    assert loaded["id"] != gid and loaded["length"] == 3 and loaded["moves"] == third["moves"]
    start = client.get(f"/api/games/{gid}?at=0").json()
    assert start["at"] == 0 and start["length"] == 3 and start["moves"] == [] and start["sides"] == game["sides"]


def test_the_page_is_drawn_from_the_pack(client, game):
    assert client.get("/").status_code == 200 and "table.js" in client.get("/").text
    for f in ("table.js", "table.css"):
        assert client.get(f"/static/{f}").status_code == 200
    st = game["static"]
    nodes = {n["id"] for n in st["board"]["nodes"]}
    assert set(game["places"]["records"]) <= nodes and game["places"]["records"]
    assert all(0 <= n["x"] <= 1000 and 0 <= n["y"] <= 1000 for n in st["board"]["nodes"])
    assert all(e["a"] in nodes and e["b"] in nodes for e in st["board"]["edges"])
    assert set(game["sides"]) == set(game["players"])
    assert {s["key"] for s in game["stores"]} >= set() and st["tracks"]
    assert all(m["label"] and m["ids"] == m["move"].split()[1:] for m in game["moves"])


def test_an_overlay_brings_its_own_tracks(client):
    r = client.post("/api/games", json={"pack": "wars_of_italy", "players": 2})
    assert r.status_code == 201, r.text
    v = r.json()
    from interpreter.api import Engine
    from rulespec.pack import load_pack
    declared = set(Engine(load_pack("wars_of_italy")).rs.tracks)
    assert set(v["static"]["tracks"]) == declared
    drawn = {k for s in v["stores"] for k in s["records"]}
    assert declared <= drawn
    # each shared Influence marker is drawn in the colour of the side the pack says owns it
    markers = Engine(load_pack("wars_of_italy")).rs.markers
    assert markers and v["static"]["marker_owners"] == {m: d["owner"] for m, d in markers.items()}


def test_a_layout_without_coordinates_is_the_same_every_time():
    from interpreter.api import Engine
    from rulespec.human import Names
    from rulespec.pack import load_pack
    from rulespec.web import table
    eng = Engine(load_pack("base_3to5"))
    for doc in eng.pack.data.values():      # no x/y anywhere: the seeded spring layout
        _strip_xy(doc.data)
    board = eng.board(4)
    for _, d in board.graph.nodes(data=True):
        d.pop("x", None), d.pop("y", None)
    a = table.board_layout(eng, 4, Names(eng))
    b = table.board_layout(eng, 4, Names(eng))
    assert a == b and len({(n["x"], n["y"]) for n in a["nodes"]}) == len(a["nodes"])


def _strip_xy(v):
    if isinstance(v, dict):
        v.pop("x", None), v.pop("y", None)
        for x in v.values():
            _strip_xy(x)
    elif isinstance(v, list):
        for x in v:
            _strip_xy(x)


def test_serve_with_a_pack_that_does_not_load_is_an_error_not_a_trace(capsys):
    from rulespec.cli import main
    code = main(["serve", "no_such_pack", "--port", "1"])
    err = capsys.readouterr().err
    assert code in (1, 2) and "no_such_pack" in err and "Traceback" not in err


def test_a_bot_with_knobs_plays_the_other_seats(client):
    """`bot` takes a name with its knobs, as `rulespec play --bots` does; the same game each time."""
    body = {"players": 3, "seed": 1, "humans": 1, "bot": "greedy_eval:horizon=move,epsilon=0"}
    views = [client.post("/api/games", json=body) for _ in range(2)]
    assert all(v.status_code == 201 for v in views), views[0].text
    a, b = (v.json() for v in views)
    assert a["moves"] == b["moves"] and a["log"] == b["log"]
    bad = client.post("/api/games", json={**body, "bot": "greedy_eval:depth=2"})
    assert bad.status_code == 400 and "no knob" in bad.json()["error"] and "horizon" in bad.json()["error"]
