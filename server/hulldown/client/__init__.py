"""A Python client of the hulldown protocol (client-protocol/SPEC.md).

>>> created = await create_match("http://127.0.0.1:8000", request)
>>> async with Client(created["live_url"], token=created["tokens"]["a"]) as player:
...     ack = await player.act({"type": "end_phase"})
...     player.view.get("phase")
"""

from .backoff import Backoff, GiveUp
from .connection import ActResult, Client, ClientError, ClientStats, ConnectionLost, FatalError
from .http import HttpError, create_match, get_events, get_match, get_state, list_matches, request_json
from .patch import PatchError, apply_patch, escape_token, parse_pointer, resolve
from .view import LocalView

__all__ = [
    "ActResult",
    "Backoff",
    "Client",
    "ClientError",
    "ClientStats",
    "ConnectionLost",
    "FatalError",
    "GiveUp",
    "HttpError",
    "LocalView",
    "PatchError",
    "apply_patch",
    "create_match",
    "escape_token",
    "get_events",
    "get_match",
    "get_state",
    "list_matches",
    "parse_pointer",
    "request_json",
    "resolve",
]
