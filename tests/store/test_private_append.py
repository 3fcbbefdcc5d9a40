"""A private store's append (store/pending_append.py ``PrivateAppend``): the runtime that is its
stream's only writer checked the version and the action id itself, so the event and its action
id go in one plain transaction - ``MULTI``, ``XADD 0-<seq>``, ``HSETNX``, ``EXEC`` - without the
append script. ``XADD``'s own rule still refuses a seq that is taken: that is a ``conflict``, and
the action id written beside it is taken out again - but one recorded before stays."""

from __future__ import annotations

import pytest

from hulldown.store import RedisEventStore
from hulldown.store.pending_append import PrivateAppend
from hulldown.store.results import AppendResult


def lean_store(store: RedisEventStore) -> RedisEventStore:
    if store.append_connection is None:
        pytest.skip("this backend has no lean append connection")
    return store


async def test_an_event_and_its_action_id_go_in_together(store: RedisEventStore) -> None:
    store = lean_store(store)
    assert (await store.append("m", b"one", expect=0, action_id="first")).seq == 1
    pending = store.append_private_now("m", b"two", 2, "second")
    assert isinstance(pending, PrivateAppend)
    assert pending.settled_now() is None  # the reply is not in yet
    assert await pending.finish() == AppendResult("appended", 2)
    assert pending.settled_now() == AppendResult("appended", 2)
    assert [p for _, p in await store.read("m")] == [b"one", b"two"]
    assert await store.action_ids("m") == {"first": 1, "second": 2}
    # The append script, used after it, sees both: the version and the action id.
    assert (await store.append("m", b"again", expect=2, action_id="second")).status == "duplicate"
    assert (await store.append("m", b"three", expect=2, action_id="third")).seq == 3


async def test_a_taken_seq_is_a_conflict_and_leaves_no_action_id(store: RedisEventStore) -> None:
    store = lean_store(store)
    for seq in (1, 2):
        assert (await store.append("m", b"x", expect=seq - 1, action_id=f"a{seq}")).seq == seq
    pending = store.append_private_now("m", b"late", 2, "late")  # seq 2 is taken
    assert pending is not None
    assert await pending.finish() == AppendResult("conflict", 1)
    assert pending.settled_now() is None  # not an ordinary result: finish() settles it
    assert [p for _, p in await store.read("m")] == [b"x", b"x"]
    assert await store.action_ids("m") == {"a1": 1, "a2": 2}


async def test_a_conflict_keeps_the_action_id_of_the_append_that_landed(store: RedisEventStore) -> None:
    """A retry of an append whose reply was lost, decided on the state before it: its seq is
    taken (by the append itself), and the action id keeps the seq it landed at."""
    store = lean_store(store)
    assert (await store.append("m", b"x", expect=0, action_id="x")).seq == 1
    pending = store.append_private_now("m", b"x again", 1, "x")
    assert pending is not None
    assert await pending.finish() == AppendResult("conflict", 0)
    assert [p for _, p in await store.read("m")] == [b"x"]
    assert await store.action_ids("m") == {"x": 1}
    assert (await store.append("m", b"x again", expect=1, action_id="x")) == AppendResult("duplicate", 1)


async def test_nothing_is_written_without_an_open_connection(store: RedisEventStore) -> None:
    store = lean_store(store)
    lean = store.append_connection
    assert lean is not None
    await lean.close()
    assert store.append_private_now("m", b"x", 1, "a1") is None
    assert store.append_now("m", b"x", 0, "a1") is None
    assert await store.read("m") == []
