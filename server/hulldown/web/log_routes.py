"""``GET /matches/{id}/log?from=N&limit=M``: the whole combat log, paged (docs/architecture.md
section 3, the combat log).

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
from .access import open_match
from .responses import MsgspecJSON, error, int_param, page_limit

MAX_PAGE = 500
DEFAULT_PAGE = 100


async def get_log(request: Request) -> Response:
    """Log lines with ``n >= from`` (oldest first), at most ``limit`` (<= 500) of them."""
    live: LiveService = request.app.state.live
    match_id = request.path_params["match_id"]
    start = int_param(request, "from")
    if isinstance(start, Response):
        return start
    limit = page_limit(request, DEFAULT_PAGE, MAX_PAGE)
    if isinstance(limit, Response):
        return limit
    opened = await open_match(request)
    if isinstance(opened, Response):
        return opened
    runtime, access = opened.runtime, opened.access
    visible = access.limit(runtime)
    timeline = await live.timeline(match_id, visible)
    if timeline is None:
        return error(404, "unknown_match", "no such match")
    page: list[LogEntry] = []
    for seq in sorted(timeline.entries):
        if seq > visible:
            break
        for entry in timeline.entries[seq]:
            if entry.n >= (start or 0) and len(page) < limit:
                page.append(entry)
    total = sum(len(lines) for seq, lines in timeline.entries.items() if seq <= visible)
    return MsgspecJSON({"from": start or 0, "total": total, "entries": msgspec.to_builtins(page)})


routes = [Route("/matches/{match_id}/log", get_log, methods=["GET"])]
