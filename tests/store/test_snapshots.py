"""Contract: snapshots and catch-up."""

from __future__ import annotations

import pytest

from hulldown.store import RedisEventStore, should_snapshot


def test_should_snapshot() -> None:
    assert [s for s in range(0, 31) if should_snapshot(s, 10)] == [10, 20, 30]
    assert not any(should_snapshot(s, 0) for s in range(50))
    assert should_snapshot(1, 1)


async def test_no_snapshot(store: RedisEventStore) -> None:
    assert await store.load_snapshot("m") is None
    await store.save_snapshot("m", 5, b"s5")
    assert await store.load_snapshot("m", at_or_before=4) is None


async def test_latest_at_or_before(store: RedisEventStore) -> None:
    for seq in (10, 20, 30):
        await store.save_snapshot("m", seq, f"s{seq}".encode())
    assert await store.load_snapshot("m") == (30, b"s30")
    assert await store.load_snapshot("m", at_or_before=29) == (20, b"s20")
    assert await store.load_snapshot("m", at_or_before=20) == (20, b"s20")
    assert await store.load_snapshot("m", at_or_before=10) == (10, b"s10")
    await store.save_snapshot("m", 20, b"s20-again")
    assert await store.load_snapshot("m", at_or_before=25) == (20, b"s20-again")
    with pytest.raises(ValueError):
        await store.save_snapshot("m", 0, b"nope")


async def test_snapshot_plus_catch_up_reconstructs_history(store: RedisEventStore) -> None:
    """A toy fold: the state is the list of payloads so far, encoded with b"|"."""
    every = 7
    history: list[bytes] = []
    for seq in range(1, 31):
        payload = f"e{seq}".encode()
        assert (await store.append("m", payload, expect=seq - 1)).status == "appended"
        history.append(payload)
        if should_snapshot(seq, every):
            await store.save_snapshot("m", seq, b"|".join(history))

    for target in (3, 7, 8, 20, 21, 30):
        loaded = await store.load_snapshot("m", at_or_before=target)
        base_seq, state = (0, []) if loaded is None else (loaded[0], loaded[1].split(b"|"))
        assert base_seq <= target
        assert base_seq == (target // every) * every
        tail = await store.read("m", after=base_seq, until=target)
        assert [seq for seq, _ in tail] == list(range(base_seq + 1, target + 1))
        assert state + [p for _, p in tail] == history[:target]
