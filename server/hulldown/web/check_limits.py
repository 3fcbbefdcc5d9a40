"""The per-side rate limits of the table's HTTP routes (``POST /check``, ``GET /options``):
one token bucket per match and side, at the websocket's rate (``HULLDOWN_RATE``).

The buckets are bounded: a bucket idle for :data:`BUCKET_IDLE_S` has refilled long ago (a burst
refills in two seconds), so dropping it changes no answer; idle buckets are swept at most every
:data:`SWEEP_EVERY_S`, and past :data:`MAX_BUCKETS` the longest idle go first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from ..live.runtime import MatchRuntime
from ..live.service import LiveService
from ..match.state import Side
from .access import token_in_query, token_of
from .rate_limit import RateLimit
from .responses import error

BUCKET_IDLE_S = 30.0
SWEEP_EVERY_S = 5.0
MAX_BUCKETS = 10_000


class CheckBuckets:
    def __init__(self, rate: int, *, idle_s: float = BUCKET_IDLE_S, max_buckets: int = MAX_BUCKETS) -> None:
        self.rate = rate
        self.idle_s = idle_s
        self.max_buckets = max_buckets
        self.buckets: dict[tuple[str, str], RateLimit] = {}
        self.swept = time.monotonic()

    def allow(self, match_id: str, side: Side) -> bool:
        now = time.monotonic()
        if now - self.swept > SWEEP_EVERY_S or len(self.buckets) >= self.max_buckets:
            self.sweep(now)
        key = (match_id, side)
        bucket = self.buckets.get(key)
        if bucket is None:
            bucket = RateLimit(self.rate)
            self.buckets[key] = bucket
        return bucket.allow()

    def sweep(self, now: float) -> None:
        """Drop the buckets idle for ``idle_s``; then, if still full, the longest idle."""
        self.swept = now
        idle = [key for key, bucket in self.buckets.items() if now - bucket.stamp > self.idle_s]
        for key in idle:
            del self.buckets[key]
        if len(self.buckets) >= self.max_buckets:
            by_age = sorted(self.buckets, key=lambda k: self.buckets[k].stamp)
            for key in by_age[: len(self.buckets) - self.max_buckets + 1]:
                del self.buckets[key]


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
