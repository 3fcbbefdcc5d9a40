"""Leaks (docs/operations.md, SPEC 4.1): GET /matches lists public matches newest first from an
index, a page at a time by cursor, filtered live/ended - and loads no match to do it."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import msgspec

from hulldown.client import Client, list_matches
from hulldown.match.state import Options
from hulldown.wire import protocol
from tests.scenarios import duel

from ..server_process import ServerProcess
from .helpers import CONCEDE, END, MOVE, create, metric_samples, sample

MATCHES = 120


def page(http: str, **params: Any) -> dict[str, Any]:
    response = httpx.get(f"{http}/matches", params=params, timeout=10)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_list_is_newest_first_and_pages_by_cursor_without_loading_matches(
    creating_server: ServerProcess,
) -> None:
    server = creating_server  # MATCHES creations from one client: over HULLDOWN_CREATE_RATE
    created = [create(server.http)["match_id"] for _ in range(MATCHES)]
    newest_first = created[::-1]

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        body = page(server.http, limit=50, **({"cursor": cursor} if cursor else {}))
        pages += 1
        seen += [m["match_id"] for m in body["matches"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and seen == newest_first  # every match once, newest first, across pages
    first = page(server.http)["matches"]
    assert len(first) == 50 and first[0]["match_id"] == created[-1]  # the newest is never lost
    entry = first[0]
    assert entry["edition"] == "40k7" and entry["seq"] == 1 and entry["ended"] is False
    assert entry["turn"] == 1 and entry["phase"] == "movement" and entry["created_at"] > time.time() - 600
    # Listing loaded nothing: the list comes from the index and the summaries in Redis.
    assert sample(metric_samples(server.http), "hulldown_matches_loaded") == 0

    # A match created after the first page was read shows up on the first page, not in the middle.
    client_page = await list_matches(server.http, limit=10)
    assert [m["match_id"] for m in client_page["matches"]] == newest_first[:10]
    later = create(server.http)["match_id"]
    rest = page(server.http, limit=10, cursor=client_page["next_cursor"])
    assert [m["match_id"] for m in rest["matches"]] == newest_first[10:20]
    assert page(server.http, limit=1)["matches"][0]["match_id"] == later


async def test_list_filters_live_and_ended(server: ServerProcess) -> None:
    ended = create(server.http)
    running = create(server.http)
    async with Client(ended["live_url"], token=ended["tokens"]["a"]) as player:
        assert isinstance(await player.act(CONCEDE), protocol.Ack)

    deadline = time.monotonic() + 10
    while True:
        finished = [m["match_id"] for m in page(server.http, status="ended")["matches"]]
        if ended["match_id"] in finished or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.05)
    assert finished == [ended["match_id"]]
    live = [m["match_id"] for m in page(server.http, status="live")["matches"]]
    assert live == [running["match_id"]]
    both = page(server.http, status="all")["matches"]
    assert [m["match_id"] for m in both] == [running["match_id"], ended["match_id"]]
    over = both[1]
    assert over["ended"] is True and over["winner"] == "b"


def test_bad_list_parameters_are_refused_clearly(server: ServerProcess) -> None:
    for params, fragment in (
        ({"status": "finished"}, "status must be one of all, live, ended"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"cursor": "000000000000001:{x}"}, "cursor"),
        ({"limit": "many"}, "limit must be an integer"),
        ({"limit": "0"}, "limit must be 1 or more"),
    ):
        response = httpx.get(f"{server.http}/matches", params=params, timeout=10)
        assert response.status_code == 400, params
        error = response.json()["error"]
        assert error["code"] == "bad_parameter" and fragment in error["message"]


async def _listed(http: str, match_id: str, until: Any, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        entry = next(m for m in page(http, limit=100)["matches"] if m["match_id"] == match_id)
        if until(entry) or time.monotonic() > deadline:
            return entry
        await asyncio.sleep(0.05)


async def test_list_entries_follow_the_state_spectators_see(server: ServerProcess) -> None:
    plain = create(server.http)
    delayed = create(server.http, msgspec.structs.replace(duel(), options=Options(spectator_delay_events=2)))
    for created in (plain, delayed):
        async with Client(created["live_url"], token=created["tokens"]["a"]) as player:
            for action in (MOVE, END, END):
                assert isinstance(await player.act(action), protocol.Ack)
    entry = await _listed(server.http, plain["match_id"], lambda e: e["seq"] == 4)
    assert (entry["seq"], entry["phase"]) == (4, "assault")  # within a second of the last ack
    # The delayed match's entry is where its spectators are, two events behind - never ahead.
    late = await _listed(server.http, delayed["match_id"], lambda e: e["seq"] == 2)
    assert (late["seq"], late["phase"]) == (2, "movement")
    await asyncio.sleep(1.5)  # past the next write: still no further than the delayed view
    assert next(m for m in page(server.http)["matches"] if m["match_id"] == delayed["match_id"])["seq"] == 2
