"""How long the cyclic garbage collector stops the process, per collection (served at
``/metrics`` as ``hulldown_gc_pause_seconds{generation}``; docs/operations.md).

A collection holds the interpreter: no socket is read and no act is decided until it ends, for
every match on the process. Young collections take a millisecond or two on a busy process; a
full one (generation 2) walks every object the collector tracks, and grows with the connections
and matches a process holds (docs/architecture.md section 7, "Full collections"). The collector
calls :func:`_timed` when a collection starts and when it stops; the pause is the time between,
as the process's clock saw it.

Installed for the app's lifetime (``web/ops_routes.py``, ``instrumented``) and removed after the
last app of the process stops, so a test process that starts many apps keeps one callback at
most.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from .light_metrics import HistogramSeries
from .metrics import GC_PAUSE_SECONDS

_started = 0.0
_apps = 0  # apps running in this process that asked for the timing
# The series of each generation, made once: the collector's callback does no label lookup.
_series: tuple[HistogramSeries, ...] = tuple(GC_PAUSE_SECONDS.labels(generation=str(g)) for g in range(3))


def _timed(phase: str, info: dict[str, Any]) -> None:
    """``gc.callbacks`` entry: note the start; at the stop, observe the pause. Called by the
    collector, in whatever thread triggered the collection (one collection at a time)."""
    global _started
    if phase == "start":
        _started = time.perf_counter()
    else:
        _series[info["generation"]].observe(time.perf_counter() - _started)


def install() -> None:
    """Time every collection from now on (one callback, however many apps ask)."""
    global _apps
    _apps += 1
    if _apps == 1:
        gc.callbacks.append(_timed)


def uninstall() -> None:
    """One app no longer asks; the callback goes with the last."""
    global _apps
    if _apps == 0:  # not installed
        return
    _apps -= 1
    if _apps == 0:
        gc.callbacks.remove(_timed)
