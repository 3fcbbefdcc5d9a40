"""The browser viewer's routes: ``/`` (the matches), ``/matches/{id}/view`` (one match), the
static ES modules under ``/static`` and the OpenAPI document at ``/openapi.json``.

The viewer is plain HTML + ES modules (no build step); the pages are static files and every
match-specific thing is fetched by the script from the HTTP routes and the websocket.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from .openapi import openapi_json
from .viewer_arcs import get_arcs

STATIC = Path(__file__).parent / "static"


async def index_page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", media_type="text/html")


async def match_page(request: Request) -> Response:
    return FileResponse(STATIC / "match.html", media_type="text/html")


routes: list[BaseRoute] = [
    Route("/", index_page, methods=["GET"]),
    Route("/matches/{match_id}/view", match_page, methods=["GET"]),
    Route("/matches/{match_id}/arcs", get_arcs, methods=["GET"]),
    Route("/openapi.json", openapi_json, methods=["GET"]),
    Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
]
