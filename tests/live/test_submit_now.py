"""An act started from the socket's own callback (``MatchRuntime.submit_now``,
docs/architecture.md section 1): decided on the loop and its append written before the call
returns, committed and answered by Redis' reply - and, when anything needs waiting for, not
started at all (the caller then uses ``submit``). Over a real Redis; a recording outlet stands in
for the sockets (tests/live/test_answer_with_patch.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from redis.exceptions import TimeoutError as RedisTimeoutError

from hulldown.live import rules_pool
from hulldown.live.runtime import MatchRuntime
from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import Concede, EndPhase, Fire, Shoot
from hulldown.match.events import decode_event
from hulldown.match.hashing import base_hash, state_hash
from hulldown.store.embedded import EmbeddedRedis
from hulldown.store.redis_store import RedisEventStore
from hulldown.wire import protocol
from tests.live.runtimes import duel_runtime
from tests.live.test_answer_with_patch import Writes, connection, kinds
from tests.scenarios import duel

Answer = protocol.Ack | protocol.Rejected | BaseException


class Answers:
    """The ``done`` callback of ``submit_now``: the answers it was called with."""

    def __init__(self) -> None:
        self.got: list[Answer] = []
        self._arrived = asyncio.Event()

    def __call__(self, answer: Answer) -> None:
        self.got.append(answer)
        self._arrived.set()

    async def one(self) -> Answer:
        await asyncio.wait_for(self._arrived.wait(), 10)
        assert len(self.got) == 1, self.got
        return self.got[0]


async def quick_runtime(store: RedisEventStore, redis_url: str, key_prefix: str) -> MatchRuntime:
    """A duel whose first ``end_phase`` went the awaited way, its kind then known to be quick.
    The warm-up measured it, but the first call in a process runs cold and on a slow machine may
    cost more than the inline budget (about 0.85 of it here): the kind is declared quick, as
    tests/hostile/test_rules_off_loop.py does (which tests the measuring itself)."""
    runtime = await duel_runtime(store, redis_url, key_prefix)
    assert isinstance(await runtime.submit("a", EndPhase(), "warm-up"), protocol.Ack)
    rules_pool.kind_costs.forget("decide/end_phase")
    rules_pool.kind_costs.record("decide/end_phase", rules_pool.INLINE_BUDGET / 4)
    assert rules_pool.inline_now("decide/end_phase")
    return runtime


async def test_an_act_is_decided_and_written_before_the_call_returns(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await quick_runtime(store, redis_url, key_prefix)
    writes: Writes = []
    a, b = connection("a", "a", writes), connection("b", "b", writes)
    for c in (a, b):
        runtime.hub.add(c)
    answers = Answers()

    assert runtime.submit_now("a", EndPhase(), "end-2", None, a, answers)
    assert runtime.lock.locked()  # held until Redis answers
    assert runtime.state.seq == 2 and writes == []  # nothing sent before Redis confirmed it

    answer = await answers.one()
    assert answer == protocol.Ack(action_id="end-2", seq=3)
    assert runtime.state.seq == 3 and not runtime.lock.locked()
    assert [(name, kinds(texts)) for name, texts in writes] == [("a", ["patch", "ack"]), ("b", ["patch"])]
    stored = await store.read(runtime.match_id, after=2)
    assert [seq for seq, _ in stored] == [3]
    assert decode_event(stored[0][1]).action_id == "end-2"


async def test_what_must_wait_is_not_started(store: RedisEventStore, redis_url: str, key_prefix: str) -> None:
    runtime = await duel_runtime(store, redis_url, key_prefix)
    writes: Writes = []
    a = connection("a", "a", writes)
    answers = Answers()

    rules_pool.kind_costs.forget("decide/end_phase")  # a kind whose cost is not known: the pool
    assert not runtime.submit_now("a", EndPhase(), "unknown-kind", None, a, answers)

    assert isinstance(await runtime.submit("a", EndPhase(), "warm-up"), protocol.Ack)
    assert not runtime.submit_now("a", EndPhase(), "stale", 1, a, answers)  # expects seq 1, it is 2
    assert runtime.lock.try_acquire()
    assert not runtime.submit_now("a", EndPhase(), "locked", None, a, answers)
    runtime.lock.release()
    # Out of turn: the rules reject it; submit answers rejections (a retry's ack is looked up there).
    assert not runtime.submit_now("b", EndPhase(), "out-of-turn", None, a, answers)

    assert runtime.state.seq == 2 and not runtime.lock.locked()
    assert writes == [] and answers.got == []
    assert [seq for seq, _ in await store.read(runtime.match_id, after=0)] == [1, 2]


async def test_a_retried_act_is_answered_with_its_first_seq(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await quick_runtime(store, redis_url, key_prefix)
    writes: Writes = []
    a = connection("a", "a", writes)
    answers = Answers()
    # "warm-up" was appended at seq 2; sent again, it is legal again (side a is still to play)
    # but must not be applied twice.
    assert runtime.submit_now("a", EndPhase(), "warm-up", None, a, answers)
    answer = await answers.one()
    assert answer == protocol.Ack(action_id="warm-up", seq=2, duplicate=True)
    assert runtime.state.seq == 2
    assert [seq for seq, _ in await store.read(runtime.match_id, after=0)] == [1, 2]
    assert [kinds(texts) for _, texts in writes] == [["ack"]]


async def test_another_writer_first_means_deciding_again_on_its_state(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    """Two processes on one Redis: this one's append conflicts, it catches up and decides the
    act again on the state the other made."""
    runtime = await quick_runtime(store, redis_url, key_prefix)
    elsewhere = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)  # another process
    other = await elsewhere.get(runtime.match_id)
    assert other is not None
    assert isinstance(await other.submit("a", EndPhase(), "elsewhere"), protocol.Ack)  # seq 3
    assert runtime.state.seq == 2  # this process has not heard of it (nothing tails here)

    writes: Writes = []
    answers = Answers()
    assert runtime.submit_now("a", EndPhase(), "here", None, connection("a", "a", writes), answers)
    answer = await answers.one()
    assert answer == protocol.Ack(action_id="here", seq=4)
    stored = [decode_event(payload).action_id for _, payload in await store.read(runtime.match_id, after=2)]
    assert stored == ["elsewhere", "here"]
    assert runtime.state.seq == 4 and not runtime.lock.locked()


async def test_a_store_that_fails_under_the_act_answers_store_unavailable(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await quick_runtime(store, redis_url, key_prefix)
    writes: Writes = []
    answers = Answers()
    assert runtime.submit_now("a", EndPhase(), "lost", None, connection("a", "a", writes), answers)
    lean = store.append_connection
    assert lean is not None
    await lean.close()  # the connection goes with the command in flight
    answer = await answers.one()
    assert isinstance(answer, protocol.Rejected) and answer.code == "store_unavailable"
    assert [kinds(texts) for _, texts in writes] == [["rejected"]]
    assert not runtime.lock.locked()


async def test_an_act_that_ends_the_match_reveals_the_seed_before_it_is_done(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await quick_runtime(store, redis_url, key_prefix)
    writes: Writes = []
    answers = Answers()
    rules_pool.kind_costs.record("decide/concede", 0.0)  # known to be quick (it is: no geometry)
    assert runtime.submit_now("a", Concede(), "give-up", None, connection("a", "a", writes), answers)
    answer = await answers.one()
    assert answer == protocol.Ack(action_id="give-up", seq=3)
    assert runtime.state.ended and runtime.state.seed  # revealed (seq 4) before done was called
    assert runtime.state.seq == 4 and not runtime.lock.locked()


async def test_a_shot_stores_its_dice_and_the_hash_of_the_state_it_was_made_on(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    """An event carries the h3 hash of the state before it (match/hashing.py): the act does not
    wait for the hash of the state it makes, which the runtime works out once the patch is out
    and the next event carries."""
    runtime = await quick_runtime(store, redis_url, key_prefix)  # side a's shooting phase
    assert runtime.state.phase == "shooting"
    before = runtime.state
    shot = Shoot(unit="predator-1", fire=(Fire(weapon="lascannon", target="rhino-1"),))
    rules_pool.kind_costs.record(rules_pool.rules_kind("decide", shot), 0.0)
    answers = Answers()
    assert runtime.submit_now("a", shot, "shot", None, connection("a", "a", []), answers)
    assert await answers.one() == protocol.Ack(action_id="shot", seq=3)
    event = decode_event((await store.read(runtime.match_id, after=2))[0][1])
    assert event.rolls  # the lascannon's to-hit roll at least
    assert event.state_hash == base_hash(before) == "h3:" + state_hash(before)[3:]
    made = runtime.states.cached(3)  # (the shot may have ended the match: then the reveal is seq 4)
    assert made is not None
    next_act = EndPhase()
    rules_pool.kind_costs.record(rules_pool.rules_kind("decide", next_act), 0.0)
    if not made.ended:
        next_answers = Answers()
        assert runtime.submit_now("a", next_act, "next", None, connection("a", "a", []), next_answers)
        assert await next_answers.one() == protocol.Ack(action_id="next", seq=4)
    # The next event - the next act, or the seed's reveal if the shot ended the match - carries
    # the hash of the state the shot made.
    following = decode_event((await store.read(runtime.match_id, after=3))[0][1])
    assert following.state_hash == "h3:" + state_hash(made)[3:]


def calls(stats: dict[str, Any], command: str) -> int:
    found = stats.get(f"cmdstat_{command}")
    return 0 if found is None else int(found["calls"])


@contextlib.asynccontextmanager
async def private_duel(tmp_path: Path) -> AsyncIterator[tuple[RedisEventStore, MatchRuntime]]:
    """A duel's runtime on its own embedded Redis, as ``hulldown serve`` runs it (a private store:
    the runtime keeps the action ids), with ``end_phase`` known to be quick."""
    embedded = EmbeddedRedis(tmp_path / "data")
    embedded.start()
    try:
        async with RedisEventStore.from_url(embedded.url, prefix="private") as store:
            live = LiveService(store, embedded.url, prefix="private", snapshot_every=100, private_store=True)
            created = await live.create(duel())
            assert isinstance(created, CreatedMatch)
            runtime = await live.get(created.match_id)
            assert runtime is not None and runtime.action_ids == {"system:create": 1}
            rules_pool.kind_costs.forget("decide/end_phase")
            rules_pool.kind_costs.record("decide/end_phase", 0.0)  # known to be quick
            yield store, runtime
    finally:
        embedded.stop()


async def test_a_private_stores_runtime_appends_without_the_script(tmp_path: Path) -> None:
    """On the embedded Redis (one owner: nobody else appends) the runtime knows every action id of
    its match and checked the version itself, so a quick act is appended by one plain
    transaction; a retry of it goes the awaited way and is answered with its first seq."""
    async with private_duel(tmp_path) as (store, runtime):
        before = await store.client.info("commandstats")
        answers = Answers()
        assert runtime.submit_now("a", EndPhase(), "end", None, connection("a", "a", []), answers)
        assert await answers.one() == protocol.Ack(action_id="end", seq=2)
        after = await store.client.info("commandstats")
        assert calls(after, "exec") - calls(before, "exec") == 1
        assert calls(after, "evalsha") == calls(before, "evalsha")
        assert runtime.action_ids == {"system:create": 1, "a:end": 2}
        assert await store.action_ids(runtime.match_id) == {"system:create": 1, "a:end": 2}

        again = Answers()
        assert not runtime.submit_now("a", EndPhase(), "end", None, connection("a", "a", []), again)
        retried = await runtime.submit("a", EndPhase(), "end")
        assert retried == protocol.Ack(action_id="end", seq=2, duplicate=True)
        assert runtime.state.seq == 2 and again.got == []


async def test_a_private_stores_retry_after_a_lost_reply_gets_the_first_seq(tmp_path: Path) -> None:
    """docs/limits-and-outages.md: an act answered ``store_unavailable`` may have been appended;
    sent again with the same action id it is answered by its ack. Here Redis ran the append and
    its reply was lost: the runtime, still at the state before it, catches up before deciding
    the retry, which is then a duplicate - the stream holds the act once."""
    async with private_duel(tmp_path) as (store, runtime):
        writes: Writes = []
        a = connection("a", "a", writes)
        runtime.hub.add(a)
        lean = store.append_connection
        assert lean is not None and lean._protocol is not None

        first = Answers()
        assert runtime.submit_now("a", EndPhase(), "X", None, a, first)
        # The transaction is written; the connection fails before its reply is read (as when
        # the reply timeout drops it). Redis runs what it was sent all the same.
        lean._protocol.fail(RedisTimeoutError("no reply in time"))
        answer = await first.one()
        assert isinstance(answer, protocol.Rejected) and answer.code == "store_unavailable"
        # Redis runs the append it was sent; the read below goes on another connection, which
        # Redis may serve first: give it a moment (the test's subject is the retry).
        for _ in range(200):
            if len(await store.read(runtime.match_id)) == 2:
                break
            await asyncio.sleep(0.01)
        assert [seq for seq, _ in await store.read(runtime.match_id)] == [1, 2]
        assert runtime.state.seq == 1  # it does not know the act landed

        await lean.call(("PING",))  # the connection is open again
        retry = Answers()
        if not runtime.submit_now("a", EndPhase(), "X", None, a, retry):
            runtime.submit_later("a", EndPhase(), "X", None, a, retry)
        assert await retry.one() == protocol.Ack(action_id="X", seq=2, duplicate=True)
        stored = await store.read(runtime.match_id)
        assert [(seq, decode_event(p).action_id) for seq, p in stored] == [(1, "create"), (2, "X")]
        assert await store.action_ids(runtime.match_id) == {"system:create": 1, "a:X": 2}
        assert runtime.state.seq == 2 and runtime.action_ids == {"system:create": 1, "a:X": 2}
        assert [kinds(texts) for _, texts in writes] == [["rejected"], ["patch"], ["ack"]]

        # and the next act goes the quick way again, at the next seq
        after = Answers()
        assert runtime.submit_now("a", EndPhase(), "Y", None, a, after)
        assert await after.one() == protocol.Ack(action_id="Y", seq=3)
