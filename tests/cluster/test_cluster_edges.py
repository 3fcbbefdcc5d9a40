"""Cluster edges the shared test cluster does not show, each on small clusters of its own (Debian's
redis-server on loopback ports, docs/scaling.md):

- a password-protected cluster: the tailer's node loops connect with the URL's credentials and
  deliver what is appended;
- a slot migrating to a node just added (without slots: the slot map does not know it): the
  appender's ASK is waited for within ``retry_for``, then given up as a store error - not asked
  again of the old owner in a loop that never ends;
- a cluster that no node answers: the append fails with a store error (``RedisError``), which the
  server answers as ``store_unavailable``, and succeeds once the node is back."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.cluster import key_slot
from redis.exceptions import RedisError

from hulldown.store import RedisEventStore
from hulldown.store.cluster_tail import ClusterStreamTailer
from hulldown.store.embedded import _pdeathsig_preexec

from ..redis_cluster import cluster_binaries, free_cluster_port

pytestmark = pytest.mark.cluster

PASSWORD = "sekret"
WAIT_S = 20.0


class Node:
    def __init__(self, directory: Path, *extra: str) -> None:
        self.port = free_cluster_port()
        self.directory = directory
        self.extra = extra
        self.password = PASSWORD if "--requirepass" in extra else None
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binaries = cluster_binaries()
        assert binaries is not None, "redis-server and redis-cli are needed"
        self.directory.mkdir(parents=True, exist_ok=True)
        args = [
            binaries[0],
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(self.directory / "nodes.conf"),
            "--dir", str(self.directory),
            "--save", "",
            "--appendonly", "no",
            *self.extra,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_pdeathsig_preexec(),
        )
        deadline = time.monotonic() + WAIT_S
        while True:
            with contextlib.suppress(redis.RedisError, OSError), self.client() as client:
                if client.ping():
                    return
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, password=self.password, socket_timeout=2.0)

    def command(self, *args: object) -> Any:
        with self.client() as client:
            return client.execute_command(*args)

    def node_id(self) -> str:
        found = self.command("CLUSTER", "MYID")
        return found.decode() if isinstance(found, bytes) else str(found)


@pytest.fixture
def nodes(tmp_path: Path) -> Iterator[Callable[..., Node]]:
    started: list[Node] = []

    def start(*extra: str) -> Node:
        node = Node(tmp_path / f"node-{len(started)}", *extra)
        node.start()
        started.append(node)
        return node

    try:
        yield start
    finally:
        for node in started:
            node.stop()


def _serve_every_slot(node: Node) -> None:
    node.command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
    deadline = time.monotonic() + WAIT_S
    while b"cluster_state:ok" not in node.command("CLUSTER", "INFO"):
        assert time.monotonic() < deadline, "the cluster did not come up"
        time.sleep(0.05)


async def test_the_tailer_reads_a_password_protected_cluster(
    nodes: Callable[..., Node], key_prefix: str
) -> None:
    node = nodes("--requirepass", PASSWORD, "--masterauth", PASSWORD)
    _serve_every_slot(node)
    url = f"redis+cluster://:{PASSWORD}@127.0.0.1:{node.port}?wait_replicas=0"
    store = RedisEventStore.from_url(url, prefix=key_prefix)
    seen: list[int] = []

    async def collect(match_id: str, batch: list[tuple[int, bytes]]) -> None:
        seen.extend(seq for seq, _ in batch)

    tailer = ClusterStreamTailer(url, collect, prefix=key_prefix)
    try:
        await tailer.follow("m1")
        await tailer.start()
        assert (await store.append("m1", b"x", expect=0, action_id="a1")).seq == 1
        deadline = time.monotonic() + WAIT_S
        while seen != [1]:
            assert time.monotonic() < deadline, f"not delivered: {seen}"
            await asyncio.sleep(0.02)
    finally:
        await tailer.stop()
        await store.aclose()


async def test_an_ask_to_a_node_the_map_does_not_know_gives_up_within_retry_for(
    nodes: Callable[..., Node], key_prefix: str
) -> None:
    owner, newcomer = nodes(), nodes()
    _serve_every_slot(owner)
    owner.command("CLUSTER", "MEET", "127.0.0.1", newcomer.port)
    deadline = time.monotonic() + WAIT_S
    while newcomer.node_id() not in str(owner.command("CLUSTER", "NODES")) or owner.node_id() not in str(
        newcomer.command("CLUSTER", "NODES")
    ):
        assert time.monotonic() < deadline, "the nodes did not meet"
        await asyncio.sleep(0.05)
    store = RedisEventStore.from_url(
        f"redis+cluster://127.0.0.1:{owner.port}?wait_replicas=0", prefix=key_prefix
    )
    try:
        slot = key_slot(store.keys.events("m1").encode())
        # The slot starts moving to the newcomer, which serves no slot yet: the owner answers
        # ASK for keys it does not hold (every key of a new match).
        newcomer.command("CLUSTER", "SETSLOT", slot, "IMPORTING", owner.node_id())
        owner.command("CLUSTER", "SETSLOT", slot, "MIGRATING", newcomer.node_id())
        runner = store.cluster
        assert runner is not None
        runner.retry_for = 1.0
        started = time.monotonic()
        with pytest.raises(RedisError):
            await asyncio.wait_for(store.append("m1", b"x", expect=0, action_id="a1"), WAIT_S)
        assert time.monotonic() - started < WAIT_S / 2
    finally:
        await store.aclose()


async def test_an_unreachable_cluster_is_a_store_error_then_appends_again(
    nodes: Callable[..., Node], key_prefix: str
) -> None:
    node = nodes()
    _serve_every_slot(node)
    store = RedisEventStore.from_url(
        f"redis+cluster://127.0.0.1:{node.port}?wait_replicas=0", prefix=key_prefix
    )
    try:
        assert (await store.append("m1", b"x", expect=0, action_id="a1")).seq == 1
        runner = store.cluster
        assert runner is not None
        runner.retry_for = 1.0
        node.stop()
        with pytest.raises(RedisError):  # what the server answers store_unavailable
            await asyncio.wait_for(store.append("m1", b"y", expect=1, action_id="a2"), WAIT_S)
        node.start()  # the same directory: its nodes.conf keeps the slots (no data: AOF off)
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                result = await store.append("m1", b"y", expect=0, action_id="a2")
                break
            except RedisError:
                assert time.monotonic() < deadline, "no append once the node was back"
                await asyncio.sleep(0.1)
        assert result.status == "appended"
    finally:
        await store.aclose()
