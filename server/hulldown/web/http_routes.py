"""HTTP routes: create, list and inspect matches; state at any seq; the raw event log."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..live.service import LiveService
from ..match.events import decode_event
from ..match.history import game_hash
from ..match.reducer import state_hash
from ..match.rejection import Rejection
from ..match.scenario import CreateMatch
from ..match.views import view_json
from .access import open_match
from .responses import MsgspecJSON, error, int_param, rejection

MAX_BODY = 1_000_000
_create_decoder = msgspec.json.Decoder(CreateMatch)


def _live(request: Request) -> LiveService:
    live: LiveService = request.app.state.live
    return live


def _base_url(request: Request) -> str:
    public: str = request.app.state.settings.public_url
    return public.rstrip("/") if public else str(request.base_url).rstrip("/")


async def create_match(request: Request) -> Response:
    body = await request.body()
    if len(body) > MAX_BODY:
        return error(413, "too_large", f"request body {len(body)} bytes > {MAX_BODY}")
    try:
        create = _create_decoder.decode(body)
    except msgspec.DecodeError as exc:
        return error(400, "bad_request", str(exc))
    created = await _live(request).create(create)
    if isinstance(created, Rejection):
        return rejection(422, created)
    base = _base_url(request)
    ws_base = base.replace("http://", "ws://").replace("https://", "wss://")
    match_id = created.match_id
    # Tokens ride in URL fragments: a browser never sends a fragment to a server, so they never
    # reach a request log (docs/table.md).
    spectator_fragment = f"#spectator_token={created.spectator_token}" if created.spectator_token else ""
    return MsgspecJSON(
        {
            "match_id": match_id,
            "tokens": created.tokens,
            "spectator_token": created.spectator_token,
            "spectator_url": f"{base}/matches/{match_id}/view{spectator_fragment}",
            "live_url": f"{ws_base}/matches/{match_id}/live",
            "play_urls": {
                side: f"{base}/matches/{match_id}/play#token={token}"
                for side, token in created.tokens.items()
            },
        },
        status_code=201,
    )


async def list_matches(request: Request) -> Response:
    live = _live(request)
    limit = int_param(request, "limit")
    if isinstance(limit, Response):
        return limit
    ids = await live.store.list_matches(limit=limit or 100, offset=0)
    summaries = []
    for match_id in ids:
        summary = await _summary(live, match_id)
        if summary is not None:
            summaries.append(summary)
    return MsgspecJSON({"matches": summaries})


async def _summary(live: LiveService, match_id: str) -> dict[str, Any] | None:
    runtime = await live.get(match_id)
    if runtime is None:
        return None
    state = runtime.public_state  # a delayed match's summary is as delayed as its spectators
    return {
        "match_id": match_id,
        "edition": state.edition,
        "seq": state.seq,
        "turn": state.turn,
        "active": state.active,
        "phase": state.phase,
        "ended": state.ended,
        "winner": state.winner,
        "commitment": state.commitment,
        "spectators": runtime.hub.count("spectator") + runtime.hub.count("delayed"),
        "players_connected": runtime.hub.count("a") + runtime.hub.count("b"),
    }


async def get_match(request: Request) -> Response:
    summary = await _summary(_live(request), request.path_params["match_id"])
    if summary is None:
        return error(404, "unknown_match", "no such match")
    return MsgspecJSON(summary)


async def get_state(request: Request) -> Response:
    live = _live(request)
    match_id = request.path_params["match_id"]
    at = int_param(request, "at")
    if isinstance(at, Response):
        return at
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    runtime, access = opened.runtime, opened.access
    latest = access.state(runtime)  # spectators of a delayed match: the delayed state
    if at is None or at == latest.seq:
        state = latest
    else:
        if at > latest.seq or at < 1:
            return error(404, "unknown_seq", f"seq {at} is outside 1..{latest.seq}")
        found = await live.state_at(match_id, at)
        if found is None:
            return error(404, "unknown_seq", f"no state at seq {at}")
        state = found
    return MsgspecJSON(
        {"seq": state.seq, "hash": state_hash(state), "game_hash": game_hash(state), "view": view_json(state)}
    )


async def get_events(request: Request) -> Response:
    live = _live(request)
    match_id = request.path_params["match_id"]
    start = int_param(request, "from")
    if isinstance(start, Response):
        return start
    limit = int_param(request, "limit")
    if isinstance(limit, Response):
        return limit
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    runtime, access = opened.runtime, opened.access
    after = max(0, (start or 1) - 1)
    until = access.limit(runtime)
    entries = await live.store.read(match_id, after=after, until=until, count=min(limit or 1000, 5000))
    events = [msgspec.to_builtins(decode_event(payload)) for _, payload in entries]
    return MsgspecJSON({"events": events})


async def healthz(request: Request) -> Response:
    if await _live(request).store.ping():
        return MsgspecJSON({"status": "ok"})
    return MsgspecJSON({"status": "redis unavailable"}, status_code=503)


routes = [
    Route("/healthz", healthz, methods=["GET"]),
    Route("/matches", create_match, methods=["POST"]),
    Route("/matches", list_matches, methods=["GET"]),
    Route("/matches/{match_id}", get_match, methods=["GET"]),
    Route("/matches/{match_id}/state", get_state, methods=["GET"]),
    Route("/matches/{match_id}/events", get_events, methods=["GET"]),
]
