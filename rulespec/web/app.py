"""The Starlette app of `rulespec serve`: the page, and a small JSON API over the games.

Routes (every answer JSON, except the page, its files and a save):

    GET  /                                the page (static/index.html)
    GET  /api/packs                       the packs this server plays, with their player counts
    POST /api/games                       {"pack", "players", "seed", "humans", "bot"}: a new game
    POST /api/games/load                  the text of a game log: a game from it, going on
    GET  /api/games/{id}[?at=N]           the position (after N moves: a look back at the log)
    POST /api/games/{id}/move             {"move": text} or {"index": N}: 422 with why when refused
    POST /api/games/{id}/why              {"move": text}: why it is refused, or that it is legal
    POST /api/games/{id}/undo             {"n": 1}: take back the last n moves of the people
    POST /api/games/{id}/hint             what the bot would play
    GET  /api/games/{id}/save             the game log (JSON lines), as a download

A request the game cannot answer (bad JSON, an unknown game, a move index out of range...) gets
a 4xx status and {"error": message}; anything unforeseen a 500 with a one-line message, never
a trace. The server listens on 127.0.0.1 only: games are local.
"""
from __future__ import annotations

import json
from importlib import resources

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from interpreter.bots import BOTS

from .table import MAX_LOG_BYTES, Tables, WebError

STATIC = resources.files("rulespec.web") / "static"
MAX_BODY = MAX_LOG_BYTES + 1024


async def _body(request: Request) -> bytes:
    data = await request.body()
    if len(data) > MAX_BODY:
        raise WebError(413, f"the request is larger than {MAX_BODY} bytes")
    return data


async def _json(request: Request) -> dict:
    """The request's JSON object ({} for an empty body); 400 when it is not one."""
    data = await _body(request)
    if not data.strip():
        return {}
    try:
        body = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise WebError(400, f"the request body is not JSON: {str(e)[:80]}") from None
    if not isinstance(body, dict):
        raise WebError(400, "the request body must be a JSON object, e.g. {\"move\": \"choose milan\"}")
    return body


def create_app(pack: str = "base_3to5", search_path=None, bot: str = "random") -> Starlette:
    tables = Tables(pack, search_path, bot)

    def game(request: Request):
        return tables.get(request.path_params["gid"])

    async def page(request):
        return FileResponse(str(STATIC / "index.html"))

    async def packs(request):
        return JSONResponse({"packs": tables.packs(), "default": tables.default_pack,
                             "bot": tables.default_bot, "bots": list(BOTS)})

    def locked(t, work):
        """Work on one game, on a worker thread (bots may think for a while; the server goes on
        answering the other games), one request of that game at a time."""
        def run():
            with t.lock:
                return work()
        return run_in_threadpool(run)

    async def new_game(request):
        body = await _json(request)
        t = await run_in_threadpool(tables.new, body)
        return JSONResponse(await locked(t, lambda: t.view(tables.statics)), status_code=201)

    async def load_game(request):
        data = await _body(request)
        humans, bot = request.query_params.get("humans", "all"), request.query_params.get("bot")
        text = data.decode("utf-8", errors="replace")
        if text.lstrip().startswith('{"log"'):          # {"log": text, "humans": ..., "bot": ...}
            try:
                body = json.loads(text)
            except ValueError as e:
                raise WebError(400, f"the request body is not JSON: {str(e)[:80]}") from None
            if not isinstance(body, dict):
                raise WebError(400, 'give the log as {"log": text}')
            text, humans, bot = body.get("log"), body.get("humans", humans), body.get("bot", bot)
        if isinstance(humans, str) and humans != "all":
            humans = int(humans) if humans.isdigit() else [h for h in humans.split(",") if h]
        t = await run_in_threadpool(tables.load, text, humans, bot)
        return JSONResponse(await locked(t, lambda: t.view(tables.statics)), status_code=201)

    async def show(request):
        at = request.query_params.get("at")
        if at is not None and not at.isdigit():
            raise WebError(400, f"at={at[:20]}: give a number of moves")
        t = game(request)
        return JSONResponse(await locked(t, lambda: t.view(tables.statics, None if at is None else int(at))))

    async def move(request):
        body = await _json(request)
        t = game(request)

        def work():
            t.play(body)
            return t.view(tables.statics)
        return JSONResponse(await locked(t, work))

    async def why(request):
        body = await _json(request)
        t = game(request)
        return JSONResponse(await locked(t, lambda: t.why(body.get("move"))))

    async def undo(request):
        body = await _json(request)
        t = game(request)

        def work():
            lines = t.undo(body.get("n", 1))
            return {**t.view(tables.statics), "message": lines}
        return JSONResponse(await locked(t, work))

    async def hint(request):
        await _json(request)
        t = game(request)
        return JSONResponse({"lines": await locked(t, t.hint)})

    async def save(request):
        t = game(request)
        text = await locked(t, t.log_text)
        return Response(text, media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="{t.engine.pack.id}-{t.id}.jsonl"'})

    async def web_error(request, exc: WebError):
        return JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status)

    async def http_error(request, exc: HTTPException):
        return JSONResponse({"error": exc.detail or "not found"}, status_code=exc.status_code)

    async def unforeseen(request, exc: Exception):
        # the last resort: a line saying what failed, never a trace
        return PlainTextResponse(f"the server could not answer: {type(exc).__name__}: {str(exc)[:200]}",
                                 status_code=500)

    routes = [
        Route("/", page),
        Route("/api/packs", packs),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/load", load_game, methods=["POST"]),
        Route("/api/games/{gid}", show),
        Route("/api/games/{gid}/move", move, methods=["POST"]),
        Route("/api/games/{gid}/why", why, methods=["POST"]),
        Route("/api/games/{gid}/undo", undo, methods=["POST"]),
        Route("/api/games/{gid}/hint", hint, methods=["POST"]),
        Route("/api/games/{gid}/save", save),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={WebError: web_error, HTTPException: http_error,
                                                       Exception: unforeseen})
    app.state.tables = tables
    return app


def serve(pack: str, port: int = 8000, bot: str = "random", search_path=None, host: str = "127.0.0.1") -> int:
    """`rulespec serve`: the app on loopback until Ctrl-C."""
    import uvicorn
    app = create_app(pack, search_path, bot)
    print(f"rulespec: the table of {app.state.tables.default_pack} is at http://{host}:{port}/ "
          "(Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
