"""OpenAPI entries of the table's routes (check without acting, ruler, line of sight), merged
into ``web/openapi.py``."""

from __future__ import annotations

from typing import Any

from ..match.options import UnitOptions
from ..rules.measure import Sight
from .table_routes import CheckRequest, CheckResult, RulerReading

Schema = dict[str, Any]
REF = "#/components/schemas/{name}"

TABLE_BODY_TYPES: list[Any] = [CheckRequest, CheckResult, RulerReading, Sight, UnitOptions]

MATCH_ID: Schema = {
    "name": "match_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "The match id returned by POST /matches.",
}
TOKEN: Schema = {
    "name": "token",
    "in": "query",
    "required": False,
    "schema": {"type": "string"},
    "description": "As for /state: a side token or the spectator token of a private match (or Authorization: Bearer).",
}
AT: Schema = {
    "name": "at",
    "in": "query",
    "required": False,
    "schema": {"type": "integer", "minimum": 0},
    "description": "The seq whose positions to use; default the latest.",
}


def _ref(name: str) -> Schema:
    return {"$ref": REF.format(name=name)}


def _json(name: str, description: str) -> Schema:
    return {"description": description, "content": {"application/json": {"schema": _ref(name)}}}


def _model(name: str, description: str) -> Schema:
    return {
        "name": name,
        "in": "query",
        "required": True,
        "schema": {"type": "string"},
        "description": description,
    }


def table_paths() -> dict[str, Schema]:
    err = "ErrorResponse"
    two_models = [MATCH_ID, _model("from", "A model id."), _model("to", "A model id."), AT, TOKEN]
    reads = {
        "400": _json(err, "bad_parameter: from/to missing, or at is not a non-negative integer."),
        "403": _json(err, "spectator_token_required: the match is private."),
        "404": _json(err, "unknown_match, unknown_seq, unknown_model or unknown_weapon."),
    }
    return {
        "/matches/{match_id}/check": {
            "post": {
                "operationId": "checkAction",
                "summary": "Check an action without acting: what acting would answer, plus the measured facts.",
                "description": (
                    "Needs a side token in 'Authorization: Bearer <token>'. Runs validation only: nothing is "
                    "appended, no die is drawn, nothing changes. Rate-limited per side like websocket "
                    "messages (HULLDOWN_RATE per second). See docs/table.md."
                ),
                "parameters": [MATCH_ID],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _ref("CheckRequest")}},
                },
                "responses": {
                    "200": _json("CheckResult", "ok (with the seq the action would get) or the rejection."),
                    "400": _json(
                        err,
                        "bad_request: the body does not decode as a CheckRequest; token_in_query: a "
                        "token was put in the query string; send the header.",
                    ),
                    "401": _json(err, "unauthorised: no valid side token."),
                    "404": _json(err, "unknown_match: no such match."),
                    "413": _json(err, "too_large: the body exceeds 100,000 bytes."),
                    "422": _json(err, "too_deep: the body's JSON is nested too deeply."),
                    "429": _json(err, "rate_limited: too many checks per second."),
                },
            }
        },
        "/matches/{match_id}/options": {
            "get": {
                "operationId": "getUnitOptions",
                "summary": "The kinds of action a unit may take now, each decided by the rules' validation.",
                "description": (
                    "Needs the unit's side token in 'Authorization: Bearer <token>'. A representative action "
                    "of each kind is validated; a kind is open unless refused for a reason about the unit, "
                    "the phase or the turn (then the refusal's code, rule and message are given). "
                    "Rate-limited with /check. See docs/table.md."
                ),
                "parameters": [MATCH_ID, _model("unit", "A unit id of the caller's side.")],
                "responses": {
                    "200": _json("UnitOptions", "Every kind of action, open or closed with the refusal."),
                    "400": _json(
                        err,
                        "bad_parameter: unit missing or empty; token_in_query: a token was put in the "
                        "query string, send the header.",
                    ),
                    "401": _json(err, "unauthorised: no valid side token."),
                    "403": _json(err, "not_your_unit: the unit belongs to the other side."),
                    "404": _json(err, "unknown_match or unknown_unit."),
                    "429": _json(err, "rate_limited: too many requests per second."),
                },
            }
        },
        "/matches/{match_id}/play": {
            "get": {
                "operationId": "playerTable",
                "summary": "The player's table: the board with controls for the side whose token it is given.",
                "description": "The token goes in the URL fragment (#token=...) or a prompt; see docs/table.md.",
                "parameters": [MATCH_ID],
                "responses": {
                    "200": {
                        "description": "An HTML page.",
                        "content": {"text/html": {"schema": {"type": "string"}}},
                    }
                },
            }
        },
        "/matches/{match_id}/ruler": {
            "get": {
                "operationId": "getRuler",
                "summary": "Closest point to closest point between two models, as the edition measures.",
                "parameters": two_models,
                "responses": {"200": _json("RulerReading", "The distance in inches."), **reads},
            }
        },
        "/matches/{match_id}/sight": {
            "get": {
                "operationId": "getSight",
                "summary": "Line of sight between two models: visible, the facing hit, its hidden share.",
                "parameters": [
                    *two_models,
                    {
                        "name": "weapon",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "string"},
                        "description": "Draw sight from this weapon's mount (a weapon of the 'from' model).",
                    },
                ],
                "responses": {"200": _json("Sight", "The line-of-sight reading."), **reads},
            }
        },
    }
