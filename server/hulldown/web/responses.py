"""JSON responses encoded by msgspec (fast, and the same encoding as the wire)."""

from __future__ import annotations

from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from ..match import doc_refs
from ..match.definition import DefinitionError
from ..match.problems import summary
from ..match.rejection import Rejection

# Digits a query parameter's number may have (a seq fits in 19): longer is refused, not read.
MAX_PARAM_DIGITS = 100

_encoder = msgspec.json.Encoder()


class MsgspecJSON(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return _encoder.encode(content)


def error(status: int, code: str, message: str, **extra: Any) -> MsgspecJSON:
    return MsgspecJSON({"error": {"code": code, "message": message, **extra}}, status_code=status)


def rejection(status: int, rej: Rejection) -> MsgspecJSON:
    return MsgspecJSON(
        {"error": {"code": rej.code, "rule": rej.rule, "message": rej.message, "values": rej.values}},
        status_code=status,
    )


def definition_error(problem: DefinitionError) -> MsgspecJSON:
    """A refused match definition: 400 ``bad_request`` when it is not the document (unknown keys,
    wrong types or values), 422 ``bad_scenario`` when the match it describes cannot be played;
    ``problems`` lists every mistake with its path."""
    problems = list(problem.problems)
    if problem.stage == "shape":
        return error(400, "bad_request", summary(problems), problems=problems)
    return MsgspecJSON(
        {
            "error": {
                "code": "bad_scenario",
                "rule": doc_refs.SCENARIO,
                "message": summary(problems),
                "values": {"path": problems[0].path, "problems": len(problems)},
                "problems": problems,
            }
        },
        status_code=422,
    )


def required_params(request: Request, *wanted: tuple[str, str]) -> list[str] | Response:
    """The values of required query parameters, in the order asked, or 400 ``bad_parameter``
    naming the first one missing or empty. ``wanted``: (name, what it must name) pairs, e.g.
    ``("unit", "a unit id")`` -> "unit must name a unit id"."""
    values: list[str] = []
    for name, what in wanted:
        value = request.query_params.get(name, "")
        if not value:
            return error(400, "bad_parameter", f"{name} must name {what}")
        values.append(value)
    return values


def int_param(request: Request, name: str) -> int | Response | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return None
    if raw.startswith("-") and raw[1:].isascii() and raw[1:].isdigit():
        return error(400, "bad_parameter", f"{name} must be >= 0, got {raw}")
    # Digits 0-9 only: int() would also take "1_0", " 1 ", "+1" and other scripts' digits ("٣").
    if not (raw.isascii() and raw.isdigit()) or len(raw) > MAX_PARAM_DIGITS:
        return error(
            400,
            "bad_parameter",
            f"{name} must be an integer of digits 0-9 (at most {MAX_PARAM_DIGITS}), got {raw[:40]!r}",
        )
    return int(raw)


def page_limit(request: Request, default: int, cap: int) -> int | Response:
    """``?limit=``: how many items a page holds, 1 or more (``default`` when not given; more
    than ``cap`` is ``cap``). 0 is refused: a page of nothing is never what was meant."""
    limit = int_param(request, "limit")
    if isinstance(limit, Response):
        return limit
    if limit is None:
        return default
    if limit == 0:
        return error(400, "bad_parameter", f"limit must be 1 or more (at most {cap} are sent), got 0")
    return min(limit, cap)
