"""Key scheme and client construction."""

from __future__ import annotations

import re

import pytest
from redis.asyncio.cluster import RedisCluster

from hulldown.store import Keys, make_client, validate_match_id
from hulldown.store.connect import (
    DEFAULT_SOCKET_TIMEOUT,
    DEFAULT_WAIT_MS,
    is_cluster_url,
    make_cluster_client,
    make_store_client,
    parse_cluster_url,
)


def test_every_key_of_a_match_shares_the_hash_tag() -> None:
    keys = Keys()
    assert keys.events("m1") == "hulldown:{m1}:events"
    assert keys.dedupe("m1") == "hulldown:{m1}:dedupe"
    assert keys.meta("m1") == "hulldown:{m1}:meta"
    assert keys.snaps("m1") == "hulldown:{m1}:snaps"
    assert keys.snapidx("m1") == "hulldown:{m1}:snapidx"
    assert keys.tail_channel("m1") == "hulldown:{m1}:tail"
    assert keys.matches() == "hulldown:matches"
    assert Keys("hdtest-1").events("m1") == "hdtest-1:{m1}:events"


@pytest.mark.parametrize("bad", ["", "a{b", "a}b", "a b", "a\nb", "x" * 201])
def test_bad_match_ids(bad: str) -> None:
    with pytest.raises(ValueError):
        validate_match_id(bad)


def test_bad_prefix() -> None:
    with pytest.raises(ValueError):
        Keys("has space")


@pytest.mark.parametrize("url", ["redis://localhost:1/0", "rediss://localhost:1/0", "unix:///tmp/x.sock"])
async def test_make_client_schemes(url: str) -> None:
    client = make_client(url, max_connections=3, socket_timeout=1.5)
    try:
        kwargs = client.connection_pool.connection_kwargs
        assert kwargs["socket_timeout"] == 1.5
        assert kwargs["decode_responses"] is False
        assert client.connection_pool.max_connections == 3
    finally:
        await client.aclose()


def test_make_client_rejects_other_schemes() -> None:
    with pytest.raises(ValueError):
        make_client("http://localhost:6379")


def test_cluster_url_forms() -> None:
    parsed = parse_cluster_url(
        "redis+cluster://u%40x:p%3Aw@10.0.0.1:7000, node-2:7001?wait_replicas=2&wait_ms=50"
    )
    assert parsed.nodes == (("10.0.0.1", 7000), ("node-2", 7001))
    assert (parsed.username, parsed.password, parsed.tls) == ("u@x", "p:w", False)
    assert (parsed.wait_replicas, parsed.wait_ms) == (2, 50)
    defaults = parse_cluster_url("rediss+cluster://h:1")
    assert defaults.tls and defaults.wait_replicas == 1 and defaults.wait_ms == 500
    assert is_cluster_url("redis+cluster://h:1") and not is_cluster_url("redis://h:1")


@pytest.mark.parametrize(
    ("url", "names"),
    [
        ("redis+cluster://h", "'h': expected host:port"),
        ("redis+cluster://h:1,:2", "':2': expected host:port"),
        ("redis+cluster://h:99999", "port 1-65535"),
        ("redis+cluster://h:1/3", "only database 0"),
        ("redis+cluster://h:1?wait=1", "allowed are ['wait_ms', 'wait_replicas']"),
        ("redis+cluster://h:1?wait_ms=-1", "wait_ms='-1': expected an integer >= 0"),
        ("redis://h:1", "use redis+cluster://"),
    ],
)
def test_bad_cluster_urls_say_what_is_wrong(url: str, names: str) -> None:
    with pytest.raises(ValueError, match=re.escape(names)):
        parse_cluster_url(url)


async def test_store_client_for_a_cluster_url_is_a_cluster_client() -> None:
    client = make_store_client("redis+cluster://127.0.0.1:1,127.0.0.1:2", max_connections=3)
    try:
        assert isinstance(client, RedisCluster)
        assert [n.port for n in client.nodes_manager.startup_nodes.values()] == [1, 2]
    finally:
        await client.aclose()


def test_a_cluster_socket_waits_beyond_the_wait_of_its_commands() -> None:
    """docs/store.md, Redis Cluster: appends and reads end with WAIT, up to ``wait_ms``; a socket
    timeout shorter than that timed a lagging replica's append out (then retried: duplicate)."""
    default = make_cluster_client("redis+cluster://127.0.0.1:7000")
    assert default.connection_kwargs["socket_timeout"] == DEFAULT_SOCKET_TIMEOUT + DEFAULT_WAIT_MS / 1000
    slow = make_cluster_client("redis+cluster://127.0.0.1:7000?wait_ms=5000", socket_timeout=1.0)
    assert slow.connection_kwargs["socket_timeout"] == 6.0
    unbounded = make_cluster_client("redis+cluster://127.0.0.1:7000?wait_ms=5000", socket_timeout=None)
    assert unbounded.connection_kwargs["socket_timeout"] is None
