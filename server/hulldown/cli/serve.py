"""``hulldown serve``: start the embedded Redis when no REDIS_URL is given, then uvicorn."""

from __future__ import annotations

import dataclasses
import logging
import signal
import sys
from types import FrameType

import uvicorn

from ..store.embedded import EmbeddedRedis
from ..web.app import create_app
from ..web.settings import Settings
from ..web.socket_frames import ws_hard_limit

log = logging.getLogger("hulldown")


def serve(settings: Settings, log_level: str = "info") -> int:
    embedded: EmbeddedRedis | None = None
    if not settings.redis_url:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        embedded = EmbeddedRedis(settings.data_dir, appendfsync=settings.appendfsync)
        embedded.start()
        settings = dataclasses.replace(settings, redis_url=embedded.url)
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
            ws_max_size=ws_hard_limit(settings.max_frame),
            ws_ping_interval=20.0,
            # Patches are small and latency-bound: compressing each one costs more than it saves.
            ws_per_message_deflate=settings.ws_deflate,
            lifespan="on",
        )
        server = uvicorn.Server(config)
        print(f"hulldown listening on http://{settings.host}:{settings.port}", file=sys.stderr, flush=True)
        server.run()
    finally:
        if embedded is not None:
            embedded.stop()
    return 0
