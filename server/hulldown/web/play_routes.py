"""``GET /matches/{id}/play``: the player's table (docs/table.md). A static page: the side's
token comes from the URL fragment or a prompt (kept in the tab's sessionStorage) and travels
only in the websocket's first frame and in ``Authorization`` headers."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from .viewer_routes import STATIC


async def play_page(request: Request) -> Response:
    return FileResponse(STATIC / "play.html", media_type="text/html")


routes: list[BaseRoute] = [Route("/matches/{match_id}/play", play_page, methods=["GET"])]
