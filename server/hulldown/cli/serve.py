"""``hulldown serve``: start the embedded Redis when no REDIS_URL is given, then uvicorn.

Shutdown is bounded (docs/limits-and-outages.md): on SIGTERM or SIGINT uvicorn stops accepting,
closes the websockets and gives requests :data:`SHUTDOWN_GRACE` seconds to finish; rules still
running on the rules pool are not waited for (every acknowledged action is already in Redis). A
watchdog makes sure the process is gone :data:`SHUTDOWN_DEADLINE` seconds after the signal
whatever it is doing, stopping the embedded Redis first.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import socket
import sys
import threading
from types import FrameType

import uvicorn

from ..live import rules_pool
from ..store.embedded import DataDirInUse, EmbeddedRedis
from ..web.app import create_app
from ..web.quiet_server import QuietServer
from ..web.settings import Settings
from ..web.socket_frames import ws_hard_limit
from ..web.startup_heap import freeze_startup_heap
from ..web.ws_protocol import FrameWritingProtocol

log = logging.getLogger("hulldown")

SHUTDOWN_GRACE = 3  # seconds requests and sockets get to finish after SIGTERM
SHUTDOWN_DEADLINE = 10.0  # seconds after SIGTERM by which the process has exited, whatever it does


class _Server(QuietServer):
    """uvicorn's server (woken once a second: web/quiet_server.py), with a watchdog armed by
    the first shutdown signal."""

    def __init__(self, config: uvicorn.Config, embedded: EmbeddedRedis | None) -> None:
        super().__init__(config)
        self._embedded = embedded
        self._armed = False

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's start-up; once it is listening (a port it cannot bind ends the process in
        there, with its own error line), freezes the start-up heap (web/startup_heap.py) and
        says where - the bound port, also for ``--port 0``."""
        await super().startup(sockets)
        if self.started:
            frozen = freeze_startup_heap()
            bound = [s.getsockname() for server in self.servers for s in server.sockets or ()]
            port = bound[0][1] if bound else self.config.port
            log.info("hulldown listening on http://%s:%d", self.config.host, port)
            log.debug("start-up heap frozen: %d objects out of the collector's way", frozen)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self._armed:
            self._armed = True
            threading.Thread(target=self._deadline, name="hulldown-shutdown", daemon=True).start()
        super().handle_exit(sig, frame)

    def _deadline(self) -> None:
        threading.Event().wait(SHUTDOWN_DEADLINE)
        log.error("shutdown took longer than %.0fs: exiting now", SHUTDOWN_DEADLINE)
        if self._embedded is not None:
            self._embedded.stop()
        _exit_now(1)


def _exit_now(code: int) -> None:
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def serve(settings: Settings, log_level: str = "info") -> int:
    embedded: EmbeddedRedis | None = None
    if not settings.redis_url:
        embedded = EmbeddedRedis(settings.data_dir, appendfsync=settings.appendfsync)
        try:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
            embedded.start()
        except (DataDirInUse, OSError) as exc:
            print(f"hulldown serve: {exc}", file=sys.stderr, flush=True)
            return 2
        embedded.supervise()
        settings = dataclasses.replace(settings, redis_url=embedded.url, private_store=True)
        log.info("embedded Redis on %s (AOF on, data in %s)", embedded.url, settings.data_dir)

    def _terminate(signum: int, frame: FrameType | None) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, _terminate)
    try:
        config = uvicorn.Config(
            create_app(settings),
            host=settings.host,
            port=settings.port,
            log_level=log_level,
            log_config=None,  # logging is set up by cli/logging_setup.py (scrubbed, text or json)
            access_log=False,  # the app writes its own access log, tokens scrubbed (web/access_log.py)
            # uvicorn's websockets sans-I/O protocol with the hub's frame outlet (web/ws_protocol.py).
            ws=FrameWritingProtocol,
            # Far above our own frame limit, so oversize frames reach us and get ``too_large``.
            ws_max_size=ws_hard_limit(settings.max_frame),
            ws_ping_interval=20.0,
            # Patches are small and latency-bound: compressing each one costs more than it saves.
            ws_per_message_deflate=settings.ws_deflate,
            lifespan="on",
            timeout_graceful_shutdown=SHUTDOWN_GRACE,
        )
        server = _Server(config, embedded)
        server.run()
    finally:
        if embedded is not None:
            embedded.stop()
        if rules_pool.running():
            # A long fold is still running on a rules thread: do not wait for it (nothing it
            # could produce was acknowledged), as interpreter exit would join the thread.
            _exit_now(0)
    return 0
