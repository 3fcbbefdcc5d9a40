"""Bringing an army: ``POST /rosters`` imports a BattleScribe / New Recruit roster into the units
of a match definition (docs/roster-import.md); ``GET /examples`` and ``GET /examples/{name}``
serve the match definitions of ``examples/``; ``GET /new`` is the browser's new-match page.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from ..match.state import SIDES
from ..roster.editions import EDITIONS
from ..roster.importer import import_roster
from ..roster.xmltree import MAX_ROSTER_BYTES, RosterError
from .body import read_limited
from .responses import MsgspecJSON, error
from .settings import EXAMPLES_DIR_ENV

STATIC = Path(__file__).parent / "static"
MAX_ROSTER_UPLOAD = MAX_ROSTER_BYTES  # a .rosz is smaller than the .ros it holds


def examples_dir() -> Path:
    """``HULLDOWN_EXAMPLES_DIR``, else the ``examples/`` of the source checkout."""
    configured = os.environ.get(EXAMPLES_DIR_ENV)
    return Path(configured) if configured else Path(__file__).resolve().parents[3] / "examples"


def _examples() -> dict[str, dict[str, object]]:
    """name -> {edition, file} of every match definition in the examples directory."""
    found: dict[str, dict[str, object]] = {}
    directory = examples_dir()
    if not directory.is_dir():
        return found
    for path in sorted(directory.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "scenario" in data and "actions" not in data:
            found[path.stem] = {"name": path.stem, "edition": data.get("edition"), "file": path.name}
    return found


async def post_roster(request: Request) -> Response:
    """The body is the roster file (.ros or .rosz bytes); ``?edition=`` and ``?side=`` (a|b)."""
    edition = request.query_params.get("edition", "")
    side = request.query_params.get("side", "a")
    if edition not in EDITIONS:
        return error(400, "bad_parameter", f"edition must be one of {', '.join(EDITIONS)}, got {edition!r}")
    if side not in SIDES:
        return error(400, "bad_parameter", f"side must be a or b, got {side!r}")
    body = await read_limited(request, MAX_ROSTER_UPLOAD)
    if isinstance(body, Response):
        return body
    try:
        result = await asyncio.to_thread(import_roster, body, edition, side)  # off the event loop
    except RosterError as exc:
        return error(422, "bad_roster", str(exc))
    return MsgspecJSON(
        {
            "edition": result.edition,
            "roster_name": result.roster_name,
            "units": result.units,
            "report": [
                {"level": r.level, "path": r.path, "name": r.name, "message": r.message}
                for r in result.report
            ],
        }
    )


async def list_examples(request: Request) -> Response:
    return MsgspecJSON({"examples": list(_examples().values())})


async def get_example(request: Request) -> Response:
    name = request.path_params["name"]
    known = _examples()
    if name not in known:
        return error(404, "unknown_example", f"no example {name!r}; known: {', '.join(known) or 'none'}")
    return Response((examples_dir() / f"{name}.json").read_bytes(), media_type="application/json")


async def new_match_page(request: Request) -> Response:
    return FileResponse(STATIC / "new.html", media_type="text/html")


routes: list[BaseRoute] = [
    Route("/rosters", post_roster, methods=["POST"]),
    Route("/examples", list_examples, methods=["GET"]),
    Route("/examples/{name}", get_example, methods=["GET"]),
    Route("/new", new_match_page, methods=["GET"]),
]
