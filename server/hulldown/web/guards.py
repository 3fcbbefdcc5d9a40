"""What every request passes through before a route sees it, and what answers when a route fails.

- Match ids in paths are checked once, here, for every HTTP route and websocket under
  ``/matches/{id}``: an id the store cannot hold (empty, braces, whitespace or control
  characters, over 200 characters: ``store/keys.py``) answers ``400 bad_match_id`` over HTTP and
  a fatal ``bad_match_id`` error frame on a websocket (close code 4400).
- The store being down or hanging answers ``503 store_unavailable`` (JSON, retryable) instead of
  a plain-text 500; redis-py's socket timeouts (``store/connect.py``) bound how long that takes.
- Unknown routes and methods answer JSON like every other error.

See docs/limits-and-outages.md.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from redis.exceptions import RedisError
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..store.keys import validate_match_id
from .responses import error
from .socket_frames import error_text

log = logging.getLogger("hulldown.web")

STORE_RETRY_AFTER = 2  # seconds, the Retry-After of a 503 store_unavailable
_MATCH_PATH = re.compile(r"^/matches/([^/]+)(?:/|$)")


def match_id_problem(path: str) -> str | None:
    """Why the match id in ``path`` (``/matches/{id}...``) cannot be a match id, or None."""
    found = _MATCH_PATH.match(path)
    if found is None:
        return None
    try:
        validate_match_id(found.group(1))
    except ValueError as exc:
        return str(exc)
    return None


class MatchIdGuard:
    """ASGI middleware: refuse a malformed match id before any route or store call sees it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        problem = match_id_problem(scope["path"]) if scope["type"] in ("http", "websocket") else None
        if problem is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http":
            await error(400, "bad_match_id", problem)(scope, receive, send)
            return
        websocket = WebSocket(scope, receive, send)
        await websocket.accept()
        await websocket.send_text(error_text("bad_match_id", problem, fatal=True))
        await websocket.close(code=4400)


async def store_unavailable(request: Request, exc: Exception) -> Response:
    log.warning("store unavailable answering %s %s: %r", request.method, request.url.path, exc)
    response = error(
        503, "store_unavailable", "the match store is unavailable; try again shortly", retryable=True
    )
    response.headers["Retry-After"] = str(STORE_RETRY_AFTER)
    return response


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    response = error(exc.status_code, code, str(exc.detail))
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def internal_error(request: Request, exc: Exception) -> Response:
    # Starlette logs the traceback; the client gets JSON, never a stack or plain text.
    return error(500, "internal_error", "the server failed on this request")


def app_options() -> dict[str, Any]:
    """Keyword arguments for ``Starlette(...)``: the guard middleware and the error handlers."""
    return {
        "middleware": [Middleware(MatchIdGuard)],
        "exception_handlers": {
            RedisError: store_unavailable,
            HTTPException: http_error,
            Exception: internal_error,
        },
    }
