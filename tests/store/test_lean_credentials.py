"""The append's lean connection (store/lean_connection.py) opens with the URL's credentials and
database, as the redis-py client beside it does: ``AUTH <password>``, ``AUTH <user> <password>``
(an ACL user), ``SELECT <db>``. Against a private redis-server that requires a password (the one
the embedded store runs), on loopback TCP and on a unix socket. Appended events land in the
URL's database and are read back; a wrong password fails the append as a store error, at once."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from redis.exceptions import RedisError

from hulldown.store import RedisEventStore
from hulldown.store.embedded import _pdeathsig_preexec, find_redis_server
from tests.server_process import free_port

PASSWORD = "first-sekret"
USER, USER_PASSWORD = "hulldown", "second-sekret"
DB = 3
WAIT_S = 20.0


@dataclass
class Guarded:
    port: int
    socket: Path

    def client(self, db: int = 0) -> redis.Redis:
        return redis.Redis(port=self.port, password=PASSWORD, db=db, socket_timeout=2.0)


@pytest.fixture
def guarded(tmp_path: Path) -> Iterator[Guarded]:
    """A redis-server on a loopback port and a unix socket, with a password and an ACL user."""
    port, sock = free_port(), tmp_path / "redis.sock"
    args = [
        find_redis_server(),
        "--port", str(port),
        "--bind", "127.0.0.1",
        "--unixsocket", str(sock),
        "--dir", str(tmp_path),
        "--save", "",
        "--appendonly", "no",
        "--requirepass", PASSWORD,
    ]  # fmt: skip
    process = subprocess.Popen(
        args,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=_pdeathsig_preexec(),
    )
    try:
        served = Guarded(port, sock)
        deadline = time.monotonic() + WAIT_S
        while True:
            with contextlib.suppress(RedisError, OSError), served.client() as client:
                if client.ping():
                    break
            assert process.poll() is None, "redis-server exited"
            assert time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        with served.client() as client:
            client.execute_command("ACL", "SETUSER", USER, "on", f">{USER_PASSWORD}", "~*", "&*", "+@all")
        yield served
    finally:
        process.kill()
        process.wait(10)


def urls(served: Guarded) -> dict[str, str]:
    return {
        "password": f"redis://:{PASSWORD}@127.0.0.1:{served.port}/{DB}",
        "acl-user": f"redis://{USER}:{USER_PASSWORD}@127.0.0.1:{served.port}/{DB}",
        "unix-socket": f"unix://:{PASSWORD}@{served.socket}?db={DB}",
    }


@pytest.mark.parametrize("kind", ["password", "acl-user", "unix-socket"])
async def test_appends_go_through_the_lean_connection_with_the_urls_credentials(
    guarded: Guarded, kind: str, key_prefix: str
) -> None:
    store = RedisEventStore.from_url(urls(guarded)[kind], prefix=key_prefix)
    try:
        lean = store.append_connection
        assert lean is not None  # a plain URL: appends take the lean connection
        for seq in (1, 2):
            result = await store.append("m1", f"event {seq}".encode(), expect=seq - 1, action_id=f"a{seq}")
            assert (result.status, result.seq) == ("appended", seq)
        assert lean.connects == 1  # one connection, opened once, took both appends
        assert [payload for _, payload in await store.read("m1", after=0)] == [b"event 1", b"event 2"]
        events = store.keys.events("m1")
    finally:
        await store.aclose()
    # In the URL's database, not the default one.
    with guarded.client(DB) as in_db, guarded.client(0) as default:
        assert in_db.xlen(events) == 2
        assert default.dbsize() == 0


async def test_a_wrong_password_fails_the_append_as_a_store_error_at_once(
    guarded: Guarded, key_prefix: str
) -> None:
    store = RedisEventStore.from_url(f"redis://:wrong@127.0.0.1:{guarded.port}/{DB}", prefix=key_prefix)
    try:
        started = time.monotonic()
        with pytest.raises(RedisError):
            await asyncio.wait_for(store.append("m1", b"event", expect=0, action_id="a1"), WAIT_S)
        assert time.monotonic() - started < 5.0  # refused by the hand-shake, not a timeout
    finally:
        await store.aclose()
    with guarded.client(DB) as in_db:
        assert in_db.dbsize() == 0  # nothing written
