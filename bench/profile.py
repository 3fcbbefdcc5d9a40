"""Where one action's server CPU goes, by stage, for N = 0 and N spectators (prints JSON).

    PYTHONPATH=server python bench/profile.py [--spectators 0 1000] [--moves 300] [--think-ms 50] [--gc-freeze]

The server runs in this process - the hulldown app under uvicorn as ``hulldown serve`` configures
it (web/ws_protocol.py's protocol), on an embedded Redis - and the clients (two players acting
``end_phase`` one at a time, N spectators) in a child process, so their CPU is not counted. The
stages are measured with thread CPU time (``time.thread_time_ns``) by wrappers this script puts
around the server's functions while it runs; the server has no profiling code of its own, so
nothing is paid when this tool is not running. Time in a stage is exclusive (a stage called inside
another is counted once, in the inner one); an ``async`` stage is timed step by step (only while
its own code runs, not while it waits).

Stages (us of CPU per action; ``fan_out_per_socket`` per socket): receive_decode, the sum of
receive_ws_parse (uvicorn's protocol: websocket parsing, pings and pongs), receive_asgi
(Starlette's receive through uvicorn's queue) and decode (the strict decode), validate, fold, state_hash, diff,
encode (events and protocol messages), redis_append, tailer (reading back and handling the stream),
fan_out (the hub's broadcast, every socket's write included), runtime (submit's own
bookkeeping), gc (collections, timed by ``gc.callbacks``), event_loop (the loop thread's CPU not in
any stage: the selector, callbacks, task steps, transports), rules_threads_other (rules-pool
threads' CPU outside validate/fold: hand-over). ``other_cpu_cores``: the machine's busy cores
outside this benchmark's processes during the measured window.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import dataclasses
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Generator
from pathlib import Path
from typing import Any

import event_loops

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "examples" / "duel-40k7.json"
PHASES_PER_TURN = 3  # a 40k7 player turn: movement, shooting, assault


def machine_busy() -> tuple[float, float]:
    fields = [float(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4], sum(fields)


def process_jiffies(pid: int) -> float:
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return float(stat[11]) + float(stat[12])


# ---- the stage clock ------------------------------------------------------------------------------


class Stages:
    """Exclusive thread CPU per stage, per thread (a stack of open stages per thread)."""

    def __init__(self) -> None:
        self.totals: dict[str, int] = {}
        self.calls: dict[str, int] = {}
        self.main_thread = threading.get_ident()
        self.off_main: dict[str, int] = {}  # the part of each stage spent on other threads
        self._local = threading.local()
        self.enabled = False

    def _stack(self) -> list[list[Any]]:
        stack: list[list[Any]] | None = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        return stack

    def enter(self, name: str) -> None:
        self._stack().append([name, time.thread_time_ns(), 0])

    def exit(self) -> None:
        stack = self._stack()
        name, start, children = stack.pop()
        elapsed = time.thread_time_ns() - start
        if stack:
            stack[-1][2] += elapsed
        if self.enabled:
            own = elapsed - children
            self.totals[name] = self.totals.get(name, 0) + own
            self.calls[name] = self.calls.get(name, 0) + 1
            if threading.get_ident() != self.main_thread:
                self.off_main[name] = self.off_main.get(name, 0) + own

    def add(self, name: str, ns: int) -> None:
        if self.enabled:
            self.totals[name] = self.totals.get(name, 0) + ns
            self.calls[name] = self.calls.get(name, 0) + 1

    def reset(self) -> None:
        self.totals.clear()
        self.calls.clear()
        self.off_main.clear()


STAGES = Stages()


def timed_sync(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        STAGES.enter(name)
        try:
            return fn(*args, **kwargs)
        finally:
            STAGES.exit()

    return wrapper


class _Stepped:
    """Awaits ``coro`` timing each of its steps (the code it runs between two suspensions)."""

    def __init__(self, name: str, coro: Coroutine[Any, Any, Any]) -> None:
        self.name, self.coro = name, coro

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, value, error = self.coro, None, None
        while True:
            STAGES.enter(self.name)
            try:
                yielded = coro.throw(error) if error is not None else coro.send(value)
            except StopIteration as stop:
                return stop.value
            finally:
                STAGES.exit()
            try:
                value, error = (yield yielded), None
            except BaseException as exc:  # cancellation and the like go into the coroutine
                value, error = None, exc


def timed_async(name: str, fn: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return await _Stepped(name, fn(*args, **kwargs))

    return wrapper


def wrap(owner: Any, attribute: str, stage: str, *, is_async: bool, missing: list[str]) -> None:
    original = getattr(owner, attribute, None)
    if original is None:
        missing.append(f"{getattr(owner, '__name__', owner)}.{attribute}")
        return
    setattr(owner, attribute, (timed_async if is_async else timed_sync)(stage, original))


def instrument() -> list[str]:
    """Put the stage clock around the server's functions; returns the targets not found (the
    code moved on: the profile then says so instead of silently missing a stage)."""
    from hulldown.live import deciding, hub, runtime, service
    from hulldown.match import validate as validate_mod
    from hulldown.store import lean_connection, redis_store
    from hulldown.web import live_reader, live_socket, socket_frames
    from hulldown.web.ws_protocol import FrameWritingProtocol
    from hulldown.wire import protocol

    missing: list[str] = []
    # A live socket's messages are handed to its reader from data_received (web/ws_protocol.py):
    # what data_received costs beyond the stages below is websocket parsing.
    wrap(FrameWritingProtocol, "data_received", "receive_ws_parse", is_async=False, missing=missing)
    wrap(live_reader.LiveReader, "_handle", "receive_reader", is_async=False, missing=missing)
    # the hello, and every message of a socket read the awaited way
    wrap(live_socket, "read_first", "receive_asgi", is_async=True, missing=missing)
    wrap(live_socket, "_received", "receive_asgi", is_async=True, missing=missing)
    wrap(socket_frames, "decode_frame", "decode", is_async=False, missing=missing)
    wrap(live_reader, "decode_frame", "decode", is_async=False, missing=missing)
    # An act is validated, folded, hashed and encoded in one call (live/deciding.py);
    # the runtime validates only for checks and folds only other processes' events.
    wrap(deciding, "validate", "validate", is_async=False, missing=missing)
    wrap(runtime, "validate", "validate", is_async=False, missing=missing)
    del validate_mod
    wrap(deciding, "evolve_with_history", "fold", is_async=False, missing=missing)
    wrap(runtime.MatchRuntime, "_fold", "fold", is_async=True, missing=missing)
    # The hash of the state an act made is worked out after its patch is sent, for the next act
    # to carry (h3, match/hashing.py): off the act's path, but CPU all the same.
    wrap(runtime, "base_hash", "state_hash", is_async=False, missing=missing)
    wrap(runtime, "view_patch", "diff", is_async=False, missing=missing)
    wrap(deciding, "encode_event", "encode", is_async=False, missing=missing)
    wrap(protocol, "encode", "encode", is_async=False, missing=missing)
    wrap(redis_store.RedisEventStore, "append", "redis_append", is_async=True, missing=missing)
    wrap(redis_store.RedisEventStore, "append_now", "redis_append", is_async=False, missing=missing)
    wrap(redis_store.RedisEventStore, "append_private_now", "redis_append", is_async=False, missing=missing)
    wrap(lean_connection._RespProtocol, "data_received", "redis_reply", is_async=False, missing=missing)
    wrap(service.LiveService, "_on_events", "tailer", is_async=True, missing=missing)
    from hulldown.store import tail

    wrap(tail.StreamTailer, "_run", "tailer", is_async=True, missing=missing)  # XREAD and its reply
    wrap(tail.StreamTailer, "_deliver", "tailer", is_async=True, missing=missing)
    wrap(hub.Hub, "broadcast", "fan_out", is_async=False, missing=missing)
    wrap(runtime.MatchRuntime, "submit", "runtime", is_async=True, missing=missing)
    wrap(runtime.MatchRuntime, "submit_now", "runtime", is_async=False, missing=missing)
    wrap(runtime.MatchRuntime, "_appended_now", "runtime", is_async=False, missing=missing)

    gc_start: dict[int, int] = {}

    def on_gc(phase: str, info: dict[str, int]) -> None:
        ident = threading.get_ident()
        if phase == "start":
            gc_start[ident] = time.thread_time_ns()
        elif ident in gc_start:
            STAGES.add("gc", time.thread_time_ns() - gc_start.pop(ident))
            STAGES.add(f"gc_gen{info['generation']}", 0)

    gc.callbacks.append(on_gc)
    return missing


# ---- the clients (child process) ------------------------------------------------------------------


async def clients_main(
    url: str, tokens: dict[str, str], spectators: int, moves: int, warmup: int, think_ms: float
) -> None:
    import random

    import websockets

    async def thin(count: int) -> list[Any]:
        sockets = []
        for _ in range(count):
            ws = await websockets.connect(url, max_size=2**24)
            await ws.send('{"type":"hello","spectator":true}')
            await ws.recv()
            sockets.append(ws)
        return sockets

    async def drain(ws: Any) -> None:
        try:
            async for _ in ws:
                pass
        except websockets.ConnectionClosed:
            pass

    watchers = await thin(spectators)
    readers = [asyncio.create_task(drain(ws)) for ws in watchers]
    players = {}
    for side in ("a", "b"):
        ws = await websockets.connect(url, max_size=2**24)
        await ws.send(json.dumps({"type": "hello", "token": tokens[side]}))
        welcome = json.loads(await ws.recv())
        players[side] = ws
    active, phase = welcome["view"]["active"], 0
    pause = 0.002 + spectators * 15e-6  # the fan-out finishes before the next action
    think = random.Random(7)  # --think-ms: a random think time on top, as the peers harness has
    sys.stdout.write("CONNECTED\n")
    sys.stdout.flush()
    for i in range(warmup + moves):
        if i == warmup:
            sys.stdout.write("MEASURE\n")
            sys.stdout.flush()
        ws = players[active]
        await ws.send(json.dumps({"type": "act", "action_id": f"p-{i}", "action": {"type": "end_phase"}}))
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "ack":
                break
            if message["type"] == "rejected":
                raise RuntimeError(message)
        await asyncio.sleep(pause + think.random() * think_ms / 1000)
        phase += 1
        if phase == PHASES_PER_TURN:
            phase, active = 0, "b" if active == "a" else "a"
    await asyncio.sleep(0.3)
    sys.stdout.write("DONE\n")
    sys.stdout.flush()
    for ws in (*players.values(), *watchers):
        await ws.close()
    for reader in readers:
        reader.cancel()


# ---- the server (this process) --------------------------------------------------------------------


async def profile_once(spectators: int, args: argparse.Namespace) -> dict[str, Any]:
    import httpx
    import uvicorn

    from hulldown.store.embedded import EmbeddedRedis
    from hulldown.web.app import create_app
    from hulldown.web.quiet_server import QuietServer
    from hulldown.web.settings import Settings
    from hulldown.web.socket_frames import ws_hard_limit
    from hulldown.web.ws_protocol import FrameWritingProtocol

    data_dir = Path(tempfile.mkdtemp(prefix="hulldown-profile-"))
    embedded = EmbeddedRedis(data_dir)
    embedded.start()
    try:
        settings = Settings.from_env(host="127.0.0.1", port=0, data_dir=data_dir, redis_url=embedded.url)
        # As `hulldown serve` on its own Redis (private: nothing is tailed); players act back to back.
        settings = dataclasses.replace(settings, private_store=True, rate=1_000_000)
        config = uvicorn.Config(
            create_app(settings),
            host="127.0.0.1",
            port=0,
            ws=FrameWritingProtocol,
            ws_max_size=ws_hard_limit(settings.max_frame),
            ws_ping_interval=20.0,
            ws_per_message_deflate=settings.ws_deflate,
            log_level="warning",
            lifespan="on",
        )
        server = QuietServer(config)  # as `hulldown serve` (web/quiet_server.py)
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        body = json.loads(SCENARIO.read_text())
        body.setdefault("options", {})["turn_limit"] = 1_000_000
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            created = (await http.post("/matches", json=body)).json()
        url = f"ws://127.0.0.1:{port}/matches/{created['match_id']}/live"
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--clients",
            base64.b64encode(
                json.dumps(
                    [url, created["tokens"], spectators, args.moves, args.warmup, args.think_ms]
                ).encode()
            ).decode(),
            stdout=subprocess.PIPE,
        )
        assert child.stdout is not None
        assert (await child.stdout.readline()).strip() == b"CONNECTED"
        if args.gc_freeze:
            gc.collect()
            gc.freeze()
        assert (await child.stdout.readline()).strip() == b"MEASURE"
        STAGES.reset()
        STAGES.enabled = True
        loop_cpu0, process_cpu0 = time.thread_time_ns(), time.process_time_ns()
        busy0, total0 = machine_busy()
        own0 = process_jiffies(os.getpid()) + process_jiffies(child.pid) + process_jiffies(embedded.pid)
        assert (await child.stdout.readline()).strip() == b"DONE"
        loop_cpu, process_cpu = time.thread_time_ns() - loop_cpu0, time.process_time_ns() - process_cpu0
        busy1, total1 = machine_busy()
        own1 = process_jiffies(os.getpid()) + process_jiffies(child.pid) + process_jiffies(embedded.pid)
        STAGES.enabled = False
        await child.wait()
        server.request_exit()
        await serving
    finally:
        embedded.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
    if args.gc_freeze:
        gc.unfreeze()

    moves = args.moves
    totals = dict(STAGES.totals)
    on_main = {k: v - STAGES.off_main.get(k, 0) for k, v in totals.items() if not k.startswith("gc_gen")}
    stages_us = {
        k: round(v / moves / 1000, 1) for k, v in sorted(totals.items()) if not k.startswith("gc_gen")
    }
    stages_us["receive_decode"] = round(
        sum(totals.get(k, 0) for k in ("receive_ws_parse", "receive_asgi", "receive_reader", "decode"))
        / moves
        / 1000,
        1,
    )
    stages_us["event_loop"] = round((loop_cpu - sum(on_main.values())) / moves / 1000, 1)
    off_main = sum(STAGES.off_main.values())
    threads_cpu = process_cpu - loop_cpu
    stages_us["rules_threads_other"] = round((threads_cpu - off_main) / moves / 1000, 1)
    sockets = spectators + 2
    fan_out_calls = STAGES.calls.get("fan_out", 0) or 1
    cores = os.cpu_count() or 1
    return {
        "spectators": spectators,
        "moves": moves,
        "gc_freeze": args.gc_freeze,
        "process_cpu_us_per_action": round(process_cpu / moves / 1000, 1),
        "loop_thread_cpu_us_per_action": round(loop_cpu / moves / 1000, 1),
        "stages_us_per_action": stages_us,
        "calls_per_action": {
            k: round(v / moves, 2) for k, v in sorted(STAGES.calls.items()) if not k.startswith("gc")
        },
        "fan_out_per_socket_us": round(totals.get("fan_out", 0) / fan_out_calls / sockets / 1000, 2),
        "broadcasts_per_action": round(fan_out_calls / moves, 2),
        "gc_collections_per_action": {
            k[3:]: round(v / moves, 3) for k, v in sorted(STAGES.calls.items()) if k.startswith("gc_gen")
        },
        "other_cpu_cores": round(
            max(0.0, ((busy1 - busy0) - (own1 - own0)) / max(1.0, total1 - total0) * cores), 2
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--spectators", type=int, nargs="+", default=[0, 1000])
    parser.add_argument("--moves", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="a random pause in [0, this) ms after each action (from idle)",
    )
    parser.add_argument("--gc-freeze", action="store_true", help="gc.freeze() once the clients are connected")
    parser.add_argument("--loop", choices=event_loops.CHOICES, default="auto", help="the server's event loop")
    parser.add_argument("--clients", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.clients:
        url, tokens, spectators, moves, warmup, think_ms = json.loads(base64.b64decode(args.clients))
        asyncio.run(clients_main(url, tokens, spectators, moves, warmup, think_ms))
        return 0
    missing = instrument()
    run = event_loops.runner(args.loop)
    runs = [run(profile_once(n, args)) for n in args.spectators]
    print(
        json.dumps(
            {"bench": "profile", "missing_targets": missing, "runs": runs, "python": sys.version.split()[0]}
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
