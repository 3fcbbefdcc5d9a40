"""The HTTP side of the API for client code: create a match, read state and events.

Uses only the standard library (urllib in a worker thread), so the client needs no HTTP package.
A ``token`` (a side token, or a private match's spectator token) is sent as the header
``Authorization: Bearer <token>`` - never in the URL, which servers and proxies log.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import msgspec

from ..match.scenario import CreateMatch


class HttpError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


def _request(method: str, url: str, body: bytes | None, timeout: float, token: str | None) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        request.add_header("content-type", "application/json")
    if token is not None:
        request.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        payload = exc.read()
        try:
            return exc.code, json.loads(payload)
        except ValueError:
            return exc.code, payload.decode(errors="replace")


async def request_json(
    method: str, url: str, body: Any = None, timeout: float = 10.0, *, token: str | None = None
) -> Any:
    """``method url`` with a JSON body (any msgspec-encodable value) and the bearer ``token``;
    the decoded JSON answer. Raises HttpError for a status >= 400."""
    encoded = None if body is None else msgspec.json.encode(body)
    status, payload = await asyncio.to_thread(_request, method, url, encoded, timeout, token)
    if status >= 400:
        raise HttpError(status, payload)
    return payload


async def create_match(base_url: str, request: CreateMatch | dict[str, Any]) -> dict[str, Any]:
    """``POST /matches``: ``{match_id, tokens: {a, b}, spectator_token, spectator_url, live_url}``."""
    created: dict[str, Any] = await request_json("POST", f"{base_url.rstrip('/')}/matches", request)
    return created


async def list_matches(
    base_url: str, *, limit: int = 50, status: str = "all", cursor: str | None = None
) -> dict[str, Any]:
    """``GET /matches``: one page of public matches, newest first: ``{matches, next_cursor}``
    (pass ``next_cursor`` as ``cursor`` for the next page; it is None on the last one)."""
    query = {"limit": str(limit), "status": status, **({"cursor": cursor} if cursor else {})}
    page: dict[str, Any] = await request_json(
        "GET", f"{base_url.rstrip('/')}/matches?{urllib.parse.urlencode(query)}"
    )
    return page


async def get_match(base_url: str, match_id: str, token: str | None = None) -> dict[str, Any]:
    """``GET /matches/{id}``: the match's summary (a private match needs a ``token``)."""
    summary: dict[str, Any] = await request_json(
        "GET", f"{base_url.rstrip('/')}/matches/{match_id}", token=token
    )
    return summary


async def get_state(
    base_url: str, match_id: str, at: int | None = None, token: str | None = None
) -> dict[str, Any]:
    """``GET /matches/{id}/state[?at=seq]``: ``{seq, hash, view}``."""
    query = "" if at is None else f"?at={at}"
    state: dict[str, Any] = await request_json(
        "GET", f"{base_url.rstrip('/')}/matches/{match_id}/state{query}", token=token
    )
    return state


async def get_events(
    base_url: str, match_id: str, start: int = 1, limit: int = 1000, token: str | None = None
) -> list[dict[str, Any]]:
    """``GET /matches/{id}/events?from=&limit=``: the raw events in seq order."""
    url = f"{base_url.rstrip('/')}/matches/{match_id}/events?from={start}&limit={limit}"
    page: dict[str, Any] = await request_json("GET", url, token=token)
    events: list[dict[str, Any]] = page["events"]
    return events
