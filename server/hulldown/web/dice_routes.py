"""``GET /matches/{id}/dice`` (dice verification) and ``GET /matches/{id}/index`` (turn/phase
index) - docs/architecture.md sections 8 and 10."""

from __future__ import annotations

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..cli.verify import NotRevealed, verify_events
from ..live.service import LiveService
from ..match.events import decode_event
from .access import open_match
from .responses import MsgspecJSON, error


def _live(request: Request) -> LiveService:
    live: LiveService = request.app.state.live
    return live


async def get_dice(request: Request) -> Response:
    """Re-derive every logged roll from the revealed seed and check the commitment (409 until
    the seed is revealed, i.e. until the match ends - and, for a delayed spectator, until the
    delayed view reaches the reveal)."""
    live = _live(request)
    match_id = request.path_params["match_id"]
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    runtime, access = opened.runtime, opened.access
    visible = access.state(runtime)
    if not visible.seed:
        return error(
            409,
            "seed_not_revealed",
            f"the dice seed is revealed when the match ends; the match is at seq {visible.seq} and "
            f"{'over, the reveal is not visible yet' if visible.ended else 'still running'}. "
            f"Its commitment is {visible.commitment}.",
            commitment=visible.commitment,
        )
    entries = await live.store.read(match_id, after=0, until=visible.seq)
    events = [decode_event(payload) for _, payload in entries]
    try:
        report = await run_in_threadpool(verify_events, match_id, events)
    except NotRevealed as exc:  # the visible state says revealed: only a broken log gets here
        return error(409, "seed_not_revealed", str(exc))
    return MsgspecJSON(msgspec.to_builtins(report))


async def get_index(request: Request) -> Response:
    """The seq where every turn, player turn and phase starts; every action, undone ones marked."""
    live = _live(request)
    match_id = request.path_params["match_id"]
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    runtime, access = opened.runtime, opened.access
    limit = access.limit(runtime)
    timeline = await live.timeline(match_id, limit)
    if timeline is None:
        return error(404, "unknown_match", "no such match")
    return MsgspecJSON(msgspec.to_builtins(timeline.index(limit)))


routes = [
    Route("/matches/{match_id}/dice", get_dice, methods=["GET"]),
    Route("/matches/{match_id}/index", get_index, methods=["GET"]),
]
