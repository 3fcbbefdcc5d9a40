"""OpenAPI entry of ``POST /matches/{id}/odds`` (docs/odds.md), merged into ``web/openapi.py``."""

from __future__ import annotations

from typing import Any

from ..odds.answer import OddsAnswer
from .odds_routes import OddsRequest

Schema = dict[str, Any]
REF = "#/components/schemas/{name}"

ODDS_BODY_TYPES: list[Any] = [OddsRequest, OddsAnswer]


def _json(name: str, description: str) -> Schema:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": REF.format(name=name)}}},
    }


def with_odds(paths: dict[str, Schema]) -> dict[str, Schema]:
    return {**paths, **odds_paths()}


def odds_paths() -> dict[str, Schema]:
    return {
        "/matches/{match_id}/odds": {
            "post": {
                "operationId": "getOdds",
                "summary": "The distribution of an action's outcomes before committing it (docs/odds.md).",
                "description": (
                    "Exact where the tree of dice is small enough, else sampled from independent dice "
                    "(method, samples and a standard error per probability say which). Never uses the "
                    "match's dice; nothing is appended. Decisions the action raises are answered by the "
                    "stated policy. Requires a side token in 'Authorization: Bearer <token>'."
                ),
                "parameters": [
                    {
                        "name": "match_id",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "The match id returned by POST /matches.",
                    }
                ],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": REF.format(name="OddsRequest")}}},
                },
                "responses": {
                    "200": _json("OddsAnswer", "The odds."),
                    "400": _json(
                        "ErrorResponse",
                        "bad_request: the body does not decode as an OddsRequest; token_in_query: a token "
                        "was put in the query string; send the header.",
                    ),
                    "401": _json("ErrorResponse", "side_token_required: no 'Authorization: Bearer' token."),
                    "403": _json("ErrorResponse", "side_token_required: the token is not a side token."),
                    "404": _json("ErrorResponse", "unknown_match: no such match."),
                    "413": _json("ErrorResponse", "too_large: the body exceeds 100,000 bytes."),
                    "429": _json(
                        "ErrorResponse",
                        "rate_limited: more than the side's rate of requests per second; or odds_busy: "
                        "this side's previous odds request on the match is still being answered.",
                    ),
                    "422": _json(
                        "ErrorResponse",
                        "A rejection: the action is not legal now (as validation); odds_not_applicable; "
                        "odds_too_costly: the answer took more than 10 s of CPU; or too_deep: the body's "
                        "JSON is nested too deeply.",
                    ),
                },
            }
        }
    }
