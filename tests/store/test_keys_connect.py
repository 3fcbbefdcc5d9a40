"""Key scheme and client construction."""

from __future__ import annotations

import pytest

from hulldown.store import Keys, make_client, validate_match_id


def test_every_key_of_a_match_shares_the_hash_tag() -> None:
    keys = Keys()
    assert keys.events("m1") == "hulldown:{m1}:events"
    assert keys.dedupe("m1") == "hulldown:{m1}:dedupe"
    assert keys.meta("m1") == "hulldown:{m1}:meta"
    assert keys.snaps("m1") == "hulldown:{m1}:snaps"
    assert keys.snapidx("m1") == "hulldown:{m1}:snapidx"
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
