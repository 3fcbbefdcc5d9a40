"""Tailing match streams on a Redis Cluster: one loop per primary node.

A single XREAD over many streams cannot work on a cluster: Redis refuses a command whose keys
lie in different slots (CROSSSLOT), and one match per slot is the norm. So here:

- **Wake-ups**: the append script SPUBLISHes the new seq on the match's shard channel
  ``<prefix>:{match}:tail`` (same hash tag, so same slot and node as the stream). Each node
  loop holds one sharded pub/sub connection to its primary, SSUBSCRIBEd to the channels of the
  matches whose slots that primary serves.
- **Reads** are explicit-id range reads (``XRANGE (0-<last seq delivered> + COUNT n``),
  pipelined on a data connection to the same primary, for the matches a message named, plus a
  sweep of every match of the node every ``sweep_ms`` (a message lost to a reconnect or a
  failover costs at most one sweep of latency, never an event). Positions only ever come
  from what was delivered, so after a failover or a reconnect each match resumes exactly
  after its last delivered seq: nothing skipped, nothing twice.
- **Topology**: a supervisor groups the followed matches by the primary that serves their slot
  (redis-py's slot map) and starts/retires node loops to match. The map is refreshed from the
  cluster when a loop fails (connection lost: a primary died, a replica is taking over), when a
  read answers ``MOVED`` (the slot was resharded) or when the server unsubscribes a channel
  (slot migrated away); a match whose read answers ``ASK`` (slot mid-migration) is read once
  through the cluster client, which follows the redirection.
- ``on_events(match_id, [(seq, payload), ...])`` is awaited in order per match and one call
  at a time overall (a process-wide lock), as with the single-node tailer (``store/tail.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
import uuid
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import (
    AskError,
    MovedError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
)

from .cluster_append import SYNC_TTL_MS, connected_replicas, send_pipelined
from .connect import make_cluster_client, parse_cluster_url
from .decode import as_str, stream_entries
from .keys import DEFAULT_PREFIX, Keys
from .tail import EventsCallback

log = logging.getLogger(__name__)

WAKE_POLL_S = 0.05  # how often an idle node loop checks for newly followed matches
DATA_SOCKET_TIMEOUT = 5.0  # seconds a node loop's read may take, beyond its WAIT's wait_ms

Command = tuple[str | int, ...]


class ClusterStreamTailer:
    """Follows match streams on a Redis Cluster; same interface as ``StreamTailer``."""

    def __init__(
        self,
        url: str,
        on_events: EventsCallback,
        *,
        prefix: str = DEFAULT_PREFIX,
        sweep_ms: int = 1000,
        count: int = 500,
        topology_check_s: float = 1.0,
        backoff_initial: float = 0.05,
        backoff_max: float = 1.0,
    ) -> None:
        if sweep_ms <= 0:
            raise ValueError("sweep_ms must be > 0")
        self._url = url
        parsed = parse_cluster_url(url)
        # What a plain client of one node needs from the cluster URL (the node loops connect to
        # each primary directly): its user and password, and TLS for rediss+cluster://.
        self.node_credentials: dict[str, Any] = {"ssl": parsed.tls}
        if parsed.username is not None:
            self.node_credentials["username"] = parsed.username
        if parsed.password is not None:
            self.node_credentials["password"] = parsed.password
        self.wait_replicas = parsed.wait_replicas
        self.wait_ms = parsed.wait_ms
        self._replicas: dict[str, int] = {}  # primary name -> replicas connected (last ROLE)
        self.unconfirmed = 0  # deliveries WAIT did not confirm in time (delivered anyway)
        self._on_events = on_events
        self.keys = Keys(prefix)
        self.sweep_s = sweep_ms / 1000.0
        self.count = count
        self._topology_check_s = topology_check_s
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self._token = uuid.uuid4().hex
        self._positions: dict[str, int] = {}
        self._loops: dict[str, _NodeLoop] = {}
        self._cluster: RedisCluster | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._regroup_now = asyncio.Event()
        self._refresh_wanted = False
        self._deliver_lock = asyncio.Lock()
        self.stopping = False
        self.refreshes = 0  # slot map refreshes (for tests and logs)

    # -- public ---------------------------------------------------------------------------

    @property
    def client_name(self) -> str:
        return f"hulldown-tail-{self._token}"

    @property
    def running(self) -> bool:
        return self._supervisor is not None and not self._supervisor.done()

    def following(self) -> dict[str, int]:
        return dict(self._positions)

    def position(self, match_id: str) -> int | None:
        return self._positions.get(match_id)

    def node_loops(self) -> dict[str, set[str]]:
        """Primary node name (host:port) -> the followed matches its loop reads."""
        return {name: set(loop.matches) for name, loop in self._loops.items() if not loop.retired}

    async def start(self) -> None:
        if self.running:
            return
        self.stopping = False
        self._cluster = make_cluster_client(self._url, max_connections=4, retries=1)
        await self._cluster.initialize()
        self._regroup()
        self._supervisor = asyncio.create_task(self._supervise(), name=f"hulldown-ctail-{self._token[:8]}")

    async def stop(self) -> None:
        self.stopping = True
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None:
            self._regroup_now.set()
            supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await supervisor
        loops, self._loops = list(self._loops.values()), {}
        for loop in loops:
            loop.retire()
        for loop in loops:
            await loop.join(self.sweep_s + 2.0)
        if self._cluster is not None:
            await self._cluster.aclose()
            self._cluster = None

    async def follow(self, match_id: str, after_seq: int = 0) -> bool:
        if after_seq < 0:
            raise ValueError("after_seq must be >= 0")
        if match_id in self._positions:
            return False
        self.keys.events(match_id)  # validates the id
        self._positions[match_id] = after_seq
        if self.running:
            self._regroup()
        return True

    async def unfollow(self, match_id: str) -> bool:
        if self._positions.pop(match_id, None) is None:
            return False
        for loop in self._loops.values():
            if match_id in loop.matches:
                loop.assign(loop.matches - {match_id})
        return True

    # -- topology -------------------------------------------------------------------------

    def request_refresh(self) -> None:
        """Refresh the slot map from the cluster soon, then regroup."""
        self._refresh_wanted = True
        self._regroup_now.set()

    async def _supervise(self) -> None:
        while not self.stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._regroup_now.wait(), self._topology_check_s)
            self._regroup_now.clear()
            if self.stopping:
                return
            try:
                if self._refresh_wanted:
                    self._refresh_wanted = False
                    await self._refresh()
                self._regroup()
            except Exception:
                log.exception("cluster tail: regrouping failed")
                await asyncio.sleep(self.backoff_initial)

    async def _refresh(self) -> None:
        cluster = self._cluster
        if cluster is None:
            return
        self.refreshes += 1
        try:
            await cluster.nodes_manager.initialize()
        except (RedisError, RedisClusterException, OSError) as exc:  # no node answers: retried
            log.info("cluster tail: slot map refresh failed (%r); retrying", exc)
            await asyncio.sleep(self.backoff_initial * (0.5 + random.random()))
            self._refresh_wanted = True
            self._regroup_now.set()

    def _regroup(self) -> None:
        """Give each followed match to the loop of the primary serving its slot (cached map)."""
        cluster = self._cluster
        if cluster is None:
            return
        wanted: dict[str, tuple[str, int, set[str]]] = {}
        for match_id in self._positions:
            key = self.keys.events(match_id)
            try:
                node = cluster.nodes_manager.get_node_from_slot(cluster.keyslot(key))
            except SlotNotCoveredError:
                self._refresh_wanted = True
                continue
            wanted.setdefault(node.name, (str(node.host), int(node.port), set()))[2].add(match_id)
        for name, (host, port, matches) in wanted.items():
            loop = self._loops.get(name)
            if loop is None or loop.retired:
                loop = _NodeLoop(self, host, port)
                self._loops[name] = loop
                loop.start()
            if loop.matches != matches:
                loop.assign(matches)
        for name in [name for name in self._loops if name not in wanted]:
            self._loops.pop(name).retire()

    # -- reading and delivering -----------------------------------------------------------

    def confirm_commands(self, node_name: str, match_id: str, *, asking: bool = False) -> list[Command]:
        """What, sent to a primary after a read of ``match_id`` there, makes it confirm that a
        replica has everything read: a write then ``WAIT`` (skipped for a primary without
        replicas), and ``ROLE`` to learn how many replicas it has (``note_confirmed``)."""
        wait = min(self.wait_replicas, self._replicas.get(node_name, self.wait_replicas))
        commands: list[Command] = []
        if wait > 0:
            if asking:
                commands.append(("ASKING",))
            commands.append(("SET", self.keys.tail_sync(match_id), "1", "PX", SYNC_TTL_MS))
            commands.append(("WAIT", wait, self.wait_ms))
        commands.append(("ROLE",))
        return commands

    def note_confirmed(self, node_name: str, replies: list[Any]) -> None:
        """Check the replies to ``confirm_commands``; raises the first error among them (the read
        is then not delivered: read again later)."""
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        connected = connected_replicas(replies[-1])
        if connected is not None:
            self._replicas[node_name] = connected
        waited = len(replies) >= 3  # SET, WAIT, ROLE (ASKING first when asking)
        if self.wait_replicas <= 0 or (waited and int(replies[-2]) >= self.wait_replicas):
            return
        self.unconfirmed += 1  # delivered all the same, as the append is acknowledged then too
        log.debug("cluster tail %s: a read not confirmed by %d replicas", node_name, self.wait_replicas)

    async def read_redirected(self, match_id: str, redirect: AskError) -> bool:
        """Read one match on the node a ``MOVED`` or ``ASK`` names, then confirm it there on the
        same connection (``confirm_commands``); True if more wait."""
        cluster = self._cluster
        position = self._positions.get(match_id)
        if cluster is None or position is None:
            return False
        node = cluster.get_node(host=redirect.host, port=redirect.port)
        if node is None:  # a node the slot map does not know yet: the next sweep tries again
            self.request_refresh()
            return False
        asking = not isinstance(redirect, MovedError)
        read: Command = ("XRANGE", self.keys.events(match_id), f"(0-{position}", "+", "COUNT", self.count)
        commands = [("ASKING",), read] if asking else [read]
        confirm = self.confirm_commands(node.name, match_id, asking=asking)
        connection = node.acquire_connection()
        try:
            replies = await send_pipelined(connection, [*commands, *confirm])
        finally:
            node.release(connection)
        entries = replies[len(commands) - 1]
        try:
            if isinstance(entries, Exception):
                raise entries
            self.note_confirmed(node.name, replies[len(commands) :])
        except ResponseError as exc:  # still moving (TRYAGAIN, MOVED again): the next sweep
            log.info("cluster tail: reading %s on %s: %r", match_id, node.name, exc)
            self.request_refresh()
            return False
        return await self.deliver(match_id, entries)

    async def deliver(self, match_id: str, entries: Any) -> bool:
        """Hand the events after the match's position to ``on_events``; True if the read was
        full (more may be waiting)."""
        full = len(entries or ()) >= self.count
        async with self._deliver_lock:
            position = self._positions.get(match_id)
            if position is None:
                return False  # unfollowed while the read was in flight
            try:
                batch = [(seq, payload) for seq, payload in stream_entries(entries) if seq > position]
            except (KeyError, TypeError, ValueError):
                log.exception("cluster tail: undecodable entry in %s; unfollowing it", match_id)
                await self.unfollow(match_id)
                return False
            if not batch:
                return full
            self._positions[match_id] = batch[-1][0]
            try:
                await self._on_events(match_id, batch)
            except Exception:
                log.exception(
                    "cluster tail: on_events failed for %s (seq %d..%d)", match_id, batch[0][0], batch[-1][0]
                )
        return full


class _NodeLoop:
    """The loop of one primary: a sharded pub/sub connection for wake-ups, a data connection
    for range reads, over the matches assigned to it."""

    def __init__(self, owner: ClusterStreamTailer, host: str, port: int) -> None:
        self.owner = owner
        self.host = host
        self.port = port
        self.matches: set[str] = set()
        self.retired = False
        self._dirty: set[str] = set()
        self._task: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"hulldown-ctail-{self.name}")

    def assign(self, matches: set[str]) -> None:
        self._dirty |= matches - self.matches
        self.matches = set(matches)

    def retire(self) -> None:
        self.retired = True

    async def join(self, timeout: float) -> None:
        task = self._task
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def _live(self) -> bool:
        return not self.retired and not self.owner.stopping

    async def _run(self) -> None:
        delay = self.owner.backoff_initial
        while self._live():
            started = time.monotonic()
            try:
                await self._session()
            except (RedisError, OSError) as exc:
                if not self._live():
                    return
                log.warning(
                    "cluster tail %s: %r; refreshing the slot map, retrying in %.2fs", self.name, exc, delay
                )
                self.owner.request_refresh()
                await asyncio.sleep(delay * (0.5 + random.random() / 2))
                delay = delay * 2 if time.monotonic() - started < 5.0 else self.owner.backoff_initial
                delay = min(delay, self.owner.backoff_max)
            except Exception:
                log.exception("cluster tail %s: unexpected error", self.name)
                await asyncio.sleep(self.owner.backoff_max)

    async def _session(self) -> None:
        owner = self.owner
        client = Redis(
            host=self.host,
            port=self.port,
            socket_timeout=DATA_SOCKET_TIMEOUT + owner.wait_ms / 1000.0,  # WAIT waits up to wait_ms
            socket_connect_timeout=2.0,
            max_connections=2,
            client_name=owner.client_name,
            retry=Retry(NoBackoff(), 0),  # no silent reconnect: it would resubscribe CROSSSLOT
            **owner.node_credentials,  # the URL's user, password and TLS, as every node needs
        )
        pubsub = client.pubsub()
        subscribed: dict[str, str] = {}  # channel -> match id
        ours_unsubscribed: set[str] = set()
        try:
            next_sweep = 0.0  # sweep everything at once: this session may follow a failure
            while self._live():
                wanted = {owner.keys.tail_channel(m): m for m in self.matches}
                for channel in [c for c in subscribed if c not in wanted]:
                    ours_unsubscribed.add(channel)
                    del subscribed[channel]
                    await pubsub.sunsubscribe(channel)
                for channel, match_id in wanted.items():
                    if channel not in subscribed:
                        await pubsub.ssubscribe(channel)  # one slot per command: never CROSSSLOT
                        subscribed[channel] = match_id
                        self._dirty.add(match_id)  # events before the subscription took effect
                self._dirty &= self.matches  # a match moved to another loop is not ours to read
                now = time.monotonic()
                if now >= next_sweep:
                    targets = set(self.matches)
                    next_sweep = now + owner.sweep_s
                else:
                    targets = self._dirty & self.matches
                self._dirty -= targets
                if targets:
                    self._dirty |= await self._read(client, targets)
                if self._dirty:
                    continue
                await self._wait(pubsub, subscribed, ours_unsubscribed, next_sweep)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()

    async def _wait(
        self, pubsub: PubSub, subscribed: dict[str, str], ours_unsubscribed: set[str], until: float
    ) -> None:
        """Collect wake-ups until one names a match, the loop's matches change or ``until``."""
        assigned = set(self.matches)
        while self._live() and self.matches == assigned and not self._dirty:
            left = until - time.monotonic()
            if left <= 0:
                return
            if not subscribed:
                await asyncio.sleep(min(WAKE_POLL_S, left))
                continue
            message = await pubsub.get_message(timeout=min(WAKE_POLL_S, left))
            while message is not None:
                kind = as_str(message.get("type", b""))
                channel = as_str(message.get("channel", b""))
                if kind == "smessage":
                    match_id = subscribed.get(channel)
                    if match_id is not None:
                        self._dirty.add(match_id)
                elif kind == "sunsubscribe":
                    if channel in ours_unsubscribed:
                        ours_unsubscribed.discard(channel)
                    else:  # the server dropped it: its slot moved to another node
                        subscribed.pop(channel, None)
                        self.owner.request_refresh()
                message = await pubsub.get_message(timeout=0)

    async def _read(self, client: Redis, targets: set[str]) -> set[str]:
        """Range-read ``targets`` from their explicit positions; the ones with more to read."""
        owner = self.owner
        order = [m for m in targets if owner.position(m) is not None]
        if not order:
            return set()
        async with client.pipeline(transaction=False) as pipe:
            for match_id in order:
                pipe.xrange(
                    owner.keys.events(match_id), f"(0-{owner.position(match_id)}", "+", count=owner.count
                )
            replies = await pipe.execute(raise_on_error=False)
        fresh = next(
            (m for m, reply in zip(order, replies, strict=True) if isinstance(reply, list) and reply), None
        )
        if fresh is not None:
            await self._confirm(client, fresh)
        more: set[str] = set()
        for match_id, reply in zip(order, replies, strict=True):
            if isinstance(reply, AskError):
                if isinstance(reply, MovedError):
                    owner.request_refresh()  # resharded: the supervisor moves it to its new node
                if await owner.read_redirected(match_id, reply):  # moved, or mid-migration (ASK)
                    more.add(match_id)
            elif isinstance(reply, Exception):
                raise reply
            elif await owner.deliver(match_id, reply):
                more.add(match_id)
        return more

    async def _confirm(self, client: Redis, match_id: str) -> None:
        """Wait until a replica has what was just read from this primary (``confirm_commands``;
        ``match_id``, one of the matches read, names a key of a slot this primary serves)."""
        async with client.pipeline(transaction=False) as pipe:
            for command in self.owner.confirm_commands(self.name, match_id):
                pipe.execute_command(*command)
            replies = await pipe.execute(raise_on_error=False)
        self.owner.note_confirmed(self.name, replies)
