"""uvicorn serving an app on the test's own event loop, on a real port, for the tests that look
inside the server while clients talk to it over real sockets."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn

STOP_WAIT_S = 10.0  # a server that has not stopped by then fails the test


@asynccontextmanager
async def serving(
    config: uvicorn.Config, sockets: list[socket.socket] | None = None
) -> AsyncIterator[uvicorn.Server]:
    """``config`` served (on ``sockets`` when given) from the moment it listens until the block
    ends; a server that fails to start raises its error here."""
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=sockets))
    while not server.started:
        if task.done():
            task.result()  # its failure, if it raised one
            raise AssertionError("uvicorn stopped before it started serving")
        await asyncio.sleep(0.02)
    try:
        yield server
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, STOP_WAIT_S)


def bound_port(server: uvicorn.Server) -> int:
    """The port ``server`` listens on (it was configured with port 0, or given a socket)."""
    port: int = server.servers[0].sockets[0].getsockname()[1]
    return port
