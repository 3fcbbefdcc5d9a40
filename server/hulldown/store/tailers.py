"""Picking the tailer for a store URL: one XREAD loop on a single Redis (``store/tail.py``), one
loop per primary node on a Redis Cluster (``store/cluster_tail.py``), none on a private store.

A private store is one no other process writes to: the embedded Redis (``store/embedded.py``: one
owner per data directory, held by a lock, on a unix socket under it). The tailer exists to hear
the appends of other processes; on a private store there are none, and every event reaches its
match's runtime from the append that made it. Reading each of them back would cost every action a
second Redis reply (and a new XREAD) for nothing (docs/architecture.md section 5).
"""

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


class PrivateStoreTailer:
    """The tailer of a private store: it knows what is followed and from where, and reads
    nothing (no other process appends)."""

    def __init__(self) -> None:
        self._positions: dict[str, int] = {}
        self._running = False

    @property
    def running(self) -> bool:
        return self._running

    async def start(self) -> None:
        self._running = True

    async def stop(self) -> None:
        self._running = False

    async def follow(self, match_id: str, after_seq: int = 0) -> bool:
        if after_seq < 0:
            raise ValueError("after_seq must be >= 0")
        if match_id in self._positions:
            return False
        self._positions[match_id] = after_seq
        return True

    async def unfollow(self, match_id: str) -> bool:
        return self._positions.pop(match_id, None) is not None

    def following(self) -> dict[str, int]:
        return dict(self._positions)

    def position(self, match_id: str) -> int | None:
        return self._positions.get(match_id)


def make_tailer(
    url: str, on_events: EventsCallback, *, prefix: str = DEFAULT_PREFIX, private: bool = False
) -> Tailer:
    """A ``PrivateStoreTailer`` for a ``private`` store, a ``ClusterStreamTailer`` for a
    ``redis+cluster://`` URL, else a ``StreamTailer``."""
    if private:
        return PrivateStoreTailer()
    if is_cluster_url(url):
        return ClusterStreamTailer(url, on_events, prefix=prefix)
    return StreamTailer(url, on_events, prefix=prefix)
