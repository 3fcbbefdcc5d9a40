"""Runs the store contract suite on every backend available: the private embedded server
always, plus the Redis at REDIS_URL when that is set."""

from __future__ import annotations

import os

import pytest

from hulldown.store import EmbeddedRedis

BACKENDS = ["embedded"] + (["external"] if os.environ.get("REDIS_URL") else [])


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest) -> str:
    if request.param == "external":
        return os.environ["REDIS_URL"]
    server: EmbeddedRedis = request.getfixturevalue("embedded_redis")
    return server.url
