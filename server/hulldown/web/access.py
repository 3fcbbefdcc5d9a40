"""Who is asking over HTTP, and how far into a match they may see (docs/architecture.md section 11;
client-protocol/SPEC.md section 5).

A side's token (``Authorization: Bearer <token>``) sees the match as it is. Anyone else is a
spectator: a private match asks for its spectator token (the same header), and a match created
with a spectator delay shows spectators only the delayed state - over HTTP as on the websocket, so
no route hands a delayed spectator anything newer (state, events, index, replay, dice).

A token is never taken from a query string: access logs, proxies and browser histories record
query strings. A request carrying ``?token=`` (or ``?spectator_token=``) is refused with
``400 token_in_query`` - and the logs scrub the value (``cli/logging_setup.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import HTTPConnection
from starlette.responses import Response

from ..live.runtime import MatchRuntime
from ..live.service import LiveService
from ..match.state import MatchState, Side
from .responses import error


@dataclass(frozen=True)
class Access:
    """A side (full view) or a spectator (the public, possibly delayed, view)."""

    side: Side | None

    def state(self, runtime: MatchRuntime) -> MatchState:
        return runtime.state if self.side is not None else runtime.public_state

    def limit(self, runtime: MatchRuntime) -> int:
        """The latest seq this caller may see."""
        return self.state(runtime).seq


QUERY_TOKEN_NAMES = ("token", "spectator_token")


def token_of(connection: HTTPConnection) -> str | None:
    """The bearer token of ``Authorization: Bearer <token>``, if any."""
    header = connection.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return None


def token_in_query(connection: HTTPConnection) -> Response | None:
    """``400 token_in_query`` when a token was put in the query string, else None."""
    for name in QUERY_TOKEN_NAMES:
        if name in connection.query_params:
            return error(
                400,
                "token_in_query",
                f"a token is not accepted in the query string ({name}=): query strings are logged. "
                "Send it as the header Authorization: Bearer <token>",
            )
    return None


async def check_access(live: LiveService, match_id: str, token: str | None) -> Access | None:
    """The caller's access, or None when the match is private and the token is not valid."""
    if token is not None:
        side = await live.authenticate(match_id, token)
        if side is not None:
            return Access(side)
    if await live.spectator_allowed(match_id, token):
        return Access(None)
    return None


async def access_or_error(connection: HTTPConnection, live: LiveService, match_id: str) -> Access | Response:
    refused = token_in_query(connection)
    if refused is not None:
        return refused
    found = await check_access(live, match_id, token_of(connection))
    if found is None:
        return error(
            403,
            "spectator_token_required",
            "this match is private: pass its spectator token (Authorization: Bearer <token>)",
        )
    return found


@dataclass(frozen=True)
class OpenMatch:
    """The match a request's path names, and what the caller may see of it."""

    live: LiveService
    match_id: str
    runtime: MatchRuntime
    access: Access


async def open_match(connection: HTTPConnection) -> OpenMatch | Response:
    """The match of ``{match_id}`` in the path with the caller's access: 404 for no such match,
    403 for a private match asked without its spectator token."""
    live: LiveService = connection.app.state.live
    match_id = connection.path_params["match_id"]
    runtime = await live.get(match_id)
    if runtime is None:
        return error(404, "unknown_match", "no such match")
    access = await access_or_error(connection, live, match_id)
    if isinstance(access, Response):
        return access
    return OpenMatch(live, match_id, runtime, access)
