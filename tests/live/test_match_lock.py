"""The match lock (live/match_lock.py): ``async with`` like ``asyncio.Lock``, plus a synchronous
``try_acquire`` for the act path that starts from a socket's callback. A released lock passes
straight to the first waiter, so a synchronous taker never overtakes one that waits."""

from __future__ import annotations

import asyncio

import pytest

from hulldown.live.match_lock import MatchLock


async def test_try_acquire_takes_a_free_lock_and_only_a_free_one() -> None:
    lock = MatchLock()
    assert lock.try_acquire()
    assert lock.locked()
    assert not lock.try_acquire()
    lock.release()
    assert not lock.locked()
    assert lock.try_acquire()


async def test_a_release_hands_the_lock_to_the_waiters_in_order() -> None:
    lock = MatchLock()
    assert lock.try_acquire()
    order: list[str] = []

    async def waiter(name: str) -> None:
        async with lock:
            order.append(name)
            await asyncio.sleep(0)

    tasks = [asyncio.create_task(waiter(name)) for name in ("first", "second")]
    await asyncio.sleep(0)  # both wait now
    lock.release()
    # Handed to "first" at once: the lock stays held, a synchronous taker cannot slip in.
    assert lock.locked()
    assert not lock.try_acquire()
    await asyncio.gather(*tasks)
    assert order == ["first", "second"]
    assert not lock.locked()


def waiting(lock: MatchLock, got: list[str], *names: str) -> list[asyncio.Task[None]]:
    """A task per name that takes ``lock`` and, holding it, appends its name to ``got``."""

    async def waiter(name: str) -> None:
        async with lock:
            got.append(name)

    return [asyncio.create_task(waiter(name)) for name in names]


async def test_a_cancelled_waiter_is_skipped() -> None:
    lock = MatchLock()
    assert lock.try_acquire()
    got: list[str] = []
    gone, kept = waiting(lock, got, "gone", "kept")
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    lock.release()
    await kept
    assert got == ["kept"]
    assert gone.cancelled()
    assert not lock.locked()


async def test_a_waiter_cancelled_as_it_is_handed_the_lock_passes_it_on() -> None:
    lock = MatchLock()
    assert lock.try_acquire()
    got: list[str] = []
    first, second = waiting(lock, got, "first", "second")
    await asyncio.sleep(0)
    lock.release()  # handed to "first", which has not run yet...
    first.cancel()  # ...and is cancelled before it does
    await second
    assert got == ["second"]
    with pytest.raises(asyncio.CancelledError):
        await first
    assert not lock.locked()


async def test_releasing_a_free_lock_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        MatchLock().release()
