"""A replay step folds and diffs its frames on the event loop, one at a time, giving the loop a
turn after each (web/replay_socket.py ``FRAMES_PER_TURN``): a step of 1,000 frames on a match at
the definition's limits held the loop ~950 ms in one go, every match of the process waiting.
Asserted on ordering: another task runs between two frames of one step."""

from __future__ import annotations

import asyncio

from hulldown.live.service import CreatedMatch, LiveService
from hulldown.match.actions import EndPhase
from hulldown.store.redis_store import RedisEventStore
from hulldown.web.access import Access
from hulldown.web.replay_socket import ReplaySession
from hulldown.wire import protocol
from tests.undo.live_helpers import with_reserve

STEPS = 4


class RecordingSocket:
    """What the session sends, in order, beside the other task's ticks; sending never waits
    (a client that reads quickly: uvicorn's send does not yield while the socket is writable)."""

    def __init__(self, order: list[str]) -> None:
        self.order = order

    async def send_text(self, text: str) -> None:
        self.order.append(text)


async def test_a_replay_step_gives_the_loop_a_turn_between_its_frames(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    live = LiveService(store, redis_url, prefix=key_prefix, snapshot_every=100)
    created = await live.create(with_reserve())
    assert isinstance(created, CreatedMatch)
    runtime = await live.get(created.match_id)
    assert runtime is not None
    for n in range(STEPS):
        assert isinstance(await runtime.submit("a" if n < 3 else "b", EndPhase(), f"end-{n}"), protocol.Ack)
    order: list[str] = []
    opened = protocol.ReplayOpen(token="", from_seq=1, mode="step")
    session = ReplaySession(RecordingSocket(order), live, runtime, Access("a"), opened, 1_000_000, 50)  # type: ignore[arg-type]
    await session.seek(1)
    order.clear()

    async def ticker() -> None:
        while True:
            order.append("tick")
            await asyncio.sleep(0)

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    order.clear()
    await session.step(STEPS)
    ticking.cancel()
    frames = [i for i, sent in enumerate(order) if sent != "tick"]
    assert len(frames) == STEPS  # seq 2..5, every frame asked for
    between = order[frames[0] : frames[-1] + 1]
    assert between.count("tick") >= STEPS - 1, order  # a turn for the loop after every frame
