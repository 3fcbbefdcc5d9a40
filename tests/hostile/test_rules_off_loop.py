"""The rules run off the event loop (live/rules_pool.py), and a process whose state trails the
stream catches up before it rejects (docs/limits-and-outages.md).

The first tests are structural and deterministic, not timing asserts: with every rules worker
held, an act of a kind that cost more than the inline budget lately waits for the pool while
the event loop goes on serving (here: other coroutines, a ping-sized task); releasing the workers
lets the act be acknowledged. Were such an act decided on the loop, it would be answered without
the pool and the loop would stall during the fold. An act of a kind whose recent calls were all
quick is decided on the loop, with no hand-over (live/rules_pool.py says why that costs the loop
nothing). The measured figure - how long another match's acks wait behind a hostile client - is
in ``bench/hostile.py``."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import httpx
import msgspec
import pytest

from hulldown.live import rules_pool
from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import EndPhase, Fire, Shoot
from hulldown.match.bounds import MAX_FIRE_ORDERS
from hulldown.rules import measure
from hulldown.store.redis_store import RedisEventStore
from hulldown.web.app import create_app
from hulldown.web.settings import Settings
from hulldown.web.table_routes import FACTS_STEP, SIGHT_KIND
from hulldown.wire import protocol
from tests.live.runtimes import duel_runtime
from tests.scenarios import duel
from tests.undo.live_helpers import with_reserve

T = TypeVar("T")


async def _waits_for_the_pool(work: Coroutine[Any, Any, T], what: str) -> T:
    """``work`` started with every rules worker held: it must wait for the pool while the loop
    keeps running other work; then the workers are released and its answer returned."""
    release = threading.Event()
    holders = [rules_pool.pool().submit(release.wait, 30) for _ in range(rules_pool.RULES_WORKERS)]
    try:
        task = asyncio.create_task(work)
        ticks = 0
        for _ in range(20):  # the loop keeps running other work while the task waits for the pool
            await asyncio.sleep(0.01)
            ticks += 1
        assert ticks == 20
        assert not task.done(), f"{what} was answered without the rules pool"
    finally:
        release.set()
    for holder in holders:
        holder.result(5)
    return await asyncio.wait_for(task, 10)


async def test_an_act_waits_for_the_rules_pool_while_the_loop_keeps_serving(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await duel_runtime(store, redis_url, key_prefix)

    # An end_phase cost more than the budget a moment ago (in this process, any match).
    rules_pool.kind_costs.record(rules_pool.rules_kind("decide", EndPhase()), 2 * rules_pool.INLINE_BUDGET)
    answer = await _waits_for_the_pool(runtime.submit("a", EndPhase(), "held-1"), "the act")
    assert isinstance(answer, protocol.Ack) and answer.seq == 2


async def test_an_act_of_a_quick_kind_is_decided_on_the_loop_even_with_every_worker_held(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await duel_runtime(store, redis_url, key_prefix)
    kind = rules_pool.rules_kind("decide", EndPhase())
    # Every recent end_phase (in this process, any match) cost a quarter of the budget.
    rules_pool.kind_costs.forget(kind)
    rules_pool.kind_costs.record(kind, rules_pool.INLINE_BUDGET / 4)
    release = threading.Event()
    holders = [rules_pool.pool().submit(release.wait, 30) for _ in range(rules_pool.RULES_WORKERS)]
    try:
        answer = await asyncio.wait_for(runtime.submit("a", EndPhase(), "inline-1"), 10)
        assert isinstance(answer, protocol.Ack) and answer.seq == 2
        assert runtime.state.phase == "shooting"
    finally:
        release.set()
    for holder in holders:
        holder.result(5)
    # What it cost on the loop is what the next decision goes by.
    estimate = rules_pool.kind_costs.estimate(kind)
    assert estimate is not None and estimate >= rules_pool.INLINE_BUDGET / 4 * 0.99


def test_a_kind_is_quick_only_once_measured_and_while_its_recent_maximum_is_under_the_budget() -> None:
    costs = rules_pool.KindCosts()
    budget = rules_pool.INLINE_BUDGET
    assert costs.estimate("decide/move") is None and not costs.quick("decide/move")  # never measured
    costs.record("decide/move", budget / 10)
    assert costs.quick("decide/move")
    costs.record("decide/move", 10 * budget)  # one costly call
    costs.record("decide/move", budget / 10)  # a cheap one right after does not hide it
    assert not costs.quick("decide/move")
    estimate = costs.estimate("decide/move")
    assert estimate is not None and estimate > 9.9 * budget
    # It decays with the usage half-life: ten times the budget is under it after log2(10) of them.
    later = time.monotonic() + 3.33 * rules_pool.USAGE_HALF_LIFE
    decayed = costs.estimate("decide/move", now=later)
    assert decayed is not None and decayed < budget
    assert costs.quick("decide/end_phase") is False  # kinds are kept apart


async def test_a_trailing_process_catches_up_instead_of_rejecting_a_legal_action(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    # Two services on one store, neither tailing: the second one's state trails the stream.
    first = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    second = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    created = await first.create(with_reserve())  # a reserve Rhino: the shot cannot end the match
    assert isinstance(created, CreatedMatch)
    ahead = await first.get(created.match_id)
    behind = await second.get(created.match_id)
    assert ahead is not None and behind is not None
    assert isinstance(await ahead.submit("a", EndPhase(), "end-movement"), protocol.Ack)
    assert behind.state.seq == 1 and behind.state.phase == "movement"  # it has not seen the end

    # Shooting is legal only after the phase ended: decided on seq 1 it would be wrong_phase.
    shot = Shoot(unit="predator-1", fire=(Fire(weapon="lascannon", target="rhino-1"),))
    answer = await behind.submit("a", shot, "shoot-1")
    assert isinstance(answer, protocol.Ack), answer
    assert answer.seq == 3 and behind.state.seq == 3
    # A rejection is still a rejection once decided on the latest version.
    again = await behind.submit("a", shot, "shoot-2")
    assert isinstance(again, protocol.Rejected) and again.code != "store_unavailable"
    assert await store.version(created.match_id) == 3


async def test_when_calls_wait_the_match_that_used_least_rules_cpu_goes_first() -> None:
    share = rules_pool.FairShare(1)
    await share.acquire("hog")
    share.release("hog", 5.0)  # five CPU seconds of rules lately
    await share.acquire("running")  # the only slot is taken
    order: list[str] = []

    async def wait(owner: str) -> None:
        await share.acquire(owner)
        order.append(owner)
        share.release(owner, 0.001)

    hog = asyncio.create_task(wait("hog"))
    await asyncio.sleep(0)
    quiet = asyncio.create_task(wait("quiet"))  # asks later, but has used nothing
    await asyncio.sleep(0)
    assert order == []
    share.release("running", 0.0)
    await asyncio.gather(hog, quiet)
    assert order == ["quiet", "hog"]
    assert share.usage("hog") > share.usage("quiet") > 0


async def test_a_costly_sight_reading_waits_for_the_rules_pool_while_the_loop_keeps_serving(
    redis_url: str, key_prefix: str
) -> None:
    """``GET /sight`` needs no token on a public match and measured ~130 ms of polygon geometry
    on a match at the definition's limits; it was computed on the event loop, so anyone could
    stall every match of the process with a stream of them. Once a reading cost more than the
    inline budget it goes to the rules pool (admitted by the match's fair share): with every
    worker held it is not answered, while the loop keeps serving; released, it is."""
    async with _duel_app(redis_url, key_prefix) as (http, created):
        url = f"/matches/{created['match_id']}/sight"
        params = {"from": "predator-1-m", "to": "rhino-1-m", "weapon": "lascannon"}
        assert (await http.get(url, params=params)).status_code == 200  # the match is loaded
        rules_pool.kind_costs.record(SIGHT_KIND, 2 * rules_pool.INLINE_BUDGET)
        answer = await _waits_for_the_pool(http.get(url, params=params), "the sight reading")
        assert answer.status_code == 200, answer.text
        assert answer.json()["from_model"] == "predator-1-m" and answer.json()["facing"] is not None


async def _check_shot(redis_url: str, key_prefix: str, fire_orders: int) -> tuple[httpx.Response, list[str]]:
    """A shot of ``fire_orders`` lascannon fire orders checked in the duel's movement phase; and
    the threads its facts' weapon measurements ran on (one entry per measured fire order)."""
    threads: list[str] = []
    measure_weapon = measure._weapon_facts

    def recorded(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return measure_weapon(*args)

    async with _duel_app(redis_url, key_prefix) as (http, created):
        fire = [{"weapon": "lascannon", "target": "rhino-1"}] * fire_orders
        body = {"action": {"type": "shoot", "unit": "predator-1", "fire": fire}}
        headers = {"authorization": f"Bearer {created['tokens']['a']}"}
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(measure, "_weapon_facts", recorded)
            answer = await http.post(f"/matches/{created['match_id']}/check", json=body, headers=headers)
    return answer, threads


@asynccontextmanager
async def _duel_app(
    redis_url: str, key_prefix: str
) -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, Any]]]:
    """The app (started, over ASGI: no port) with the duel created; the client and POST /matches'
    answer."""
    app = create_app(Settings(redis_url=redis_url, key_prefix=key_prefix))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://hulldown.test", timeout=30
        ) as http:
            created = (await http.post("/matches", content=msgspec.json.encode(duel()))).json()
            yield http, created


async def test_a_costly_checks_facts_are_measured_on_the_rules_pool(redis_url: str, key_prefix: str) -> None:
    """A shot's facts are the sight geometry once per fire order: 64 of them took 2.3 s of the
    event loop on a match at the definition's limits (200 terrain pieces of 64 points, 200
    vehicles). Once a check of that action type cost more than the inline budget, its facts are
    measured on the rules pool (a ``hulldown-rules`` thread), not on the loop."""
    rules_pool.kind_costs.record(rules_pool.rules_kind(FACTS_STEP, Shoot(unit="", fire=())), 1.0)
    answer, threads = await _check_shot(redis_url, key_prefix, 1)
    assert answer.status_code == 200, answer.text
    assert answer.json()["rejected"]["code"] == "wrong_phase"
    assert [w["weapon"] for w in answer.json()["facts"]["weapons"]] == ["lascannon"]
    assert len(threads) == 1 and threads[0].startswith("hulldown-rules"), threads


async def test_a_check_out_of_the_protocols_bounds_measures_no_facts(redis_url: str, key_prefix: str) -> None:
    """A check is rejected for too many fire orders whatever they measure; measuring them anyway
    (2,000 fire orders: 71 s of geometry on a match at the definition's limits) let one request of
    100 kB hold a thread for a minute."""
    answer, threads = await _check_shot(redis_url, key_prefix, MAX_FIRE_ORDERS + 1)
    assert answer.status_code == 200, answer.text
    assert answer.json()["rejected"]["code"] == "too_many_fire_orders"
    assert not answer.json()["facts"].get("weapons")
    assert threads == []
