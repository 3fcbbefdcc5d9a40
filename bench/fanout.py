"""Fan-out micro-benchmark: server CPU per socket per broadcast, today's path against the old one,
in the same run (docs/architecture.md section 6).

    PYTHONPATH=server python bench/fanout.py [--sockets 1000] [--broadcasts 300] [--bytes 540]

A real uvicorn (``hulldown serve``'s websocket protocol, web/ws_protocol.py) on a free port with a
bare Starlette websocket route; N real websocket clients in a child process (raw sockets that read
and discard, so their CPU is not the server's). Each broadcast sends one patch-sized text message to
every socket, paced so that the clients keep up (every socket's buffer is empty: the common case),
alternating between the paths so that both see the same machine:

- ``send_text``: the old hub's fast path - per socket, Starlette's ``send_text`` coroutine stepped
  by hand (uvicorn's ASGI send -> websockets framing -> transport.write);
- ``shared_frame``: the hub today - one :class:`~hulldown.live.outgoing.Outgoing` per broadcast,
  its frame built once and written to each socket's transport through its FrameOutlet;
- ``floor_send``: the floor - the ready frame handed to each socket's ``send(2)`` directly (no
  hub, no asyncio transport).

Prints one JSON object: per path, the server thread's CPU per socket per broadcast (``us_per_socket``,
``time.thread_time`` around the fan-out loop, which includes the ``send(2)`` each socket's write
makes) and over the whole window including the event loop (``us_per_socket_window``), the ratio
between them, and ``other_cpu_cores`` (the machine's busy cores minus this benchmark's processes).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import event_loops

HERE = Path(__file__).resolve().parent


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    fields = [float(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def process_jiffies(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return float(stat[11]) + float(stat[12])  # utime + stime


# ---- the clients (child process) --------------------------------------------------------------


async def client_main(port: int, sockets: int) -> None:
    async def one() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        await reader.readuntil(b"\r\n\r\n")
        while await reader.read(1 << 16):
            pass

    tasks = [asyncio.create_task(one()) for _ in range(sockets)]
    await asyncio.gather(*tasks, return_exceptions=True)


# ---- the server (this process) ------------------------------------------------------------------


async def server_main(args: argparse.Namespace) -> dict[str, Any]:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket

    from hulldown.live.hub import Connection, Hub
    from hulldown.live.outgoing import text_frame
    from hulldown.web.ws_protocol import FRAME_OUTLET, FrameWritingProtocol, outlet_for

    joined: list[WebSocket] = []
    hub = Hub()
    done = asyncio.Event()

    async def endpoint(websocket: WebSocket) -> None:
        await websocket.accept()
        joined.append(websocket)
        hub.add(Connection(outlet_for(websocket), "spectator", 512, lambda: ""))
        await done.wait()

    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws=FrameWritingProtocol,
        ws_ping_interval=None,  # the raw clients never answer pings
        log_level="warning",
        lifespan="off",
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    clients = subprocess.Popen(
        [sys.executable, __file__, "--client", str(port), "--sockets", str(args.sockets)],
        stdin=subprocess.DEVNULL,
    )
    try:
        while len(joined) < args.sockets:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        text = '{"type":"patch","seq":1,"ops":[' + ",".join(['{"op":"replace","path":"/x","value":1}'] * 64)
        text = text[: args.bytes - 2] + "]}"

        def old_path() -> None:  # the old hub's fast path: a send coroutine stepped by hand
            for websocket in joined:
                sending = websocket.send_text(text)
                try:
                    sending.send(None)
                except StopIteration:
                    continue
                raise RuntimeError("a socket pushed back: the clients do not keep up")

        def new_path() -> None:
            hub.broadcast(text)

        frame = text_frame(text.encode())
        # Each connection's socket, as a socket object of its own (a duplicate of its descriptor).
        raw_sockets = [
            socket.socket(
                fileno=os.dup(
                    websocket.scope["extensions"][FRAME_OUTLET]._transport.get_extra_info("socket").fileno()
                )
            )
            for websocket in joined
        ]

        def floor() -> None:  # the system calls alone: one send(2) of the ready frame per socket
            for sock in raw_sockets:
                sock.send(frame)

        paths = {"send_text": old_path, "shared_frame": new_path, "floor_send": floor}
        fanout = {name: 0.0 for name in paths}
        window = {name: 0.0 for name in paths}
        gc.collect()
        busy0, total0 = machine_busy()
        own0 = process_jiffies(os.getpid()) + process_jiffies(clients.pid)
        for k in range(args.broadcasts):
            for name, run in paths.items() if k % 2 == 0 else reversed(paths.items()):
                start = time.thread_time()
                run()
                middle = time.thread_time()
                await asyncio.sleep(args.pause_ms / 1000)  # the clients read; the loop runs
                fanout[name] += middle - start
                window[name] += time.thread_time() - start
        busy1, total1 = machine_busy()
        own1 = process_jiffies(os.getpid()) + process_jiffies(clients.pid)
        cores = os.cpu_count() or 1
        other = ((busy1 - busy0) - (own1 - own0)) / max(1.0, total1 - total0) * cores
        per = args.broadcasts * args.sockets / 1e6
        result: dict[str, Any] = {
            "bench": "fanout",
            "sockets": args.sockets,
            "broadcasts": args.broadcasts,
            "message_bytes": len(text),
            "paths": {
                name: {
                    "us_per_socket": round(fanout[name] / per, 2),
                    "us_per_socket_window": round(window[name] / per, 2),
                }
                for name in paths
            },
            "ratio_shared_over_send_text": round(fanout["shared_frame"] / fanout["send_text"], 3),
            "ratio_shared_over_floor": round(fanout["shared_frame"] / fanout["floor_send"], 3),
            "other_cpu_cores": round(max(0.0, other), 2),
            "python": sys.version.split()[0],
        }
        return result
    finally:
        done.set()
        clients.terminate()
        clients.wait(10)
        server.should_exit = True
        await serving


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--broadcasts", type=int, default=300)
    parser.add_argument("--bytes", type=int, default=540, help="message size (the median patch)")
    parser.add_argument("--pause-ms", type=float, default=20.0, help="pause after each broadcast")
    parser.add_argument("--loop", choices=event_loops.CHOICES, default="auto", help="the server's event loop")
    parser.add_argument("--client", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        asyncio.run(client_main(args.client, args.sockets))
        return 0
    run = event_loops.runner(args.loop)
    print(json.dumps({**run(server_main(args)), "loop": event_loops.name(run)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
