"""Counters and histograms cheap enough for every act, exported in Prometheus' format when
``/metrics`` is scraped (docs/operations.md).

prometheus-client's own ``Histogram.observe`` takes a lock twice and walks the buckets in Python;
on the act path, with the interpreter's caches cold between two acts, the three observations of
an act cost tens of microseconds. Here an observation is one ``bisect`` (in C) and two
additions, and everything else happens at scrape time, in :meth:`collect`. They are meant for
the event loop's thread (the live server observes only there): observations from several
threads at once could lose counts.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence

from prometheus_client import REGISTRY, CollectorRegistry
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString


class HistogramSeries:
    """The counts and the sum of one histogram's label values."""

    __slots__ = ("_bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self._bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound (+Inf)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        # Bucket ``le`` counts values <= le: the first bound >= value.
        self.counts[bisect.bisect_left(self._bounds, value)] += 1
        self.sum += value


class CounterSeries:
    """The value of one counter's label values."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0.0

    def inc(self, amount: float = 1.0) -> None:
        self.value += amount


class _Family(Collector):
    def __init__(self, name: str, documentation: str, labelnames: Sequence[str]) -> None:
        self.name = name
        self.documentation = documentation
        self.labelnames = tuple(labelnames)

    def _key(self, labels: dict[str, str]) -> tuple[str, ...]:
        if set(labels) != set(self.labelnames):
            raise ValueError(f"{self.name} takes the labels {self.labelnames}, not {tuple(labels)}")
        return tuple(str(labels[name]) for name in self.labelnames)


class LightHistogram(_Family):
    """A histogram (``_bucket``, ``_count``, ``_sum``), registered in the default registry."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str] = (),
        *,
        buckets: Sequence[float],
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        super().__init__(name, documentation, labelnames)
        self.bounds = tuple(sorted(float(b) for b in buckets))
        self._series: dict[tuple[str, ...], HistogramSeries] = {}
        self._plain = None if self.labelnames else self._child(())
        registry.register(self)

    def _child(self, key: tuple[str, ...]) -> HistogramSeries:
        found = self._series.get(key)
        if found is None:
            found = self._series[key] = HistogramSeries(self.bounds)
        return found

    def labels(self, **labels: str) -> HistogramSeries:
        return self._child(self._key(labels))

    def observe(self, value: float) -> None:
        """Observe ``value`` (a histogram without labels)."""
        if self._plain is None:
            raise ValueError(f"{self.name} has labels: observe through labels()")
        self._plain.observe(value)

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for key, series in sorted(self._series.items()):
            cumulative, buckets = 0, []
            for bound, count in zip((*self.bounds, float("inf")), series.counts, strict=True):
                cumulative += count
                buckets.append((_le(bound), cumulative))
            family.add_metric(list(key), buckets, series.sum)
        yield family


class LightCounter(_Family):
    """A counter (``_total``), registered in the default registry."""

    def __init__(
        self,
        name: str,
        documentation: str,
        labelnames: Sequence[str] = (),
        *,
        registry: CollectorRegistry = REGISTRY,
    ) -> None:
        super().__init__(name, documentation, labelnames)
        self._series: dict[tuple[str, ...], CounterSeries] = {}
        self._plain = None if self.labelnames else self._child(())
        registry.register(self)

    def _child(self, key: tuple[str, ...]) -> CounterSeries:
        found = self._series.get(key)
        if found is None:
            found = self._series[key] = CounterSeries()
        return found

    def labels(self, **labels: str) -> CounterSeries:
        return self._child(self._key(labels))

    def inc(self, amount: float = 1.0) -> None:
        """Add ``amount`` (a counter without labels)."""
        if self._plain is None:
            raise ValueError(f"{self.name} has labels: count through labels()")
        self._plain.inc(amount)

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self.name, self.documentation, labels=self.labelnames)
        for key, series in sorted(self._series.items()):
            family.add_metric(list(key), series.value)
        yield family


def _le(bound: float) -> str:
    """A bucket's ``le`` label as prometheus-client writes it."""
    return str(floatToGoString(bound))  # type: ignore[no-untyped-call]
