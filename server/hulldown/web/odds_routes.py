"""``POST /matches/{id}/odds``: the distribution of an action's outcomes before the player commits
(docs/odds.md, client-protocol/SPEC.md section 9).

Only a side may ask, with its token in ``Authorization: Bearer <token>``, and only about an
action it could take now: an illegal action gets the rejection validation gives it. The answer
comes from the pure odds engine run on the match's current state in a worker thread; the match
itself is not touched (nothing is appended, no die of the match is drawn).
"""

from __future__ import annotations

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..live.service import LiveService
from ..match.actions import Action
from ..match.rejection import Rejection
from ..odds import DEFAULT_SAMPLES, MAX_EXACT_PLAYS, OddsOptions, compute_odds
from ..odds.answer import MethodChoice
from ..odds.engine import MAX_SAMPLES
from .access import token_in_query, token_of
from .body import decode_typed, read_limited
from .check_limits import over_rate
from .odds_gate import odds_gate
from .responses import MsgspecJSON, error, rejection

MAX_BODY = 100_000
# The most leaves a caller may ask the exact walk to visit (each is one run of the rules).
MAX_PLAYS_LIMIT = 20_000


class OddsRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The body of ``POST /matches/{id}/odds``."""

    action: Action
    method: MethodChoice = "auto"
    samples: int = DEFAULT_SAMPLES
    max_plays: int = MAX_EXACT_PLAYS
    choices: dict[str, str] = {}


_decoder = msgspec.json.Decoder(OddsRequest)


async def post_odds(request: Request) -> Response:
    live: LiveService = request.app.state.live
    match_id = request.path_params["match_id"]
    runtime = await live.get(match_id)
    if runtime is None:
        return error(404, "unknown_match", "no such match")
    refused = token_in_query(request)
    if refused is not None:
        return refused
    token = token_of(request)
    if token is None:
        return error(
            401, "side_token_required", "odds are for the players: send 'Authorization: Bearer <side token>'"
        )
    side = await live.authenticate(match_id, token)
    if side is None:
        return error(403, "side_token_required", "this token is not a side token of this match")
    body = await read_limited(request, MAX_BODY)
    if isinstance(body, Response):
        return body
    asked = decode_typed(_decoder, body)
    if isinstance(asked, Response):
        return asked
    if not 1 <= asked.samples <= MAX_SAMPLES:
        return error(
            400, "bad_request", f"samples must be 1 .. {MAX_SAMPLES}, got {asked.samples} - at `$.samples`"
        )
    if not 1 <= asked.max_plays <= MAX_PLAYS_LIMIT:
        return error(
            400,
            "bad_request",
            f"max_plays must be 1 .. {MAX_PLAYS_LIMIT}, got {asked.max_plays} - at `$.max_plays`",
        )
    options = OddsOptions(
        method=asked.method, samples=asked.samples, max_plays=asked.max_plays, choices=dict(asked.choices)
    )
    refused = over_rate(request, match_id, side)
    if refused is not None:
        return refused
    async with odds_gate(request).turn(match_id, side) as admitted:
        if not admitted:
            return error(
                429,
                "odds_busy",
                f"side {side}'s previous odds request on this match is still being answered: ask again "
                "once it is (docs/odds.md, What an answer may cost)",
            )
        state = runtime.state
        answer = await run_in_threadpool(compute_odds, state, side, asked.action, options)
    if isinstance(answer, Rejection):
        return rejection(422, answer)
    return MsgspecJSON(answer)


routes = [Route("/matches/{match_id}/odds", post_odds, methods=["POST"])]
