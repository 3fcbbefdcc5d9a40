"""The per-client rate of ``POST /matches`` (``HULLDOWN_CREATE_RATE``, docs/limits-and-outages.md),
counted in Redis so that every process of one deployment (same Redis, same key prefix) enforces
one limit per client address, however a proxy spreads the requests over them.

The rule: a client's first request opens a one-minute window (``CREATE_WINDOW_MS``) in which
``create_rate`` requests are taken; the ones after that are refused (429 ``rate_limited``, nothing
created) until the window closes, a minute after it opened - refused requests do not move its end.
The next request opens a new window. So at most ``create_rate`` in one window, and at most twice
that in any 60 s (the end of one window and the start of the next). One key per client,
``<prefix>:create-rate:<client>`` (``store/keys.py``), counted by ``store/create_rate.lua`` in one
round trip; it expires when its window closes, so Redis holds one small key per address active in
the last minute.

Every request counts, a refused definition too: checking a large definition is itself work (a few
hundred ms of a thread, bench/definition.py). The client is the address uvicorn reports: the peer's,
or behind a trusted proxy the one in ``X-Forwarded-For`` (docs/operations.md, "Behind a proxy").

Redis unreachable while counting: the ``RedisError`` goes to the app's handler, which answers 503
``store_unavailable`` with ``Retry-After`` (web/guards.py) and logs a warning, as for any request
the store fails - a creation needs the store anyway, and failing at once spares the work of
checking a definition that could not be stored.
"""

from __future__ import annotations

import math

from starlette.requests import Request
from starlette.responses import Response

from ..store.redis_store import RedisEventStore
from .responses import error

# The window of HULLDOWN_CREATE_RATE: a minute, in ms.
CREATE_WINDOW_MS = 60_000


async def over_create_rate(request: Request) -> Response | None:
    """429 ``rate_limited`` (with ``Retry-After``) when the client used up its creation rate in
    its current window, else None (the request counted against it). A rate of 0 is no limit.
    Raises ``RedisError`` when the store fails (answered 503 by the app)."""
    per_minute: int = request.app.state.settings.create_rate
    if per_minute == 0:
        return None
    store: RedisEventStore = request.app.state.live.store
    client = request.client.host if request.client is not None else ""
    count, left_ms = await store.count_creation(client, CREATE_WINDOW_MS)
    if count <= per_minute:
        return None
    wait = max(1, math.ceil(left_ms / 1000))
    refused = error(
        429,
        "rate_limited",
        f"more than {per_minute} match creations a minute from this address "
        f"(docs/limits-and-outages.md); try again in {wait} s",
    )
    refused.headers["Retry-After"] = str(wait)
    return refused
