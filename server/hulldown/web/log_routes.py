"""``GET /matches/{id}/log?from=N&limit=M``: the whole combat log, paged (DESIGN.md section 6).

The view carries only the recent window of the log (``LOG_WINDOW`` lines); older lines are
paged here, from the match's timeline (every event folded once and cached per process).
"""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..live.service import LiveService
from ..match.state import LogEntry
from .access import access_or_error
from .responses import MsgspecJSON, error

MAX_PAGE = 500


def _non_negative(request: Request, name: str, default: int) -> int | Response:
    raw = request.query_params.get(name, "")
    if raw == "":
        return default
    if not raw.isdigit():
        return error(400, "bad_parameter", f"{name} must be a non-negative integer, got {raw!r}")
    return int(raw)


async def get_log(request: Request) -> Response:
    """Log lines with ``n >= from`` (oldest first), at most ``limit`` (<= 500) of them."""
    live: LiveService = request.app.state.live
    match_id = request.path_params["match_id"]
    start = _non_negative(request, "from", 0)
    if isinstance(start, Response):
        return start
    limit = _non_negative(request, "limit", 100)
    if isinstance(limit, Response):
        return limit
    runtime = await live.get(match_id)
    if runtime is None:
        return error(404, "unknown_match", "no such match")
    access = await access_or_error(request, live, match_id)
    if isinstance(access, Response):
        return access
    visible = access.limit(runtime)
    timeline = await live.timeline(match_id, visible)
    if timeline is None:
        return error(404, "unknown_match", "no such match")
    page: list[LogEntry] = []
    count = min(limit, MAX_PAGE)
    for seq in sorted(timeline.entries):
        if seq > visible:
            break
        for entry in timeline.entries[seq]:
            if entry.n >= start and len(page) < count:
                page.append(entry)
    total = sum(len(lines) for seq, lines in timeline.entries.items() if seq <= visible)
    return MsgspecJSON({"from": start, "total": total, "entries": msgspec.to_builtins(page)})


routes = [Route("/matches/{match_id}/log", get_log, methods=["GET"])]
