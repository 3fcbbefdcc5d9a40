"""The table's HTTP routes (docs/table.md): check an action without acting, the ruler and the
line-of-sight tool.

- ``POST /matches/{id}/check`` (a side token in ``Authorization: Bearer``): runs the same
  validation an ``act`` runs and answers what acting would answer - ``ok`` with the seq the action
  would get, or the rejection (code, rule, message, values) - plus the measured facts. Nothing is
  appended, no die is drawn, nothing changes. Rate-limited per side like websocket messages.
  The facts are measured on the rules pool once a check of that action type was costly (a shot
  at a match at the definition's limits: seconds of geometry), and not at all for an action out
  of the protocol's bounds (it is rejected whatever it measures).
- ``GET /matches/{id}/ruler?from=<model>&to=<model>``: closest point to closest point, as the
  edition measures.
- ``GET /matches/{id}/sight?from=<model>&to=<model>[&weapon=]``: visible or not, the facing a shot
  from there hits, its armour and the hidden share of that facing.

The ruler and the sight tool have the access of ``GET /state`` (spectators too; private and
delayed matches as there).
"""

from __future__ import annotations

import logging

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..live.rules_pool import rules_kind, run_rules_of_kind
from ..match.actions import Action
from ..match.bounds import check_bounds
from ..match.rejection import Value
from ..match.state import MatchState
from ..rules import measure
from ..wire import protocol
from .access import open_match
from .body import decode_typed, read_limited
from .check_limits import side_call
from .responses import MsgspecJSON, error, int_param

logger = logging.getLogger(__name__)

MAX_CHECK_BODY = 100_000
# The rules pool's kind of a sight reading (live/rules_pool.py): exact polygon geometry against
# every blocker on the table, ~130 ms on a match at the definition's limits (200 terrain pieces
# of 64 points, 200 vehicles), so it runs on the pool - admitted by the match's fair share -
# once one such reading was seen, not on the event loop every match shares.
SIGHT_KIND = "measure/sight"
# The step a check's facts are costed as, with the action's type (``facts/shoot``): a shot's
# facts are the sight geometry once per fire order - 64 of them took 2.3 s on a match at the
# definition's limits - so they go to the pool like a sight reading once one was costly.
FACTS_STEP = "facts"
CHECK_ACTION_ID = "check"  # the action id the answer of a check that names none carries


class CheckRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The body of ``POST /matches/{id}/check``: the action as an ``act`` message carries it.
    ``action_id`` lets a client check a retry (a duplicate is answered as ``act`` would)."""

    action: Action
    action_id: str | None = None
    expect: int | None = None


class CheckRejection(msgspec.Struct, frozen=True):
    """The body of the ``rejected`` message acting would send (without its action id)."""

    code: str
    rule: str
    message: str
    values: dict[str, Value] = {}


class CheckResult(msgspec.Struct, frozen=True):
    """What acting would answer now, and what the table measures.

    ``ok``: the action would be accepted as ``seq`` (``duplicate``: it already was, as ``seq``);
    otherwise ``rejected`` is the body of the ``rejected`` message acting would send. ``at`` is the
    seq the action was checked against."""

    ok: bool
    at: int
    seq: int | None
    duplicate: bool
    rejected: CheckRejection | None
    facts: measure.Facts


_check_decoder = msgspec.json.Decoder(CheckRequest)


def _facts(base: MatchState, action: Action) -> measure.Facts:
    """The measured facts; a measuring bug must not cost the player the answer (which is the
    ruling): it is logged and the facts come back empty. An action out of the protocol's bounds
    (match/bounds.py: say, thousands of fire orders) is not measured."""
    if check_bounds(action) is not None:
        return measure.Facts(action=type(action).__name__)
    try:
        return measure.action_facts(base, action)
    except Exception:
        logger.exception("measuring the facts of %r failed", action)
        return measure.Facts(action=type(action).__name__)


async def measured_facts(match_id: str, base: MatchState, action: Action) -> measure.Facts:
    """The facts of ``action`` in ``base``, off the event loop once this action type was costly
    (live/rules_pool.py), counted against ``match_id``'s fair share."""
    return await run_rules_of_kind(match_id, rules_kind(FACTS_STEP, action), _facts, base, action)


def check_result(
    base: MatchState, answer: protocol.Ack | protocol.Rejected, facts: measure.Facts
) -> CheckResult:
    if isinstance(answer, protocol.Ack):
        return CheckResult(True, base.seq, answer.seq, answer.duplicate, None, facts)
    rejected = CheckRejection(answer.code, answer.rule, answer.message, dict(answer.values))
    return CheckResult(False, base.seq, None, False, rejected, facts)


async def check_action(request: Request) -> Response:
    call = await side_call(request)
    if isinstance(call, Response):
        return call
    runtime, side = call.runtime, call.side
    body = await read_limited(request, MAX_CHECK_BODY)
    if isinstance(body, Response):
        return body
    asked = decode_typed(_check_decoder, body)
    if isinstance(asked, Response):
        return asked
    with runtime.in_use():
        named = asked.action_id is not None
        action_id = asked.action_id if asked.action_id is not None else CHECK_ACTION_ID
        base, answer = await runtime.check(side, asked.action, action_id, asked.expect, retry=named)
        facts = await measured_facts(runtime.match_id, base, asked.action)
    return MsgspecJSON(check_result(base, answer, facts))


async def _state_for(request: Request) -> MatchState | Response:
    """The state the caller may see, at ``?at=`` (default the latest)."""
    at = int_param(request, "at")
    if isinstance(at, Response):
        return at
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    latest = opened.access.state(opened.runtime)
    if at is None or at == latest.seq:
        return latest
    if not 1 <= at <= latest.seq:
        return error(404, "unknown_seq", f"seq {at} is outside 1..{latest.seq}")
    found = await opened.live.state_at(opened.match_id, at)
    if found is None:
        return error(404, "unknown_seq", f"no state at seq {at}")
    return found


def _two_models(request: Request, state: MatchState) -> tuple[measure.Located, measure.Located] | Response:
    names = (request.query_params.get("from", ""), request.query_params.get("to", ""))
    found: list[measure.Located] = []
    for param, model_id in zip(("from", "to"), names, strict=True):
        if not model_id:
            return error(400, "bad_parameter", f"{param} must name a model id")
        located = measure.find_model(state, model_id)
        if located is None:
            return error(404, "unknown_model", f"no model {model_id!r} ({param})")
        found.append(located)
    return found[0], found[1]


class RulerReading(msgspec.Struct, frozen=True):
    """Closest point to closest point between two models, in inches (0.01)."""

    edition: str
    seq: int
    from_model: str
    to_model: str
    distance: float


async def get_ruler(request: Request) -> Response:
    state = await _state_for(request)
    if isinstance(state, Response):
        return state
    pair = _two_models(request, state)
    if isinstance(pair, Response):
        return pair
    a, b = pair
    reading = RulerReading(state.edition, state.seq, a.model.id, b.model.id, measure.ruler(state, a, b))
    return MsgspecJSON(reading)


async def get_sight(request: Request) -> Response:
    state = await _state_for(request)
    if isinstance(state, Response):
        return state
    pair = _two_models(request, state)
    if isinstance(pair, Response):
        return pair
    a, b = pair
    weapon_id = request.query_params.get("weapon")
    weapon = None
    if weapon_id:
        weapon = a.unit.weapons.get(weapon_id)
        if weapon is None or weapon.model != a.model.id:
            return error(404, "unknown_weapon", f"model {a.model.id!r} carries no weapon {weapon_id!r}")
    match_id = request.path_params["match_id"]
    reading = await run_rules_of_kind(match_id, SIGHT_KIND, measure.sight, state, a, b, weapon)
    return MsgspecJSON(reading)


routes: list[BaseRoute] = [
    Route("/matches/{match_id}/check", check_action, methods=["POST"]),
    Route("/matches/{match_id}/ruler", get_ruler, methods=["GET"]),
    Route("/matches/{match_id}/sight", get_sight, methods=["GET"]),
]
