"""The player who acted is served first, its patch and its ack in one write
(live/hub.py ``Hub.broadcast``, docs/architecture.md section 6).

A recording outlet stands in for the socket (each ``send`` call is one write), so what is
checked is the writes themselves: the actor's first write carries the patch and then the ack,
before any other connection is written to; everyone else gets the patch alone; an answer that is
not an append (a rejection, a retried act's duplicate ack) is written on its own."""

from __future__ import annotations

import json
from collections.abc import Callable

from hulldown.live import metrics
from hulldown.live.hub import Audience, Connection, Hub
from hulldown.live.outgoing import Outgoing
from hulldown.match.actions import EndPhase, Shoot
from hulldown.store.redis_store import RedisEventStore
from hulldown.wire import protocol
from tests.live.runtimes import duel_runtime

Writes = list[tuple[str, tuple[str, ...]]]  # (connection name, the messages of one write)


class RecordingOutlet:
    """Takes every write at once (never pushes back unless told to) and records it."""

    def __init__(self, name: str, writes: Writes, push_back: bool = False) -> None:
        self.name = name
        self.writes = writes
        self.push_back = push_back
        self.closed = False
        self.aborted = False
        self.drained: Callable[[], None] = lambda: None

    def express(self) -> None:
        return None  # every write goes through send, where it is recorded

    def attach(self, drained: Callable[[], None]) -> None:
        self.drained = drained

    def detach(self) -> None:
        self.drained = lambda: None

    def send(self, message: Outgoing, then: Outgoing | None = None) -> bool:
        texts = (message.text,) if then is None else (message.text, then.text)
        self.writes.append((self.name, texts))
        return not self.push_back

    def abort(self) -> None:
        self.aborted = self.closed = True


def connection(name: str, audience: Audience, writes: Writes, push_back: bool = False) -> Connection:
    return Connection(RecordingOutlet(name, writes, push_back), audience, 16, lambda: "resync")


def kinds(texts: tuple[str, ...]) -> list[str]:
    return [json.loads(text)["type"] for text in texts]


def test_the_actor_gets_patch_and_answer_in_one_write_before_everyone() -> None:
    writes: Writes = []
    hub = Hub()
    a, b = connection("a", "a", writes), connection("b", "b", writes)
    watchers = [connection(f"s{i}", "spectator", writes) for i in range(3)]
    for c in (a, b, *watchers):
        hub.add(c)
    hub.broadcast('{"type":"patch","seq":2}', answer=(b, Outgoing('{"type":"ack","seq":2}')))
    assert writes[0] == ("b", ('{"type":"patch","seq":2}', '{"type":"ack","seq":2}'))
    assert [name for name, _ in writes] == ["b", "a", "s0", "s1", "s2"]
    assert all(texts == ('{"type":"patch","seq":2}',) for _, texts in writes[1:])


def test_an_actor_whose_socket_pushed_back_queues_the_patch_then_the_ack() -> None:
    writes: Writes = []
    hub = Hub()
    a = connection("a", "a", writes, push_back=True)
    hub.add(a)
    a.push('{"type":"pong"}')  # pushed back: what follows waits in the queue
    hub.broadcast('{"type":"patch","seq":2}', answer=(a, Outgoing('{"type":"ack","seq":2}')))
    assert writes == [("a", ('{"type":"pong"}',))]
    assert [m.text for m in a.pending] == ['{"type":"patch","seq":2}', '{"type":"ack","seq":2}']


async def test_submit_with_the_actors_connection_answers_it_with_the_patch(
    store: RedisEventStore, redis_url: str, key_prefix: str
) -> None:
    runtime = await duel_runtime(store, redis_url, key_prefix)
    writes: Writes = []
    a, b = connection("a", "a", writes), connection("b", "b", writes)
    watcher = connection("s", "spectator", writes)
    for c in (a, b, watcher):
        runtime.hub.add(c)

    answer = await runtime.submit("a", EndPhase(), "end-1", answer=a)
    assert isinstance(answer, protocol.Ack) and answer.seq == 2
    assert [(name, kinds(texts)) for name, texts in writes] == [
        ("a", ["patch", "ack"]),
        ("b", ["patch"]),
        ("s", ["patch"]),
    ]
    assert json.loads(writes[0][1][1]) == json.loads(protocol.encode(answer))

    writes.clear()  # a retry of the same act: the duplicate ack, alone
    again = await runtime.submit("a", EndPhase(), "end-1", answer=a)
    assert isinstance(again, protocol.Ack) and again.duplicate and again.seq == 2
    assert [(name, kinds(texts)) for name, texts in writes] == [("a", ["ack"])]

    writes.clear()  # side b acting out of turn: the rejection, alone, nothing broadcast
    shot = Shoot(unit="rhino-1", fire=())
    refused = await runtime.submit("b", shot, "out-of-turn", answer=b)
    assert isinstance(refused, protocol.Rejected)
    assert [(name, kinds(texts)) for name, texts in writes] == [("b", ["rejected"])]
    assert runtime.state.seq == 2


def test_an_overflow_replaces_the_patches_and_keeps_the_answers() -> None:
    """client-protocol/SPEC.md: every act gets exactly one answer, and a pong comes in order with
    every other frame - a queue that overflows drops its patches for a resync, never an answer."""
    writes: Writes = []
    outlet = RecordingOutlet("a", writes, push_back=True)
    a = Connection(outlet, "a", 3, lambda: '{"type":"resync"}')
    hub = Hub()
    hub.add(a)
    a.push('{"type":"pong","nonce":"1"}')  # pushed back: what follows is queued
    hub.broadcast('{"type":"patch","seq":2}', answer=(a, Outgoing('{"type":"ack","seq":2}')))
    a.push('{"type":"pong","nonce":"2"}')  # the queue is full now: patch, ack, pong
    hub.broadcast('{"type":"patch","seq":3}')  # overflows: the patches give way to a resync
    hub.broadcast('{"type":"patch","seq":4}')  # the resync's view has it: dropped
    assert a.resyncs == 1 and a.resync_due
    assert [m.text for m in a.pending] == ['{"type":"ack","seq":2}', '{"type":"pong","nonce":"2"}']
    outlet.push_back = False
    outlet.drained()
    sent = [text for name, texts in writes[1:] for text in texts]
    assert sent == ['{"type":"resync"}', '{"type":"ack","seq":2}', '{"type":"pong","nonce":"2"}']
    assert not outlet.aborted


def test_a_socket_whose_own_answers_fill_the_queue_is_closed() -> None:
    """A client that sent the queue's worth of messages without reading one answer does not read:
    its socket is aborted rather than an answer dropped."""
    writes: Writes = []
    outlet = RecordingOutlet("s", writes, push_back=True)
    s = Connection(outlet, "spectator", 3, lambda: '{"type":"resync"}')
    for k in range(4):  # the first write pushed back; three pongs wait
        s.push(f'{{"type":"pong","nonce":"{k}"}}')
    assert not outlet.aborted and len(s.pending) == 3
    resyncs = metrics.RESYNCS.labels(reason="overflow")._value.get()
    overflows = metrics.QUEUE_OVERFLOWS._value.get()
    s.push('{"type":"pong","nonce":"4"}')
    assert outlet.aborted and s.closed and not s.pending
    assert metrics.QUEUE_OVERFLOWS._value.get() == overflows + 1
    assert metrics.RESYNCS.labels(reason="overflow")._value.get() == resyncs  # none was sent
