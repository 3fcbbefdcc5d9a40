"""A lean connection that closes at an awkward moment (store/lean_connection.py) fails its commands
with a ``ConnectionError`` at once - never leaves them unanswered, nor raises something else -
on asyncio's loop and on uvloop (what ``hulldown serve`` runs). Against a small fake Redis that
misbehaves on purpose (docs/limits-and-outages.md: "a closed connection fails its commands at
once and reconnects on the next one")."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import pytest
import uvloop
from redis.exceptions import ConnectionError as RedisConnectionError

from hulldown.store.lean_connection import LeanAddress, LeanConnection

WAIT_S = 5.0  # far above the reply timeout: a command still unanswered by then hangs
REPLY_TIMEOUT_S = 0.5
LOOPS: dict[str, Callable[[Coroutine[Any, Any, None]], None]] = {"asyncio": asyncio.run, "uvloop": uvloop.run}

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_until(reader: asyncio.StreamReader, marker: bytes) -> bool:
    data = b""
    while marker not in data:
        chunk = await reader.read(1024)
        if not chunk:
            return False
        data += chunk
    return True


async def _with_fake_redis(handler: Handler, check: Callable[[LeanConnection], Awaitable[None]]) -> None:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    lean = LeanConnection(
        LeanAddress(host="127.0.0.1", port=port), reply_timeout=REPLY_TIMEOUT_S, client_name="test-lean"
    )
    try:
        await check(lean)
    finally:
        await lean.close()
        server.close()


@pytest.mark.parametrize("loop", list(LOOPS))
def test_a_connection_closed_right_after_its_hand_shake_fails_the_command(loop: str) -> None:
    async def answer_then_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if await _read_until(reader, b"SETNAME"):
            writer.write(b"+OK\r\n")
            await writer.drain()
        writer.close()

    async def check(lean: LeanConnection) -> None:
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(lean.call(("PING",)), WAIT_S)
        assert not lean.connected

    LOOPS[loop](_with_fake_redis(answer_then_close, check))


@pytest.mark.parametrize("loop", list(LOOPS))
def test_close_during_the_hand_shake_fails_the_waiters_and_closes_the_socket(loop: str) -> None:
    async def run() -> None:
        eof = asyncio.Event()

        async def slow_hand_shake(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if await _read_until(reader, b"SETNAME"):
                await asyncio.sleep(0.2)
                writer.write(b"+OK\r\n")
                if await reader.read(1024) == b"":
                    eof.set()
            writer.close()

        async def check(lean: LeanConnection) -> None:
            waiter = asyncio.ensure_future(lean.call(("PING",)))
            await asyncio.sleep(0.05)  # the hand-shake is written, its reply not in yet
            await lean.close()
            with pytest.raises(RedisConnectionError):
                await asyncio.wait_for(waiter, WAIT_S)
            await asyncio.wait_for(eof.wait(), WAIT_S)  # the fake Redis saw the socket close

        await _with_fake_redis(slow_hand_shake, check)

    LOOPS[loop](run())


@pytest.mark.parametrize("loop", list(LOOPS))
def test_the_next_command_after_a_close_reconnects(loop: str) -> None:
    async def run() -> None:
        connections = 0

        async def close_the_first(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal connections
            connections += 1
            first = connections == 1
            if await _read_until(reader, b"SETNAME"):
                writer.write(b"+OK\r\n")
                await writer.drain()
                if not first:
                    while await _read_until(reader, b"PING"):
                        writer.write(b"+PONG\r\n")
                        await writer.drain()
            writer.close()

        async def check(lean: LeanConnection) -> None:
            with pytest.raises(RedisConnectionError):
                await asyncio.wait_for(lean.call(("PING",)), WAIT_S)
            assert await asyncio.wait_for(lean.call(("PING",)), WAIT_S) == b"PONG"
            assert lean.connected and connections == 2

        await _with_fake_redis(close_the_first, check)

    LOOPS[loop](run())
