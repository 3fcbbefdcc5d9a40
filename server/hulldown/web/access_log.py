"""The access log: one line per HTTP request (method, path, status, duration), with any token
that arrived in a query string scrubbed (the server refuses tokens there, but the request line
is logged before it is refused). Logged to ``hulldown.access``; uvicorn's own access log is off.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..cli.logging_setup import scrub

log = logging.getLogger("hulldown.access")


class AccessLog:
    """ASGI middleware writing the access log."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            query = scope.get("query_string", b"").decode("latin-1")
            path = scrub(scope["path"] + (f"?{query}" if query else ""))
            client = scope.get("client")
            log.info(
                "%s %s %d",
                scope["method"],
                path,
                status,
                extra={
                    "method": scope["method"],
                    "path": path,
                    "status": status,
                    "client": f"{client[0]}:{client[1]}" if client else "",
                    "duration_ms": round((time.perf_counter() - start) * 1000.0, 3),
                },
            )
