"""A local Redis Cluster for tests and benchmarks: N primaries with one replica each.

Every node is Debian's ``redis-server --cluster-enabled yes`` on a free loopback port with its
own directory under ``base_dir``; ``redis-cli --cluster create ... --cluster-replicas 1`` joins
them. Everything listens on 127.0.0.1 only. ``kill_primary_of(key)`` SIGKILLs the primary that
owns a key's slot (for failover tests) and ``wait_failover`` polls CLUSTER NODES/CLUSTER INFO
until a replica has taken over and every slot is served again.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

import redis
from redis.cluster import key_slot

from hulldown.store.embedded import _pdeathsig_preexec

# The shared test cluster uses a node timeout long enough that a node starved of CPU on a
# loaded machine is not failed over by mistake; failover tests use a short one of their own.
NODE_TIMEOUT_MS = 5000
FAILOVER_NODE_TIMEOUT_MS = 2000


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_cluster_port() -> int:
    """A free loopback port whose cluster bus port (port + 10000) is free too."""
    for _ in range(200):
        port = random.randint(20000, 45000)
        if _bindable(port) and _bindable(port + 10000):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def cluster_binaries() -> tuple[str, str] | None:
    """(redis-server, redis-cli) on PATH, or None when either is missing."""
    server, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if server is None or cli is None:
        return None
    return server, cli


@dataclass
class Node:
    port: int
    directory: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def client(self, timeout: float = 2.0) -> redis.Redis:
        return redis.Redis(
            host="127.0.0.1", port=self.port, socket_timeout=timeout, socket_connect_timeout=timeout
        )

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


@dataclass
class LocalCluster:
    base_dir: Path
    primaries: int = 3
    replicas_per_primary: int = 1
    node_timeout_ms: int = NODE_TIMEOUT_MS
    nodes: list[Node] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The ``redis+cluster://`` URL naming every node as a startup node."""
        return "redis+cluster://" + ",".join(node.address for node in self.nodes)

    def start(self, timeout: float = 60.0) -> None:
        binaries = cluster_binaries()
        if binaries is None:
            raise RuntimeError(
                "redis-server and redis-cli are needed (apt-get install redis-server redis-tools)"
            )
        server, cli = binaries
        count = self.primaries * (1 + self.replicas_per_primary)
        for index in range(count):
            directory = self.base_dir / f"node-{index}"
            directory.mkdir(parents=True, exist_ok=True)
            node = Node(port=free_cluster_port(), directory=directory)
            self.nodes.append(node)
            self._spawn(server, node)
        deadline = time.monotonic() + timeout
        for node in self.nodes:
            self._wait_ping(node, deadline)
        create = [cli, "--cluster", "create", *(n.address for n in self.nodes)]
        create += ["--cluster-replicas", str(self.replicas_per_primary), "--cluster-yes"]
        subprocess.run(
            create,
            check=True,
            capture_output=True,
            timeout=max(5.0, deadline - time.monotonic()),
        )
        self.wait_healthy(deadline - time.monotonic())
        self.wait_replicas_linked(deadline - time.monotonic())

    def wait_replicas_linked(self, timeout: float = 30.0) -> None:
        """Poll until every primary reports its replicas connected and in sync (ROLE)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            linked = 0
            for node in self.live_nodes():
                with contextlib.suppress(redis.RedisError, OSError), node.client() as client:
                    role = client.execute_command("ROLE")
                    if role[0] in (b"master", "master") and len(role[2]) >= self.replicas_per_primary:
                        linked += 1
            if linked >= self.primaries:
                return
            time.sleep(0.1)
        raise TimeoutError("the replicas did not connect to their primaries in time")

    def start_or_stop(self, timeout: float = 60.0) -> None:
        """``start()``, stopping whatever was started when it fails."""
        try:
            self.start(timeout)
        except BaseException:
            self.stop()
            raise

    def _spawn(self, server: str, node: Node) -> None:
        args = [
            server,
            "--port", str(node.port),
            "--bind", "127.0.0.1",
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(node.directory / "nodes.conf"),
            "--cluster-node-timeout", str(self.node_timeout_ms),
            "--cluster-replica-validity-factor", "0",  # a replica may always take over
            "--dir", str(node.directory),
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(node.directory / "redis.log"),
        ]  # fmt: skip
        node.process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_pdeathsig_preexec(),  # a killed test run takes its nodes with it
        )

    @staticmethod
    def _wait_ping(node: Node, deadline: float) -> None:
        while time.monotonic() < deadline:
            if node.process is not None and node.process.poll() is not None:
                log = (node.directory / "redis.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"redis-server on {node.address} exited: {log}")
            with contextlib.suppress(redis.RedisError, OSError), node.client(0.5) as client:
                if client.ping():
                    return
            time.sleep(0.05)
        raise TimeoutError(f"redis-server on {node.address} did not answer PING")

    def stop(self) -> None:
        for node in self.nodes:
            if node.process is not None and node.process.poll() is None:
                node.process.terminate()
        for node in self.nodes:
            if node.process is not None:
                try:
                    node.process.wait(10)
                except subprocess.TimeoutExpired:
                    node.process.kill()
                    node.process.wait(5)

    def __enter__(self) -> Self:
        self.start_or_stop()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- topology -------------------------------------------------------------------------

    def live_nodes(self) -> list[Node]:
        return [node for node in self.nodes if node.alive]

    def _cluster_nodes(self) -> list[dict[str, object]]:
        """CLUSTER NODES as seen by one live node: address, flags, slot ranges."""
        for node in self.live_nodes():
            try:
                with node.client() as client:
                    parsed = client.cluster("NODES")
            except (redis.RedisError, OSError):
                continue
            return [
                {
                    "address": address,
                    "flags": str(row["flags"]),
                    "slots": [tuple(map(int, r)) for r in row["slots"]],
                }
                for address, row in parsed.items()
            ]
        raise RuntimeError("no cluster node answers")

    def primary_of(self, key: str) -> Node:
        """The live node that currently serves ``key``'s slot as a primary."""
        slot = key_slot(key.encode())
        for row in self._cluster_nodes():
            if "master" not in row["flags"] or "fail" in row["flags"]:
                continue
            for bounds in row["slots"]:  # type: ignore[attr-defined]
                if bounds[0] <= slot <= bounds[-1]:
                    return next(n for n in self.nodes if n.address == row["address"])
        raise LookupError(f"no primary serves slot {slot}")

    def primary_of_slot_owner(self, node: Node) -> bool:
        """True if ``node`` is a primary serving at least one slot."""
        return any(
            row["address"] == node.address and "master" in str(row["flags"]) and row["slots"]
            for row in self._cluster_nodes()
        )

    def kill(self, node: Node) -> None:
        """SIGKILL: the node gets no chance to flush or hand over anything."""
        assert node.process is not None
        node.process.send_signal(signal.SIGKILL)
        node.process.wait(10)

    def wait_healthy(self, timeout: float = 30.0, *, not_primary: Node | None = None) -> None:
        """Poll until every live node reports ``cluster_state:ok`` with all slots assigned and,
        when ``not_primary`` is given, that node no longer serves any slot (a replica took over)."""
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            try:
                states = []
                for node in self.live_nodes():
                    with node.client() as client:
                        info = client.cluster("INFO")
                    states.append(
                        str(info.get("cluster_state")) == "ok"
                        and int(info.get("cluster_slots_ok", 0)) == 16384
                    )
                taken_over = True
                if not_primary is not None:
                    rows = self._cluster_nodes()
                    taken_over = not any(
                        row["address"] == not_primary.address and "master" in row["flags"] and row["slots"]
                        for row in rows
                    )
                if states and all(states) and taken_over:
                    return
                last = f"states={states} taken_over={taken_over}"
            except (redis.RedisError, OSError) as exc:
                last = repr(exc)
            time.sleep(0.1)
        raise TimeoutError(f"the cluster did not become healthy in {timeout:.0f}s ({last})")

    # -- resharding -----------------------------------------------------------------------

    def node_id(self, node: Node) -> str:
        with node.client() as client:
            raw = client.execute_command("CLUSTER MYID")
        return raw.decode() if isinstance(raw, bytes) else str(raw)

    def begin_migration(self, slot: int, source: Node, target: Node) -> None:
        """Mark ``slot`` IMPORTING on the target and MIGRATING on the source (clients asking the
        source for a key already moved get ASK)."""
        with target.client() as client:
            client.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", self.node_id(source))
        with source.client() as client:
            client.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", self.node_id(target))

    def move_keys(self, slot: int, source: Node, target: Node) -> int:
        """MIGRATE every key of ``slot`` from the source to the target; how many moved."""
        moved = 0
        with source.client(timeout=10.0) as client:
            while True:
                keys = client.execute_command("CLUSTER GETKEYSINSLOT", slot, 100)
                if not keys:
                    return moved
                client.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 5000, "KEYS", *keys)
                moved += len(keys)

    def finish_migration(self, slot: int, target: Node) -> None:
        """Assign ``slot`` to the target on every primary (the cluster then answers MOVED)."""
        target_id = self.node_id(target)
        for node in self.live_nodes():
            with node.client() as client:
                role = client.execute_command("ROLE")
                if role[0] in (b"master", "master"):
                    client.execute_command("CLUSTER SETSLOT", slot, "NODE", target_id)
