"""The server `hulldown serve` runs (web/quiet_server.py): uvicorn woken once a second, serving
as uvicorn does, renewing the Date header at every tick, and stopped at once by a shutdown
request from another thread or a signal. Real uvicorn on a real port, real HTTP."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from hulldown.web import quiet_server
from hulldown.web.quiet_server import QuietServer
from tests.server_process import free_port

# Generous bound on how long a stopped server may take to return, or a tick to come (a hang
# guard, not a timing).
STOP_GUARD_S = 10.0


async def until(holds: Callable[[], bool]) -> None:
    """Wait until ``holds()`` is true; fail after STOP_GUARD_S instead of hanging."""

    async def polled() -> None:
        while not holds():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(polled(), STOP_GUARD_S)


async def hello(request: Request) -> PlainTextResponse:
    return PlainTextResponse("hello")


@dataclass
class Running:
    server: QuietServer
    serving: asyncio.Task[None]
    port: int
    ticks: list[int]
    handed_back: list[int]  # signals uvicorn caught and handed back after stopping


@pytest.fixture
async def running(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Running]:
    # Short ticks, so that a test sees several of them: what a tick does is the same.
    monkeypatch.setattr(quiet_server, "TICK_SECONDS", 0.02)
    port = free_port()
    app = Starlette(routes=[Route("/hello", hello)])
    server = QuietServer(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    ticks: list[int] = []
    on_tick = server.on_tick

    async def counted(counter: int) -> bool:
        ticks.append(counter)
        return await on_tick(counter)

    monkeypatch.setattr(server, "on_tick", counted)
    # uvicorn hands a signal it caught back to the handler it replaced once it has stopped: a
    # recorder here, not the default (which would end the test run).
    handed_back: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda sig, frame: handed_back.append(sig))
    serving = asyncio.create_task(server.serve())
    await until(lambda: server.started or serving.done())
    assert server.started, "uvicorn did not start"
    try:
        yield Running(server, serving, port, ticks, handed_back)
    finally:
        if not serving.done():
            server.request_exit()
            await asyncio.wait_for(serving, STOP_GUARD_S)
        signal.signal(signal.SIGTERM, previous)


async def test_it_serves_with_a_date_header_renewed_at_every_tick(running: Running) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{running.port}") as http:
        answer = await http.get("/hello")
    assert answer.status_code == 200 and answer.text == "hello"
    assert parsedate_to_datetime(answer.headers["date"]).year >= 2024
    await until(lambda: len(running.ticks) >= 4)
    # uvicorn renews the Date header when its counter is a multiple of its ticks per second:
    # every one of ours is such a tick.
    assert all(t % quiet_server.UVICORN_TICKS_PER_SECOND == 0 for t in running.ticks), running.ticks
    assert running.ticks[:4] == [0, 10, 20, 30]
    headers = running.server.server_state.default_headers
    await until(lambda: running.server.server_state.default_headers is not headers)  # the next tick
    assert any(name == b"date" for name, _ in running.server.server_state.default_headers)


async def test_a_request_to_exit_from_another_thread_stops_it(
    running: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tick far longer than the guard: only the wake-up can end the wait in time.
    monkeypatch.setattr(quiet_server, "TICK_SECONDS", 3600.0)
    seen = len(running.ticks)
    await until(lambda: len(running.ticks) > seen)  # the short wait under way ended: now the long one
    threading.Thread(target=running.server.request_exit).start()
    await asyncio.wait_for(running.serving, STOP_GUARD_S)
    assert running.server.should_exit


async def test_a_shutdown_signal_wakes_it(running: Running, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quiet_server, "TICK_SECONDS", 3600.0)
    seen = len(running.ticks)
    await until(lambda: len(running.ticks) > seen)
    os.kill(os.getpid(), signal.SIGTERM)  # uvicorn's handler: QuietServer.handle_exit
    await asyncio.wait_for(running.serving, STOP_GUARD_S)
    assert running.server.should_exit
    assert running.handed_back == [signal.SIGTERM]
