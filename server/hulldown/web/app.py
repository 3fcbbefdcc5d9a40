"""Build the Starlette application around a store and the live service."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import WebSocketRoute

from ..live.service import LiveService
from ..store.redis_store import RedisEventStore
from .access_log import AccessLog
from .army_routes import routes as army_routes
from .dice_routes import routes as dice_routes
from .guards import app_options
from .http_routes import routes as http_routes
from .live_socket import live_socket
from .log_routes import routes as log_routes
from .mission_routes import routes as mission_routes
from .odds_routes import routes as odds_routes
from .ops_routes import instrumented
from .ops_routes import routes as ops_routes
from .options_routes import routes as options_routes
from .play_routes import routes as play_routes
from .replay_socket import replay_socket
from .settings import Settings
from .table_routes import routes as table_routes
from .viewer_routes import routes as viewer_routes


def create_app(settings: Settings) -> Starlette:
    """The ASGI app. ``settings.redis_url`` must point at a running Redis (the CLI starts the
    embedded one first when none is configured)."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = RedisEventStore.from_url(settings.redis_url, prefix=settings.key_prefix)
        live = LiveService(
            store,
            settings.redis_url,
            prefix=settings.key_prefix,
            snapshot_every=settings.snapshot_every,
            evict_after=settings.evict_after,
            max_matches=settings.max_matches,
            private_store=settings.private_store,
        )
        await live.start()
        app.state.live = live
        app.state.settings = settings
        try:
            async with instrumented(live):
                yield
        finally:
            await live.stop()
            await store.aclose()

    routes = [
        *http_routes,
        *ops_routes,
        *dice_routes,
        *log_routes,
        *odds_routes,
        *table_routes,
        *options_routes,
        *play_routes,
        WebSocketRoute("/matches/{match_id}/live", live_socket),
        WebSocketRoute("/matches/{match_id}/replay", replay_socket),
        *viewer_routes,
        *army_routes,
        *mission_routes,
    ]
    options = app_options()
    # The access log is outermost, so it records every answer, the guards' refusals included.
    middleware = [Middleware(AccessLog), *options.pop("middleware")]
    return Starlette(routes=routes, lifespan=lifespan, middleware=middleware, **options)
