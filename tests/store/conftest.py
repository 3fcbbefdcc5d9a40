"""Runs the store contract suite on every backend available: the private embedded server
always, a local Redis Cluster (3 primaries, 3 replicas; marked ``cluster``), plus the Redis at
REDIS_URL when that is set."""

from __future__ import annotations

import os

import pytest

from hulldown.store import EmbeddedRedis

from ..redis_cluster import LocalCluster

BACKENDS = [
    "embedded",
    pytest.param("cluster", marks=pytest.mark.cluster),
    *(["external"] if os.environ.get("REDIS_URL") else []),
]


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest) -> str:
    if request.param == "external":
        return os.environ["REDIS_URL"]
    if request.param == "cluster":
        cluster: LocalCluster = request.getfixturevalue("redis_cluster")
        return cluster.url
    server: EmbeddedRedis = request.getfixturevalue("embedded_redis")
    return server.url
