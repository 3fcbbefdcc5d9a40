"""Server configuration, from the command line and the environment.

Every setting is checked as it is read: a value the server cannot use (not a number, out of its
range, not one of the allowed words) raises :class:`SettingError`, whose one-line message names
the variable, what it must be and what it was; ``hulldown serve`` prints it and exits 2. An
empty variable is the same as an unset one (the default).
"""

from __future__ import annotations

import math
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar
from urllib.parse import urlsplit

from ..store.connect import CLUSTER_SCHEMES, SUPPORTED_SCHEMES
from ..store.embedded import APPENDFSYNC_MODES
from ..store.keys import Keys

LogFormat = Literal["text", "json"]
LOG_FORMATS: tuple[LogFormat, ...] = ("text", "json")

# The words a switch (HULLDOWN_WS_DEFLATE) may be, in any case; unset or empty is off.
SWITCH_ON = ("1", "true", "yes", "on")
SWITCH_OFF = ("0", "false", "no", "off")

# Smaller than this and not even a ``hello`` frame (a token and a few fields) fits.
MIN_MAX_FRAME = 1024  # bytes

PORT_ENV = "HULLDOWN_PORT"
SNAPSHOT_EVERY_ENV = "HULLDOWN_SNAPSHOT_EVERY"
SEND_QUEUE_ENV = "HULLDOWN_SEND_QUEUE"
MAX_FRAME_ENV = "HULLDOWN_MAX_FRAME"
RATE_ENV = "HULLDOWN_RATE"
CREATE_RATE_ENV = "HULLDOWN_CREATE_RATE"
APPENDFSYNC_ENV = "HULLDOWN_APPENDFSYNC"
WS_DEFLATE_ENV = "HULLDOWN_WS_DEFLATE"
EVICT_AFTER_ENV = "HULLDOWN_EVICT_AFTER"
MAX_MATCHES_ENV = "HULLDOWN_MAX_MATCHES"
LOG_FORMAT_ENV = "HULLDOWN_LOG_FORMAT"
PUBLIC_URL_ENV = "HULLDOWN_PUBLIC_URL"
EXAMPLES_DIR_ENV = "HULLDOWN_EXAMPLES_DIR"
# The links are pages; the websocket's is the same URL with ws:// or wss:// (web/http_routes.py).
PUBLIC_URL_SCHEMES = ("http://", "https://")

Word = TypeVar("Word", bound=str)


class SettingError(ValueError):
    """A setting the server cannot use; the message (one line) names it and what it allows."""


@dataclass(frozen=True)
class Bounds:
    """The finite numbers a numeric setting allows: ``low`` up to ``high`` (inclusive, None: no
    upper bound); ``zero_means`` explains a 0 that is allowed and special."""

    low: int
    high: int | None = None
    zero_means: str = ""

    def allows(self, value: float) -> bool:
        return math.isfinite(value) and self.low <= value and (self.high is None or value <= self.high)

    def describe(self) -> str:
        span = f"{self.low}..{self.high}" if self.high is not None else f"{self.low} or more"
        return f"{span} ({self.zero_means})" if self.zero_means else span


PORT_BOUNDS = Bounds(0, 65535)
SNAPSHOT_EVERY_BOUNDS = Bounds(1)
SEND_QUEUE_BOUNDS = Bounds(1)
MAX_FRAME_BOUNDS = Bounds(MIN_MAX_FRAME)
RATE_BOUNDS = Bounds(1)
CREATE_RATE_BOUNDS = Bounds(0, zero_means="0: no limit")
EVICT_AFTER_BOUNDS = Bounds(0, zero_means="0: never")
MAX_MATCHES_BOUNDS = Bounds(0, zero_means="0: no limit")


def whole_number(text: str, bounds: Bounds) -> int | None:
    """``text`` as a whole number within ``bounds``; None when it is not one."""
    try:
        value = int(text)
    except ValueError:
        return None
    return value if bounds.allows(value) else None


def parse_int(name: str, text: str, bounds: Bounds) -> int:
    """``text`` as a whole number within ``bounds``, else a SettingError naming ``name``."""
    value = whole_number(text, bounds)
    if value is None:
        raise SettingError(f"{name} must be a whole number {bounds.describe()}, got {text!r}")
    return value


def parse_seconds(name: str, text: str, bounds: Bounds) -> float:
    """``text`` as a number of seconds within ``bounds``, else a SettingError naming ``name``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan  # refused below with the same message as a number out of bounds
    if not bounds.allows(value):
        raise SettingError(f"{name} must be a number of seconds, {bounds.describe()}, got {text!r}")
    return value


def env_text(name: str, default: str) -> str:
    """The variable's value with surrounding blanks removed; ``default`` when unset or empty
    (docs/operations.md: an empty variable counts as unset)."""
    text = os.environ.get(name, "").strip()
    return text or default


def _env_int(name: str, default: int, bounds: Bounds) -> int:
    text = env_text(name, "")
    return parse_int(name, text, bounds) if text else default


def _env_seconds(name: str, default: float, bounds: Bounds) -> float:
    text = env_text(name, "")
    return parse_seconds(name, text, bounds) if text else default


def _env_word(name: str, default: Word, allowed: tuple[Word, ...]) -> Word:
    """One of ``allowed`` (exactly as written), ``default`` when unset or empty."""
    text = env_text(name, default)
    for word in allowed:
        if text == word:
            return word
    raise SettingError(f"{name} must be one of {', '.join(allowed)}; got {text!r}")


def _env_switch(name: str) -> bool:
    """On or off (any case); unset or empty is off."""
    text = env_text(name, "").lower()
    if text in SWITCH_ON:
        return True
    if not text or text in SWITCH_OFF:
        return False
    raise SettingError(
        f"{name} must be one of {', '.join(SWITCH_ON)} (on) or {', '.join(SWITCH_OFF)} (off); "
        f"got {os.environ[name]!r}"
    )


def is_public_url(url: str) -> bool:
    """Whether ``url`` can be the base of the links the server answers with: http(s), a host,
    a port if any that is one, no query or fragment."""
    try:
        parts = urlsplit(url)
        port_ok = parts.port is None or parts.port > 0  # a bad port raises ValueError
    except ValueError:
        return False
    plain = not (parts.query or parts.fragment or "?" in url or "#" in url)
    return url.startswith(PUBLIC_URL_SCHEMES) and bool(parts.hostname) and port_ok and plain


def _env_public_url() -> str:
    """HULLDOWN_PUBLIC_URL: an http(s) URL with a host (links were written without a scheme,
    or with the websocket's, and led nowhere); empty: links follow the request."""
    text = env_text(PUBLIC_URL_ENV, "")
    if text and not is_public_url(text):
        raise SettingError(
            f"{PUBLIC_URL_ENV} must be an http:// or https:// URL with a host, without query or "
            f"fragment (e.g. https://games.example.org; docs/operations.md, Links); got {text!r}"
        )
    return text


def _check_host(host: str) -> None:
    """HULLDOWN_HOST (or --host): an address, or a name, this machine can listen on, looked up as
    the server will when it binds (a bad one stopped it after start-up, naming no setting)."""
    try:
        socket.getaddrinfo(host, None, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise SettingError(
            "HULLDOWN_HOST must be an address or a name this machine can listen on, e.g. 127.0.0.1, "
            f"0.0.0.0 or :: (or --host; README, Configuration); got {host!r}: {reason}"
        ) from None


def _check_examples_dir() -> None:
    """HULLDOWN_EXAMPLES_DIR, when set, names a directory: ``/examples`` and the ``/new`` page
    read it on each request, and a wrong path left them empty without a word."""
    text = env_text(EXAMPLES_DIR_ENV, "")
    if text and not Path(text).is_dir():
        raise SettingError(
            f"{EXAMPLES_DIR_ENV} must be a directory of match definitions (README, Configuration); "
            f"got {text!r}, which is not a directory"
        )


@dataclass(frozen=True)
class Settings:
    """Everything the server can be told. Environment names are in brackets.

    - ``port`` (HULLDOWN_PORT): listen port, 0..65535.
    - ``redis_url`` (REDIS_URL): a real Redis/Valkey; empty = start the embedded one.
    - ``data_dir`` (HULLDOWN_DATA_DIR): where the embedded Redis keeps its AOF and socket.
    - ``snapshot_every`` (HULLDOWN_SNAPSHOT_EVERY): snapshot the state every K events (K >= 1).
    - ``send_queue`` (HULLDOWN_SEND_QUEUE): per-connection bounded send queue, in messages (>= 1).
    - ``max_frame`` (HULLDOWN_MAX_FRAME): largest websocket frame accepted, in bytes
      (>= :data:`MIN_MAX_FRAME`).
    - ``rate`` (HULLDOWN_RATE): messages per second a connection may send (burst 2x; >= 1).
    - ``create_rate`` (HULLDOWN_CREATE_RATE): ``POST /matches`` requests one client address may
      make in a one-minute window, counted in Redis over every process sharing it (0: no limit).
    - ``key_prefix`` (HULLDOWN_KEY_PREFIX): prefix of every Redis key.
    - ``appendfsync`` (HULLDOWN_APPENDFSYNC): embedded Redis AOF fsync policy (everysec/always/no).
    - ``ws_deflate`` (HULLDOWN_WS_DEFLATE): per-message deflate on websockets (off: patches are small).
    - ``evict_after`` (HULLDOWN_EVICT_AFTER): seconds after which a match nobody uses is dropped
      from the process (loaded again from its snapshot on next use); 0 keeps every match.
    - ``max_matches`` (HULLDOWN_MAX_MATCHES): matches kept in memory at most; beyond it the least
      recently used idle ones are dropped (0: no limit).
    - ``log_format`` (HULLDOWN_LOG_FORMAT): ``text`` or ``json`` (one JSON object per line).
    - ``public_url`` (HULLDOWN_PUBLIC_URL): the http(s) base of the links ``POST /matches``
      answers with; empty: the request's scheme and Host.
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
    create_rate: int = 30
    key_prefix: str = "hulldown"
    appendfsync: str = "everysec"
    public_url: str = ""
    ws_deflate: bool = False
    evict_after: float = 900.0
    max_matches: int = 1000
    log_format: LogFormat = "text"
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
        """Settings from the environment; arguments that are not None (command-line flags,
        already checked by the command line) win. Raises SettingError for a value it cannot use."""
        defaults = cls()
        settings = cls(
            host=host if host is not None else env_text("HULLDOWN_HOST", defaults.host),
            port=port if port is not None else _env_int(PORT_ENV, defaults.port, PORT_BOUNDS),
            redis_url=redis_url if redis_url is not None else env_text("REDIS_URL", ""),
            data_dir=data_dir
            if data_dir is not None
            else Path(env_text("HULLDOWN_DATA_DIR", str(defaults.data_dir))),
            snapshot_every=snapshot_every
            if snapshot_every is not None
            else _env_int(SNAPSHOT_EVERY_ENV, defaults.snapshot_every, SNAPSHOT_EVERY_BOUNDS),
            send_queue=_env_int(SEND_QUEUE_ENV, defaults.send_queue, SEND_QUEUE_BOUNDS),
            max_frame=_env_int(MAX_FRAME_ENV, defaults.max_frame, MAX_FRAME_BOUNDS),
            rate=_env_int(RATE_ENV, defaults.rate, RATE_BOUNDS),
            create_rate=_env_int(CREATE_RATE_ENV, defaults.create_rate, CREATE_RATE_BOUNDS),
            key_prefix=env_text("HULLDOWN_KEY_PREFIX", defaults.key_prefix),
            appendfsync=_env_word(APPENDFSYNC_ENV, defaults.appendfsync, APPENDFSYNC_MODES),
            public_url=_env_public_url(),
            ws_deflate=_env_switch(WS_DEFLATE_ENV),
            evict_after=_env_seconds(EVICT_AFTER_ENV, defaults.evict_after, EVICT_AFTER_BOUNDS),
            max_matches=_env_int(MAX_MATCHES_ENV, defaults.max_matches, MAX_MATCHES_BOUNDS),
            log_format=_env_word(LOG_FORMAT_ENV, defaults.log_format, LOG_FORMATS),
        )
        _check_host(settings.host)
        _check_store_settings(settings)
        _check_examples_dir()
        return settings


def _check_store_settings(settings: Settings) -> None:
    """The Redis URL's scheme, the key prefix and the data dir, checked before anything starts
    (they failed later, with a traceback: in the app's start-up, in the store, in mkdir)."""
    if settings.redis_url:
        scheme = urlsplit(settings.redis_url).scheme
        schemes = (*SUPPORTED_SCHEMES, *CLUSTER_SCHEMES)
        if scheme not in schemes:
            raise SettingError(
                f"REDIS_URL (or --redis-url) must start with {', '.join(s + '://' for s in schemes)}; "
                f"got the scheme {scheme!r}"
            )
    try:
        Keys(settings.key_prefix)
    except ValueError:
        raise SettingError(
            f"HULLDOWN_KEY_PREFIX must be a word without blanks or braces; got {settings.key_prefix!r}"
        ) from None
    if not settings.redis_url:
        problem = data_dir_problem(settings.data_dir)
        if problem is not None:
            raise SettingError(f"HULLDOWN_DATA_DIR (or --data-dir) {settings.data_dir}: {problem}")


def data_dir_problem(path: Path) -> str | None:
    """Why the embedded Redis cannot keep its data in ``path``, if it cannot: it must be a
    directory of this user's (made if missing), not a link to one."""
    if path.is_symlink():
        return "is a symbolic link; give the directory it points to"
    if path.exists() and not path.is_dir():
        return "is not a directory"
    if not path.exists():
        parent = next((p for p in path.absolute().parents if p.exists()), None)
        if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            return f"does not exist and cannot be made in {parent}"
        return None
    if path.stat().st_uid != os.getuid():
        return "is not a directory owned by this user"
    return None
