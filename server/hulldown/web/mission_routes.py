"""``GET /missions?edition=`` lists each edition's standard missions on each of its deployment
maps, built for the battlefield (``?width=`` and ``?height=``, default 72 x 48), as the match
definition's ``mission`` names them (docs/missions.md)."""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..missions.catalogue import MISSIONS, catalogue
from ..missions.model import Mission
from .responses import MsgspecJSON, error

MAX_SIDE = 1000.0


class MissionList(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The standard missions of one edition, each on one deployment map."""

    edition: str
    width: float
    height: float
    missions: list[Mission]


def _size(request: Request, name: str, default: float) -> float | str:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        return f"{name} must be a number of inches, got {raw!r}"
    if not 12.0 <= value <= MAX_SIDE:
        return f"{name} must be between 12 and {MAX_SIDE:g} inches, got {raw!r}"
    return value


async def list_missions(request: Request) -> Response:
    edition = request.query_params.get("edition", "")
    if edition not in MISSIONS:
        return error(400, "bad_parameter", f"edition must be one of {', '.join(MISSIONS)}, got {edition!r}")
    width, height = _size(request, "width", 72.0), _size(request, "height", 48.0)
    for value in (width, height):
        if isinstance(value, str):
            return error(400, "bad_parameter", value)
    assert isinstance(width, float) and isinstance(height, float)
    return MsgspecJSON(
        MissionList(edition=edition, width=width, height=height, missions=catalogue(edition, width, height))
    )


routes: list[BaseRoute] = [Route("/missions", list_missions, methods=["GET"])]
