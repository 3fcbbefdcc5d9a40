"""The HTTP routes as an OpenAPI 3.1 document, served at ``GET /openapi.json``.

The request/response bodies are described by msgspec structs (below, and the protocol's own
types), turned into JSON Schemas by :mod:`hulldown.wire.schemas`; the paths are assembled by hand.
The websocket endpoint is listed too (as the GET that upgrades), with its message schemas under
``x-websocket``; the full protocol is in ``client-protocol/SPEC.md``.
"""

from __future__ import annotations

import functools
from typing import Any, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from ..match.definition import MatchDefinition, UnitDef
from ..match.events import Event
from ..match.problems import Problem
from ..match.rejection import Value
from ..match.state import Edition, MatchState, Side
from ..wire import protocol
from ..wire.schemas import components
from .mission_routes import MissionList
from .openapi_history import HISTORY_BODY_TYPES, union_components, with_history
from .openapi_odds import ODDS_BODY_TYPES, with_odds
from .openapi_table import TABLE_BODY_TYPES, table_paths

OPENAPI_VERSION = "3.1.0"
REF = "#/components/schemas/{name}"

Schema = dict[str, Any]


class CreatedMatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /matches``: the secret side tokens (shown once, stored hashed) and the URLs. A private
    match's ``spectator_url`` carries its spectator token in the fragment; ``play_urls`` open the
    player's table of each side with its token in the fragment (never sent to the server)."""

    match_id: str
    tokens: dict[str, str]
    spectator_token: str | None
    spectator_url: str
    live_url: str
    play_urls: dict[str, str] = {}


class MatchSummary(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Where a match stands, and who is connected to it over every server process (each process
    publishes its counts within about a second; a process that died drops out within 15 s).
    ``rules_version``: the rules version the match was created under (0: before versions were
    recorded); ``server_rules_version``: the one this server folds every match with
    (docs/architecture.md, 3. Events and state: rules versions)."""

    match_id: str
    edition: Edition
    seq: int
    turn: int
    active: Side
    phase: str
    ended: bool
    winner: Side | None
    commitment: str
    rules_version: int
    server_rules_version: int
    spectators: int
    players_connected: int
    end_reason: str = ""
    mission: str | None = None
    vp: dict[str, int] | None = None


class ListedMatch(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A public match in the list: where it stood at most a second ago (the delayed state of a
    delayed match), read from the list index without loading the match."""

    match_id: str
    edition: str
    created_at: float
    seq: int
    turn: int
    active: Side
    phase: str
    ended: bool
    winner: Side | None


class MatchList(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A page of the public matches, newest first; ``next_cursor`` is null on the last page."""

    matches: list[ListedMatch]
    next_cursor: str | None


class Readiness(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``/readyz``: ready when Redis answers and the stream tailer runs."""

    status: Literal["ready", "not ready"]
    redis: bool
    tailer: bool


class StateAt(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The view as of ``seq``, its state hash (``h2:`` + 64 hex digits: a hash tree over the
    state's sub-trees, docs/architecture.md "State hash") and the hash of its game part."""

    seq: int
    hash: str
    game_hash: str
    view: MatchState


class EventPage(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    events: list[Event]


class ArcRegion(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A weapon's fire arc within range, as polygons (table inches, y up) for drawing."""

    seq: int
    unit: str
    weapon: str
    range: float
    mount: str
    origin: tuple[float, float]
    polygons: list[list[tuple[float, float]]]


class ErrorBody(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``code`` is stable; rejections (422) also name the ``rule`` and the measured ``values``."""

    code: str
    message: str
    rule: str | None = None
    values: dict[str, Value] | None = None
    problems: list[Problem] | None = None  # a refused match definition: every mistake and its path


class ErrorResponse(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    error: ErrorBody


class RosterReportLine(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line of a roster import report (docs/roster-import.md)."""

    level: Literal["unmapped", "default", "decided", "skipped"]
    path: str
    name: str
    message: str


class RosterImport(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``POST /rosters``: the units of a match definition and the import report."""

    edition: Edition
    roster_name: str
    units: list[UnitDef]
    report: list[RosterReportLine]


class Example(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    edition: Edition
    file: str


class ExampleList(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    examples: list[Example]


class Health(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    status: Literal["ok", "redis unavailable"]


BODY_TYPES: list[Any] = [
    MatchDefinition,
    CreatedMatch,
    MatchSummary,
    ListedMatch,
    MatchList,
    Readiness,
    StateAt,
    EventPage,
    ArcRegion,
    ErrorResponse,
    RosterImport,
    ExampleList,
    MissionList,
    Health,
    protocol.ClientMessage,
    protocol.ServerMessage,
    *HISTORY_BODY_TYPES,
    *ODDS_BODY_TYPES,
    *TABLE_BODY_TYPES,
]


def _ref(name: str) -> Schema:
    return {"$ref": REF.format(name=name)}


def _json(name: str, description: str) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _error(description: str) -> Schema:
    return _json("ErrorResponse", description)


MATCH_ID: Schema = {
    "name": "match_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "The match id returned by POST /matches.",
}


def _query_int(name: str, description: str, minimum: int = 0) -> Schema:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": minimum},
        "description": description,
    }


def _html(description: str) -> Schema:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


# A side token or a private match's spectator token, as ``Authorization: Bearer <token>``; the
# empty requirement: public matches need none. Never in a query string (400 token_in_query).
BEARER_OPTIONAL: list[Schema] = [{"bearer": []}, {}]
SECURITY_SCHEMES: Schema = {
    "bearer": {
        "type": "http",
        "scheme": "bearer",
        "description": "A side token, or the spectator token of a private match (never in a query string).",
    }
}


def _paths() -> dict[str, Schema]:
    bad_int = _error("bad_parameter: a query parameter is not a non-negative integer.")
    unknown = _error("unknown_match: no such match.")
    token_in_query = _error("token_in_query: a token was put in the query string; send the header.")
    return {
        "/healthz": {
            "get": {
                "operationId": "healthz",
                "summary": "Liveness: the server and its Redis answer.",
                "responses": {"200": _json("Health", "ok"), "503": _json("Health", "redis unavailable")},
            }
        },
        "/readyz": {
            "get": {
                "operationId": "readyz",
                "summary": "Readiness: Redis answers and the stream tailer is running (docs/operations.md).",
                "responses": {
                    "200": _json("Readiness", "ready"),
                    "503": _json("Readiness", "not ready"),
                },
            }
        },
        "/metrics": {
            "get": {
                "operationId": "metrics",
                "summary": "Prometheus metrics of this process (docs/operations.md).",
                "responses": {
                    "200": {
                        "description": "The Prometheus text exposition format.",
                        "content": {"text/plain": {"schema": {"type": "string"}}},
                    }
                },
            }
        },
        "/matches": {
            "post": {
                "operationId": "createMatch",
                "summary": "Create a match from a match definition (docs/match-definition.md).",
                "description": (
                    "Returns one secret token per side (keep them: they are stored hashed and never "
                    "shown again), the spectator token when the match is private, and the URLs of "
                    "the viewer and of the websocket."
                ),
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("MatchDefinition")}},
                },
                "responses": {
                    "201": _json("CreatedMatch", "The match exists at seq 1."),
                    "400": _error(
                        "bad_request: not JSON, or not a match definition (unknown keys, wrong types "
                        "or values); 'problems' lists each with its path."
                    ),
                    "413": _error("too_large: the body exceeds 1,000,000 bytes."),
                    "422": _error(
                        "bad_scenario: the match cannot be played as defined (docs/match-definition.md; "
                        "'problems' lists each mistake with its path), or too_deep: JSON nested too deeply."
                    ),
                    "429": _error(
                        "rate_limited: more than HULLDOWN_CREATE_RATE requests a minute from this client "
                        "address (docs/limits-and-outages.md); the Retry-After header gives the seconds "
                        "to wait."
                    ),
                },
            },
            "get": {
                "operationId": "listMatches",
                "summary": "The public matches, newest first, a page at a time (private matches are never listed).",
                "parameters": [
                    _query_int(
                        "limit", "At most this many, 1 or more (default 50, capped at 100).", minimum=1
                    ),
                    {
                        "name": "status",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string", "enum": ["all", "live", "ended"]},
                        "description": "Only running (live) or finished (ended) matches; default all.",
                    },
                    {
                        "name": "cursor",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string"},
                        "description": "The next_cursor of the previous page: the matches created before it.",
                    },
                ],
                "responses": {
                    "200": _json("MatchList", "A page of matches."),
                    "400": _error(
                        "bad_parameter: limit is not a whole number of 1 or more, or status or cursor is not valid."
                    ),
                },
            },
        },
        "/rosters": {
            "post": {
                "operationId": "importRoster",
                "summary": "Import a BattleScribe / New Recruit roster into the units of a match definition.",
                "description": "The body is the .ros (XML) or .rosz (zip) file; docs/roster-import.md.",
                "parameters": [
                    {
                        "name": "edition",
                        "in": "query",
                        "required": True,
                        "schema": {"enum": ["40k7", "hh3", "40k11"]},
                    },
                    {"name": "side", "in": "query", "required": False, "schema": {"enum": ["a", "b"]}},
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
                    },
                },
                "responses": {
                    "200": _json("RosterImport", "The units and the import report."),
                    "400": _error("bad_parameter: edition or side is not one of the allowed values."),
                    "413": _error("too_large: the file exceeds 4,000,000 bytes."),
                    "422": _error("bad_roster: not a roster of that edition, or hostile XML."),
                },
            }
        },
        "/examples": {
            "get": {
                "operationId": "listExamples",
                "summary": "The example match definitions of examples/.",
                "responses": {"200": _json("ExampleList", "Their names and editions.")},
            }
        },
        "/missions": {
            "get": {
                "operationId": "listMissions",
                "summary": "The standard missions of an edition on each deployment map (docs/missions.md).",
                "parameters": [
                    {
                        "name": "edition",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "enum": ["40k7", "hh3", "40k11"]},
                    },
                    {"name": "width", "in": "query", "required": False, "schema": {"type": "number"}},
                    {"name": "height", "in": "query", "required": False, "schema": {"type": "number"}},
                ],
                "responses": {
                    "200": _json(
                        "MissionList", "Every standard mission on every deployment map of the edition."
                    ),
                    "400": _error("bad_parameter: unknown edition, or a size that is not 12 to 1000 inches."),
                },
            }
        },
        "/examples/{name}": {
            "get": {
                "operationId": "getExample",
                "summary": "One example match definition.",
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": _json("MatchDefinition", "The match definition."),
                    "404": _error("unknown_example: no such example."),
                },
            }
        },
        "/new": {
            "get": {
                "operationId": "newMatchPage",
                "summary": "The browser's new-match page: an example or two rosters, the options.",
                "responses": {"200": _html("An HTML page.")},
            }
        },
        "/matches/{match_id}": {
            "get": {
                "operationId": "getMatch",
                "summary": "One match's summary.",
                "description": "A private match's summary needs a side token or its spectator token.",
                "parameters": [MATCH_ID],
                "security": BEARER_OPTIONAL,
                "responses": {
                    "200": _json("MatchSummary", "The summary."),
                    "400": token_in_query,
                    "403": _error("spectator_token_required: the match is private."),
                    "404": unknown,
                },
            }
        },
        "/matches/{match_id}/state": {
            "get": {
                "operationId": "getState",
                "summary": "The view at the latest seq, or at any earlier seq (replay).",
                "parameters": [
                    MATCH_ID,
                    _query_int("at", "The seq to fold up to (1 .. current); default the latest."),
                ],
                "responses": {
                    "200": _json("StateAt", "The view and the state hash."),
                    "400": bad_int,
                    "404": _error("unknown_match, or unknown_seq: 'at' is outside 1 .. current seq."),
                },
            }
        },
        "/matches/{match_id}/events": {
            "get": {
                "operationId": "getEvents",
                "summary": "The raw event log, in seq order.",
                "parameters": [
                    MATCH_ID,
                    _query_int("from", "The first seq to return (default 1)."),
                    _query_int(
                        "limit", "At most this many, 1 or more (default 1000, capped at 5000).", minimum=1
                    ),
                ],
                "responses": {"200": _json("EventPage", "Events."), "400": bad_int, "404": unknown},
            }
        },
        "/matches/{match_id}/arcs": {
            "get": {
                "operationId": "getArcs",
                "summary": "A weapon's fire arc within range (for the viewer; a picture, not a ruling).",
                "parameters": [
                    MATCH_ID,
                    {"name": "unit", "in": "query", "required": True, "schema": {"type": "string"}},
                    {"name": "weapon", "in": "query", "required": True, "schema": {"type": "string"}},
                    _query_int("at", "The seq whose positions to use; default the latest."),
                ],
                "security": BEARER_OPTIONAL,
                "responses": {
                    "200": _json("ArcRegion", "The region a target must reach into."),
                    "400": _error(
                        "bad_parameter: unit or weapon missing, or at is not a non-negative integer."
                    ),
                    "403": _error("spectator_token_required: the match is private."),
                    "404": _error("unknown_match, unknown_seq or unknown_weapon."),
                },
            }
        },
        "/matches/{match_id}/live": {
            "get": {
                "operationId": "liveSocket",
                "summary": "The websocket: hello -> welcome -> patches; act -> ack | rejected.",
                "description": "See client-protocol/SPEC.md. Frames are JSON text, tagged by 'type'.",
                "parameters": [MATCH_ID],
                "responses": {"101": {"description": "Switching to the websocket protocol."}},
                "x-websocket": {
                    "client-messages": _ref("ClientMessage"),
                    "server-messages": _ref("ServerMessage"),
                    "protocol-version": protocol.PROTOCOL_VERSION,
                },
            }
        },
        "/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document.",
                "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {}}}},
            }
        },
        "/": {
            "get": {
                "operationId": "viewerIndex",
                "summary": "The browser viewer: the list of matches.",
                "responses": {"200": _html("An HTML page.")},
            }
        },
        "/matches/{match_id}/view": {
            "get": {
                "operationId": "viewerMatch",
                "summary": "The browser viewer of one match: battlefield, log, replay scrubber.",
                "parameters": [MATCH_ID],
                "responses": {"200": _html("An HTML page (the match is loaded by its script).")},
            }
        },
    }


def openapi_document() -> Schema:
    """The whole document (no ``servers``: it is relative to wherever it is served from)."""
    roots, comps = components(BODY_TYPES, REF)
    comps["ClientMessage"] = {"title": "ClientMessage", **roots[BODY_TYPES.index(protocol.ClientMessage)]}
    comps["ServerMessage"] = {"title": "ServerMessage", **roots[BODY_TYPES.index(protocol.ServerMessage)]}
    comps.update(union_components(BODY_TYPES, roots))
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "hulldown",
            "version": f"protocol {protocol.PROTOCOL_VERSION}",
            "description": (
                "Live game-state server for tabletop wargames. Matches are created and inspected over "
                "HTTP and played over the websocket /matches/{match_id}/live (client-protocol/SPEC.md)."
            ),
        },
        "paths": {**with_odds(with_history(_paths())), **table_paths()},
        "components": {"schemas": dict(sorted(comps.items())), "securitySchemes": SECURITY_SCHEMES},
    }


@functools.cache
def _document_bytes() -> bytes:
    return msgspec.json.encode(openapi_document())


async def openapi_json(request: Request) -> Response:
    return Response(_document_bytes(), media_type="application/json")
