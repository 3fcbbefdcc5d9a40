"""HTTP routes: create, list and inspect matches; state at any seq; the raw event log."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..live.runtime import MatchRuntime
from ..live.service import LiveService
from ..match.definition import DefinitionError, parse_definition
from ..match.events import decode_event
from ..match.history import game_hash
from ..match.limits import MAX_BODY_BYTES
from ..match.reducer import state_hash
from ..match.rejection import Rejection
from ..match.rules_version import RULES_VERSION
from ..match.state import MatchState
from ..match.views import view_json
from ..store.listing import ListStatus
from .access import open_match
from .body import decode_json, read_limited
from .create_limit import over_create_rate
from .responses import MsgspecJSON, definition_error, error, int_param, page_limit, rejection

MAX_BODY = MAX_BODY_BYTES


def _live(request: Request) -> LiveService:
    live: LiveService = request.app.state.live
    return live


def _base_url(request: Request) -> str:
    public: str = request.app.state.settings.public_url
    return public.rstrip("/") if public else str(request.base_url).rstrip("/")


async def create_match(request: Request) -> Response:
    """Create a match from a match definition (docs/match-definition.md)."""
    refused = await over_create_rate(request)
    if refused is not None:
        return refused
    body = await read_limited(request, MAX_BODY)
    if isinstance(body, Response):
        return body
    raw = decode_json(body)
    if isinstance(raw, Response):
        return raw
    # off the event loop: a large definition takes a few hundred ms to check (bench/definition.py)
    parsed = await asyncio.to_thread(parse_definition, raw)
    if isinstance(parsed, DefinitionError):
        return definition_error(parsed)
    created = await _live(request).create(parsed)
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


MAX_LIST = 100
DEFAULT_LIST = 50
MAX_EVENTS_PAGE = 5000
DEFAULT_EVENTS_PAGE = 1000
LIST_STATUSES: tuple[ListStatus, ...] = ("all", "live", "ended")


async def list_matches(request: Request) -> Response:
    """Public matches newest first, from the list index (no match is loaded to list it):
    ``?limit=`` (1..100, default 50), ``?status=all|live|ended``, ``?cursor=`` from the previous
    page's ``next_cursor``. Private matches are never listed."""
    limit = page_limit(request, DEFAULT_LIST, MAX_LIST)
    if isinstance(limit, Response):
        return limit
    status = request.query_params.get("status") or "all"
    if status not in LIST_STATUSES:
        return error(
            400, "bad_parameter", f"status must be one of {', '.join(LIST_STATUSES)}, got {status!r}"
        )
    cursor = request.query_params.get("cursor") or None
    try:
        page = await _live(request).listing.page(status, limit, cursor)
    except ValueError as exc:
        return error(400, "bad_parameter", f"cursor: {exc}; pass next_cursor of the previous page")
    return MsgspecJSON(
        {
            "matches": [_listed(entry.match_id, entry.summary) for entry in page.matches],
            "next_cursor": page.next_cursor,
        }
    )


def _listed(match_id: str, summary: dict[str, str]) -> dict[str, Any]:
    def number(name: str) -> int:
        value = summary.get(name, "")
        return int(value) if value.isdigit() else 0

    return {
        "match_id": match_id,
        "edition": summary.get("edition", ""),
        "created_at": float(summary.get("created_at") or 0.0),
        "seq": number("seq"),
        "turn": number("turn"),
        "active": summary.get("active", "a"),
        "phase": summary.get("phase", ""),
        "ended": summary.get("ended") == "1",
        "winner": summary.get("winner") or None,
    }


async def _summary(live: LiveService, runtime: MatchRuntime, state: MatchState) -> dict[str, Any]:
    spectators, players = await live.presence.totals(runtime.match_id)
    return {
        "match_id": runtime.match_id,
        "edition": state.edition,
        "seq": state.seq,
        "turn": state.turn,
        "active": state.active,
        "phase": state.phase,
        "ended": state.ended,
        "winner": state.winner,
        "commitment": state.commitment,
        # match/rules_version.py: the rules the match was created under (0: not recorded)
        "rules_version": await live.rules_version(runtime),
        "server_rules_version": RULES_VERSION,
        "spectators": spectators,  # over every process serving the match (live/presence.py)
        "players_connected": players,
        # docs/missions.md: the mission, the victory points (the final tally once ended)
        "end_reason": state.end_reason,
        "mission": state.mission.mission.name if state.mission is not None else None,
        "vp": dict(state.mission.vp) if state.mission is not None else None,
    }


async def get_match(request: Request) -> Response:
    """One match's summary: 404 for no such match, 403 for a private match without its token;
    a delayed match's summary is as delayed as its spectators unless a side asks."""
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    return MsgspecJSON(await _summary(_live(request), opened.runtime, opened.access.state(opened.runtime)))


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
    limit = page_limit(request, DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE)
    if isinstance(limit, Response):
        return limit
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    runtime, access = opened.runtime, opened.access
    after = max(0, (start or 1) - 1)
    until = access.limit(runtime)
    entries = await live.store.read(match_id, after=after, until=until, count=limit)
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
