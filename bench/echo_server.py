"""A websocket echo server in a process of its own, for the floors of ``bench/latency.py``.

    python bench/echo_server.py {websockets|starlette}

Prints ``PORT <n>`` on stdout once it listens on 127.0.0.1, then echoes every text message back on
the socket it came from until stdin closes. ``websockets`` is the websockets library's own
server; ``starlette`` is a Starlette websocket route served by uvicorn (the stack ``hulldown
serve`` runs on, without hulldown's protocol class). Both run on uvloop where it is installed, as
``hulldown serve`` does.

A round trip to this process is what any server pays at the least for a message from a client
process and an answer to it: two processes, each woken in turn. The echo ``latency.py`` also
runs inside its own process has no second process to wake, so it is lower than any server can
reach; both are reported.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import event_loops

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.uvicorn_in_process import bound_port, serving


async def _websockets_echo(ready: asyncio.Future[int]) -> None:
    import websockets

    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    async with websockets.serve(echo, "127.0.0.1", 0) as server:
        ready.set_result(next(iter(server.sockets)).getsockname()[1])
        await _until_stdin_closes()


async def _starlette_echo(ready: asyncio.Future[int]) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            return

    app = Starlette(routes=[WebSocketRoute("/", echo)])
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    async with serving(config) as server:
        ready.set_result(bound_port(server))
        await _until_stdin_closes()


async def _until_stdin_closes() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


async def main(kind: str) -> None:
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    serve = _websockets_echo if kind == "websockets" else _starlette_echo
    serving = asyncio.ensure_future(serve(ready))
    await asyncio.wait([ready, serving], return_when=asyncio.FIRST_COMPLETED)
    if serving.done():
        serving.result()
    sys.stdout.write(f"PORT {ready.result()}\n")
    sys.stdout.flush()
    await serving


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ("websockets", "starlette"):
        sys.exit("usage: echo_server.py {websockets|starlette}")
    event_loops.runner("auto")(main(sys.argv[1]))
