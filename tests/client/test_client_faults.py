"""hulldown.client against scripted fake servers (tests/client/fake_live.py), in the situations a
real server reaches only under faults (client-protocol/SPEC.md 6.1): the store unavailable at a
reconnect (retry, not a refusal), an action retried with its id while the first call waits
(every caller settles), ``rate_limited`` dropping acts and a resume (one coalesced re-send of
what may have been dropped, a bounded number of frames)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from websockets.asyncio.server import ServerConnection

from hulldown.client import Backoff, Client, ClientError
from hulldown.web.rate_limit import RateLimit
from hulldown.wire import protocol

from .fake_live import (
    SERVER_ERROR_CLOSE,
    STORE_UNAVAILABLE_CLOSE,
    WELCOME_SEQ,
    FakeLive,
    FakeMatch,
    error,
    fake_live,
    following,
    greet,
    patch,
    receive,
)

END = {"type": "end_phase"}
HANG_GUARD = 10.0  # seconds: a call the client should settle fails the test instead of hanging
SHORT_TIMEOUT = 0.3  # seconds: an act timeout meant to expire while the server holds the answer
SERVER_RATE = 50  # frames per second, burst twice that: the live socket's default (SPEC 6.1)
CONCURRENT_ACTS = 150  # more than the burst, so the limiter drops some of them
MAX_ACT_FRAMES = CONCURRENT_ACTS * 3 // 2  # each act once, the ~50 over the burst twice
Frames = list[protocol.ClientMessage]


def fast_backoff() -> Backoff:
    return Backoff(initial=0.02, maximum=0.2, rng=random.Random(7))


def rate_limited_errors(client: Client) -> int:
    return sum(1 for e in client.stats.errors if e.code == "rate_limited")


async def refuse_with_store_unavailable(websocket: ServerConnection, frames: Frames) -> None:
    await receive(websocket, frames)  # the hello
    await websocket.send(error("store_unavailable", fatal=True))
    await websocket.close(code=STORE_UNAVAILABLE_CLOSE)


# ---- store_unavailable: reconnect with backoff, do not give up ------------------------------


async def test_store_unavailable_at_a_reconnect_is_retried_and_the_pending_act_goes_through() -> None:
    """The connection drops before the act's answer; the first reconnect finds the store down
    (``store_unavailable``, close 1013); the next one resumes and the act is answered."""
    match = FakeMatch()

    async def script(number: int, websocket: ServerConnection, frames: Frames) -> None:
        if number == 2:
            await refuse_with_store_unavailable(websocket, frames)
            return
        if number == 1:
            await greet(websocket, frames)
        else:
            await receive(websocket, frames)  # hello {resume_from}: nothing was missed
        async for frame in following(websocket, frames):
            if isinstance(frame, protocol.Act) and number == 1:
                await websocket.close(code=SERVER_ERROR_CLOSE)  # lost before the answer
            elif isinstance(frame, protocol.Act):
                await match.answer(websocket, frame)

    async with fake_live(script) as fake:
        client = Client(fake.url, token="t", backoff=fast_backoff())
        await client.connect()
        answer = await client.act(END, action_id="through-the-outage", timeout=HANG_GUARD)
        assert isinstance(answer, protocol.Ack) and answer.seq == WELCOME_SEQ + 1
        assert client.failure is None and client.view.seq == WELCOME_SEQ + 1
        assert [e.code for e in client.stats.errors] == ["store_unavailable"]
        assert len(fake.connections) == 3 and client.stats.connections == 2  # live twice
        hellos = fake.frames(protocol.Hello)
        assert [hello.resume_from for hello in hellos] == [None, WELCOME_SEQ, WELCOME_SEQ]
        assert fake.acts_of("through-the-outage") == 2  # sent, lost, sent again
        await client.close()


async def test_connect_waits_out_a_store_outage() -> None:
    async def script(number: int, websocket: ServerConnection, frames: Frames) -> None:
        if number == 1:
            await refuse_with_store_unavailable(websocket, frames)
            return
        await greet(websocket, frames)
        async for _frame in following(websocket, frames):
            pass

    async with fake_live(script) as fake:
        client = Client(fake.url, token="t", backoff=fast_backoff())
        await client.connect()
        assert client.connected and client.failure is None
        assert client.view.seq == WELCOME_SEQ and len(fake.connections) == 2
        await client.close()


# ---- the same action_id while the first call waits: every caller settles --------------------


@asynccontextmanager
async def an_act_held_by_the_server() -> AsyncIterator[tuple[FakeLive, asyncio.Event, asyncio.Event]]:
    """A fake server that answers an act once the test sets ``release`` (set on the way out,
    whatever happened); ``seen`` is set when the act arrived."""
    release, seen = asyncio.Event(), asyncio.Event()
    match = FakeMatch()

    async def script(number: int, websocket: ServerConnection, frames: Frames) -> None:
        await greet(websocket, frames)
        async for frame in following(websocket, frames):
            if isinstance(frame, protocol.Act):
                seen.set()
                await release.wait()
                await match.answer(websocket, frame)

    async with fake_live(script) as fake:
        try:
            yield fake, release, seen
        finally:
            release.set()


async def test_a_retry_with_the_same_id_gets_the_answer_after_the_first_caller_timed_out() -> None:
    async with an_act_held_by_the_server() as (fake, release, seen):
        client = await Client.open(fake.url, token="t", backoff=fast_backoff())
        first = asyncio.create_task(client.act(END, action_id="X", timeout=SHORT_TIMEOUT))
        await seen.wait()
        retry = asyncio.create_task(client.act(END, action_id="X", timeout=HANG_GUARD))
        with pytest.raises(TimeoutError):
            await first
        release.set()
        done, _ = await asyncio.wait({retry}, timeout=HANG_GUARD)
        assert done == {retry}, "the retry was never answered"
        answer = retry.result()
        assert isinstance(answer, protocol.Ack) and answer.seq == WELCOME_SEQ + 1
        assert fake.acts_of("X") == 1  # the retry waited for the same answer, sent nothing
        await client.close()


async def test_a_retry_with_the_same_id_times_out_on_its_own_timeout() -> None:
    async with an_act_held_by_the_server() as (fake, release, seen):
        client = await Client.open(fake.url, token="t", backoff=fast_backoff())
        first = asyncio.create_task(client.act(END, action_id="X", timeout=HANG_GUARD))
        await seen.wait()
        retry = asyncio.create_task(client.act(END, action_id="X", timeout=SHORT_TIMEOUT))
        done, _ = await asyncio.wait({retry}, timeout=HANG_GUARD)
        assert done == {retry} and isinstance(retry.exception(), TimeoutError)
        release.set()
        answer = await first  # the first caller still gets the answer
        assert isinstance(answer, protocol.Ack) and answer.seq == WELCOME_SEQ + 1
        await client.close()


async def test_close_releases_a_retry_whose_first_caller_timed_out() -> None:
    async with an_act_held_by_the_server() as (fake, _release, seen):
        client = await Client.open(fake.url, token="t", backoff=fast_backoff())
        first = asyncio.create_task(client.act(END, action_id="X", timeout=SHORT_TIMEOUT))
        await seen.wait()
        retry = asyncio.create_task(client.act(END, action_id="X", timeout=HANG_GUARD))
        with pytest.raises(TimeoutError):
            await first
        await client.close()
        done, _ = await asyncio.wait({retry}, timeout=HANG_GUARD)
        assert done == {retry}, "close() left the retry waiting"
        assert isinstance(retry.exception(), ClientError) and "closed" in str(retry.exception())


# ---- rate_limited: one re-send of what may have been dropped, after a pause ------------------


async def test_rate_limited_resends_once_only_the_unanswered_acts_sent_before_it() -> None:
    """A is answered after the errors (its answer was in flight), B and C are dropped (two
    errors), D is sent after the errors: only B and C are sent again, once each."""
    match = FakeMatch()
    held: list[protocol.Act] = []

    async def script(number: int, websocket: ServerConnection, frames: Frames) -> None:
        await greet(websocket, frames)
        async for frame in following(websocket, frames):
            if not isinstance(frame, protocol.Act):
                continue
            first_delivery = fake.acts_of(frame.action_id) == 1
            if frame.action_id in ("A", "D") and first_delivery:
                held.append(frame)  # answered later
            elif frame.action_id in ("B", "C") and first_delivery:
                await websocket.send(error("rate_limited"))
                if frame.action_id == "C":
                    await match.answer(websocket, held.pop(0))  # A's answer, after the errors
            else:
                await match.answer(websocket, frame)
                if frame.action_id == "C":
                    await match.answer(websocket, held.pop(0))  # D

    async with fake_live(script) as fake:
        client = await Client.open(fake.url, token="t", backoff=fast_backoff())
        first_three = [asyncio.create_task(client.act(END, action_id=name)) for name in "ABC"]
        await client.wait_until(lambda: rate_limited_errors(client) == 2)
        late = asyncio.create_task(client.act(END, action_id="D"))
        done, _ = await asyncio.wait({*first_three, late}, timeout=HANG_GUARD)
        assert len(done) == 4
        assert all(isinstance(task.result(), protocol.Ack) for task in done)
        assert {name: fake.acts_of(name) for name in "ABCD"} == {"A": 1, "B": 2, "C": 2, "D": 1}
        assert client.stats.resent == 2
        await client.close()


async def test_rate_limited_acts_do_not_snowball_against_a_token_bucket() -> None:
    """150 acts at once against the server's token bucket (50 a second, burst 100): every act is
    appended once and the frames the server reads stay close to the number of acts."""
    match = FakeMatch()
    read = {"frames": 0}

    async def script(number: int, websocket: ServerConnection, frames: Frames) -> None:
        limiter = RateLimit(SERVER_RATE)
        await greet(websocket, frames)
        async for frame in following(websocket, frames):
            read["frames"] += 1
            if not limiter.allow():
                await websocket.send(error("rate_limited"))
            elif isinstance(frame, protocol.Act):
                await match.answer(websocket, frame)

    async with fake_live(script) as fake:
        client = await Client.open(fake.url, token="t", backoff=fast_backoff(), act_timeout=HANG_GUARD)
        answers = await asyncio.gather(*(client.act(END) for _ in range(CONCURRENT_ACTS)))
        assert all(isinstance(answer, protocol.Ack) for answer in answers)
        assert sorted(answer.seq for answer in answers) == list(
            range(WELCOME_SEQ + 1, WELCOME_SEQ + 1 + CONCURRENT_ACTS)
        )
        assert len(match.appended) == CONCURRENT_ACTS
        assert rate_limited_errors(client) > 0  # the limiter did drop acts
        act_frames = len(fake.frames(protocol.Act))
        assert act_frames <= MAX_ACT_FRAMES, f"{act_frames} act frames for {CONCURRENT_ACTS} acts"
        assert read["frames"] == act_frames + 1  # and the ping: no resume, nothing else
        await client.close()


async def test_a_resume_dropped_by_the_rate_limit_is_sent_again() -> None:
    """A gap (patch 7 without 6) sends ``resume {from_seq: 5}``; the server drops it with
    ``rate_limited`` and more patches come (still a gap); the resume is sent again and the
    view catches up."""
    resumes = 0

    async def script(number: int, websocket: ServerConnection, frames: Frames) -> None:
        nonlocal resumes
        await greet(websocket, frames)
        async for frame in following(websocket, frames):
            if isinstance(frame, protocol.Ping):
                await websocket.send(patch(WELCOME_SEQ + 2))  # WELCOME_SEQ + 1 was lost
            elif isinstance(frame, protocol.Resume):
                resumes += 1
                if resumes == 1:
                    await websocket.send(error("rate_limited"))
                    await websocket.send(patch(WELCOME_SEQ + 3))
                    continue
                for seq in range(frame.from_seq + 1, WELCOME_SEQ + 5):
                    await websocket.send(patch(seq))

    async with fake_live(script) as fake:
        client = await Client.open(fake.url, token="t", backoff=fast_backoff())
        await client.wait_seq(WELCOME_SEQ + 4, timeout=HANG_GUARD)
        assert client.view.get("log") == [6, 7, 8, 9]
        assert fake.frames(protocol.Resume) == [protocol.Resume(from_seq=WELCOME_SEQ)] * 2
        assert client.stats.resumes == 2 and rate_limited_errors(client) == 1
        await client.close()
