"""Server configuration, from the command line and the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


@dataclass(frozen=True)
class Settings:
    """Everything the server can be told. Environment names are in brackets.

    - ``redis_url`` (REDIS_URL): a real Redis/Valkey; empty = start the embedded one.
    - ``data_dir`` (HULLDOWN_DATA_DIR): where the embedded Redis keeps its AOF and socket.
    - ``snapshot_every`` (HULLDOWN_SNAPSHOT_EVERY): snapshot the state every K events.
    - ``send_queue`` (HULLDOWN_SEND_QUEUE): per-connection bounded send queue, in messages.
    - ``max_frame`` (HULLDOWN_MAX_FRAME): largest websocket frame accepted, in bytes.
    - ``rate`` (HULLDOWN_RATE): messages per second a connection may send (burst 2x).
    - ``key_prefix`` (HULLDOWN_KEY_PREFIX): prefix of every Redis key.
    - ``appendfsync`` (HULLDOWN_APPENDFSYNC): embedded Redis AOF fsync policy (everysec/always).
    - ``ws_deflate`` (HULLDOWN_WS_DEFLATE): per-message deflate on websockets (off: patches are small).
    - ``evict_after`` (HULLDOWN_EVICT_AFTER): seconds after which a match nobody uses is dropped
      from the process (loaded again from its snapshot on next use); 0 keeps every match.
    - ``max_matches`` (HULLDOWN_MAX_MATCHES): matches kept in memory at most; beyond it the least
      recently used idle ones are dropped (0: no limit).
    - ``log_format`` (HULLDOWN_LOG_FORMAT): ``text`` or ``json`` (one JSON object per line).
    - ``private_store`` (no environment name): ``redis_url`` is this process's own embedded
      Redis, which no other process writes to; set by ``hulldown serve`` when it starts one.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str = ""
    data_dir: Path = field(default_factory=lambda: Path("hulldown-data"))
    snapshot_every: int = 100
    send_queue: int = 512
    max_frame: int = 65536
    rate: int = 50
    key_prefix: str = "hulldown"
    appendfsync: str = "everysec"
    public_url: str = ""
    ws_deflate: bool = False
    evict_after: float = 900.0
    max_matches: int = 1000
    log_format: str = "text"
    private_store: bool = False

    @classmethod
    def from_env(
        cls,
        *,
        host: str | None = None,
        port: int | None = None,
        data_dir: Path | None = None,
        redis_url: str | None = None,
        snapshot_every: int | None = None,
    ) -> Settings:
        """Settings from the environment; arguments that are not None (command-line flags) win."""
        return cls(
            host=host if host is not None else os.environ.get("HULLDOWN_HOST", "127.0.0.1"),
            port=port if port is not None else _env_int("HULLDOWN_PORT", 8000),
            redis_url=redis_url if redis_url is not None else os.environ.get("REDIS_URL", ""),
            data_dir=data_dir
            if data_dir is not None
            else Path(os.environ.get("HULLDOWN_DATA_DIR", "hulldown-data")),
            snapshot_every=snapshot_every
            if snapshot_every is not None
            else _env_int("HULLDOWN_SNAPSHOT_EVERY", 100),
            send_queue=_env_int("HULLDOWN_SEND_QUEUE", 512),
            max_frame=_env_int("HULLDOWN_MAX_FRAME", 65536),
            rate=_env_int("HULLDOWN_RATE", 50),
            key_prefix=os.environ.get("HULLDOWN_KEY_PREFIX", "hulldown"),
            appendfsync=os.environ.get("HULLDOWN_APPENDFSYNC", "everysec"),
            public_url=os.environ.get("HULLDOWN_PUBLIC_URL", ""),
            ws_deflate=os.environ.get("HULLDOWN_WS_DEFLATE", "") in ("1", "true", "yes"),
            evict_after=float(os.environ.get("HULLDOWN_EVICT_AFTER", "900")),
            max_matches=_env_int("HULLDOWN_MAX_MATCHES", 1000),
            log_format=os.environ.get("HULLDOWN_LOG_FORMAT", "text"),
        )
