"""The Prometheus metrics of one server process (served at ``/metrics``; docs/operations.md).

Metrics live in prometheus-client's default registry, so the process collector's
``process_resident_memory_bytes``, ``process_cpu_seconds_total`` and the Python GC metrics come
with them. Labels are bounded sets only (roles, action kinds, rejection codes, Redis command
names) - never a match id or a token.

The sizes of the per-match caches are read when scraped, from the bound :class:`LiveService`
(``bind_service``), so they are exact and cost nothing between scrapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from .. import __version__
from .light_metrics import LightCounter, LightHistogram

# Latency buckets from 0.5 ms to 10 s: acks on loopback take ~1-5 ms, a stalled loop seconds.
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

BUILD_INFO = Gauge("hulldown_build_info", "The running hulldown version (always 1).", ["version"])
BUILD_INFO.labels(version=__version__).set(1)

CONNECTIONS = Gauge(
    "hulldown_connections", "Open websocket connections by role (a, b, spectator, delayed, replay).", ["role"]
)
# On every act's path: the light kinds (live/light_metrics.py), cheap to update, same exposition.
ACTIONS = LightCounter(
    "hulldown_actions_total",
    "Actions received over the live socket, by action kind and outcome (ack, duplicate, rejected).",
    ["kind", "outcome"],
)
REJECTIONS = Counter("hulldown_rejections_total", "Actions rejected, by rejection code.", ["code"])
ACK_SECONDS = LightHistogram(
    "hulldown_ack_seconds",
    "Time from an act frame being decoded to its ack or rejected being queued for the player.",
    buckets=LATENCY_BUCKETS,
)
FOLD_SECONDS = LightHistogram(
    "hulldown_fold_seconds", "Time to fold one event into the match state.", buckets=LATENCY_BUCKETS
)
REDIS_SECONDS = LightHistogram(
    "hulldown_redis_command_seconds",
    "Redis command latency, by command (XREAD includes its BLOCK wait).",
    ["command"],
    buckets=LATENCY_BUCKETS,
)
REDIS_ERRORS = Counter(
    "hulldown_redis_errors_total",
    "Redis commands that failed, by command and error type.",
    ["command", "error"],
)
QUEUE_OVERFLOWS = Counter(
    "hulldown_queue_overflows_total",
    "Connections whose send queue filled up (their queue was dropped for a resync).",
)
RESYNCS = Counter("hulldown_resyncs_total", "Full views sent instead of patches, by reason.", ["reason"])
LOOP_LAG = Histogram(
    "hulldown_event_loop_lag_seconds",
    "How late the event loop woke a periodic timer (the time every coroutine on the loop waited).",
    buckets=LATENCY_BUCKETS,
)
LOOP_LAG_LAST = Gauge("hulldown_event_loop_lag_last_seconds", "The latest event-loop lag measured.")
GC_PAUSE_SECONDS = LightHistogram(
    "hulldown_gc_pause_seconds",
    "How long each cyclic garbage collection held the process, by generation (2: a full one).",
    ["generation"],
    buckets=LATENCY_BUCKETS,
)

for _role in ("a", "b", "spectator", "delayed", "replay"):
    CONNECTIONS.labels(role=_role)
RESYNCS.labels(reason="overflow")
RESYNCS.labels(reason="resume_too_old")


class _CacheCollector(Collector):
    """``hulldown_matches_loaded`` and ``hulldown_cache_entries{cache}``, read at scrape time."""

    def __init__(self) -> None:
        self.sizes: Callable[[], dict[str, int]] | None = None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        sizes = self.sizes() if self.sizes is not None else {}
        loaded = GaugeMetricFamily("hulldown_matches_loaded", "Matches held in this process's memory.")
        loaded.add_metric([], sizes.get("matches", 0))
        yield loaded
        entries = GaugeMetricFamily(
            "hulldown_cache_entries",
            "Entries of each per-match cache of this process (all bounded; docs/operations.md).",
            labels=["cache"],
        )
        for name, size in sorted(sizes.items()):
            entries.add_metric([name], size)
        yield entries


_caches = _CacheCollector()
REGISTRY.register(_caches)


def bind_cache_sizes(sizes: Callable[[], dict[str, int]] | None) -> None:
    """Export the cache sizes ``sizes()`` returns (the process's LiveService), or none."""
    _caches.sizes = sizes
