"""``GET /matches/{id}/options?unit=<unit id>`` (a side token in ``Authorization: Bearer``): the
kinds of action the unit may take now, each decided by the same validation an ``act`` runs
(``match/options.py``; docs/table.md). Rate-limited with ``POST /check`` (one bucket per side).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..live.rules_pool import run_rules_for
from ..live.service import LiveService
from ..match.options import unit_options
from .access import token_of
from .check_limits import check_buckets
from .responses import MsgspecJSON, error


async def get_options(request: Request) -> Response:
    live: LiveService = request.app.state.live
    match_id = request.path_params["match_id"]
    runtime = await live.get(match_id)
    if runtime is None:
        return error(404, "unknown_match", "no such match")
    token = token_of(request)
    side = await live.authenticate(match_id, token) if token is not None else None
    if side is None:
        return error(401, "unauthorised", "a side's token is required: Authorization: Bearer <token>")
    if not check_buckets(request).allow(match_id, side):
        return error(429, "rate_limited", f"more than {request.app.state.settings.rate} requests per second")
    unit_id = request.query_params.get("unit", "")
    state = runtime.state
    unit = state.units.get(unit_id)
    if unit is None:
        return error(404, "unknown_unit", f"no unit {unit_id!r} (unit)")
    if unit.side != side:
        return error(403, "not_your_unit", f"unit {unit_id!r} belongs to side {unit.side}")
    with runtime.in_use():
        options = await run_rules_for(match_id, unit_options, state, side, unit)
    return MsgspecJSON(options)


routes: list[BaseRoute] = [Route("/matches/{match_id}/options", get_options, methods=["GET"])]
