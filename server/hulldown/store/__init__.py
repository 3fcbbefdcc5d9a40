"""Event store on Redis Streams: append/read, snapshots, tailing, embedded Redis."""

from .connect import make_client
from .embedded import EmbeddedRedis
from .keys import DEFAULT_PREFIX, Keys, validate_match_id
from .redis_store import RedisEventStore
from .results import AppendResult, AppendStatus
from .snapshots import should_snapshot
from .tail import EventsCallback, StreamTailer

__all__ = [
    "DEFAULT_PREFIX",
    "AppendResult",
    "AppendStatus",
    "EmbeddedRedis",
    "EventsCallback",
    "Keys",
    "RedisEventStore",
    "StreamTailer",
    "make_client",
    "should_snapshot",
    "validate_match_id",
]
