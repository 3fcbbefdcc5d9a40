"""The per-side rate limits of the table's HTTP routes (``POST /check``, ``GET /options``):
one token bucket per match and side, at the websocket's rate (``HULLDOWN_RATE``), bounded as
``web/rate_limit.py`` describes (a burst refills in two seconds).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from ..live.runtime import MatchRuntime
from ..live.service import LiveService
from ..match.state import Side
from .access import token_in_query, token_of
from .rate_limit import MAX_BUCKETS, KeyedBuckets, RateLimit
from .responses import error

BUCKET_IDLE_S = 30.0


class CheckBuckets(KeyedBuckets[tuple[str, str]]):
    """A bucket per (match, side) at ``rate`` requests per second, burst twice that."""

    def __init__(self, rate: int, *, idle_s: float = BUCKET_IDLE_S, max_buckets: int = MAX_BUCKETS) -> None:
        super().__init__(lambda: RateLimit(rate), idle_s, max_buckets)

    def allow(self, match_id: str, side: Side) -> bool:
        return self.bucket((match_id, side)).allow()


def check_buckets(request: Request) -> CheckBuckets:
    buckets: CheckBuckets | None = getattr(request.app.state, "check_buckets", None)
    if buckets is None:
        buckets = CheckBuckets(request.app.state.settings.rate)
        request.app.state.check_buckets = buckets
    return buckets


@dataclass(frozen=True)
class SideCall:
    """A side's call on a match, within that side's rate: the match, its runtime and the side."""

    match_id: str
    runtime: MatchRuntime
    side: Side


async def side_call(request: Request) -> SideCall | Response:
    """The match ``{match_id}`` names and the side whose token ``Authorization: Bearer`` carries,
    if that side is within its rate; else the error (404 ``unknown_match``, 400
    ``token_in_query``, 401 ``unauthorised``, 429 ``rate_limited``)."""
    live: LiveService = request.app.state.live
    match_id = request.path_params["match_id"]
    runtime = await live.get(match_id)
    if runtime is None:
        return error(404, "unknown_match", "no such match")
    refused = token_in_query(request)
    if refused is not None:
        return refused
    token = token_of(request)
    side = await live.authenticate(match_id, token) if token is not None else None
    if side is None:
        return error(401, "unauthorised", "a side's token is required: Authorization: Bearer <token>")
    refused = over_rate(request, match_id, side)
    return refused if refused is not None else SideCall(match_id, runtime, side)


def over_rate(request: Request, match_id: str, side: Side) -> Response | None:
    """429 ``rate_limited`` when ``side`` has used up its rate on the match, else None (the
    request counts against it)."""
    if check_buckets(request).allow(match_id, side):
        return None
    return error(429, "rate_limited", f"more than {request.app.state.settings.rate} requests per second")
