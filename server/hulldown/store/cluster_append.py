"""Running a store script on a Redis Cluster with a replica acknowledgement (``WAIT``).

Replication in Redis is asynchronous: a primary answers a write before its replica has it, so
a primary killed right after answering takes that write with it when its replica is promoted.
An append is acknowledged to a player only after ``WAIT <replicas> <ms>`` confirms that many
replicas received it. ``WAIT`` counts the writes of *its own connection*, so the script and
the ``WAIT`` are sent back to back on one connection to the slot's primary (redis-py's cluster
client would pick any pooled connection for each command).

Redirections and failures, handled here because this bypasses redis-py's cluster routing:

- ``MOVED`` (slot served elsewhere) and connection errors/timeouts (a primary died): refresh the
  slot map and retry, with backoff, for up to ``retry_for`` seconds (a replica takes over in
  about twice the cluster's node timeout). Retrying is safe: the append script answers a retry
  of a landed append with ``duplicate`` (action id) or ``conflict`` (version), never a second
  event.
- ``ASK`` (the slot is being migrated and the keys are already on the target): ``ASKING`` then
  the script on the target node; a target the slot map does not know yet (a node just added)
  is waited for with the backoff, within ``retry_for``. A second ``MOVED`` in a row waits too.
- ``TRYAGAIN`` / ``CLUSTERDOWN``: retry after the backoff.
- ``NOSCRIPT``: the script is sent in full (``EVAL``) on the same connection.

Each call also sends ``ROLE`` on the same connection and remembers how many replicas the primary
has connected: a primary without a connected replica (a cluster without replicas, or a
promoted replica whose old primary is gone) gets no ``WAIT`` - it could only time out - and is
counted as unconfirmed.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.exceptions import (
    AskError,
    ClusterDownError,
    MovedError,
    NoScriptError,
    RedisClusterException,
    RedisError,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

DEFAULT_RETRY_FOR = 20.0
SYNC_TTL_MS = 60_000  # a reader's sync key (written only for its WAIT) expires


# The pause between two tries: doubling from BACKOFF_FIRST to BACKOFF_MAX seconds, jittered.
BACKOFF_FIRST = 0.05
BACKOFF_MAX = 1.0


class _Backoff:
    def __init__(self) -> None:
        self.delay = BACKOFF_FIRST

    async def pause(self) -> None:
        await asyncio.sleep(self.delay * (0.5 + random.random() / 2))
        self.delay = min(self.delay * 2, BACKOFF_MAX)


@dataclass(frozen=True, slots=True)
class AckedReply:
    """The script's reply and how many replicas confirmed the write (None: not asked)."""

    reply: Any
    replicas_acked: int | None


class ClusterScriptRunner:
    """Runs one Lua script (``sha`` / ``source``) on the primary of its keys' slot, then WAIT."""

    def __init__(
        self,
        cluster: RedisCluster,
        *,
        wait_replicas: int,
        wait_ms: int,
        retry_for: float = DEFAULT_RETRY_FOR,
    ) -> None:
        self.cluster = cluster
        self.wait_replicas = wait_replicas
        self.wait_ms = wait_ms
        self.retry_for = retry_for
        self.unconfirmed = 0  # writes WAIT did not confirm in time (logged, still acknowledged)
        self._replicas: dict[str, int] = {}  # primary name -> replicas connected (last ROLE)
        self._warned: set[str] = set()  # primaries already reported as having no replica

    async def run(self, sha: str, source: str, keys: Sequence[str], args: Sequence[Any]) -> AckedReply:
        """Run the script on the primary of ``keys[0]``, then WAIT there."""

        async def attempt(node: ClusterNode, asking: bool) -> AckedReply:
            return await self._run_on(node, sha, source, keys, args, asking=asking)

        return await self._retrying(keys[0], "append to", attempt)

    async def read(self, key: str, sync_key: str, command: Sequence[Any]) -> AckedReply:
        """Run the read ``command`` of ``key`` on its primary, then write ``sync_key`` (a key of the
        same slot) and WAIT, on the same connection: the write comes after the read, so a replica
        that has it has everything read. A reader thereby sees only what an append would have
        been acknowledged for (a primary without replicas gets no WAIT, as for appends)."""

        async def attempt(node: ClusterNode, asking: bool) -> AckedReply:
            return await self._read_on(node, sync_key, command, asking=asking)

        return await self._retrying(key, "read of", attempt)

    async def _retrying(
        self, key: str, what: str, attempt: Callable[[ClusterNode, bool], Awaitable[AckedReply]]
    ) -> AckedReply:
        try:
            await self.cluster.initialize()  # a no-op once the slot map is loaded
        except RedisClusterException as exc:  # no node answers (not a RedisError in redis-py)
            raise RedisConnectionError(f"cluster {what} {key}: {exc}") from exc
        deadline = time.monotonic() + self.retry_for
        backoff = _Backoff()
        asking_node: ClusterNode | None = None
        redirected = False  # the last try was redirected (MOVED): the next one waits first
        while True:
            try:
                node: ClusterNode | None = asking_node
                asking = node is not None
                if node is None:
                    node = self.cluster.get_node_from_key(key)
                if node is None:
                    raise SlotNotCoveredError(f"no node serves {key}")
                result = await attempt(node, asking)
                self._check_confirmed(node, f"{what} {key}", result)
                return result
            except AskError as exc:
                if isinstance(exc, MovedError):
                    # The slot moved: the map is refreshed and the primary tried at once; moved
                    # again (the map not settled yet), the next try waits.
                    asking_node = None
                    if redirected:
                        await backoff.pause()
                    redirected = True
                    await self._refresh()
                else:
                    asking_node = self.cluster.get_node(host=exc.host, port=exc.port)
                    if asking_node is None:
                        # A node the slot map does not know yet (one just added, still without
                        # slots): wait for the map rather than ask the old owner again at once.
                        await backoff.pause()
                        await self._refresh()
            except (
                RedisConnectionError,
                RedisTimeoutError,
                ConnectionError,
                TimeoutError,
                TryAgainError,
                ClusterDownError,
                SlotNotCoveredError,
            ) as exc:
                asking_node = None
                if time.monotonic() >= deadline:
                    raise
                log.info("cluster %s %s: %r; refreshing the slot map, retrying soon", what, key, exc)
                await backoff.pause()
                await self._refresh()
            if time.monotonic() >= deadline:
                raise RedisConnectionError(f"cluster {what} {key}: gave up after {self.retry_for:.0f}s")

    async def _refresh(self) -> None:
        try:
            await self.cluster.nodes_manager.initialize()
        except (RedisError, RedisClusterException, OSError) as exc:  # no node answers: retried
            log.info("cluster append: slot map refresh failed: %r", exc)

    async def _run_on(
        self,
        node: ClusterNode,
        sha: str,
        source: str,
        keys: Sequence[str],
        args: Sequence[Any],
        *,
        asking: bool,
    ) -> AckedReply:
        # How many replicas to wait for: the primary's connected replicas as its last ROLE
        # reply said (unknown at first: assume the configured number).
        wait = min(self.wait_replicas, self._replicas.get(node.name, self.wait_replicas))
        connection = node.acquire_connection()
        try:
            commands: list[tuple[Any, ...]] = []
            if asking:
                commands.append(("ASKING",))
            script_at = len(commands)
            commands.append(("EVALSHA", sha, len(keys), *keys, *args))
            if wait > 0:
                commands.append(("WAIT", wait, self.wait_ms))
            commands.append(("ROLE",))
            replies = await send_pipelined(connection, commands)
            if isinstance(replies[script_at], NoScriptError):
                commands[script_at] = ("EVAL", source, len(keys), *keys, *args)
                replies = await send_pipelined(connection, commands)
            self._note_role(node, replies[-1])
            script_reply = replies[script_at]
            if isinstance(script_reply, Exception):
                raise script_reply
            acked = replies[script_at + 1] if wait > 0 else None
            if isinstance(acked, Exception):
                raise acked
            return AckedReply(script_reply, None if acked is None else int(acked))
        finally:
            node.release(connection)

    async def _read_on(
        self, node: ClusterNode, sync_key: str, command: Sequence[Any], *, asking: bool
    ) -> AckedReply:
        wait = min(self.wait_replicas, self._replicas.get(node.name, self.wait_replicas))
        commands: list[tuple[Any, ...]] = [("ASKING",), tuple(command)] if asking else [tuple(command)]
        if wait > 0:
            if asking:
                commands.append(("ASKING",))
            commands.append(("SET", sync_key, "1", "PX", SYNC_TTL_MS))
            commands.append(("WAIT", wait, self.wait_ms))
        commands.append(("ROLE",))
        connection = node.acquire_connection()
        try:
            replies = await send_pipelined(connection, commands)
        finally:
            node.release(connection)
        self._note_role(node, replies[-1])
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        read = replies[1 if asking else 0]
        return AckedReply(read, int(replies[-2]) if wait > 0 else None)

    def _check_confirmed(self, node: ClusterNode, what: str, result: AckedReply) -> None:
        if self.wait_replicas <= 0 or (result.replicas_acked or 0) >= self.wait_replicas:
            self._warned.discard(node.name)
            return
        self.unconfirmed += 1
        if result.replicas_acked is not None:
            log.warning(
                "%s confirmed by %d of %d replicas within %d ms (docs/scaling.md)",
                what,
                result.replicas_acked,
                self.wait_replicas,
                self.wait_ms,
            )
        elif node.name not in self._warned:
            self._warned.add(node.name)
            log.warning("primary %s has no replica connected: its appends are not replicated", node.name)

    def _note_role(self, node: ClusterNode, role: Any) -> None:
        """Remember how many replicas the primary has connected (ROLE: master, offset, replicas)."""
        connected = connected_replicas(role)
        if connected is not None:
            self._replicas[node.name] = connected


def connected_replicas(role: Any) -> int | None:
    """How many replicas a primary's ROLE reply (master, offset, replicas) lists; None when the
    node is not a primary."""
    if isinstance(role, list) and len(role) >= 3 and role[0] in (b"master", "master"):
        return len(role[2] or [])
    return None


async def send_pipelined(connection: Any, commands: list[tuple[Any, ...]]) -> list[Any]:
    """Send ``commands`` pipelined on one connection; error replies come back as values so
    the connection stays in step. A connection error disconnects it and propagates."""
    try:
        await connection.send_packed_command(connection.pack_commands(commands), check_health=False)
        replies: list[Any] = []
        for _ in commands:
            try:
                replies.append(await connection.read_response())
            except ResponseError as exc:
                replies.append(exc)
        return replies
    except BaseException:
        await connection.disconnect()
        raise
