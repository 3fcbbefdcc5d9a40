"""The start-up heap moved out of the cyclic collector's way (docs/architecture.md section 7,
"Full collections").

A serving process imports and builds some 60,000 objects the collector tracks (modules, functions,
classes, the app, the routes) before its first match, and keeps every one of them for its whole
life. A full collection visits them all, each time, while every match on the process waits: on a
slow 2-core machine that was 52-67 ms of the 74-158 ms that full collections took under 200
matches. :func:`freeze_startup_heap`, called once the server listens, collects what start-up left
unreachable and then freezes the rest (``gc.freeze``): frozen objects are never visited again,
so a full collection walks only what the process made since - its matches and connections.

Only the process's entry points call it (``hulldown serve``, and the benchmark's server that
does what it does). A process that hosts the app among other work (a test run) does not: an
object frozen there is never collected if it later becomes cyclic garbage.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect, then freeze every object the collector tracks; how many are frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
