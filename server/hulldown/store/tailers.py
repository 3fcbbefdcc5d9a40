"""Picking the tailer for a store URL: one XREAD loop on a single Redis (``store/tail.py``), one
loop per primary node on a Redis Cluster (``store/cluster_tail.py``)."""

from __future__ import annotations

from typing import Protocol

from .cluster_tail import ClusterStreamTailer
from .connect import is_cluster_url
from .keys import DEFAULT_PREFIX
from .tail import EventsCallback, StreamTailer


class Tailer(Protocol):
    """What the live service needs of a tailer (``StreamTailer`` or ``ClusterStreamTailer``)."""

    @property
    def running(self) -> bool: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def follow(self, match_id: str, after_seq: int = 0) -> bool: ...

    async def unfollow(self, match_id: str) -> bool: ...

    def following(self) -> dict[str, int]: ...

    def position(self, match_id: str) -> int | None: ...


def make_tailer(url: str, on_events: EventsCallback, *, prefix: str = DEFAULT_PREFIX) -> Tailer:
    """A ``ClusterStreamTailer`` for a ``redis+cluster://`` URL, else a ``StreamTailer``."""
    if is_cluster_url(url):
        return ClusterStreamTailer(url, on_events, prefix=prefix)
    return StreamTailer(url, on_events, prefix=prefix)
