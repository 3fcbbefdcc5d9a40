"""The per-client rate of ``POST /matches`` (``HULLDOWN_CREATE_RATE``, docs/limits-and-outages.md):
one token bucket per client address, ``create_rate`` requests a minute with a burst of as many.

Every request counts, a refused definition too: checking a large definition is itself work (a few
hundred ms of a thread, bench/definition.py). The client is the address uvicorn reports: the peer's,
or behind a trusted proxy the one in ``X-Forwarded-For`` (docs/operations.md, "Behind a proxy").
Each server process counts its own requests: behind a proxy spreading requests over k replicas a
client may create up to k times as many.
"""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import Response

from .rate_limit import KeyedBuckets, RateLimit
from .responses import error

# The rate is per minute: a bucket refills in a minute, so one idle that long changes no answer.
CREATE_WINDOW_S = 60.0


class CreateBuckets(KeyedBuckets[str]):
    """A bucket per client address: ``per_minute`` requests a minute, burst ``per_minute``."""

    def __init__(self, per_minute: int) -> None:
        super().__init__(
            lambda: RateLimit(per_minute / CREATE_WINDOW_S, capacity=per_minute), CREATE_WINDOW_S
        )


def over_create_rate(request: Request) -> Response | None:
    """429 ``rate_limited`` (with ``Retry-After``) when the client used up its creation rate,
    else None (the request counts against it). A rate of 0 is no limit."""
    per_minute: int = request.app.state.settings.create_rate
    if per_minute == 0:
        return None
    buckets: CreateBuckets | None = getattr(request.app.state, "create_buckets", None)
    if buckets is None:
        buckets = CreateBuckets(per_minute)
        request.app.state.create_buckets = buckets
    client = request.client.host if request.client is not None else ""
    bucket = buckets.bucket(client)
    if bucket.allow():
        return None
    wait = max(1, math.ceil(bucket.wait_s()))
    refused = error(
        429,
        "rate_limited",
        f"more than {per_minute} match creations a minute from this address "
        f"(docs/limits-and-outages.md); try again in {wait} s",
    )
    refused.headers["Retry-After"] = str(wait)
    return refused
