"""Matches for the live undo/replay/dice/spectator tests.

The server draws each match's seed at random, so a test cannot choose the dice. A lascannon shot
may wreck the Rhino; with only the Rhino on side b that would end the match by annihilation. Side
b therefore also fields a reserve Rhino far away, so the match goes on whatever the dice say.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
from msgspec.structs import replace

from hulldown.match.state import Options
from tests.scenarios import duel, rhino
from tests.server_process import ServerProcess


def with_reserve(options: Options | None = None) -> Any:
    request = duel()
    units = (*request.scenario.units, rhino("rhino-2", "b", 66, 44, 180))
    return replace(request, scenario=replace(request.scenario, units=units), options=options or Options())


def create(server: ServerProcess, options: Options | None = None) -> dict[str, Any]:
    body = msgspec.json.encode(with_reserve(options))
    response = httpx.post(f"{server.http}/matches", content=body, timeout=10)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created
