"""docs/odds.md, What an answer may cost: one odds answer in the making per match and side (another
request meanwhile is 429 odds_busy), at most ODDS_AT_ONCE computed at once in a process, the
others answered in their turn. (One side sending forty at once held forty threads and slowed
every match's pings from 0.3 ms to 50-110 ms at the median.)"""

from __future__ import annotations

import asyncio

import httpx
import msgspec

from hulldown.web.app import create_app
from hulldown.web.odds_gate import OddsGate
from hulldown.web.settings import Settings
from tests.scenarios import duel


async def test_one_answer_per_side_and_a_few_at_once() -> None:
    gate = OddsGate(at_once=2)
    order: list[str] = []
    release = asyncio.Event()

    async def ask(match_id: str, side: str) -> bool:
        async with gate.turn(match_id, side) as admitted:
            if admitted:
                order.append(f"{match_id}/{side}")
                await release.wait()
            return admitted

    first = asyncio.create_task(ask("m", "a"))
    second = asyncio.create_task(ask("m", "b"))
    third = asyncio.create_task(ask("n", "a"))  # waits: two are computed at once
    await asyncio.sleep(0.01)
    assert order == ["m/a", "m/b"] and not third.done()
    assert await ask("m", "a") is False  # side a of m is still being answered: at once, no wait
    release.set()
    assert await asyncio.gather(first, second, third) == [True, True, True]
    assert order == ["m/a", "m/b", "n/a"]
    assert await ask("m", "a") is True  # answered: side a may ask again


async def test_a_second_request_while_the_first_is_answered_is_odds_busy(
    redis_url: str, key_prefix: str
) -> None:
    app = create_app(Settings(redis_url=redis_url, key_prefix=key_prefix))
    async with app.router.lifespan_context(app):
        app.state.odds_gate = gate = OddsGate(at_once=1)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://hulldown.test", timeout=30
        ) as http:
            created = (await http.post("/matches", content=msgspec.json.encode(duel()))).json()
            url = f"/matches/{created['match_id']}/odds"
            headers = {"authorization": f"Bearer {created['tokens']['a']}"}
            body = {"action": {"type": "end_phase"}}
            async with gate.turn(created["match_id"], "a"):  # side a's first request, still running
                busy = await http.post(url, json=body, headers=headers)
                assert busy.status_code == 429
                assert busy.json()["error"]["code"] == "odds_busy"
                assert "docs/odds.md" in busy.json()["error"]["message"]
            answered = await http.post(url, json=body, headers=headers)
            assert answered.status_code == 200, answered.text
