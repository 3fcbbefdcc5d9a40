"""OpenAPI entries of the undo/replay/dice routes (docs/architecture.md sections 8 to 10), merged
into ``web/openapi.py``."""

from __future__ import annotations

from typing import Any

from ..cli.verify import Report
from ..match.timeline_index import TimelineIndex
from ..wire import protocol

Schema = dict[str, Any]
REF = "#/components/schemas/{name}"

HISTORY_BODY_TYPES: list[Any] = [
    Report,
    TimelineIndex,
    protocol.ReplayClientMessage,
    protocol.ReplayServerMessage,
]

UNIONS = {
    "ReplayClientMessage": protocol.ReplayClientMessage,
    "ReplayServerMessage": protocol.ReplayServerMessage,
}

MATCH_ID: Schema = {
    "name": "match_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "The match id returned by POST /matches.",
}

# A side token (the match as it is) or the spectator token of a private match, as the header
# ``Authorization: Bearer <token>`` (the "bearer" scheme of openapi.py; optional for public matches).
# Spectators of a delayed match see only the delayed state. Never a query parameter.
BEARER_OPTIONAL: list[Schema] = [{"bearer": []}, {}]
TOKEN_IN_QUERY: Schema = {
    "description": "token_in_query: a token was put in the query string; send the header.",
    "content": {"application/json": {"schema": {"$ref": REF.format(name="ErrorResponse")}}},
}


def _ref(name: str) -> Schema:
    return {"$ref": REF.format(name=name)}


def _json(name: str, description: str) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def union_components(body_types: list[Any], roots: list[Schema]) -> dict[str, Schema]:
    """Named components for the replay message unions (as openapi.py does for the live ones)."""
    return {name: {"title": name, **roots[body_types.index(union)]} for name, union in UNIONS.items()}


def with_history(paths: dict[str, Schema]) -> dict[str, Schema]:
    """The document's paths plus the history routes; the state and events routes also take a
    token (a delayed or private match limits what a spectator sees there too)."""
    merged = {**paths, **history_paths()}
    for path in ("/matches/{match_id}/state", "/matches/{match_id}/events"):
        operation = merged.get(path, {}).get("get")
        if operation is not None:
            operation["security"] = BEARER_OPTIONAL
            operation["responses"] = {
                **operation["responses"],
                "400": operation["responses"].get("400", TOKEN_IN_QUERY),
                "403": _json("ErrorResponse", "spectator_token_required: the match is private."),
            }
    return merged


def history_paths() -> dict[str, Schema]:
    forbidden = _json("ErrorResponse", "spectator_token_required: the match is private.")
    unknown = _json("ErrorResponse", "unknown_match: no such match.")
    return {
        "/matches/{match_id}/dice": {
            "get": {
                "operationId": "verifyDice",
                "summary": "Verify the match's dice: commitment, every logged roll, the refold of the log.",
                "description": (
                    "Once the match is over and its seed revealed: sha256(seed) against the commitment of "
                    "event 1, every logged die re-derived from the seed (HMAC-SHA256, rejection sampling), "
                    "and the log refolded (dice drawn and state hash of every event). 'failures' names the "
                    "roll, event or commitment that fails. The log is refolded with this server's rules: "
                    "in a match created under another rules version ('rules_version', 0 before versions "
                    "were recorded, against 'server_rules_version') a state hash that does not refold is "
                    "reported in 'rules_changed' with the changelog lines between the two versions, not "
                    "as a failure ('ok' stays true when the dice and commitment verify)."
                ),
                "parameters": [MATCH_ID],
                "security": BEARER_OPTIONAL,
                "responses": {
                    "200": _json("Report", "The verdict, with every logged die."),
                    "400": TOKEN_IN_QUERY,
                    "403": forbidden,
                    "404": unknown,
                    "409": _json(
                        "ErrorResponse", "seed_not_revealed: the match is not over (or not yet for you)."
                    ),
                },
            }
        },
        "/matches/{match_id}/log": {
            "get": {
                "operationId": "getLog",
                "summary": "The whole combat log, paged: lines with n >= from, oldest first.",
                "description": "The view carries only the recent window of the log; older lines are served here.",
                "security": BEARER_OPTIONAL,
                "parameters": [
                    MATCH_ID,
                    {
                        "name": "from",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "integer", "minimum": 0},
                    },
                    {
                        "name": "limit",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "integer", "minimum": 1, "default": 100},
                        "description": "At most this many, 1 or more (default 100, capped at 500).",
                    },
                ],
                "responses": {
                    "200": {
                        "description": "A page of log lines and the total number of lines.",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "from": {"type": "integer"},
                                        "total": {"type": "integer"},
                                        "entries": {"type": "array", "items": _ref("LogEntry")},
                                    },
                                    "required": ["from", "total", "entries"],
                                }
                            }
                        },
                    },
                    "400": _json(
                        "ErrorResponse",
                        "bad_parameter: from must be 0 or more, limit 1 or more (whole numbers).",
                    ),
                    "403": forbidden,
                    "404": unknown,
                },
            }
        },
        "/matches/{match_id}/index": {
            "get": {
                "operationId": "getIndex",
                "summary": "The seq where every turn, player turn and phase starts; every action.",
                "description": "Undone branches are marked with the seq of the undo that took them back.",
                "parameters": [MATCH_ID],
                "security": BEARER_OPTIONAL,
                "responses": {
                    "200": _json("TimelineIndex", "The index."),
                    "400": TOKEN_IN_QUERY,
                    "403": forbidden,
                    "404": unknown,
                },
            }
        },
        "/matches/{match_id}/replay": {
            "get": {
                "operationId": "replaySocket",
                "summary": "The replay websocket: replay_open -> replay_state -> replay_frame... (step or play).",
                "description": (
                    "Frames are the events and the JSON Patch of the view each makes, from any seq, step by "
                    "step or at the match's pace times 'speed'; undone branches are marked. "
                    "See docs/architecture.md, 'Replay'."
                ),
                "parameters": [MATCH_ID],
                "responses": {"101": {"description": "Switching to the websocket protocol."}},
                "x-websocket": {
                    "client-messages": _ref("ReplayClientMessage"),
                    "server-messages": _ref("ReplayServerMessage"),
                    "protocol-version": protocol.PROTOCOL_VERSION,
                },
            }
        },
    }
